"""The systemd side of the Pi service: the unit, the sysusers file and install.sh.

Checked with systemd's own tools (systemd-analyze verify and security, systemd-sysusers),
which come with the Debian package `systemd` (version 250 or newer: Debian 12, Ubuntu 24.04).
Nothing here needs root, a network, a Raspberry Pi or a running systemd, and nothing is
installed on this machine: install.sh is only parsed, and run only for its boot-configuration
step on a temporary file.
"""
import functools
import os
import re
import select
import shlex
import shutil
import signal
import subprocess
import sys
from pathlib import Path

import pytest

import file_pins
from conftest import ROOT, tool
from controller.hardware.pinmap import default_pinmap_path, load_pinmap
from controller.service.boards import MONITORS_RUNTIME
from service_rig import write_config

SYSTEMD = ROOT / "systemd"
UNIT = SYSTEMD / "drnim-controller.service"
SYSUSERS = SYSTEMD / "drnim-controller.sysusers"
INSTALL = SYSTEMD / "install.sh"
EXEC = "/opt/drnim-controller/venv/bin/controller"
CONFIG = "/etc/drnim-controller/config.toml"
HOST_UNIT_DIRS = ("/usr/lib/systemd/system", "/lib/systemd/system")
MISSING = "{} is missing: install the Debian package `systemd` (apt-get install systemd)"


def systemd_tool(name):
    path = shutil.which(name) or next(
        (p for p in (f"/usr/bin/{name}", f"/bin/{name}") if os.access(p, os.X_OK)), None)
    if path is None:
        pytest.skip(MISSING.format(name))
    return path


@functools.lru_cache(maxsize=None)
def systemd_analyze():
    """Called from the tests, not a fixture: a missing tool skips each test that runs it, saying so."""
    path = systemd_tool("systemd-analyze")
    version = subprocess.run([path, "--version"], capture_output=True, text=True, timeout=10).stdout
    found = re.match(r"systemd (\d+)", version)
    if found is None or int(found.group(1)) < 250:
        pytest.fail(f"{path} is too old ({version.partition(chr(10))[0] or 'no version'}): "
                    "`security --offline` and `verify --root` need systemd 250 or newer "
                    "(Debian 12, Ubuntu 24.04)")
    return path


def run(*args):
    env = dict(os.environ, SYSTEMD_PAGER="", SYSTEMD_COLORS="0", LC_ALL="C.UTF-8")
    return subprocess.run(args, capture_output=True, text=True, timeout=30, env=env)


def parse_unit(path):
    """{section: {key: [values]}}, the way systemd reads a unit: repeated keys add up
    (DeviceAllow=), an empty assignment clears the list."""
    sections, current = {}, None
    for number, raw in enumerate(path.read_text().splitlines(), 1):
        line = raw.strip()
        if not line or line[0] in "#;":
            continue
        assert not line.endswith("\\"), f"{path.name}:{number}: continuation lines are not parsed here"
        if line.startswith("["):
            current = sections.setdefault(line.strip("[]"), {})
            continue
        assert current is not None and "=" in line, f"{path.name}:{number}: not key=value: {raw!r}"
        key, value = (part.strip() for part in line.split("=", 1))
        values = current.setdefault(key, [])
        if value:
            values.append(value)
        else:
            values.clear()
    return sections


@pytest.fixture(scope="module")
def service():
    return parse_unit(UNIT)["Service"]


def one(service, key):
    values = service.get(key, [])
    assert len(values) == 1, f"{key}= should be set once, found {values}"
    return values[0]


def make_root(tmp_path, stub=True):
    """A file-system tree for `systemd-analyze verify --root`: the host's own system units
    (the targets this unit depends on), the unit, an executable stub where install.sh puts
    the controller, and the users from the sysusers file."""
    root = tmp_path / "root"
    host_units = next((Path(d) for d in HOST_UNIT_DIRS if Path(d, "multi-user.target").exists()), None)
    if host_units is None:
        pytest.fail(MISSING.format(f"systemd's unit directory ({' or '.join(HOST_UNIT_DIRS)})"))
    shutil.copytree(host_units, root / "usr/lib/systemd/system", symlinks=True)
    unit = root / "etc/systemd/system" / UNIT.name
    unit.parent.mkdir(parents=True)
    shutil.copyfile(UNIT, unit)
    if stub:
        controller = root / EXEC.lstrip("/")
        controller.parent.mkdir(parents=True)
        controller.write_text("#!/bin/sh\nexit 0\n")
        controller.chmod(0o755)
    sysusers(root)
    return root, unit


def sysusers(root):
    """Run the sysusers file against `root`, whose /etc/group has Debian's dialout."""
    (root / "etc").mkdir(parents=True, exist_ok=True)
    (root / "etc/passwd").write_text("root:x:0:0:root:/root:/bin/bash\n")
    (root / "etc/group").write_text("root:x:0:\ndialout:x:20:\n")
    result = run(systemd_tool("systemd-sysusers"), f"--root={root}", str(SYSUSERS))
    assert result.returncode == 0, result.stderr
    return result


def test_unit_verifies_clean(tmp_path):
    analyze = systemd_analyze()
    root, unit = make_root(tmp_path)
    result = run(analyze, "verify", f"--root={root}", "--man=no", "--generators=no", str(unit))
    assert (result.returncode, result.stdout + result.stderr) == (0, "")


def test_verify_checks_the_executable(tmp_path):
    analyze = systemd_analyze()
    # The clean verify above means something: without the stub, verify sees no controller.
    root, unit = make_root(tmp_path, stub=False)
    result = run(analyze, "verify", f"--root={root}", "--man=no", "--generators=no", str(unit))
    assert result.returncode != 0
    assert f"{EXEC} is not executable" in result.stdout + result.stderr


def test_security_exposure_at_most_0_4():
    analyze = systemd_analyze()
    result = run(analyze, "security", "--offline=true", "--no-pager", str(UNIT))
    assert result.returncode == 0, result.stderr
    found = re.search(r"Overall exposure level for \S+: (\d+(?:\.\d+)?)", result.stdout)
    assert found, result.stdout + result.stderr
    assert float(found.group(1)) <= 0.4, result.stdout


def test_notify_and_watchdog(service):
    assert one(service, "Type") == "notify"
    assert one(service, "NotifyAccess") == "main"
    assert one(service, "WatchdogSec") == "10s"
    assert one(service, "Restart") == "on-failure"
    assert one(service, "RestartSec") == "2s"
    assert "TimeoutStopSec" in service


def test_runs_as_drnim_in_gpio_and_dialout(service):
    assert one(service, "User") == "drnim"
    groups = " ".join(service["SupplementaryGroups"]).split()
    assert "gpio" in groups and "dialout" in groups
    assert one(service, "ExecStart") == f"{EXEC} run --config {CONFIG}"


def test_every_end_of_the_service_runs_safe_off_with_its_configuration(service):
    # ExecStopPost= runs after a stop, a crash, a watchdog kill and a failed start alike.
    assert one(service, "ExecStopPost") == f"{EXEC} safe-off --config {CONFIG}"


def stop_post_command(service, controller, config):
    """The unit's ExecStopPost= as systemd runs it: the prefixes that only change how
    systemd treats it dropped, split into words, with this checkout's paths."""
    words = shlex.split(one(service, "ExecStopPost").lstrip("-@:+!"))
    return [controller if word == EXEC else config if word == CONFIG else word for word in words]


def read_line(process, timeout=60):
    ready, _, _ = select.select([process.stdout], [], [], timeout)
    return process.stdout.readline().strip() if ready else "(nothing in %d s)" % timeout


def test_a_kill_in_a_release_pulse_leaves_the_solenoid_on_until_the_stop_command_runs(tmp_path, service):
    """The real loop on pins that keep their level after the process dies (file_pins.py),
    hung with the release energised, killed with SIGKILL; then the unit's own
    ExecStopPost= command, in a new process, finds the pin and switches it off."""
    env = file_pins.environment(tmp_path)
    pins = env[file_pins.FOLDER]
    config = write_config(tmp_path)
    release = load_pinmap(default_pinmap_path("drnim")).outputs["release"].pin
    rig = subprocess.Popen([sys.executable, str(ROOT / "tests/pulse_rig.py"), str(config)],
                           stdout=subprocess.PIPE, text=True, env=env, cwd=tmp_path)
    try:
        assert read_line(rig) == "RELEASED"
        assert file_pins.level(pins, release) == 1.0, "the release pin should be active during the pulse"
    finally:
        rig.send_signal(signal.SIGKILL)
        rig.wait(timeout=30)
        rig.stdout.close()
    assert rig.returncode == -signal.SIGKILL
    assert file_pins.level(pins, release) == 1.0, "the killed service left the solenoid energised"

    result = subprocess.run(stop_post_command(service, tool("controller"), str(config)), env=env, cwd=tmp_path,
                            capture_output=True, text=True, timeout=60)
    assert (result.returncode, result.stderr) == (0, "")
    assert "release off (BCM %d)" % release in result.stdout and result.stdout.count("\n") == 1
    assert file_pins.level(pins, release) == 0.0


def test_directories(service):
    assert one(service, "StateDirectory") == "drnim-controller"
    assert one(service, "RuntimeDirectory") == "drnim-controller"
    assert one(service, "ConfigurationDirectory") == "drnim-controller"
    # lgpio writes its pipes into the working directory: the runtime directory.
    assert one(service, "WorkingDirectory") == "/run/" + one(service, "RuntimeDirectory")
    assert one(service, "ProtectSystem") == "strict"


def test_devices(service):
    assert one(service, "PrivateDevices") == "no"
    assert one(service, "DevicePolicy") == "closed"
    allowed = {entry.split()[0]: entry.split()[1] for entry in service["DeviceAllow"]}
    for node in ["char-gpiochip", "/dev/gpiomem", "/dev/gpiomem0", "/dev/ttyAMA0", "/dev/ttyS0"]:
        assert allowed.get(node) == "rw", f"DeviceAllow= lacks {node} rw"
    # /dev/ttyACM0 and /dev/ttyUSB0, by number so that a later plug-in works.
    assert allowed.get("/dev/char/166:0") == "rw" and allowed.get("/dev/char/188:0") == "rw"


def test_every_gpio_chip_is_allowed_whatever_the_kernel_numbers_it():
    """systemd's own reading of the device ACL: the GPIO chips by their device group (every
    /dev/gpiochipN, whatever its N), not by name. The unit named gpiochip0 to gpiochip4, and a
    Pi 5 kernel that numbers its chips from 10 left the service no chip to open."""
    result = run(systemd_analyze(), "security", "--offline=true", "--no-pager", str(UNIT))
    found = re.search(r"DeviceAllow=\s+Service has a device ACL with some special devices: (.*?)\s+\d+\.\d+$",
                      result.stdout, re.MULTILINE)
    assert found, result.stdout + result.stderr
    acl = found.group(1).split()
    assert "char-gpiochip:rw" in acl
    assert [entry for entry in acl if entry.startswith("/dev/gpiochip")] == []


def test_no_network_but_sd_notify(service):
    assert one(service, "PrivateNetwork") == "yes"
    assert one(service, "IPAddressDeny") == "any"
    assert one(service, "RestrictAddressFamilies") == "AF_UNIX"


def test_installs_into_multi_user():
    assert parse_unit(UNIT)["Install"]["WantedBy"] == ["multi-user.target"]


def test_sysusers_makes_drnim_in_gpio_and_dialout(tmp_path):
    result = sysusers(tmp_path)
    passwd = {line.split(":")[0]: line.split(":") for line in (tmp_path / "etc/passwd").read_text().splitlines()}
    group = {line.split(":")[0]: line.split(":") for line in (tmp_path / "etc/group").read_text().splitlines()}
    assert "drnim" in passwd and passwd["drnim"][6].endswith("nologin")
    assert 0 < int(passwd["drnim"][2]) < 1000, "drnim should be a system user"
    assert "drnim" in group["gpio"][3].split(","), "gpio is created where missing, with drnim in it"
    assert group["dialout"][2] == "20", "the existing dialout group is kept"
    assert "drnim" in group["dialout"][3].split(",")
    assert "Creating group 'dialout'" not in result.stdout + result.stderr


def test_install_script_parses():
    result = subprocess.run(["bash", "-n", str(INSTALL)], capture_output=True, text=True, timeout=10)
    assert (result.returncode, result.stderr) == (0, "")
    assert os.access(INSTALL, os.X_OK), "install.sh should be executable"
    text = INSTALL.read_text()
    assert "set -euo pipefail" in text
    assert "systemctl enable --now" in text


def test_install_script_shellcheck():
    shellcheck = shutil.which("shellcheck")
    if shellcheck is None:
        pytest.skip("shellcheck is missing (apt-get install shellcheck)")
    result = subprocess.run([shellcheck, str(INSTALL)], capture_output=True, text=True, timeout=30)
    assert result.returncode == 0, result.stdout + result.stderr


PI_OS_CONFIG = """# For more options and information see http://rptl.io/configtxt
dtparam=audio=on
camera_auto_detect=1
[cm4]
otg_mode=1
[all]
[pi4]
arm_boost=1
"""


def strict_gpiod(config_txt, switch):
    return subprocess.run(["bash", str(INSTALL), "strict-gpiod", switch], capture_output=True, text=True,
                          timeout=30, env=dict(os.environ, BOOT_CONFIG=str(config_txt)))


def active_lines(text):
    """config.txt's lines that apply on every Pi: those not under a model's [section]."""
    section, lines = "all", []
    for line in text.splitlines():
        if line.startswith("["):
            section = line.strip("[]")
        elif section == "all" and line and not line.startswith("#"):
            lines.append(line)
    return lines


def test_install_adds_strict_gpiod_for_every_pi_once_and_removes_exactly_it(tmp_path):
    config_txt = tmp_path / "config.txt"
    config_txt.write_text(PI_OS_CONFIG)
    added = strict_gpiod(config_txt, "on")
    assert added.returncode == 0, added.stderr
    assert "Added dtparam=strict_gpiod to %s" % config_txt in added.stdout and "next reboot" in added.stdout
    assert "dtparam=strict_gpiod" in active_lines(config_txt.read_text()), "not under [pi4]: for every Pi"
    once = config_txt.read_text()

    again = strict_gpiod(config_txt, "on")
    assert again.returncode == 0 and "already set" in again.stdout
    assert config_txt.read_text() == once

    removed = strict_gpiod(config_txt, "off")
    assert removed.returncode == 0, removed.stderr
    assert "Removed" in removed.stdout
    assert config_txt.read_text() == PI_OS_CONFIG


def test_strict_gpiod_set_by_hand_is_kept(tmp_path):
    config_txt = tmp_path / "config.txt"
    config_txt.write_text("dtparam=audio=on,strict_gpiod\n")
    assert "by you" in strict_gpiod(config_txt, "on").stdout
    assert "nothing to remove" in strict_gpiod(config_txt, "off").stdout
    assert config_txt.read_text() == "dtparam=audio=on,strict_gpiod\n"


def test_a_boot_partition_mounted_read_only_is_said_so_to_root(tmp_path):
    """raspi-config's write-protected boot partition: root was told 'run as root (sudo)'. In a user namespace,
    as root there, with the file's folder a tmpfs remounted read-only."""
    unshare = shutil.which("unshare")
    if unshare is None:
        pytest.skip("unshare is missing (apt-get install util-linux)")
    boot = tmp_path / "boot"
    boot.mkdir()
    script = ('set -e; mount -t tmpfs none "$1"; printf "dtparam=audio=on\\n" >"$1/config.txt"; '
              'mount -o remount,ro "$1"; BOOT_CONFIG="$1/config.txt" exec bash "$2" strict-gpiod on')
    result = subprocess.run([unshare, "--map-root-user", "--mount", "bash", "-c", script, "ro", str(boot), str(INSTALL)],
                            capture_output=True, text=True, timeout=60)
    if "mount:" in result.stderr:
        pytest.skip("unshare cannot mount in a user namespace here: %s" % result.stderr.strip())
    assert (result.returncode, result.stderr) == (1, "install.sh: error: cannot write %s/config.txt: its file "
                                                  "system is mounted read-only (raspi-config's write-protected boot "
                                                  "partition, or its Overlay File System): turn that off, reboot, "
                                                  "and run this again\n" % boot)


def test_strict_gpiod_without_a_boot_configuration_is_one_line(tmp_path):
    result = strict_gpiod(tmp_path / "missing.txt", "on")
    assert result.returncode == 1
    assert result.stderr == "install.sh: error: BOOT_CONFIG=%s: no such file\n" % (tmp_path / "missing.txt")


def test_the_install_sets_strict_gpiod_before_it_starts_the_service():
    lines = [line.strip() for line in INSTALL.read_text().splitlines()]
    starts = [at for at, line in enumerate(lines) if line.startswith(('systemctl restart "$NAME"',
                                                                       'systemctl enable --now --quiet "$NAME"'))]
    assert len(starts) == 2 and lines.count("strict_gpiod_on") == 1
    assert lines.index("strict_gpiod_on") < min(starts)


def telemetry_root(tmp_path):
    """The units as install.sh leaves them with [telemetry] on: the controller with its
    drop-in, the socket and its proxy (with a stub where systemd keeps the proxy)."""
    root, unit = make_root(tmp_path)
    for name in ("drnim-mqtt.socket", "drnim-mqtt.service"):
        shutil.copyfile(SYSTEMD / name, unit.parent / name)
    dropin = unit.parent / (UNIT.name + ".d") / "telemetry.conf"
    dropin.parent.mkdir()
    shutil.copyfile(SYSTEMD / "drnim-controller-telemetry.conf", dropin)
    proxy = root / "usr/lib/systemd/systemd-socket-proxyd"
    proxy.write_text("#!/bin/sh\nexit 0\n")
    proxy.chmod(0o755)
    return root, unit


def exposure(analyze, root, name):
    result = run(analyze, "security", "--offline=true", f"--root={root}", "--no-pager", name)
    found = re.search(r"Overall exposure level for \S+: (\d+(?:\.\d+)?)", result.stdout)
    assert found, result.stdout + result.stderr
    return float(found.group(1)), result.stdout


def test_with_telemetry_the_controller_stays_without_network_and_the_proxy_at_most_1_0(tmp_path):
    analyze = systemd_analyze()
    root, unit = telemetry_root(tmp_path)
    level, text = exposure(analyze, root, UNIT.name)
    assert level <= 0.4, text
    assert "RestrictAddressFamilies=~AF_(INET|INET6)" not in [line.split()[1] for line in text.splitlines()
                                                             if line.startswith("✗")]
    level, text = exposure(analyze, root, "drnim-mqtt.service")
    assert level <= 1.0, text
    result = run(analyze, "verify", f"--root={root}", "--man=no", "--generators=no", str(unit),
                 str(unit.parent / "drnim-mqtt.socket"), str(unit.parent / "drnim-mqtt.service"))
    assert (result.returncode, result.stdout + result.stderr) == (0, "")


def test_the_telemetry_drop_in_points_the_controller_at_the_socket():
    socket_path = parse_unit(SYSTEMD / "drnim-mqtt.socket")["Socket"]["ListenStream"]
    dropin = parse_unit(SYSTEMD / "drnim-controller-telemetry.conf")
    assert dropin["Service"]["Environment"] == ["DRNIM_MQTT_SOCKET=" + socket_path[0]]
    assert dropin["Unit"]["Wants"] == ["drnim-mqtt.socket"]


# --- drnim-monitor@.service: a Pi that watches a board running the firmware -----------------
MONITOR = SYSTEMD / "drnim-monitor@.service"
BOARD_PORT = "/dev/serial/by-id/usb-MicroPython_Board_in_FS_mode_e6614c311b7e6f35-if00"


def monitor_root(tmp_path, telemetry=False):
    """The tree install.sh monitor leaves: the template and its instance for BOARD_PORT,
    with the telemetry drop-in and units when `telemetry`; (root, instance name)."""
    root, unit = telemetry_root(tmp_path) if telemetry else make_root(tmp_path)
    shutil.copyfile(MONITOR, unit.parent / MONITOR.name)
    if telemetry:
        dropin = unit.parent / (MONITOR.name + ".d") / "telemetry.conf"
        dropin.parent.mkdir()
        shutil.copyfile(SYSTEMD / "drnim-controller-telemetry.conf", dropin)
    escaped = run(systemd_tool("systemd-escape"), "--path", BOARD_PORT)
    assert escaped.returncode == 0, escaped.stderr
    return root, "drnim-monitor@%s.service" % escaped.stdout.strip()


def test_the_monitor_instance_verifies_clean_and_exposes_as_little_as_the_service(tmp_path):
    analyze = systemd_analyze()
    root, instance = monitor_root(tmp_path)
    result = run(analyze, "verify", f"--root={root}", "--man=no", "--generators=no", instance)
    assert (result.returncode, result.stdout + result.stderr) == (0, "")
    level, text = exposure(analyze, root, instance)
    assert level <= 0.4, text


def test_with_telemetry_the_monitor_too_reaches_the_broker_only_through_the_socket(tmp_path):
    analyze = systemd_analyze()
    root, instance = monitor_root(tmp_path, telemetry=True)
    level, text = exposure(analyze, root, instance)
    assert level <= 0.4, text
    result = run(analyze, "verify", f"--root={root}", "--man=no", "--generators=no", instance)
    assert (result.returncode, result.stdout + result.stderr) == (0, "")


def test_the_monitor_watches_the_port_its_instance_names(tmp_path):
    """install.sh names the instance with systemd-escape --path; %I gives it back
    unescaped, without its leading slash, which the unit puts back."""
    monitor = parse_unit(MONITOR)["Service"]
    assert shlex.split(one(monitor, "ExecStart")) == [EXEC, "firmware", "monitor", "--port", "/%I", "--config", CONFIG]
    _, instance = monitor_root(tmp_path)
    name = instance[len("drnim-monitor@"):-len(".service")]
    unescaped = run(systemd_tool("systemd-escape"), "--unescape", name).stdout.strip()
    assert "/" + unescaped == BOARD_PORT
    assert one(monitor, "User") == "drnim" and one(monitor, "SupplementaryGroups") == "dialout"
    assert one(monitor, "DeviceAllow") == "char-ttyACM rw"
    # the Pi service's run directory must outlive a monitor's stop, and each monitor's heartbeat another's
    assert one(monitor, "RuntimeDirectory") != one(parse_unit(UNIT)["Service"], "RuntimeDirectory")
    assert one(monitor, "RuntimeDirectoryPreserve") == "yes"
    assert "/run/" + one(monitor, "RuntimeDirectory") == MONITORS_RUNTIME, "where the heartbeats are written"
    assert one(monitor, "StateDirectory") == parse_unit(UNIT)["Service"]["StateDirectory"][0]


@pytest.mark.parametrize("arguments,said", [
    (["monitor"], "usage: {} monitor PORT"),
    (["monitor", "ttyACM0"], "monitor: ttyACM0 is not a serial port: give its path, such as /dev/ttyACM0"),
    (["monitor", "/dev/ttyACM0", "again"], "usage: {} monitor PORT"),
])
def test_install_monitor_refuses_a_missing_or_odd_port_before_it_does_anything(arguments, said):
    result = subprocess.run(["bash", str(INSTALL), *arguments], capture_output=True, text=True, timeout=10)
    assert result.returncode == 1 and result.stdout == ""
    assert result.stderr.startswith("install.sh: error: " + said.format(INSTALL)), result.stderr
    assert result.stderr.count("\n") == 1


# --- drnim-controller-restore.service: the boot after an update that a power cut stopped -----------
RESTORE = SYSTEMD / "drnim-controller-restore.service"


def test_the_restore_unit_verifies_clean_and_comes_before_the_service_and_every_monitor(tmp_path):
    analyze = systemd_analyze()
    root, unit = make_root(tmp_path)
    shutil.copyfile(RESTORE, unit.parent / RESTORE.name)
    shell = root / "bin" / "sh"         # the tree has only what the units run
    shell.parent.mkdir()
    shell.write_text("#!/bin/sh\nexit 0\n")
    shell.chmod(0o755)
    result = run(analyze, "verify", f"--root={root}", "--man=no", "--generators=no", str(unit.parent / RESTORE.name))
    assert (result.returncode, result.stdout + result.stderr) == (0, "")
    restore = parse_unit(RESTORE)
    assert restore["Unit"]["ConditionPathIsDirectory"] == ["/opt/drnim-controller/venv.previous"]
    assert restore["Unit"]["Before"] == [UNIT.name] and restore["Install"]["WantedBy"] == ["multi-user.target"]
    assert RESTORE.name in parse_unit(MONITOR)["Unit"]["After"]


@pytest.mark.parametrize("left", ["half an update", "no venv"])
def test_the_restore_unit_puts_the_whole_version_before_back(tmp_path, left):
    """A power cut while pip replaced the code left /opt/drnim-controller/venv half new (or, cut
    while it was being put back, gone) and the version before whole in venv.previous: the service
    then started on half an update, or not at all, until someone ran install.sh again."""
    prefix = tmp_path / "opt" / "drnim-controller"
    (prefix / "venv.previous" / "bin").mkdir(parents=True)
    (prefix / "venv.previous" / "bin" / "controller").write_text("the version before\n")
    if left == "half an update":
        (prefix / "venv" / "lib").mkdir(parents=True)
        (prefix / "venv" / "lib" / "~ontroller").write_text("half of pip's work\n")
    command = one(parse_unit(RESTORE)["Service"], "ExecStart")
    assert command.startswith("/bin/sh -c '") and command.endswith("'")
    script = command[len("/bin/sh -c '"):-1].replace("/opt/drnim-controller", str(prefix))
    done = subprocess.run(["/bin/sh", "-c", script], capture_output=True, text=True, timeout=60)
    assert (done.returncode, done.stderr) == (0, "")
    assert sorted(os.listdir(prefix)) == ["venv"]
    assert (prefix / "venv" / "bin" / "controller").read_text() == "the version before\n"
