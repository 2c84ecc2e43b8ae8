"""Refusing to drive the pins while the service drives them.

Two ways to know, both turned into the same one line:

- the service's heartbeat, `status.json` in its runtime folder
  (/run/drnim-controller, which systemd empties when the service stops),
  names its pid: when that process is alive and is a `controller`, the
  service holds the pins (a stale file after a crash, or a pid reused by
  another program, is ignored);
- a service started some other way (by hand, another runtime folder), or
  whose heartbeat this user may not read, is caught when the board is built: lgpio refuses a line another process has
  claimed ("GPIO busy"), and gpiozero refuses a pin already in use. A kernel driver holding a
  line (a fan's gpio-fan overlay) looks the same, so that line names it too.
"""

import json
import os

from controller.core.exhibit import ConfigError
from controller.hardware.pins_held import PinHeld, held_elsewhere

UNIT = "drnim-controller"


class ServiceRunning(ConfigError):
    """The service holds the pins; the message says how to stop it."""


# With the service stopped, what else holds a pin: a driver the boot configuration starts.
DRIVER = ("; with it stopped, a HAT's or a fan's driver holds one of the map's pins (a dtoverlay line in "
          "/boot/firmware/config.txt; `gpioinfo` names the holder of each line): list that pin under [reserved] in "
          "the pin map and move its role to a free pin (hardware/README.md: A HAT or a fan on the header)")


def stop_first(what):
    return ServiceRunning("%s holds the pins: stop it first with `sudo systemctl stop %s`, then run this again "
                          "(and `sudo systemctl start %s` after)" % (what, UNIT, UNIT))


def service_pid(config):
    """The pid of a running service named by the heartbeat, or None."""
    try:
        with open(os.path.join(config.runtime_dir(), "status.json"), encoding="utf-8") as f:
            pid = json.load(f)["pid"]
    except (OSError, ValueError, KeyError, TypeError):
        return None
    if pid == os.getpid() or not controller_alive(pid):
        return None
    return pid


def process_alive(pid):
    """True when process `pid` exists (a pid from a stale heartbeat may have ended)."""
    if not isinstance(pid, int) or isinstance(pid, bool) or not 0 < pid < 2 ** 31:
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        pass          # alive, and someone else's (the drnim user's)
    return True


def controller_alive(pid):
    """True when process `pid` is alive and is a `controller` (a pid from a stale
    heartbeat may have ended, or been reused by another program)."""
    if not process_alive(pid):
        return False
    try:
        with open("/proc/%d/cmdline" % pid, "rb") as f:
            if b"controller" not in f.read():
                return False
    except OSError:
        pass          # no /proc here, or hidden from us: trust the heartbeat
    return True


def check_free(config):
    """ServiceRunning when the service holds the pins."""
    pid = service_pid(config)
    if pid is not None:
        raise stop_first("the service (pid %d)" % pid)


def busy(error):
    """A gpiozero or lgpio error that says another program has the pins: the
    one line to show instead, or None for any other error."""
    if not held_elsewhere(error):
        return None
    text = str(error)
    where = "the %s, %s: %s" % (error.role, error.bcm(), error.why) if isinstance(error, PinHeld) else \
        text.splitlines()[0] if text else "busy"
    return str(stop_first("another program (the service?)")) + DRIVER + " [%s]" % where
