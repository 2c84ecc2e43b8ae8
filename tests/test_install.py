"""install.sh run through, as a technician runs it, against a temporary root.

The script runs as root in a private mount namespace (unshare) in which a temporary /etc and
/opt hide the machine's own, with stubs for what would touch the running system: systemctl
(which keeps the units' enable links in the temporary /etc and logs every call),
systemd-sysusers, and the virtualenv's python (pip builds and installs nothing, and given a folder
of wheels and no index, finds in it what pyproject.toml asks for, by file name). Nothing is
installed on this machine and nothing needs a network, a Raspberry Pi or a running systemd.
"""
import hashlib
import os
import re
import shutil
import subprocess
import sys
import tomllib

import pytest

from conftest import ROOT
from controller.core.registry import NAMES

WANTS = "etc/systemd/system/multi-user.target.wants"
RESTORE = "drnim-controller-restore.service"
PORT = "/dev/serial/by-id/usb-MicroPython_Board_in_FS_mode_e6614c311b7e6f35-if00"
OTHER_PORT = "/dev/ttyACM1"

# Enable links live in the temporary /etc; a unit is running when it is enabled (the
# service is always named without .service where install.sh asks whether it is active).
SYSTEMCTL = """#!/bin/bash
echo "systemctl $*" >>"$INSTALL_LOG"
wants=/etc/systemd/system/multi-user.target.wants
verb=$1
shift
case $verb in
    is-active) [[ -L $wants/${@: -1}.service ]] ;;
    enable|disable)
        for unit; do
            [[ $unit == -* ]] && continue
            [[ $unit == *.* ]] || unit+=.service
            if [[ $verb == enable ]]; then
                mkdir -p "$wants" && ln -sfn "../${unit%%@*}" "$wants/$unit"
            else
                rm -f -- "$wants/$unit"
            fi
        done ;;
esac
"""
# The virtualenv's python: pip wheel leaves a wheel, pip install fails when PIP_FAILS says so
# (only the install whose arguments hold PIP_FAILS_FOR, when that is set; the controller's own install
# writes installed.txt in the virtualenv first, naming the wheel, as a pip cut short leaves files, then
# sends install.sh the signal CUT_OFF_BY names when it is set: Ctrl-C, a lost SSH session), pip finds no built
# lgpio for this Python when NO_LGPIO_WHEEL is set, pip is missing when the virtualenv has a NO_PIP
# file, and what install.sh reads of config.toml (python -) finds [telemetry] off and no [boards], but
# where REAL_PYTHON names the Python that runs it. With --no-index, a requirement of
# BUILD_NEEDS (pip wheel) or INSTALL_NEEDS (the install with the extras) that has no wheel in the
# --find-links folder fails as pip says it, its marker included. It is Python 3.13 on aarch64.
VENV_PYTHON = """#!/bin/bash
echo "python $*" >>"$INSTALL_LOG"
if [[ "$1 $2 $3" == "-m pip install" && " $* " == *" --force-reinstall "* ]]; then
    echo "${@: -1}" >"$(dirname "$0")/../installed.txt"
    if [[ -n ${CUT_OFF_BY:-} ]]; then
        kill -"$CUT_OFF_BY" "$PPID"     # install.sh, and this pip as the signal to its group would
        kill -"$CUT_OFF_BY" $$
        exit 1
    fi
fi
if [[ "$1 $2" == "-m pip" && " $* " == *" --no-index --find-links "* ]]; then
    folder="$*"
    folder=${folder#*--find-links }
    folder=${folder%% *}
    needs=
    [[ $3 == wheel ]] && needs=$BUILD_NEEDS
    [[ $3 == install && $* == *"[pi,telemetry]"* ]] && needs=$INSTALL_NEEDS
    while IFS= read -r need; do
        name=${need%%[<>=!~;]*}
        if [[ -n $name ]] && ! compgen -G "$folder/${name//-/_}-*.whl" >/dev/null; then
            echo "ERROR: Could not find a version that satisfies the requirement $need (from versions: none)" >&2
            echo "ERROR: No matching distribution found for $need" >&2
            exit 1
        fi
    done <<<"$needs"
fi
if [[ "$1 $2" == "-m pip" && -e $(dirname "$0")/../NO_PIP ]]; then
    echo "No module named pip" >&2
    exit 1
elif [[ "$1 $2 $3" == "-m pip wheel" ]]; then
    dir=${@: -2:1}
    mkdir -p "$dir" && touch "$dir/drnim_controller-1.0-py3-none-any.whl"
    source=${@: -1}
    [[ ! -f $source/controller/commit.txt ]] || echo "built with commit $(cat "$source/controller/commit.txt")" >>"$INSTALL_LOG"
elif [[ "$1 $2 $3" == "-m pip install" && -n ${PIP_FAILS:-} && "$*" == *"${PIP_FAILS_FOR:-}"* ]]; then
    echo "ERROR: $PIP_FAILS" >&2
    exit 1
elif [[ $1 == - && -n ${REAL_PYTHON:-} ]]; then
    exec "$REAL_PYTHON" "$@"
elif [[ $1 == -V ]]; then
    echo "Python 3.13.5"
elif [[ $1 == -c ]]; then
    echo "3.13 aarch64"
elif [[ "$1 $2 $3 $4" == "-m pip install --dry-run" && -n ${NO_LGPIO_WHEEL:-} ]]; then
    echo "ERROR: Could not find a version that satisfies the requirement lgpio>=0.2 (from versions: 0.0.0.2)" >&2
    exit 1
fi
"""
# The system's python for a virtualenv made afresh: `-m venv DIR` puts the stub above in it (and
# the controller pip would install).
SYSTEM_PYTHON = """#!/bin/bash
echo "python3 $*" >>"$INSTALL_LOG"
if [[ "$1 $2" == "-m venv" ]]; then
    mkdir -p "$3/bin" && cp "$VENV_STUB" "$3/bin/python" && printf '#!/bin/sh\\n' >"$3/bin/controller"
    chmod +x "$3/bin/controller"
fi
"""
# The virtualenv's controller that answers `config check` as the real one does (the fixture's stub says nothing).
REAL_CONTROLLER = '#!/bin/sh\nexec "%s" -m controller "$@"\n' % sys.executable
# runuser: no user but root in the namespace, so the command runs as root, its user logged.
RUNUSER = """#!/bin/bash
echo "runuser $* (in $PWD)" >>"$INSTALL_LOG"
while [[ $1 != -- ]]; do shift; done
shift
exec "$@"
"""
MOUNTS = 'set -e; mount --bind "$1" /opt; mount --bind "$2" /etc; shift 2; exec "$@"'
# What pip needs wheels of: the controller's build (pyproject.toml's build-system), and its install with
# the extras install.sh names, each line as pip names a requirement it cannot find.
PROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text())
BUILD_NEEDS = PROJECT["build-system"]["requires"]
INSTALL_NEEDS = PROJECT["project"]["dependencies"] + ['%s; extra == "%s"' % (need, extra) for extra in ("pi", "telemetry")
                                                      for need in PROJECT["project"]["optional-dependencies"][extra]]


def stub(path, text):
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    path.chmod(0o755)


def namespace(tmp_path, *command):
    unshare = shutil.which("unshare")
    if unshare is None:
        pytest.skip("unshare is missing (apt-get install util-linux)")
    return [unshare, "--map-root-user", "--mount", "bash", "-c", MOUNTS, "mounts",
            str(tmp_path / "opt"), str(tmp_path / "etc"), *command]


@pytest.fixture
def pi(tmp_path):
    """A checkout holding the real install.sh and units, and a Pi that has the virtualenv already."""
    checkout = tmp_path / "checkout"
    shutil.copytree(ROOT / "systemd", checkout / "systemd")
    shutil.copyfile(ROOT / "pyproject.toml", checkout / "pyproject.toml")
    for machine in NAMES:
        (checkout / "hardware" / machine).mkdir(parents=True)
        shutil.copyfile(ROOT / "hardware" / machine / "pinmap.toml", checkout / "hardware" / machine / "pinmap.toml")
    (tmp_path / "etc/systemd/system").mkdir(parents=True)
    if os.path.isdir("/etc/alternatives"):  # Debian's awk is /etc/alternatives/awk
        shutil.copytree("/etc/alternatives", tmp_path / "etc/alternatives", symlinks=True)
    stub(tmp_path / "opt/drnim-controller/venv/bin/python", VENV_PYTHON)
    stub(tmp_path / "opt/drnim-controller/venv/bin/controller", "#!/bin/sh\n")
    stub(tmp_path / "bin/systemctl", SYSTEMCTL)
    stub(tmp_path / "bin/systemd-sysusers", '#!/bin/sh\necho "systemd-sysusers $*" >>"$INSTALL_LOG"\n')
    stub(tmp_path / "bin/apt-get", '#!/bin/sh\necho "apt-get $*" >>"$INSTALL_LOG"\n')
    stub(tmp_path / "bin/runuser", RUNUSER)
    (tmp_path / "config.txt").write_text("dtparam=audio=on\n")
    probe = subprocess.run(namespace(tmp_path, "true"), capture_output=True, text=True, timeout=30)
    if probe.returncode != 0:
        pytest.skip("unshare cannot mount in a user namespace here (%s): it needs Linux user namespaces, "
                    "as Debian enables them" % probe.stderr.strip())
    return tmp_path


def install(root, *arguments, **env):
    log = root / "install.log"
    log.write_text("")
    # the namespace's /etc and /opt are binds of a folder of /tmp, a tmpfs on many a computer: the mount table
    # install.sh reads is the test's, none unless it gives one
    environment = dict(os.environ, PATH="%s:%s" % (root / "bin", os.environ["PATH"]), PYTHON=sys.executable,
                       BOOT_CONFIG=str(root / "config.txt"), INSTALL_LOG=str(log), LC_ALL="C.UTF-8",
                       PROC_MOUNTS=str(root / "no-mounts"),
                       BUILD_NEEDS="\n".join(BUILD_NEEDS), INSTALL_NEEDS="\n".join(INSTALL_NEEDS))
    environment.update(env)
    result = subprocess.run(namespace(root, "bash", str(root / "checkout/systemd/install.sh"), *arguments),
                            capture_output=True, text=True, timeout=120, env=environment)
    result.log = log.read_text().splitlines()
    return result


def installed(root):
    """The wheel the controller's code in the virtualenv came from (the stub pip's record)."""
    return (root / "opt/drnim-controller/venv/installed.txt").read_text()


def enabled(root):
    """The units enabled at boot, but the one that puts back a version an update cut off (its own test)."""
    wants = root / WANTS
    return sorted(name for name in os.listdir(wants) if name != RESTORE) if wants.exists() else []


def escaped(port):
    return subprocess.run(["systemd-escape", "--path", port], capture_output=True, text=True,
                          timeout=10, check=True).stdout.strip()


def test_an_update_keeps_the_museums_files_and_restarts_the_service_saying_so(pi):
    first = install(pi)
    assert first.returncode == 0, first.stderr
    assert "Enabling and starting drnim-controller" in first.stdout
    config = pi / "etc/drnim-controller/config.toml"
    pinmap = pi / "etc/drnim-controller/pinmaps/drnim.toml"
    config.write_text(config.read_text().replace('machine = "drnim"', 'machine = "nimatron"'))
    pinmap.write_text(pinmap.read_text() + "# rewired by the museum\n")
    (pi / "etc/drnim-controller/mqtt-password").write_text("secret\n")
    edited = {path: path.read_text() for path in (pi / "etc/drnim-controller").rglob("*") if path.is_file()}

    update = install(pi)
    assert update.returncode == 0, update.stderr
    assert {path: path.read_text() for path in edited} == edited
    assert "Keeping the existing /etc/drnim-controller/config.toml" in update.stdout
    assert "Keeping the existing /etc/drnim-controller/pinmaps/drnim.toml" in update.stdout
    assert "Restarting drnim-controller" in update.stdout
    assert "systemctl restart drnim-controller" in update.log
    assert enabled(pi) == ["drnim-controller.service"]


def test_an_update_over_a_pin_map_the_new_code_refuses_names_its_key_and_restarts_nothing(pi):
    """The first install.sh (d522e46) copied that day's pin map to /etc/drnim-controller/pinmaps, which
    the service of then never read (it ran the shipped one) and every update kept; today's service runs
    it, and refuses it (its LEDs name no colour). Edited there (this one has a comment at its head), it
    is the museum's and kept: the update restarted the service into that refusal, and the exhibit stayed
    dark until someone read the journal."""
    assert install(pi).returncode == 0
    stub(pi / "opt/drnim-controller/venv/bin/controller", REAL_CONTROLLER)
    pinmap = pi / "etc/drnim-controller/pinmaps/drnim.toml"
    shutil.copyfile(ROOT / "tests/upgrade/drnim-pinmap-9d2598b.toml", pinmap)
    before = installed(pi)

    update = install(pi)
    assert update.returncode != 0
    lines = update.stderr.splitlines()
    assert lines[-2].startswith("controller: pin map: /etc/drnim-controller/pinmaps/drnim.toml:99: "
                                "outputs.flip_flop_1.colour: missing")
    assert lines[-1].startswith("install.sh: error: the new controller refuses /etc/drnim-controller/config.toml "
                                "or its pin map (the line above), so no service was (re)started")
    assert lines[-1].endswith("run again: sudo %s" % (pi / "checkout/systemd/install.sh"))
    assert not [line for line in update.log if line.startswith(("systemctl restart", "systemctl enable"))
                  and RESTORE not in line]
    assert "and the version installed before is back in place: the exhibit runs it, at its next start too" \
        in lines[-1]
    # the controller back in place would say good to the file (the museum technician's upgrade walkthrough)
    assert "check it with" not in lines[-1] and "running again checks it with the new one" in lines[-1]
    assert installed(pi) == before, "the next boot would start the code that refuses the museum's files"
    # as the service reads them: root reads a pin map or a password file the drnim user may not
    assert "runuser -u drnim -- /opt/drnim-controller/venv/bin/controller config check " \
        "/etc/drnim-controller/config.toml (in /)" in update.log

    shutil.copyfile(ROOT / "hardware/drnim/pinmap.toml", pinmap)    # mended: the shipped one
    again = install(pi)
    assert again.returncode == 0, again.stderr
    assert "systemctl restart drnim-controller" in again.log
    assert installed(pi) != before
    assert not (pi / "opt/drnim-controller/venv.previous").exists()


def test_install_sh_telemetry_checks_the_configuration_as_the_service_user_before_it_restarts(pi):
    """`install.sh telemetry` restarted the service and the boards' monitors on a configuration no one had
    checked: a password file given as a relative path (or one only root reads) stopped them at their start,
    the exhibit dark. It now checks first, as the update does, as drnim, and restarts nothing on a refusal."""
    assert install(pi).returncode == 0
    stub(pi / "opt/drnim-controller/venv/bin/controller", REAL_CONTROLLER)
    config = pi / "etc/drnim-controller/config.toml"
    shipped = config.read_text()
    on = shipped.replace('enabled = false\nhost = "localhost"', 'enabled = true\nhost = "broker.museum.lan"', 1)
    config.write_text(on.replace('password_file = ""', 'password_file = "mqtt-password"', 1))
    refused = install(pi, "telemetry", REAL_PYTHON=sys.executable)
    assert refused.returncode != 0
    lines = refused.stderr.splitlines()
    assert "telemetry.password_file" in lines[-2], refused.stderr
    # no code is installed here: the controller that refused is the installed one, which an install older than the
    # checkout refuses [telemetry] with as unknown (the museum technician's upgrade walkthrough)
    assert lines[-1].startswith("install.sh: error: the installed controller (older than this checkout? sudo %s "
                                "updates it and sets up [telemetry] too) refuses /etc/drnim-controller/config.toml"
                                % (pi / "checkout/systemd/install.sh"))
    assert lines[-1].endswith("run again: sudo %s telemetry" % (pi / "checkout/systemd/install.sh"))
    assert "runuser -u drnim -- /opt/drnim-controller/venv/bin/controller config check " \
        "/etc/drnim-controller/config.toml (in /)" in refused.log
    assert not [line for line in refused.log if line.startswith("systemctl")], refused.log
    assert not (pi / "etc/drnim-controller/mqtt-broker.env").exists()

    config.write_text(on)
    done = install(pi, "telemetry", REAL_PYTHON=sys.executable)
    assert done.returncode == 0, done.stderr
    assert "BROKER=broker.museum.lan:1883" in (pi / "etc/drnim-controller/mqtt-broker.env").read_text()
    assert "systemctl try-restart drnim-controller drnim-monitor@*.service" in done.log


def test_an_update_refused_puts_back_the_pin_map_it_replaced_with_the_version_before(pi):
    """The version before runs with the wiring it ran with: a pin map the update replaced (one no one
    edited) is put back with it when the new code refuses the configuration."""
    assert install(pi).returncode == 0
    stub(pi / "opt/drnim-controller/venv/bin/controller", REAL_CONTROLLER)
    pinmap = pi / "etc/drnim-controller/pinmaps/drnim.toml"
    old = (ROOT / "tests/upgrade/drnim-pinmap-9d2598b.toml").read_text().split("\n", 3)[3]  # its comment off
    pinmap.write_text(old)
    config = pi / "etc/drnim-controller/config.toml"
    config.write_text(config.read_text() + "\n[drnim]\npace_ms = -5\n")
    before = installed(pi)

    update = install(pi)
    assert update.returncode != 0
    assert "Updating /etc/drnim-controller/pinmaps/drnim.toml" in update.stdout
    assert "the version installed before is back in place" in update.stderr.splitlines()[-1]
    assert pinmap.read_text() == old
    assert installed(pi) == before


def test_an_update_cut_short_while_pip_installs_the_controller_puts_back_the_version_before(pi):
    """pip stopped halfway through the controller's own files (a full disk): the next boot ran what it left."""
    assert install(pi).returncode == 0
    before = installed(pi)
    update = install(pi, PIP_FAILS="[Errno 28] No space left on device", PIP_FAILS_FOR="--force-reinstall")
    assert update.returncode != 0
    last = update.stderr.splitlines()[-1]
    assert last.startswith("install.sh: error: the install stopped while installing the package into "
                           "/opt/drnim-controller/venv, so the steps after it were not done and no service was "
                           "(re)started (the version installed before is back in place)"), last
    assert installed(pi) == before
    assert not (pi / "opt/drnim-controller/venv.previous").exists()


@pytest.mark.parametrize("signal_name", ["INT", "HUP", "TERM"])
def test_an_update_cut_off_by_ctrl_c_or_a_lost_session_puts_back_the_version_before_and_says_so(pi, signal_name):
    """Cut off by a signal, install.sh ran its exit trap with status 0: nothing put back, nothing said, and the
    next boot ran the half-installed code (found by the update review)."""
    assert install(pi).returncode == 0
    before = installed(pi)
    update = install(pi, CUT_OFF_BY=signal_name)
    assert update.returncode != 0
    assert update.stderr.splitlines()[-1].startswith(
        "install.sh: error: the install stopped while installing the package into /opt/drnim-controller/venv, so the "
        "steps after it were not done and no service was (re)started (the version installed before is back in "
        "place)"), update.stderr
    assert installed(pi) == before
    assert sorted(os.listdir(pi / "opt/drnim-controller")) == ["venv"]


def test_the_boot_after_a_power_cut_in_an_update_runs_the_version_before(pi):
    """A power cut while pip replaced the code (no trap runs: kill -9 here) left the code half new, and the
    next boot started it (or failed to) until someone ran install.sh again. The update enabled the unit
    that puts the version before back at boot, before pip touched the code, and it does."""
    import test_systemd
    assert install(pi).returncode == 0
    before = installed(pi)
    update = install(pi, CUT_OFF_BY="KILL")
    assert update.returncode != 0
    log = update.log
    assert log.index("systemctl enable --quiet %s" % RESTORE) < next(
        number for number, line in enumerate(log) if "--force-reinstall" in line)
    assert RESTORE in os.listdir(pi / WANTS) and installed(pi) != before
    unit = test_systemd.parse_unit(pi / "etc/systemd/system" / RESTORE)
    command = test_systemd.one(unit["Service"], "ExecStart")[len("/bin/sh -c '"):-1]
    prefix = str(pi / "opt/drnim-controller")
    booted = subprocess.run(["/bin/sh", "-c", command.replace("/opt/drnim-controller", prefix)],
                            capture_output=True, text=True, timeout=60)
    assert (booted.returncode, booted.stderr) == (0, "")
    assert installed(pi) == before and sorted(os.listdir(pi / "opt/drnim-controller")) == ["venv"]


def test_the_version_an_update_cut_off_by_a_power_cut_kept_aside_goes_back_first(pi):
    """A power cut in an update leaves the version before in venv.previous and a half-installed venv: the next
    update deleted that copy, kept the half one aside instead, and put it back when the configuration was refused,
    saying the version before was back."""
    assert install(pi).returncode == 0
    stub(pi / "opt/drnim-controller/venv/bin/controller", REAL_CONTROLLER)
    before = installed(pi)
    shutil.copytree(pi / "opt/drnim-controller/venv", pi / "opt/drnim-controller/venv.previous", symlinks=True)
    (pi / "opt/drnim-controller/venv/installed.txt").write_text("half of the next version\n")
    config = pi / "etc/drnim-controller/config.toml"
    config.write_text(config.read_text() + "\n[drnim]\npace_ms = -5\n")

    update = install(pi)
    assert update.returncode != 0
    assert "==> Putting back the version that an update cut off kept aside in /opt/drnim-controller/venv.previous" \
        in update.stdout.splitlines()
    assert installed(pi) == before
    assert sorted(os.listdir(pi / "opt/drnim-controller")) == ["venv"]


def test_an_update_replaces_a_pin_map_an_earlier_version_shipped_and_no_one_edited(pi):
    """That same pin map as 9d2598b shipped it, never edited: the update kept it, and the exhibit stayed
    dark (or ran a stale wiring the new code still read); now it is replaced by the new one, as dpkg does
    an unchanged conffile, and the service restarts on it. An edited one is kept (above)."""
    assert install(pi).returncode == 0
    stub(pi / "opt/drnim-controller/venv/bin/controller", REAL_CONTROLLER)
    pinmap = pi / "etc/drnim-controller/pinmaps/drnim.toml"
    old = (ROOT / "tests/upgrade/drnim-pinmap-9d2598b.toml").read_text().split("\n", 3)[3]  # its comment off
    pinmap.write_text(old)

    update = install(pi)
    assert update.returncode == 0, update.stderr
    assert "Updating /etc/drnim-controller/pinmaps/drnim.toml: an earlier version's shipped pin map, never edited " \
        "here" in update.stdout
    assert pinmap.read_bytes() == (ROOT / "hardware/drnim/pinmap.toml").read_bytes()
    assert "systemctl restart drnim-controller" in update.log
    assert "Keeping /etc/drnim-controller/pinmaps/nimatron.toml (the shipped one)" in update.stdout


def test_an_update_keeps_the_lamp_resistors_a_nimatron_was_built_with(pi):
    """b3a0609 shipped the Nimatron's lamps on 75 Ω, the next version on 100 Ω: the update replaced that map,
    never edited, with one saying 100 Ω, where the build has 75 Ω soldered, and nothing warned that its 56
    lamps lit draw more than the ribbon's PTC holds warm. The soldered value is kept, and said."""
    assert install(pi).returncode == 0
    stub(pi / "opt/drnim-controller/venv/bin/controller", REAL_CONTROLLER)
    pinmap = pi / "etc/drnim-controller/pinmaps/nimatron.toml"
    pinmap.write_text((ROOT / "tests/upgrade/nimatron-pinmap-b3a0609.toml").read_text().split("\n", 3)[3])

    update = install(pi)
    assert update.returncode == 0, update.stderr
    assert "==> Keeping lamp_resistor = 75 in /etc/drnim-controller/pinmaps/nimatron.toml: the lamps' resistors " \
        "this build has (today's parts list gives 100 Ω)" in update.stdout.splitlines()
    shipped = (ROOT / "hardware/nimatron/pinmap.toml").read_text().splitlines()
    kept = pinmap.read_text().splitlines()
    assert [line for line in kept if line not in shipped] == [
        "lamp_resistor = 75                 # ohms, as soldered from the parts list of its day (today's: 100)"]
    assert len(kept) == len(shipped)
    from controller.hardware.pinmap import load_pinmap
    from controller.hardware.pinmap.check import ribbon_warnings
    assert ribbon_warnings(load_pinmap(pinmap)) != []


# The mount table of a Pi with raspi-config's Overlay File System on (overlayroot, recurse=0) and the
# service's state on a partition of its own, as docs/troubleshooting.md advises.
OVERLAY_ROOT = """/dev/mmcblk0p2 /media/root-ro ext4 ro,relatime 0 0
tmpfs-root /media/root-rw tmpfs rw,relatime 0 0
overlayroot / overlay rw,relatime,lowerdir=/media/root-ro,upperdir=/media/root-rw/overlay,workdir=/media/root-rw/overlay-workdir 0 0
/dev/mmcblk0p1 /boot/firmware vfat rw,relatime 0 0
/dev/mmcblk0p3 /var/lib/drnim-controller ext4 rw,noatime 0 0
"""


def test_an_install_under_an_overlay_in_ram_is_refused_before_it_changes_anything(pi):
    """With the Overlay File System on, an update wrote into RAM, said Done and ran, and the next power cut
    brought the version before back with its configuration; the state folder on its own partition is
    kept, so the service said nothing. It is refused now, before any file is written, saying what to do."""
    assert install(pi).returncode == 0
    before = installed(pi)
    (pi / "mounts").write_text(OVERLAY_ROOT)
    update = install(pi, PROC_MOUNTS=str(pi / "mounts"))
    assert update.returncode == 1
    assert update.stderr == (
        "install.sh: error: /etc/drnim-controller is in RAM (the overlay at / keeps its changes in the tmpfs at "
        "/media/root-rw, as raspi-config's Overlay File System does): what this install writes would be gone at the "
        "next reboot, and the version before back. Turn the overlay (or the read-only mount) off: sudo raspi-config, "
        "Performance Options, Overlay File System; reboot, run sudo %s, then turn it back on\n"
        % (pi / "checkout/systemd/install.sh"))
    assert installed(pi) == before and update.log == []
    for command, what in (("telemetry", "what this writes would be gone at the next reboot"),
                          ("uninstall", "what this removes would be back at the next reboot")):
        refused = install(pi, command, PROC_MOUNTS=str(pi / "mounts"))
        assert refused.returncode == 1 and refused.stderr.startswith(
            "install.sh: error: /etc/drnim-controller is in RAM (the overlay at / ") and (
            ": %s. Turn the overlay" % what) in refused.stderr, refused.stderr
        assert refused.log == [] and installed(pi) == before


@pytest.mark.parametrize("machine", NAMES)
def test_the_pin_map_shipped_now_is_listed_as_shipped(machine):
    """So that the next update replaces it where no one edited it (a changed pin map adds its line)."""
    digest = hashlib.sha256((ROOT / "hardware" / machine / "pinmap.toml").read_bytes()).hexdigest()
    listed = (ROOT / "systemd/shipped-pinmaps.txt").read_text().splitlines()
    assert "%s %s" % (digest, machine) in listed, "hardware/%s/pinmap.toml changed: add its line to " \
        "systemd/shipped-pinmaps.txt (the command is at its head)" % machine


def cloned(checkout):
    """The test's checkout made a git clone's, every file committed (and a controller folder); its commit."""
    (checkout / "controller").mkdir()

    def git(*arguments):
        return subprocess.run(["git", "-C", str(checkout), "-c", "user.name=t", "-c", "user.email=t@example.org",
                               *arguments], check=True, capture_output=True, text=True, timeout=60).stdout.strip()
    git("init", "-q")
    git("add", "-A")
    git("commit", "-qm", "the museum's checkout")
    return git("rev-parse", "--short=7", "HEAD")


def test_the_wheel_is_built_with_the_checkouts_commit_and_the_install_says_it(pi):
    """`controller --version` and `controller status` said 0.1.0 on every exhibit, a week's update or a
    year-old install alike (found by the upgrade review): the wheel is built with the checkout's commit."""
    commit = cloned(pi / "checkout")
    done = install(pi)
    assert done.returncode == 0, done.stderr
    assert "built with commit %s" % commit in done.log
    assert "==> Installing drnim_controller-1.0-py3-none-any.whl (commit %s) with the pi and telemetry extras into " \
           "/opt/drnim-controller/venv" % commit in done.stdout.splitlines()


def test_make_pi_offlines_archive_installs_with_the_commit_it_was_made_from(pi):
    """The archive has no git (make pi-offline writes its commit in controller/commit.txt): its
    install said no commit, and every exhibit installed from it the bare version."""
    (pi / "checkout/controller").mkdir()
    (pi / "checkout/controller/commit.txt").write_text("0abc123\n")
    done = install(pi)
    assert done.returncode == 0, done.stderr
    assert "built with commit 0abc123" in done.log
    assert "==> Installing drnim_controller-1.0-py3-none-any.whl (commit 0abc123) with the pi and telemetry " \
           "extras into /opt/drnim-controller/venv" in done.stdout.splitlines()


def test_make_pi_offlines_archive_unpacked_over_an_older_clone_installs_with_the_archives_commit(pi):
    """The README's commands unpack the archive in the folder a clone may hold: the install said the clone's
    commit, dirty."""
    checkout = pi / "checkout"
    cloned(checkout)
    with open(checkout / "systemd/config.toml", "a") as unpacked:
        unpacked.write("# this year's\n")
    (checkout / "controller/commit.txt").write_text("0abc123\n")
    done = install(pi)
    assert done.returncode == 0, done.stderr
    assert "built with commit 0abc123" in done.log


def test_switching_to_a_board_and_back_leaves_one_service_enabled(pi):
    instance = "drnim-monitor@%s.service" % escaped(PORT)
    assert install(pi).returncode == 0
    assert enabled(pi) == ["drnim-controller.service"]

    watching = install(pi, "monitor", PORT)
    assert watching.returncode == 0, watching.stderr
    assert enabled(pi) == [instance]
    assert "systemctl disable --now --quiet drnim-controller.service" in watching.log
    assert watching.log.index("systemctl disable --now --quiet drnim-controller.service") \
        < watching.log.index("systemctl restart " + instance), "the Pi's own machine stops before the monitor starts"
    assert "Stopping and disabling drnim-controller.service" in watching.stdout

    moved = install(pi, "monitor", OTHER_PORT)
    assert moved.returncode == 0, moved.stderr
    other = "drnim-monitor@%s.service" % escaped(OTHER_PORT)
    assert enabled(pi) == [other]

    (pi / WANTS / other).unlink()       # sudo systemctl disable --now UNIT, as the update's line says
    back = install(pi)
    assert back.returncode == 0, back.stderr
    assert enabled(pi) == ["drnim-controller.service"]


def test_the_readmes_update_on_a_pi_that_watches_a_board_updates_its_monitor(pi):
    """The README's update (git pull && sudo systemd/install.sh) on a Pi that watches a board put the Pi's
    own service in the monitor's place: it drove pins no machine is wired to, and the board's games and
    reports went unrecorded until someone noticed (found by the upgrade review). It updates the monitor,
    says so and how to run the Pi's own machine instead, and an update stopped halfway names the monitor's
    command."""
    instance = "drnim-monitor@%s.service" % escaped(PORT)
    assert install(pi, "monitor", PORT).returncode == 0
    update = install(pi)
    assert update.returncode == 0, update.stderr
    assert enabled(pi) == [instance]
    assert "systemctl restart " + instance in update.log
    assert "==> This Pi watches a board (%s runs, the Pi's own service does not): updating its monitor, as sudo " \
           "%s monitor %s does. To run the Pi's own machine in its place: sudo systemctl disable --now '%s', then " \
           "sudo %s" % (instance, pi / "checkout/systemd/install.sh", PORT, instance,
                        pi / "checkout/systemd/install.sh") in update.stdout.splitlines()
    # the code installed before the update cannot read the configuration (a [boards] from after it): the
    # update went on as the monitor's, where it stopped, telling the museum to mend a file that was right
    older = pi / "older-python"
    older.write_text('#!/bin/bash\ngrep -q -- --force-reinstall "$INSTALL_LOG" || { echo "AttributeError: \'Config\' '
                     'object has no attribute \'boards\'" >&2; exit 1; }\nexec %s "$@"\n' % sys.executable)
    older.chmod(0o755)
    update = install(pi, REAL_PYTHON=str(older))
    assert update.returncode == 0 and enabled(pi) == [instance], update.stderr
    assert "systemctl restart " + instance in update.log
    stopped = install(pi, PIP_FAILS="1")
    assert stopped.returncode != 0 and enabled(pi) == [instance]
    assert stopped.stderr.splitlines()[-1].endswith("run it again: sudo %s monitor %s" % (
        pi / "checkout/systemd/install.sh", PORT)), stopped.stderr


def test_a_board_named_in_boards_runs_beside_the_pis_machine_and_every_update_restarts_both(pi):
    """One Pi, two exhibits (README): install.sh stopped the Pi's service when it installed a board's
    monitor, and the next update (install.sh) stopped the monitor, so a museum's second exhibit went
    dark at every update until someone enabled it again by hand. A board named in [boards] is an
    exhibit of its own: its monitor and the service run side by side, and each install restarts the
    other on the new code. A board not named is the configuration's own exhibit, as the service is:
    installing either stops the other."""
    named = "drnim-monitor@%s.service" % escaped(PORT)
    unnamed = "drnim-monitor@%s.service" % escaped(OTHER_PORT)
    assert install(pi).returncode == 0
    config = pi / "etc/drnim-controller/config.toml"
    config.write_text(config.read_text() + '\n[boards]\n"%s" = "hall2-nimatron"\n' % PORT)

    beside = install(pi, "monitor", PORT, REAL_PYTHON=sys.executable)
    assert beside.returncode == 0, beside.stderr
    assert enabled(pi) == sorted(["drnim-controller.service", named])
    assert "==> Restarting drnim-controller.service on the new code: beside %s" % named in beside.stdout.splitlines()
    assert "systemctl try-restart drnim-controller.service" in beside.log

    update = install(pi, REAL_PYTHON=sys.executable)
    assert update.returncode == 0, update.stderr
    assert enabled(pi) == sorted(["drnim-controller.service", named])
    assert "==> Restarting %s on the new code: the exhibit hall2-nimatron of [boards], beside " \
           "drnim-controller.service" % named in update.stdout.splitlines()
    assert "systemctl try-restart " + named in update.log

    watching = install(pi, "monitor", OTHER_PORT, REAL_PYTHON=sys.executable)
    assert watching.returncode == 0, watching.stderr
    assert enabled(pi) == sorted([named, unnamed])
    assert "==> Stopping and disabling drnim-controller.service: this Pi now runs %s (a board named in [boards] " \
           "of /etc/drnim-controller/config.toml runs beside it)" % unnamed in watching.stdout.splitlines()

    (pi / WANTS / unnamed).unlink()     # sudo systemctl disable --now UNIT: the Pi's own machine again
    back = install(pi, REAL_PYTHON=sys.executable)
    assert back.returncode == 0, back.stderr
    assert enabled(pi) == sorted(["drnim-controller.service", named])

    assert install(pi, "uninstall").returncode == 0
    assert enabled(pi) == []


def test_a_monitor_install_over_a_configuration_it_refuses_names_the_key_and_stops_nothing(pi):
    assert install(pi).returncode == 0
    config = pi / "etc/drnim-controller/config.toml"
    config.write_text(config.read_text() + '\n[boards]\n"%s" = "hall 2"\n' % PORT)
    before = installed(pi)
    refused = install(pi, "monitor", PORT, REAL_PYTHON=sys.executable)
    assert refused.returncode != 0
    lines = refused.stderr.splitlines()
    assert lines[-2].startswith("install.sh: /etc/drnim-controller/config.toml: boards.\"%s\": 'hall 2': " % PORT), lines
    assert lines[-1] == "install.sh: error: /etc/drnim-controller/config.toml: fix it (/opt/drnim-controller/venv/bin/" \
        "controller config check /etc/drnim-controller/config.toml) while the version installed before runs, back " \
        "in place, then run again: sudo %s monitor %s" % (pi / "checkout/systemd/install.sh", PORT)
    assert installed(pi) == before
    assert enabled(pi) == ["drnim-controller.service"]
    assert not [line for line in refused.log if line.startswith("systemctl") and RESTORE not in line
                and line != "systemctl daemon-reload"]


def test_a_monitor_install_checks_the_configuration_as_the_monitor_reads_it(pi):
    """`install.sh monitor PORT` read the configuration as root, and never its password file: one that
    every user could read (`echo ... > file` under the usual umask) passed, and the new monitor, which
    refuses it, stopped at its start, the board's games uncounted until someone read the journal."""
    assert install(pi).returncode == 0
    stub(pi / "opt/drnim-controller/venv/bin/controller", REAL_CONTROLLER)
    config = pi / "etc/drnim-controller/config.toml"
    password = pi / "etc/drnim-controller/mqtt-password"
    password.write_text("secret\n")
    password.chmod(0o644)
    on = config.read_text().replace('enabled = false\nhost = "localhost"', 'enabled = true\nhost = "broker.lan"', 1)
    config.write_text(on.replace('username = ""', 'username = "hall-2"', 1)
                      .replace('password_file = ""', 'password_file = "/etc/drnim-controller/mqtt-password"', 1))
    before = installed(pi)
    refused = install(pi, "monitor", PORT, REAL_PYTHON=sys.executable)
    assert refused.returncode != 0
    lines = refused.stderr.splitlines()
    assert "telemetry.password_file" in lines[-2], refused.stderr
    assert lines[-1].startswith("install.sh: error: the new controller refuses /etc/drnim-controller/config.toml")
    assert lines[-1].endswith("run again: sudo %s monitor %s" % (pi / "checkout/systemd/install.sh", PORT))
    assert "runuser -u drnim -- /opt/drnim-controller/venv/bin/controller config check " \
        "/etc/drnim-controller/config.toml (in /)" in refused.log
    assert not [line for line in refused.log if line.startswith(("systemctl restart", "systemctl enable"))
                  and RESTORE not in line]
    assert installed(pi) == before
    assert enabled(pi) == ["drnim-controller.service"]

    password.chmod(0o640)
    done = install(pi, "monitor", PORT, REAL_PYTHON=sys.executable)
    assert done.returncode == 0, done.stderr
    assert [name for name in enabled(pi) if name.startswith("drnim-monitor@")], enabled(pi)


def test_an_install_that_stops_halfway_says_so_last_and_how_to_finish_it(pi):
    assert install(pi).returncode == 0
    update = install(pi, PIP_FAILS="Could not find a version that satisfies the requirement gpiozero")
    assert update.returncode != 0
    lines = update.stderr.splitlines()
    assert lines[0] == "ERROR: Could not find a version that satisfies the requirement gpiozero"
    assert lines[-1].startswith("install.sh: error: the install stopped while installing the package")
    assert "no service was (re)started" in lines[-1]
    assert lines[-1].endswith("run it again: sudo %s" % (pi / "checkout/systemd/install.sh"))
    assert not [line for line in update.log if line.startswith(("systemctl restart", "systemctl enable"))
                  and RESTORE not in line]


def test_a_python_without_a_built_lgpio_gets_what_pip_builds_it_with_first(pi):
    """Python 3.13 (Raspberry Pi OS trixie): PyPI has lgpio's source only, and pip stopped at its
    build (no swig, no Python headers, no lgpio library). The install gets them from apt first;
    where a built lgpio is found, apt is not asked."""
    built = install(pi)
    assert built.returncode == 0 and not [line for line in built.log if line.startswith("apt-get")]
    source = install(pi, NO_LGPIO_WHEEL="1")
    assert source.returncode == 0, source.stderr
    assert "==> No built lgpio for Python 3.13.5: installing what pip builds it with (gcc python3-dev swig " \
           "liblgpio-dev)" in source.stdout.splitlines()
    apt = source.log.index("apt-get install -y -qq --no-install-recommends gcc python3-dev swig liblgpio-dev")
    assert source.log[apt - 1] == "apt-get update -qq"
    assert source.log[apt + 1].startswith("python -m pip install --quiet ") and source.log[apt + 1].endswith(
        "[pi,telemetry]")


def test_a_pi_without_internet_installs_from_a_folder_of_wheels_and_is_told_which_one_it_lacks(pi):
    """A gallery's Pi on an isolated network: pip could only go to PyPI, and the install stopped at 'pip
    needs the network'. With --wheels (the folder make pi-offline gathers) pip asks no index and takes
    built wheels only, apt is not asked for lgpio's build even where PyPI has no lgpio built for the Pi's
    Python, and a wheel the folder lacks is named in one line, with what gathers it."""
    wheels = pi / "wheels"
    wheels.mkdir()
    for need in BUILD_NEEDS + INSTALL_NEEDS:
        (wheels / ("%s-99-py3-none-any.whl" % re.split("[<>=!~;]", need)[0].replace("-", "_"))).write_text("")
    offline = install(pi, "--wheels", str(wheels), NO_LGPIO_WHEEL="1")
    assert offline.returncode == 0, offline.stderr
    assert "==> Enabling and starting drnim-controller" in offline.stdout.splitlines()
    pip = [line for line in offline.log if line.startswith("python -m pip ") and line != "python -m pip --version"]
    assert [line.split()[3] for line in pip] == ["wheel", "install", "install"], pip
    assert all(" --no-index --find-links %s --only-binary=:all: " % wheels in line for line in pip), pip
    assert not [line for line in offline.log if line.startswith("apt-get")]

    next(wheels.glob("lgpio-*")).unlink()
    lacking = install(pi, "--wheels", str(wheels))
    assert lacking.returncode != 0
    assert lacking.stderr.splitlines() == [
        "install.sh: error: %s has no wheel of lgpio>=0.2 for this Pi's Python 3.13 on aarch64, so no service was "
        "(re)started: on a computer with internet, make pi-offline PI_PYTHONS=3.13 PI_ARCHS=aarch64 gathers it "
        "(README, \"Without internet\"); then run again: sudo %s --wheels %s"
        % (wheels, pi / "checkout/systemd/install.sh", wheels)]
    assert not [line for line in lacking.log if line.startswith(("systemctl restart", "systemctl enable"))
                  and RESTORE not in line]


def test_an_update_whose_dependencies_cannot_be_had_leaves_the_code_in_place(pi):
    """Without a network for a new dependency, the new code was installed first and the old
    dependencies left: the next restart ran code whose imports were not there."""
    assert install(pi).returncode == 0
    update = install(pi, PIP_FAILS="No matching distribution found for paho-mqtt>=9", PIP_FAILS_FOR="[pi,telemetry]")
    assert update.returncode != 0
    assert not [line for line in update.log if "--force-reinstall" in line], update.log


def test_a_virtualenv_an_install_cut_short_left_without_pip_is_made_again(pi):
    """A full disk while python3 -m venv ran left a virtualenv without pip, and every later
    install used it and failed the same way."""
    (pi / "opt/drnim-controller/venv/NO_PIP").write_text("")
    stub(pi / "stubs/python3", SYSTEM_PYTHON)
    stub(pi / "stubs/venv-python", VENV_PYTHON)
    again = install(pi, PYTHON=str(pi / "stubs/python3"), VENV_STUB=str(pi / "stubs/venv-python"))
    assert again.returncode == 0, again.stderr
    assert "Making the virtualenv /opt/drnim-controller/venv again: the one there has no pip" in again.stdout
    assert "python3 -m venv /opt/drnim-controller/venv" in again.log
    assert "python -m pip install --quiet --force-reinstall --no-deps" in " ".join(again.log), "the new one is used"
    assert not (pi / "opt/drnim-controller/venv/NO_PIP").exists()


def test_a_failed_monitor_install_names_the_command_that_finishes_it(pi):
    failed = install(pi, "monitor", PORT, PIP_FAILS="No space left on device")
    assert failed.returncode != 0
    assert failed.stderr.splitlines()[-1].endswith("run it again: sudo %s monitor %s" % (pi / "checkout/systemd/install.sh", PORT))


def test_uninstall_removes_what_the_install_added_and_keeps_the_museums_files(pi):
    assert install(pi).returncode == 0
    assert install(pi, "monitor", PORT).returncode == 0
    units = pi / "etc/systemd/system"
    for name in ("drnim-mqtt.socket", "drnim-mqtt.service", "drnim-controller.service.d/telemetry.conf"):
        (units / name).parent.mkdir(exist_ok=True)
        shutil.copyfile(ROOT / "systemd" / name.replace(".service.d/telemetry", "-telemetry"), units / name)
    kept = {path: path.read_text() for path in (pi / "etc/drnim-controller").rglob("*") if path.is_file()}

    removed = install(pi, "uninstall")
    assert removed.returncode == 0, removed.stderr
    assert enabled(pi) == []
    assert "systemctl disable --now --quiet drnim-mqtt.socket drnim-mqtt.service" in removed.log
    assert sorted(path.name for path in units.rglob("*drnim*")) == []
    assert not (pi / "etc/sysusers.d/drnim-controller.conf").exists()
    assert not (pi / "opt/drnim-controller").exists()
    assert (pi / "config.txt").read_text() == "dtparam=audio=on\n"
    assert {path: path.read_text() for path in kept} == kept
    assert removed.stdout.splitlines()[-1].startswith(
        "==> Kept /etc/drnim-controller (the configuration and the pin maps), /var/lib/drnim-controller "
        "(the saved game and the statistics) and the drnim user")
