#!/usr/bin/env bash
# Install (or update) the Dr. Nim Controller service on a Raspberry Pi, from a
# checkout of this repository:
#
#   git clone <repository> drnim-controller && cd drnim-controller
#   sudo systemd/install.sh
#
# A Pi without internet (a gallery's isolated network) installs from a folder of
# wheels instead of PyPI, which `make pi-offline` gathers on a computer that has
# internet, in its archive with the checkout (README, "Without internet"); pip
# then asks no index, and a wheel the folder lacks is named:
#
#   sudo systemd/install.sh --wheels wheels            # also: monitor PORT --wheels wheels
#
# Safe to run again (after a `git pull`, say): it reuses the virtualenv,
# reinstalls the package, keeps an existing /etc/drnim-controller/config.toml,
# checks it and its pin map with the new code (a file it refuses is named, and
# nothing restarted), and restarts the service if it was running.
#
#   /opt/drnim-controller/venv                   the virtualenv (root's, read-only to the service)
#   /etc/sysusers.d/drnim-controller.conf        the drnim user, in groups gpio and dialout
#   /etc/drnim-controller/config.toml            the configuration (only if missing)
#   /etc/systemd/system/drnim-controller.service the unit
#   dtparam=strict_gpiod in the Pi's boot configuration (see below)
#
# strict_gpiod makes the kernel turn a GPIO line back into an input when the
# process holding it lets go or dies, so that the gate resistors switch the
# solenoid and the lamps off even if the controller is killed mid-pulse (the
# unit's ExecStopPost also drives them off). It takes effect at the next
# reboot. Only that step, without root if the file is writable:
#
#   sudo systemd/install.sh strict-gpiod on    # add it (what the install does)
#   sudo systemd/install.sh strict-gpiod off   # remove exactly the lines it added
#
# Telemetry ([telemetry] in config.toml, docs/telemetry.md): the controller
# keeps no network of its own and reaches its MQTT broker through a local
# socket, drnim-mqtt.socket, whose proxy (drnim-mqtt.service) has the network
# and nothing else. The install sets them up when enabled = true, and removes
# them when not; after changing [telemetry], only that step and a restart:
#
#   sudo systemd/install.sh telemetry
#
# A Pi that watches a board running the firmware (a Pico, firmware/README.md)
# instead of driving the machine itself: the same install, but in place of
# the service it enables drnim-monitor@.service for the board's serial port,
# best named by its /dev/serial/by-id link, which stays the same whatever
# order boards are plugged in:
#
#   sudo systemd/install.sh monitor /dev/serial/by-id/usb-MicroPython_Board_in_FS_mode_e6614c311b7e6f35-if00
#
# A plain install.sh on such a Pi updates its monitor; to run the Pi's own
# machine again, disable the monitor first (systemctl disable --now UNIT).
#
# A board named in [boards] of config.toml is an exhibit of its own: its
# monitor runs beside the Pi's own machine and the other boards, and every
# install or update restarts them all on the new code. One exhibit, one unit:
# the service and the monitor of a board [boards] does not name run the same
# one, the configuration's own, so installing either stops the other.
#
# Uninstall: the service or the monitor stopped and everything the install added
# removed, but /etc/drnim-controller (the configuration and the pin maps),
# /var/lib/drnim-controller (the saved game and the statistics) and the drnim user:
#
#   sudo systemd/install.sh uninstall
#
# Environment: PYTHON (default python3), the interpreter for the virtualenv;
# BOOT_CONFIG, the boot configuration (default /boot/firmware/config.txt, or
# /boot/config.txt on a Raspberry Pi OS older than bookworm).
set -euo pipefail

readonly NAME=drnim-controller
readonly PREFIX=/opt/$NAME
readonly VENV=$PREFIX/venv
readonly CONFIG_DIR=/etc/$NAME
readonly UNIT=/etc/systemd/system/$NAME.service
# At a boot after an update that a power cut stopped, it puts back the version kept aside (below).
readonly RESTORE=$NAME-restore.service
readonly SYSUSERS=/etc/sysusers.d/$NAME.conf
PYTHON=${PYTHON:-python3}
# What pip builds lgpio with where no built one is found (Raspberry Pi OS's liblgpio-dev).
readonly LGPIO_BUILD="gcc python3-dev swig liblgpio-dev"

say() { printf '==> %s\n' "$*"; }
die() { printf 'install.sh: error: %s\n' "$*" >&2; exit 1; }

# The lines strict_gpiod_on adds, between these two markers, so that
# strict_gpiod_off removes exactly them. [all]: after a [pi4] or [cm5]
# section, a plain line would apply to that model only.
readonly STRICT_BEGIN="# >>> drnim-controller: outputs off if the controller dies (systemd/install.sh strict-gpiod off removes this)"
readonly STRICT_END="# <<< drnim-controller"

# The boot configuration, or nothing when this is not a Raspberry Pi.
boot_config() {
    if [[ -n ${BOOT_CONFIG:-} ]]; then
        [[ -f $BOOT_CONFIG ]] || die "BOOT_CONFIG=$BOOT_CONFIG: no such file"
        printf '%s\n' "$BOOT_CONFIG"
        return
    fi
    local candidate
    for candidate in /boot/firmware/config.txt /boot/config.txt; do
        if [[ -f $candidate ]]; then
            printf '%s\n' "$candidate"
            return
        fi
    done
}

# What install.sh writes (or removes) must outlive a reboot: with raspi-config's Overlay File System on, / is
# an overlay whose changes go to RAM, and an update there said "Done", ran, and was gone at the next power
# cut, the version before back with its configuration (the service's state folder on a partition of its own
# is kept, so the service says nothing). Dies before anything is written, naming the folder and what to do
# ($2 runs this again, $3 says what would be lost). The kernel's mount table (PROC_MOUNTS in the tests) is
# read as the service reads it (controller/service/mounts.py, from the checkout $1).
kept_over_reboot() {
    local unkept
    unkept=$(PYTHONPATH=$1 "$PYTHON" -c 'import sys
from controller.service.mounts import not_kept, read_mounts
table = read_mounts(sys.argv[1])
print(next(("%s is %s" % (folder, found[1]) for folder in sys.argv[2:] for found in [not_kept(folder, table)]
            if found), ""))' "${PROC_MOUNTS:-/proc/mounts}" "$CONFIG_DIR" "$PREFIX" "$SYSTEMD_DIR") \
        || die "$PYTHON could not read the mount table"
    [[ -z $unkept ]] || die "$unkept: $3. Turn the overlay (or the read-only mount) off: sudo raspi-config, Performance Options, Overlay File System; reboot, run $2, then turn it back on"
}

# Why the boot configuration cannot be written: root is refused only by a read-only mount.
not_writable() {
    if [[ $EUID -eq 0 ]]; then
        echo "its file system is mounted read-only (raspi-config's write-protected boot partition, or its Overlay File System): turn that off, reboot, and run this again"
    else
        echo "run as root (sudo)"
    fi
}

strict_gpiod_on() {
    local config
    config=$(boot_config)
    if [[ -z $config ]]; then
        say "No boot configuration (/boot/firmware/config.txt or /boot/config.txt): not a Raspberry Pi? strict_gpiod not set"
        return
    fi
    if grep -qxF "$STRICT_BEGIN" "$config"; then
        say "dtparam=strict_gpiod is already set in $config"
    elif grep -Eq '^[[:space:]]*dtparam=([^#]*,)?strict_gpiod(=on)?[[:space:]]*(,|$)' "$config"; then
        say "dtparam=strict_gpiod is already set in $config (by you: strict-gpiod off will leave it)"
    else
        [[ -w $config ]] || die "cannot write $config: $(not_writable)"
        # A file whose last line has no newline gets one, so the block starts on a line of its own.
        [[ ! -s $config || -z $(tail -c 1 "$config") ]] || printf '\n' >>"$config"
        printf '%s\n[all]\ndtparam=strict_gpiod\n%s\n' "$STRICT_BEGIN" "$STRICT_END" >>"$config"
        say "Added dtparam=strict_gpiod to $config: GPIO outputs go back to inputs (off) when the controller dies; takes effect at the next reboot"
    fi
}

strict_gpiod_off() {
    local config
    config=$(boot_config)
    [[ -n $config ]] || die "no boot configuration (/boot/firmware/config.txt or /boot/config.txt); set BOOT_CONFIG"
    if ! grep -qxF "$STRICT_BEGIN" "$config"; then
        say "$config has no dtparam=strict_gpiod added by install.sh: nothing to remove"
        return
    fi
    [[ -w $config && -w $(dirname -- "$config") ]] || die "cannot write $config: $(not_writable)"
    local new=$config.drnim-new
    awk -v begin="$STRICT_BEGIN" -v end="$STRICT_END" '
        $0 == begin { inside = 1; next }
        inside && $0 == end { inside = 0; next }
        !inside { print }' "$config" >"$new"
    chmod --reference="$config" -- "$new" 2>/dev/null || true
    mv -- "$new" "$config"
    say "Removed the dtparam=strict_gpiod that install.sh added from $config; takes effect at the next reboot"
}

readonly SYSTEMD_DIR=/etc/systemd/system
readonly TELEMETRY_DROPIN=$SYSTEMD_DIR/$NAME.service.d/telemetry.conf
readonly MONITOR=drnim-monitor
readonly MONITOR_TELEMETRY_DROPIN=$SYSTEMD_DIR/$MONITOR@.service.d/telemetry.conf
readonly BROKER_ENV=$CONFIG_DIR/mqtt-broker.env

# What install.sh reads of config.toml, as the new controller reads it: `broker`, host:port of the
# broker when [telemetry] is on (nothing when off); `boards`, the boards [boards] names, a line each,
# PORT<tab>NAME. Each of those is an exhibit of its own (controller/service/boards.py), run beside the
# Pi's own machine and the other boards; the Pi's machine and any board not named there are the
# configuration's own exhibit. Dies on a bad configuration.
from_config() {
    "$VENV/bin/python" - "$CONFIG_DIR/config.toml" "$1" <<'PY' || die "$CONFIG_DIR/config.toml: fix it ($VENV/bin/controller config check $CONFIG_DIR/config.toml)${PREVIOUS:+ while the version installed before runs, back in place}, then run again: ${AGAIN:-sudo $0 telemetry}"
import sys
from controller.core.exhibit import ConfigError
from controller.service.config import load_config
try:
    config = load_config(sys.argv[1])
except ConfigError as error:
    sys.exit("install.sh: %s" % error)
if sys.argv[2] == "broker" and config.telemetry["enabled"]:
    host = config.telemetry["host"]
    print("%s:%d" % ("[%s]" % host if ":" in host else host, config.telemetry["port"]))
elif sys.argv[2] == "boards":
    for port, name in sorted(config.boards.items()):
        print("%s\t%s" % (port, name))
PY
}

# The configuration and its pin map checked by the installed controller, as the drnim user, who reads
# them: root reads a password file or a pin map drnim may not, and the service (or a board's monitor,
# which reads the same configuration) would stop on it at its restart. $1: the checkout (its shipped
# files, to compare with); $2: the command to run again; $3: the controller that checked, when it is not the
# new one this run installed.
check_as_service() {
    local refused check="check it with sudo -u drnim $VENV/bin/controller config check $CONFIG_DIR/config.toml, "
    say "Checking $CONFIG_DIR/config.toml and its pin map with the installed controller, as the drnim user"
    if ! refused=$(cd / && runuser -u drnim -- "$VENV/bin/controller" config check "$CONFIG_DIR/config.toml" 2>&1 >/dev/null); then
        STEP=
        printf '%s\n' "$refused" >&2
        # the controller back in place is the version before, which may take what the new one refuses: its check
        # said good to a file that the run again refused once more, one key at a time
        [[ -z ${PREVIOUS:-} ]] || check="(the controller back in place is the version before: running again checks it with the new one), "
        die "${3:-the new controller} refuses $CONFIG_DIR/config.toml or its pin map (the line above), so no service was (re)started${PREVIOUS:+, and the version installed before is back in place: the exhibit runs it, at its next start too}. Mend the file (the shipped ones, to compare with: $1/systemd/config.toml and $1/hardware/MACHINE/pinmap.toml), ${check}then run again: $2"
    fi
}

telemetry_units() {
    local checkout=$1 broker
    broker=$(from_config broker)
    if [[ -n $broker ]]; then
        say "Telemetry on: the controller reaches $broker through drnim-mqtt.socket"
        printf '# Written by install.sh from [telemetry] in config.toml: run it again after a change.\nBROKER=%s\n' \
            "$broker" >"$BROKER_ENV"
        install -m 0644 "$checkout/systemd/drnim-mqtt.socket" "$checkout/systemd/drnim-mqtt.service" "$SYSTEMD_DIR/"
        install -D -m 0644 "$checkout/systemd/drnim-controller-telemetry.conf" "$TELEMETRY_DROPIN"
        install -D -m 0644 "$checkout/systemd/drnim-controller-telemetry.conf" "$MONITOR_TELEMETRY_DROPIN"
        systemctl daemon-reload
        systemctl enable --now --quiet drnim-mqtt.socket
        systemctl try-restart drnim-mqtt.service
    elif [[ -e $TELEMETRY_DROPIN ]]; then
        say "Telemetry off: removing drnim-mqtt.socket and the controller's telemetry drop-in"
        systemctl disable --now --quiet drnim-mqtt.socket drnim-mqtt.service || true
        rm -f -- "$TELEMETRY_DROPIN" "$MONITOR_TELEMETRY_DROPIN" "$SYSTEMD_DIR/drnim-mqtt.socket" \
            "$SYSTEMD_DIR/drnim-mqtt.service" "$BROKER_ENV"
        systemctl daemon-reload
    fi
}

# The [boards] name of the monitor unit $1's board, or nothing (the service, or a board not named).
board_name() {
    [[ $1 == "$MONITOR"@*.service ]] || return 0
    local port
    port=$(systemd-escape --unescape --path --instance "$1")
    awk -F '\t' -v port="$port" '$1 == port { print $2 }' <<<"$BOARDS"
}

# One exhibit, one unit: the enabled units that run the configuration's own exhibit as $1 does (the
# Pi's own machine, or a board [boards] does not name) are stopped and disabled; the others run an
# exhibit beside it and are restarted on the new code. Without $1 (uninstall), every one is stopped.
switch_to() {
    local keep=$1 link unit own name
    [[ -z $keep ]] || own=$(board_name "$keep")
    for link in "$SYSTEMD_DIR/multi-user.target.wants/$NAME.service" "$SYSTEMD_DIR/multi-user.target.wants/$MONITOR"@*.service; do
        unit=${link##*/}
        [[ -L $link && $unit != "$keep" ]] || continue
        name=
        [[ -z $keep ]] || name=$(board_name "$unit")
        if [[ -z $keep ]]; then
            say "Stopping and disabling $unit"
            systemctl disable --now --quiet "$unit"
        elif [[ -z $own && -z $name ]]; then
            say "Stopping and disabling $unit: this Pi now runs $keep (a board named in [boards] of $CONFIG_DIR/config.toml runs beside it)"
            systemctl disable --now --quiet "$unit"
        else
            say "Restarting $unit on the new code: ${name:+the exhibit $name of [boards], }beside $keep"
            systemctl try-restart "$unit"
        fi
    done
}

# Everything the install added, but what the museum made: the configuration and the pin maps,
# the saved game and the statistics, and the drnim user stay for a later install.
uninstall() {
    [[ $EUID -eq 0 ]] || die "run as root: sudo $0 uninstall"
    switch_to ""
    if [[ -e $SYSTEMD_DIR/drnim-mqtt.socket ]]; then
        say "Stopping and disabling drnim-mqtt.socket"
        systemctl disable --now --quiet drnim-mqtt.socket drnim-mqtt.service
    fi
    say "Removing the units, $SYSUSERS and $PREFIX"
    systemctl disable --quiet "$RESTORE" 2>/dev/null || true
    rm -f -- "$UNIT" "$SYSTEMD_DIR/$RESTORE" "$SYSTEMD_DIR/$MONITOR@.service" "$TELEMETRY_DROPIN" "$MONITOR_TELEMETRY_DROPIN" \
        "$SYSTEMD_DIR/drnim-mqtt.socket" "$SYSTEMD_DIR/drnim-mqtt.service" "$BROKER_ENV" "$SYSUSERS"
    rmdir --ignore-fail-on-non-empty -- "${TELEMETRY_DROPIN%/*}" "${MONITOR_TELEMETRY_DROPIN%/*}" 2>/dev/null || true
    systemctl daemon-reload
    rm -rf -- "$PREFIX"
    [[ -z $(boot_config) ]] || strict_gpiod_off
    say "Kept $CONFIG_DIR (the configuration and the pin maps), /var/lib/$NAME (the saved game and the statistics) and the drnim user; to remove them too: sudo rm -r $CONFIG_DIR /var/lib/$NAME && sudo userdel drnim"
}

# --wheels DIR, anywhere among an install's arguments. An option rather than pip's own
# PIP_NO_INDEX and PIP_FIND_LINKS: sudo drops the environment, and the install itself must
# know, so that it asks apt for nothing either and names a wheel the folder lacks.
ARGUMENTS=("$@")
WHEELS=
positional=()
while [[ $# -gt 0 ]]; do
    case $1 in
        --wheels)
            [[ $# -ge 2 && -n $2 ]] || die "--wheels needs the folder of wheels: --wheels DIR"
            WHEELS=$2
            shift 2 ;;
        --wheels=*) WHEELS=${1#--wheels=}; shift ;;
        *) positional+=("$1"); shift ;;
    esac
done
set -- "${positional[@]}"
if [[ -n $WHEELS ]]; then
    case ${1:-} in
        uninstall|telemetry|strict-gpiod) die "--wheels is for an install or an update, not $1" ;;
    esac
    [[ -d $WHEELS ]] || die "--wheels $WHEELS: no such folder"
    WHEELS=$(cd -- "$WHEELS" && pwd)
    compgen -G "$WHEELS/*.whl" >/dev/null || die "--wheels $WHEELS: no wheels (*.whl) in it; make pi-offline gathers them (README, \"Without internet\")"
fi
readonly WHEELS

if [[ ${1:-} == uninstall ]]; then
    [[ $# -eq 1 ]] || die "usage: $0 uninstall"
    kept_over_reboot "$(cd -- "$(dirname -- "${BASH_SOURCE[0]}")/.." && pwd)" "sudo $0 uninstall" \
        "what this removes would be back at the next reboot"
    uninstall
    exit 0
fi

if [[ ${1:-} == telemetry ]]; then
    [[ $EUID -eq 0 ]] || die "run as root: sudo $0 telemetry"
    checkout=$(cd -- "$(dirname -- "${BASH_SOURCE[0]}")/.." && pwd)
    kept_over_reboot "$checkout" "sudo $0 telemetry" "what this writes would be gone at the next reboot"
    # no code installed here: an install older than the checkout refuses the checkout's [telemetry] as unknown
    check_as_service "$checkout" "sudo $0 telemetry" \
        "the installed controller (older than this checkout? sudo $0 updates it and sets up [telemetry] too)"
    telemetry_units "$checkout"
    systemctl try-restart "$NAME" "$MONITOR@*.service"
    exit 0
fi

if [[ ${1:-} == strict-gpiod ]]; then
    case ${2:-} in
        on) strict_gpiod_on ;;
        off) strict_gpiod_off ;;
        *) die "usage: $0 strict-gpiod on|off" ;;
    esac
    exit 0
fi
MONITOR_PORT=
if [[ ${1:-} == monitor ]]; then
    [[ $# -eq 2 && -n $2 ]] || die "usage: $0 monitor PORT (the board's serial port, such as /dev/serial/by-id/usb-MicroPython_...)"
    [[ $2 == /dev/* ]] || die "monitor: $2 is not a serial port: give its path, such as /dev/ttyACM0"
    MONITOR_PORT=$2
    shift 2
fi
[[ $# -eq 0 ]] || die "unknown argument: $1 (usage: $0 [--wheels DIR], $0 monitor PORT [--wheels DIR], $0 telemetry, $0 strict-gpiod on|off, or $0 uninstall)"
# An update of a Pi that watches a board (a monitor runs, the Pi's own service does not) updates its
# monitor: a plain install.sh, the README's update, put the Pi's own service in its place, which drove
# pins no machine is wired to while the board's games and reports went unrecorded.
# A board named in [boards] runs beside the Pi's own machine: its monitor is not the Pi's exhibit.
# The command that finishes an install stopped halfway: AGAIN.
AGAIN="sudo $0${ARGUMENTS[*]:+ ${ARGUMENTS[*]}}"
WATCHING=
if [[ -z $MONITOR_PORT && ! -L $SYSTEMD_DIR/multi-user.target.wants/$NAME.service ]] \
        && compgen -G "$SYSTEMD_DIR/multi-user.target.wants/$MONITOR@*.service" >/dev/null; then
    # read by the code installed now, from /: an older one that cannot read the configuration (a
    # [boards] from after it) leaves every monitor counted as the Pi's exhibit, not the update stopped
    BOARDS=$(cd / && from_config boards 2>/dev/null) || BOARDS=
    for link in "$SYSTEMD_DIR/multi-user.target.wants/$MONITOR"@*.service; do
        if [[ -L $link && -z $(board_name "${link##*/}") ]]; then
            WATCHING=${link##*/}
            MONITOR_PORT=$(systemd-escape --unescape --path --instance "$WATCHING")
            AGAIN="sudo $0 monitor $MONITOR_PORT${ARGUMENTS[*]:+ ${ARGUMENTS[*]}}"
            break
        fi
    done
fi
readonly AGAIN

if [[ $EUID -ne 0 ]]; then
    die "run as root: sudo $0"
fi
[[ -z $WATCHING ]] || say "This Pi watches a board ($WATCHING runs, the Pi's own service does not): updating its monitor, as sudo $0 monitor $MONITOR_PORT does. To run the Pi's own machine in its place: sudo systemctl disable --now '$WATCHING', then sudo $0"

# The checkout is the directory above this script's.
CHECKOUT=$(cd -- "$(dirname -- "${BASH_SOURCE[0]}")/.." && pwd)
readonly CHECKOUT
for f in pyproject.toml systemd/$NAME.service systemd/$MONITOR@.service systemd/$NAME.sysusers systemd/config.toml; do
    [[ -f $CHECKOUT/$f ]] || die "$CHECKOUT/$f is missing: run this script from a complete checkout"
done
command -v systemctl >/dev/null || die "systemctl not found: this needs a systemd system (Raspberry Pi OS)"
command -v systemd-sysusers >/dev/null || die "systemd-sysusers not found: apt install systemd"
command -v "$PYTHON" >/dev/null || die "$PYTHON not found: apt install python3 python3-venv"
"$PYTHON" -c 'import sys; sys.exit(sys.version_info < (3, 11))' \
    || die "$PYTHON is $("$PYTHON" -V 2>&1 | cut -d' ' -f2); the controller needs Python 3.11 or newer (Raspberry Pi OS bookworm)"
kept_over_reboot "$CHECKOUT" "$AGAIN" "what this install writes would be gone at the next reboot, and the version before back"

# Whatever stops the install halfway (pip without a network, a full disk), its last
# line says so and how to finish it. STEP is empty once the steps are done.
STEP=
SRC=
# The version installed before this one, kept aside until the new one accepts this Pi's configuration and
# pin maps (PREVIOUS): an update that stops before then puts it back, with a pin map it replaced, so that
# the next boot (the nightly power cut) starts what ran, not new code that refuses the museum's files.
# The virtualenv goes back whole, where its scripts say it is, and by renaming, so that what is cut off
# halfway leaves a whole copy: $VENV.previous exists only whole (copied as $VENV.copying first), and one
# that an update cut off by a power cut left goes back at the next run.
PREVIOUS=
put_back() {
    local machine
    rm -rf -- "$VENV.failed"
    { [[ ! -e $VENV ]] || mv -- "$VENV" "$VENV.failed"; } && mv -- "$PREVIOUS" "$VENV" || return 1
    rm -rf -- "$VENV.failed"
    for machine in drnim nimatron; do
        [[ ! -f $SRC/replaced/$machine.toml ]] || cp -p -- "$SRC/replaced/$machine.toml" "$CONFIG_DIR/pinmaps/$machine.toml"
    done
}
accepted() {
    [[ -z $PREVIOUS ]] || rm -rf -- "$PREVIOUS"
    PREVIOUS=
}
finish() {
    local status=$?
    trap '' INT HUP TERM        # a second Ctrl-C does not cut the putting back short
    if [[ $status -ne 0 && -n $PREVIOUS ]]; then
        if ! put_back; then
            printf 'install.sh: error: the version installed before could not be put back from %s: move it to %s by hand\n' "$PREVIOUS" "$VENV" >&2
            PREVIOUS=
        fi
    fi
    [[ -z $SRC ]] || rm -rf -- "$SRC"
    if [[ $status -ne 0 && -n $STEP ]]; then
        printf 'install.sh: error: the install stopped while %s, so the steps after it were not done and no service was (re)started%s; once the messages above are seen to (pip needs the network, or --wheels DIR; a full disk: df -h), run it again: %s\n' \
            "$STEP" "${PREVIOUS:+ (the version installed before is back in place)}" "$AGAIN" >&2
    fi
}
trap finish EXIT
# Ctrl-C, the SSH session lost, a stop: finish sees the install fail (a signal alone would end it with
# status 0 in finish, which then put nothing back and said nothing).
trap 'exit 130' INT
trap 'exit 129' HUP
trap 'exit 143' TERM

# run_pip VERB ARGUMENTS...: pip; with --wheels, every package from that folder, built (an sdist would need
# apt), and no index asked. A package the folder lacks ends the install in one line that names it,
# this Pi's Python and architecture, and what gathers it; pip's own lines name neither the folder
# nor the remedy.
run_pip() {
    if [[ -z $WHEELS ]]; then
        "$VENV/bin/python" -m pip "$@"
        return
    fi
    local errors missing pi
    if errors=$("$VENV/bin/python" -m pip "$1" --no-index --find-links "$WHEELS" --only-binary=:all: \
            --disable-pip-version-check "${@:2}" 2>&1 >/dev/null); then
        [[ -z $errors ]] || printf '%s\n' "$errors" >&2
        return
    fi
    missing=$(sed -n 's/^ *ERROR: No matching distribution found for \([^;]*\).*/\1/p' <<<"$errors" | head -n 1)
    if [[ -z $missing ]]; then
        printf '%s\n' "$errors" >&2
        return 1
    fi
    # The Python and the architecture pip picks wheels for: a 32-bit Raspberry Pi OS on a
    # 64-bit kernel says aarch64 to uname, and takes armv7l wheels.
    pi=$("$VENV/bin/python" -c 'import platform, struct, sys
machine = platform.machine()
print("%d.%d" % sys.version_info[:2], "armv7l" if machine == "aarch64" and struct.calcsize("P") == 4 else machine)')
    STEP=
    die "$WHEELS has no wheel of $missing for this Pi's Python ${pi% *} on ${pi#* }, so no service was (re)started: on a computer with internet, make pi-offline PI_PYTHONS=${pi% *} PI_ARCHS=${pi#* } gathers it (README, \"Without internet\"); then run again: $AGAIN"
}

# 1. The virtualenv. python3 -m venv needs ensurepip, which Debian packages apart.
# One that a failure left without pip (a full disk) is made again, not used.
# An update cut off (a power cut) left the version before it aside: it goes back first, as that update
# would have put it back, and this one starts from it.
rm -rf -- "$VENV.copying"
if [[ -d $VENV.previous ]]; then
    say "Putting back the version that an update cut off kept aside in $VENV.previous"
    STEP="putting back $VENV.previous"
    PREVIOUS=$VENV.previous
    put_back
    PREVIOUS=
fi
STEP="creating the virtualenv $VENV"
if [[ -x $VENV/bin/python ]] && "$VENV/bin/python" -m pip --version >/dev/null 2>&1; then
    say "Using the virtualenv $VENV"
else
    "$PYTHON" -c 'import ensurepip' 2>/dev/null || die "Python's venv support is missing: apt install python3-venv"
    if [[ -e $VENV ]]; then
        say "Making the virtualenv $VENV again: the one there has no pip (an install cut short)"
        rm -rf -- "$VENV"
    else
        say "Creating the virtualenv $VENV"
    fi
    install -d -m 0755 "$PREFIX"
    "$PYTHON" -m venv "$VENV"
fi

# 2. The package: the wheel built from the checkout (the same wheel a laptop
# installs with pipx; it carries the firmware, the page and the pin maps),
# with the Raspberry Pi and telemetry extras. pip builds a source tree in
# place (build/, *.egg-info), so it builds from a copy: the checkout gets no
# root-owned files.
SRC=$(mktemp -d)
if [[ -x $VENV/bin/controller ]]; then
    say "Keeping the version installed now aside ($VENV.previous) until the new one accepts this Pi's configuration"
    STEP="keeping the version installed now aside in $VENV.previous"
    cp -a -- "$VENV" "$VENV.copying" || { rm -rf -- "$VENV.copying"; exit 1; }
    mv -- "$VENV.copying" "$VENV.previous"
    PREVIOUS=$VENV.previous
    # on the card before pip touches $VENV: a power cut from here on boots into the version before
    # ($RESTORE puts it back)
    install -m 0644 "$CHECKOUT/systemd/$RESTORE" "$SYSTEMD_DIR/"
    systemctl daemon-reload
    systemctl enable --quiet "$RESTORE"
    sync
fi
say "Building the wheel of $CHECKOUT"
STEP="building the wheel of $CHECKOUT"
mkdir -- "$SRC/source"
tar -C "$CHECKOUT" --exclude=./.git --exclude=./.venv --exclude=./build --exclude=node_modules \
    --exclude='*.egg-info' --exclude=.pytest_cache --exclude=.hypothesis -cf - . \
    | tar -C "$SRC/source" -xf -
# The checkout's commit, which `controller --version` and `controller status` say (controller/built.py):
# the version alone is the same from one update to the next. make pi-offline's archive has no git: it
# carries its commit in controller/commit.txt, which the wheel takes as it is.
# Read without writing: run as root, git would otherwise refresh the checkout's index as root's file.
COMMIT=
if [[ -e $CHECKOUT/.git ]] && COMMIT=$(git -c safe.directory="$CHECKOUT" -C "$CHECKOUT" rev-parse --short=7 HEAD 2>/dev/null); then
    [[ -z $(git -c safe.directory="$CHECKOUT" -C "$CHECKOUT" --no-optional-locks status --porcelain --untracked-files=no 2>/dev/null) ]] \
        || COMMIT+=-dirty
fi
# (an archive unpacked over an older clone, as the README's commands do in one folder: the clone's files
# then differ from its commit, and the archive's commit is the one)
if [[ ( -z $COMMIT || $COMMIT == *-dirty ) && -f $CHECKOUT/controller/commit.txt ]]; then
    COMMIT=$(head -n 1 -- "$CHECKOUT/controller/commit.txt")
fi
[[ -z $COMMIT ]] || printf '%s\n' "$COMMIT" >"$SRC/source/controller/commit.txt"
run_pip wheel --quiet --no-deps --wheel-dir "$SRC/dist" "$SRC/source" || die "pip could not build the wheel of $CHECKOUT"
WHEEL=$(echo "$SRC"/dist/drnim_controller-*.whl)
[[ -f $WHEEL ]] || die "pip built no wheel of $CHECKOUT"
say "Installing $(basename -- "$WHEEL")${COMMIT:+ (commit $COMMIT)} with the pi and telemetry extras into $VENV"
STEP="installing the package into $VENV"
# lgpio, gpiozero's GPIO library, is a C extension: PyPI has it built for Python 3.9 to 3.12 on
# 64-bit and 32-bit Pis (aarch64, armv7l). Elsewhere (Python 3.13 on trixie, a Pi Zero's armv6l) pip
# builds it, which takes a compiler, Python's headers, swig and the lgpio C library (Raspberry Pi
# OS's archive has liblgpio-dev, Debian's does not): those come first, from apt.
# A folder of wheels (--wheels) has lgpio built, or the install names it missing.
if [[ -z $WHEELS ]] && ! resolved=$("$VENV/bin/python" -m pip install --dry-run --quiet --only-binary=lgpio "${WHEEL}[pi,telemetry]" 2>&1); then
    if [[ $resolved != *"requirement lgpio"* ]]; then
        printf '%s\n' "$resolved" >&2
        exit 1
    fi
    command -v apt-get >/dev/null || die "no built lgpio for $("$VENV/bin/python" -V), and no apt-get to install what building it takes: $LGPIO_BUILD"
    say "No built lgpio for $("$VENV/bin/python" -V): installing what pip builds it with ($LGPIO_BUILD)"
    STEP="installing what building lgpio takes ($LGPIO_BUILD)"
    apt-get update -qq
    # shellcheck disable=SC2086 # a list of packages
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends $LGPIO_BUILD
    STEP="installing the package into $VENV"
fi
# The dependencies first: when they cannot be had (no network), the code in place stays the
# code its dependencies were installed for. Then --force-reinstall: an update keeps the version
# number, and pip would keep the old code.
run_pip install --quiet "${WHEEL}[pi,telemetry]"
run_pip install --quiet --force-reinstall --no-deps "$WHEEL"
[[ -x $VENV/bin/controller ]] || die "pip did not install $VENV/bin/controller"

# 3. The service user: drnim, in gpio (created if missing) and dialout.
say "Creating the drnim user ($SYSUSERS)"
STEP="creating the drnim user"
install -D -m 0644 "$CHECKOUT/systemd/$NAME.sysusers" "$SYSUSERS"
systemd-sysusers "$SYSUSERS"

# 4. The configuration, never overwritten.
STEP="installing the configuration in $CONFIG_DIR"
install -d -m 0755 "$CONFIG_DIR"
if [[ -e $CONFIG_DIR/config.toml ]]; then
    say "Keeping the existing $CONFIG_DIR/config.toml (the shipped one is $CHECKOUT/systemd/config.toml)"
else
    say "Installing $CONFIG_DIR/config.toml"
    install -m 0644 "$CHECKOUT/systemd/config.toml" "$CONFIG_DIR/config.toml"
fi
# The pin maps: the wiring of this exhibit, edited here and kept on updates. One never edited here (byte
# for byte a pin map this project shipped: systemd/shipped-pinmaps.txt) is replaced by the new one, as dpkg
# does an unchanged conffile: it is the wiring the build guide gave, and the new code may ask more of it.
install -d -m 0755 "$CONFIG_DIR/pinmaps"
for machine in drnim nimatron; do
    kept=$CONFIG_DIR/pinmaps/$machine.toml
    shipped=$CHECKOUT/hardware/$machine/pinmap.toml
    if [[ ! -e $kept ]]; then
        say "Installing $kept"
        install -m 0644 "$shipped" "$kept"
    elif cmp -s "$kept" "$shipped"; then
        say "Keeping $kept (the shipped one)"
    elif grep -qx "$(sha256sum < "$kept" | cut -d' ' -f1) $machine" "$CHECKOUT/systemd/shipped-pinmaps.txt"; then
        say "Updating $kept: an earlier version's shipped pin map, never edited here"
        install -D -p -m 0644 "$kept" "$SRC/replaced/$machine.toml"
        install -m 0644 "$shipped" "$kept"
        # The lamps' resistors are soldered: a build keeps the ones its parts list gave (the check warns
        # of what they draw), where a newer list gives others.
        soldered=$(sed -n 's/^lamp_resistor *= *\([0-9][0-9]*\).*/\1/p' "$SRC/replaced/$machine.toml")
        listed=$(sed -n 's/^lamp_resistor *= *\([0-9][0-9]*\).*/\1/p' "$kept")
        if [[ -n $soldered && -n $listed && $soldered != "$listed" ]]; then
            sed -i "s/^lamp_resistor *= *$listed\b.*/lamp_resistor = $soldered                 # ohms, as soldered from the parts list of its day (today's: $listed)/" "$kept"
            say "Keeping lamp_resistor = $soldered in $kept: the lamps' resistors this build has (today's parts list gives $listed Ω)"
        fi
    else
        say "Keeping the existing $kept, edited here (the shipped one is $shipped)"
    fi
done

# 5 (a Pi watching a board). The monitor for its port: in place of the service, or beside it
# and the other boards when [boards] names the board (switch_to).
if [[ -n $MONITOR_PORT ]]; then
    instance=$MONITOR@$(systemd-escape --path "$MONITOR_PORT").service
    say "Installing $SYSTEMD_DIR/$MONITOR@.service"
    STEP=
    BOARDS=$(from_config boards)
    check_as_service "$CHECKOUT" "$AGAIN"
    accepted
    STEP="installing $instance"
    install -m 0644 "$CHECKOUT/systemd/$MONITOR@.service" "$SYSTEMD_DIR/"
    telemetry_units "$CHECKOUT"
    systemctl daemon-reload
    [[ -e $MONITOR_PORT ]] || say "$MONITOR_PORT is not there now: the monitor waits for the board"
    switch_to "$instance"
    STEP=
    say "Enabling and (re)starting $instance"
    systemctl enable --quiet "$instance"
    systemctl restart "$instance" || die "$instance did not start; see: journalctl -u '$instance' -b"
    say "Done. Follow the board with: journalctl -u '$instance' -f"
    exit 0
fi

# 5. The configuration and the pin map the service is about to run, as the new code reads them.
# Files kept from an older version that it refuses (a key the older one did not ask for) would
# stop the service at its restart, the exhibit dark until someone read the journal: the install
# stops here instead, with the line that names the file and the key, and the service goes on.
check_as_service "$CHECKOUT" "$AGAIN"
BOARDS=$(from_config boards)
accepted

# 6. GPIO lines back to inputs (outputs off) when the controller dies, from the next boot.
STEP="adding dtparam=strict_gpiod to the boot configuration"
strict_gpiod_on

# 7. The unit; enable it and start it, or restart it if it was running so
# that the new code and unit take effect.
say "Installing $UNIT"
STEP="installing $UNIT"
install -m 0644 "$CHECKOUT/systemd/$NAME.service" "$UNIT"
telemetry_units "$CHECKOUT"
was_active=no
systemctl is-active --quiet "$NAME" && was_active=yes
systemctl daemon-reload
switch_to "$NAME.service"
STEP=
if [[ $was_active == yes ]]; then
    say "Restarting $NAME"
    systemctl enable --quiet "$NAME"
    systemctl restart "$NAME" || die "$NAME did not restart; see: journalctl -u $NAME -b"
else
    say "Enabling and starting $NAME"
    systemctl enable --now --quiet "$NAME" || die "$NAME did not start; see: journalctl -u $NAME -b"
fi

say "Done. Follow the log with: journalctl -u $NAME -f"
say "State: systemctl status $NAME"
