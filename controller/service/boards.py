"""The boards a Pi watches (`controller firmware monitor`, drnim-monitor@.service): each its own exhibit.

A museum may put one Pi between two machines: its own (the service) and a
Pico on its USB, or two Picos. Each is an exhibit of its own, with a name
on the broker and statistics apart: two MQTT clients with one client_id
throw each other off the broker every second, and one telemetry queue read
by two processes sends each one's games as the other's. `[boards]` names a
board by its port (the port as the monitor is given it):

    [boards]
    "/dev/serial/by-id/usb-MicroPython_Board_in_FS_mode_e6614c311b7e6f35-if00" = "hall2-nimatron"

and that board keeps its statistics and telemetry queue in
<state_dir>/boards/<name>/. A board not named there is the configuration's
own exhibit (its client_id, the state folder's stats.sqlite and
telemetry.sqlite), as every board was before [boards]: a Pi that watches one
board in place of its own machine goes on as it was after an update. Whoever
runs an exhibit holds its folder's lock (`hold`, exhibit_lock.py), so a second
board left unnamed, or a board beside the Pi's own machine, is refused in one
line that says what to add to [boards].
"""

import os
import re

from controller.core.exhibit import ConfigError
from controller.service.exhibit_lock import Held, take
from controller.telemetry.settings import RESERVED

# The folder under the state folder that holds one folder per board's exhibit.
BOARDS_FOLDER = "boards"
# A name that is also a folder's: no slash, nothing hidden, nothing a shell or systemd would mangle.
NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,63}\Z")


def check_boards(where, given):
    """The checked [boards] table: {port: exhibit name}; ConfigError naming the key."""
    boards = {}
    for port, name in given.items():
        key = "boards.%s" % quoted_key(port)
        if not port.strip():
            raise ConfigError("%s: %s: a board's serial port, such as \"/dev/serial/by-id/usb-MicroPython_...\"" % (
                where, key))
        if not isinstance(name, str) or not NAME.match(name) or any(c in RESERVED for c in name):
            raise ConfigError("%s: %s: %r: the board's exhibit name: 1 to 64 letters, digits, - _ and ., "
                              "beginning with a letter or digit" % (where, key, name))
        if name in boards.values():
            other = next(p for p, n in boards.items() if n == name)
            raise ConfigError("%s: %s: %r is already the name of the board on %s: each board needs its own"
                              % (where, key, name, other))
        boards[port] = name
    return boards


def quoted_key(port):
    return port if re.fullmatch(r"[A-Za-z0-9_-]+", port) else '"%s"' % port.replace('"', '\\"')


def board_exhibit(config, port):
    """The exhibit name of the board on `port`: its [boards] name, else the configuration's own."""
    return config.boards.get(port, config.telemetry["client_id"])


def exhibit_named(config, name):
    """`name`, an exhibit of the configuration (its own, its client_id, or a board [boards] names);
    ValueError naming the ones it has."""
    own = config.telemetry["client_id"]
    if name != own and name not in config.boards.values():
        raise ValueError("%s: %s has no such exhibit: its own is %s%s" % (
            name, config.path or "the default configuration", own,
            ", and [boards] names %s" % ", ".join(sorted(config.boards.values())) if config.boards
            else ", and it has no [boards]"))
    return name


def board_folder(config, name):
    """The folder of the board exhibit `name`: its statistics and its telemetry queue. A board named as
    the configuration's own exhibit (its client_id) is that exhibit, watched in place of the Pi's own
    machine, and keeps the state folder's files, as before boards had folders of their own."""
    if name == config.telemetry["client_id"]:
        return config.state_dir()
    return os.path.join(config.state_dir(), BOARDS_FOLDER, folder_name(name))


# Where the boards' monitors write their heartbeats: drnim-monitor@.service's runtime folder, which every
# instance shares and none removes (RuntimeDirectoryPreserve=yes). Not the service's /run/drnim-controller,
# which systemd removes whenever the service stops.
MONITORS_RUNTIME = "/run/drnim-monitor"


def board_runtime_folder(config, name):
    """Where the monitor of the board exhibit `name` writes its heartbeat (firmware/heartbeat.py): a folder
    of MONITORS_RUNTIME, or of the service's runtime folder where the configuration names one (a test's)."""
    root = os.path.join(config.service["runtime_dir"], BOARDS_FOLDER) if config.service["runtime_dir"] \
        else MONITORS_RUNTIME
    return os.path.join(root, folder_name(name))


def folder_name(name):
    return re.sub(r"[^A-Za-z0-9._-]", "_", name).lstrip(".") or "_"


def hold(config, folder, exhibit, port):
    """The lock of the exhibit's folder (exhibit_lock.py), held while the board on `port` runs it; None
    where it cannot be had (nothing of the exhibit is kept: the statistics say so) or the computer has
    no fcntl (Windows: one laptop, one board). ConfigError when another controller, the Pi's service or
    a monitor, runs that exhibit."""
    try:
        return take(folder, port)[0]
    except (ImportError, OSError):
        return None
    except Held as held:
        if held.port is not None and os.path.realpath(held.port) == os.path.realpath(port):
            unit = "drnim-monitor@$(systemd-escape --path %s).service" % port
            raise ConfigError("%s: %s already watches this board, the exhibit %s, and a board has one monitor: follow "
                              "that one (journalctl -u %s -f), or stop it first (sudo systemctl stop %s)"
                              % (config.path or "the defaults", held.who(), exhibit, unit, unit))
        raise ConfigError("%s: %s runs the exhibit %s, whose files are in %s: name the board on %s in [boards], "
                          "as \"%s\" = \"%s-2\", for an exhibit of its own"
                          % (config.path or "the defaults", held.who(), exhibit, folder, port, port, exhibit))
