"""Whether the files the service writes in its state folder outlive a reboot, read from the
kernel's mount table (/proc/mounts).

A museum that protects the Pi's SD card as Raspberry Pi's documentation advises for a kiosk
may put the whole root in RAM (raspi-config's Overlay File System: the card mounted read-only
under an overlay whose changes go to a tmpfs, lost at every reboot) or mount it read-only. The
service plays on either way, but the game it saves to resume after a power cut, its statistics
and the reports not yet sent to the broker are then lost, or never written: `not_kept` says so,
in words for the journal. The table is passed in as text, so that a test can describe any mount
without root.
"""

import os
import re

MOUNTS = "/proc/mounts"
# File systems whose files live in memory only.
IN_MEMORY = ("tmpfs", "ramfs")
# What `not_kept` finds.
READ_ONLY = "read-only"
IN_RAM = "in-ram"


def read_mounts(path=MOUNTS):
    """The mount table as text; "" where there is none to read (not Linux): nothing is said then."""
    try:
        with open(path, encoding="utf-8", errors="replace") as f:
            return f.read()
    except OSError:
        return ""


def started_by_systemd():
    """True for the service as systemd runs it (its child, given the INVOCATION_ID every unit gets).
    A run by hand or a test's keeps its folder where it chose, often in a /tmp that is a tmpfs
    (Debian 13, Fedora, Arch): saying it is in RAM would be noise there, and its `controller status`
    would show a fault that is none. (INVOCATION_ID alone is not enough: a CI runner that is itself
    a systemd service hands it to every test it runs.)"""
    return "INVOCATION_ID" in os.environ and os.getppid() == 1


def kernel_mounts():
    """The kernel's mount table for the service systemd runs, "" for any other run (started_by_systemd)."""
    return read_mounts() if started_by_systemd() else ""


def unescaped(field):
    """A field of the table as it is: the kernel writes a space, a tab, a newline and a backslash
    as \\040, \\011, \\012 and \\134."""
    return re.sub(r"\\([0-7]{3})", lambda octal: chr(int(octal.group(1), 8)), field)


def mounts_of(text):
    """Every mount of the table: (source, mount point, type, options as a list), in its order."""
    for line in text.splitlines():
        fields = line.split()
        if len(fields) >= 4:
            yield unescaped(fields[0]), unescaped(fields[1]), fields[2], fields[3].split(",")


def mount_holding(path, text):
    """The mount that holds `path` (a path without links): the last one mounted at its longest
    mount point, as the kernel finds it; None when the table has none."""
    found = None
    for mount in mounts_of(text):
        point = mount[1]
        inside = path == point or path.startswith(point.rstrip("/") + "/")
        if inside and (found is None or len(point) >= len(found[1])):
            found = mount
    return found


def option(options, name):
    """The value of `name=...` among a mount's options, or None."""
    for item in options:
        if item.startswith(name + "="):
            return item[len(name) + 1:]
    return None


def not_kept(folder, text):
    """Why what the service writes in `folder` is not kept over a reboot: (READ_ONLY or IN_RAM,
    where it is in words for the journal), or None when it is kept, or the table does not say."""
    held = mount_holding(os.path.realpath(folder), text)
    if held is None:
        return None
    source, point, kind, options = held
    if "ro" in options:
        return READ_ONLY, "on a read-only mount (%s, %s at %s)" % (source, kind, point)
    if kind in IN_MEMORY:
        return IN_RAM, "in RAM (a %s at %s)" % (kind, point)
    upper = option(options, "upperdir") if kind == "overlay" else None
    if upper is not None:
        under = mount_holding(upper, text)
        if under is not None and under[2] in IN_MEMORY:
            return IN_RAM, ("in RAM (the overlay at %s keeps its changes in the %s at %s, as raspi-config's "
                            "Overlay File System does)" % (point, under[2], under[1]))
    return None
