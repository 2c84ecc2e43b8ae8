#!/usr/bin/env bash
# Install (or update) the Dr. Nim Controller service on a Raspberry Pi, from a
# checkout of this repository:
#
#   git clone <repository> drnim-controller && cd drnim-controller
#   sudo systemd/install.sh
#
# Safe to run again (after a `git pull`, say): it reuses the virtualenv,
# reinstalls the package, keeps an existing /etc/drnim-controller/config.toml,
# and restarts the service if it was running.
#
#   /opt/drnim-controller/venv                   the virtualenv (root's, read-only to the service)
#   /etc/sysusers.d/drnim-controller.conf        the drnim user, in groups gpio and dialout
#   /etc/drnim-controller/config.toml            the configuration (only if missing)
#   /etc/systemd/system/drnim-controller.service the unit
#
# Environment: PYTHON (default python3), the interpreter for the virtualenv.
set -euo pipefail

readonly NAME=drnim-controller
readonly PREFIX=/opt/$NAME
readonly VENV=$PREFIX/venv
readonly CONFIG_DIR=/etc/$NAME
readonly UNIT=/etc/systemd/system/$NAME.service
readonly SYSUSERS=/etc/sysusers.d/$NAME.conf
PYTHON=${PYTHON:-python3}

say() { printf '==> %s\n' "$*"; }
die() { printf 'install.sh: error: %s\n' "$*" >&2; exit 1; }

if [[ $EUID -ne 0 ]]; then
    die "run as root: sudo $0"
fi

# The checkout is the directory above this script's.
CHECKOUT=$(cd -- "$(dirname -- "${BASH_SOURCE[0]}")/.." && pwd)
readonly CHECKOUT
for f in pyproject.toml systemd/$NAME.service systemd/$NAME.sysusers systemd/config.toml; do
    [[ -f $CHECKOUT/$f ]] || die "$CHECKOUT/$f is missing: run this script from a complete checkout"
done
command -v systemctl >/dev/null || die "systemctl not found: this needs a systemd system (Raspberry Pi OS)"
command -v systemd-sysusers >/dev/null || die "systemd-sysusers not found: apt install systemd"
command -v "$PYTHON" >/dev/null || die "$PYTHON not found: apt install python3 python3-venv"
"$PYTHON" -c 'import sys; sys.exit(sys.version_info < (3, 11))' \
    || die "$PYTHON is $("$PYTHON" -V 2>&1 | cut -d' ' -f2); the controller needs Python 3.11 or newer (Raspberry Pi OS bookworm)"

# 1. The virtualenv. python3 -m venv needs ensurepip, which Debian packages apart.
if [[ -x $VENV/bin/python ]]; then
    say "Using the virtualenv $VENV"
else
    "$PYTHON" -c 'import ensurepip' 2>/dev/null || die "Python's venv support is missing: apt install python3-venv"
    say "Creating the virtualenv $VENV"
    install -d -m 0755 "$PREFIX"
    "$PYTHON" -m venv "$VENV"
fi

# 2. The package, with the Raspberry Pi extra. pip builds a source tree in
# place (build/, *.egg-info), so it builds from a copy: the checkout gets no
# root-owned files.
say "Installing $CHECKOUT with the pi extra into $VENV"
SRC=$(mktemp -d)
trap 'rm -rf -- "$SRC"' EXIT
tar -C "$CHECKOUT" --exclude=./.git --exclude=./.venv --exclude=./build \
    --exclude='*.egg-info' --exclude=.pytest_cache --exclude=.hypothesis -cf - . \
    | tar -C "$SRC" -xf -
"$VENV/bin/python" -m pip install --quiet --upgrade "${SRC}[pi]"
[[ -x $VENV/bin/controller ]] || die "pip did not install $VENV/bin/controller"

# 3. The service user: drnim, in gpio (created if missing) and dialout.
say "Creating the drnim user ($SYSUSERS)"
install -D -m 0644 "$CHECKOUT/systemd/$NAME.sysusers" "$SYSUSERS"
systemd-sysusers "$SYSUSERS"

# 4. The configuration, never overwritten.
install -d -m 0755 "$CONFIG_DIR"
if [[ -e $CONFIG_DIR/config.toml ]]; then
    say "Keeping the existing $CONFIG_DIR/config.toml (the shipped one is $CHECKOUT/systemd/config.toml)"
else
    say "Installing $CONFIG_DIR/config.toml"
    install -m 0644 "$CHECKOUT/systemd/config.toml" "$CONFIG_DIR/config.toml"
fi
# The pin maps: the wiring of this exhibit, edited here and kept on updates.
install -d -m 0755 "$CONFIG_DIR/pinmaps"
for machine in drnim nimatron; do
    if [[ -e $CONFIG_DIR/pinmaps/$machine.toml ]]; then
        say "Keeping the existing $CONFIG_DIR/pinmaps/$machine.toml"
    else
        say "Installing $CONFIG_DIR/pinmaps/$machine.toml"
        install -m 0644 "$CHECKOUT/hardware/$machine/pinmap.toml" "$CONFIG_DIR/pinmaps/$machine.toml"
    fi
done

# 5. The unit; enable it and start it, or restart it if it was running so
# that the new code and unit take effect.
say "Installing $UNIT"
install -m 0644 "$CHECKOUT/systemd/$NAME.service" "$UNIT"
was_active=no
systemctl is-active --quiet "$NAME" && was_active=yes
systemctl daemon-reload
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
