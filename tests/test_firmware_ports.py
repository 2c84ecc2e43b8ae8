"""Finding a Pico's serial port from a laptop, as a newcomer does: a port named after another
computer's (the documents' /dev/ttyACM0 on a Mac) is answered with where the Pico plugged in is,
and a port Linux will not open for this user is said to be that, with the group that opens it,
not a port that is missing or busy."""

import errno
import json
import os
import shutil
import stat
import subprocess
import sys
from types import SimpleNamespace

import pytest
import serial

from conftest import ROOT
from controller.cli import main
from controller.firmware import deploy
from controller.firmware.link import Link

SCRIPT = str(ROOT / "tests" / "scenarios" / "R5-equalizer-on-machine-first-drops-1.txt")


def plugged_in(monkeypatch, *ports):
    """The serial ports pyserial lists here: (device, USB vendor id) each."""
    monkeypatch.setattr("serial.tools.list_ports.comports",
                        lambda: [SimpleNamespace(device=device, vid=vid) for device, vid in ports])


def run(*argv):
    out = []
    status = main(list(argv), out=SimpleNamespace(write=out.append, flush=lambda: None))
    return status, "".join(out)


def refused_open(port, *args, **kwargs):
    raise serial.SerialException(errno.EACCES, "could not open port %s: [Errno 13] Permission denied: %r"
                                 % (port, port))


def test_a_port_that_is_not_there_names_the_pico_that_is(monkeypatch, capsys):
    """A Mac names a Pico's port /dev/cu.usbmodem1101, where the documents say /dev/ttyACM0; a
    keyboard's port beside it is no Pico."""
    plugged_in(monkeypatch, ("/dev/cu.usbmodem1101", 0x2E8A), ("/dev/cu.Bluetooth-Incoming-Port", None),
               ("/dev/cu.usbserial-10", 0x0403))
    assert run("firmware", "test", "--port", "/dev/ttyACM0", SCRIPT) == (1, "")
    assert capsys.readouterr().err == "controller firmware: there is no /dev/ttyACM0: the Pico plugged in here " \
        "is on /dev/cu.usbmodem1101: name it with --port\n"


def test_two_picos_plugged_in_are_both_named(monkeypatch, capsys):
    plugged_in(monkeypatch, ("COM4", 0x2E8A), ("COM7", 0x2E8A))
    assert run("firmware", "test", "--port", "COM3", SCRIPT)[0] == 1
    assert capsys.readouterr().err == "controller firmware: there is no COM3: the Picos plugged in here are on " \
        "COM4 and COM7: name it with --port\n"


def test_the_monitor_waiting_for_a_port_that_is_not_there_names_the_pico_that_is(monkeypatch, tmp_path):
    plugged_in(monkeypatch, ("/dev/ttyACM1", 0x2E8A))
    said = []
    link = Link(str(tmp_path / "ttyACM0"), report=said.append)
    assert not link.try_open()
    assert said == ["the board on %s is not there (No such file or directory): waiting for it (the Pico plugged "
                    "in here is on /dev/ttyACM1)" % (tmp_path / "ttyACM0")]


@pytest.mark.parametrize("unit, port", [
    ("drnim-monitor@ttyACM0.service", "/ttyACM0"),
    ("drnim-monitor@dev-serial-by-id-usb-MicroPython_Board_in_FS_mode_e6614c311b7e6f35-if00.service",
     "/dev/serial/by/id/usb/MicroPython_Board_in_FS_mode_e6614c311b7e6f35/if00"),
])
def test_a_monitor_unit_named_by_hand_says_its_port_is_no_serial_port(monkeypatch, unit, port):
    """A technician enabled the monitor by hand, its name not escaped as a path: systemd gave it a port that
    can never come, and it waited for it in silence, the board beside it unwatched for months."""
    if shutil.which("systemd-escape"):     # the port systemd gives such a unit's %I
        assert subprocess.run(["systemd-escape", "--unescape", "--path", "--instance", unit], capture_output=True,
                              text=True, timeout=10).stdout.strip() == port
    monkeypatch.setattr(sys, "platform", "linux")
    plugged_in(monkeypatch, ("/dev/ttyACM0", 0x2E8A))
    said = []
    assert not Link(port, report=said.append).try_open()
    assert said == ["the board on %s is not there (No such file or directory): waiting for it (%s is no serial port: "
                    "a drnim-monitor@ unit's name is its port escaped by systemd-escape --path, as sudo "
                    "systemd/install.sh monitor PORT names it)" % (port, port)]


def test_the_monitor_says_a_port_linux_will_not_open_for_this_user_is_that(monkeypatch):
    """Not 'not there', which sent a newcomer looking for a cable fault: the port is there, and the user
    is not in the group that opens it."""
    monkeypatch.setattr(sys, "platform", "linux")
    monkeypatch.setattr(serial, "Serial", refused_open)
    said = []
    link = Link("/dev/ttyACM0", report=said.append)
    assert not link.try_open()
    assert said == ["this user may not open /dev/ttyACM0 (Permission denied): on Linux a serial port is for the "
                    "dialout group's users: sudo usermod -aG dialout $USER, then log out and in again; waiting for it"]


def test_deploy_says_a_port_linux_will_not_open_for_this_user_is_that_not_one_in_use(tmp_path, monkeypatch, capsys):
    """mpremote says 'failed to access PORT (it may be in use by another program)' for any port it cannot
    open; on a laptop fresh from its box it is a user outside the dialout group."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    mpremote = bin_dir / "mpremote"
    mpremote.write_text("#!%s\nimport sys\nsys.stderr.write('mpremote: failed to access /dev/ttyACM0 (it may be in "
                        "use by another program)\\n')\nsys.exit(1)\n" % sys.executable)
    mpremote.chmod(mpremote.stat().st_mode | stat.S_IEXEC)
    monkeypatch.setenv("PATH", str(bin_dir) + os.pathsep + os.environ["PATH"])
    build = tmp_path / "build"
    build.mkdir()
    (build / "main.py").write_text("import app\n")
    (build / "build.json").write_text(json.dumps({"machine": "nimatron", "files": ["main.py"]}))
    monkeypatch.setattr(deploy, "port_there", lambda port: True)
    monkeypatch.setattr(sys, "platform", "linux")
    monkeypatch.setattr(serial, "Serial", refused_open)
    assert run("firmware", "deploy", "--port", "/dev/ttyACM0", "--build", str(build)) == (1, "")
    assert capsys.readouterr().err == "controller firmware: this user may not open /dev/ttyACM0 (Permission " \
        "denied): on Linux a serial port is for the dialout group's users: sudo usermod -aG dialout $USER, then " \
        "log out and in again\n"


@pytest.mark.parametrize("platform", ["win32", "darwin"])
def test_elsewhere_a_port_that_cannot_be_opened_is_not_sent_to_the_dialout_group(monkeypatch, platform):
    """Windows denies access to a port another program holds: that is not a group to join."""
    monkeypatch.setattr(sys, "platform", platform)
    monkeypatch.setattr(serial, "Serial", refused_open)
    said = []
    Link("COM3", report=said.append).try_open()
    assert "dialout" not in said[0]
