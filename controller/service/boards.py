"""The boards a Pi watches (`controller firmware monitor`, drnim-monitor@.service): each its own exhibit.

A museum may put one Pi between two machines: its own (the service) and a
Pico on its USB, or two Picos. Each is an exhibit of its own, with a name
on the broker and statistics apart: two MQTT clients with one client_id
throw each other off the broker every second, and one telemetry queue read
by two processes sends each one's games as the other's. So a monitor never
takes the configuration's own client_id unless `[boards]` gives it:

    [boards]
    "/dev/serial/by-id/usb-MicroPython_Board_in_FS_mode_e6614c311b7e6f35-if00" = "hall2-nimatron"

names the board on that port (the port as the monitor is given it); a board
not named there is "<client_id>-<its USB serial number>" (or "-ttyACM0" for a
port without one). Its statistics and telemetry queue are kept in
<state_dir>/boards/<name>/, never in the Pi service's files; but a board
given the configuration's own client_id in [boards] is the Pi's exhibit (a
Pi that watches one board in place of its own machine) and keeps the state
folder's stats.sqlite and telemetry.sqlite.
"""

import os
import re

from controller.core.exhibit import ConfigError
from controller.telemetry.settings import RESERVED

# The folder under the state folder that holds one folder per board's exhibit.
BOARDS_FOLDER = "boards"
# A name that is also a folder's: no slash, nothing hidden, nothing a shell or systemd would mangle.
NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,63}\Z")
# A /dev/serial/by-id link: usb-<maker>_<product>_<serial number>-if<interface>.
BY_ID = re.compile(r"usb-.*_([A-Za-z0-9]+)-if[0-9]+\Z")


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


def board_tag(port):
    """What tells this board from another on the same Pi: a by-id link's USB serial number (the
    Pico's own, whichever socket it is in), else the port's name (ttyACM0, COM3)."""
    name = os.path.basename(port.rstrip("/\\")) or port
    found = BY_ID.match(name)
    if found:
        return found.group(1)
    return re.sub(r"[^A-Za-z0-9._-]", "_", name).lstrip(".") or "board"


def board_exhibit(config, port):
    """The exhibit name of the board on `port`: its [boards] name, else "<client_id>-<board_tag>"."""
    if port in config.boards:
        return config.boards[port]
    name = "%s-%s" % (config.telemetry["client_id"], board_tag(port))
    if len(name.encode()) > 64:
        raise ConfigError("%s: the board on %s would be named %r, longer than 64 bytes: give it a name in "
                          "[boards] (\"%s\" = \"hall2-nimatron\")" % (config.path or "the defaults", port, name, port))
    return name


def board_folder(config, name):
    """The folder of the board exhibit `name`: its statistics and its telemetry queue. A board named as
    the configuration's own exhibit (its client_id) is that exhibit, watched in place of the Pi's own
    machine, and keeps the state folder's files, as before boards had folders of their own."""
    if name == config.telemetry["client_id"]:
        return config.state_dir()
    return os.path.join(config.state_dir(), BOARDS_FOLDER, re.sub(r"[^A-Za-z0-9._-]", "_", name).lstrip(".") or "_")

