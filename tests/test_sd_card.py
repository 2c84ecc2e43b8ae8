"""An SD card protected as Raspberry Pi advises for a kiosk left for months: the root in RAM
(raspi-config's Overlay File System) or read-only. The service plays on, and says at start, in
one line, what it cannot keep and where: it reads the kernel's mount table, which a test gives
as text (no root, no real mount)."""

import errno
import io
import os
import re

import pytest

from service_rig import Rig, run_briefly
from controller.cli import main
from controller.service import daemon, mounts

# raspi-config's Overlay File System (the overlayroot package) as the kernel's table shows it: the
# card read-only under /media/root-ro, the changes in a tmpfs under /media/root-rw.
OVERLAY = """\
/dev/mmcblk0p2 /media/root-ro ext4 ro,relatime 0 0
tmpfs-root /media/root-rw tmpfs rw,relatime,size=204800k 0 0
overlayroot / overlay rw,relatime,lowerdir=/media/root-ro,upperdir=/media/root-rw/overlay,\
workdir=/media/root-rw/overlay-workdir/_ 0 0
"""


def as_the_service_sees(table, state):
    """`table` as the service's unit shows it to the service: ProtectSystem=strict binds the root
    read-only, and its StateDirectory= over it read-write, from the same file system."""
    root = [line for line in table.splitlines() if line.split()[1] == "/"][0].split()
    bound = [root[0], str(state), root[2], root[3]]
    root[3] = root[3].replace("rw,", "ro,", 1)
    return table + " ".join(root + ["0", "0"]) + "\n" + " ".join(bound + ["0", "0"]) + "\n"


def status(tmp_path):
    out = io.StringIO()
    main(["status", "--config", str(tmp_path / "config.toml")], out=out)
    return out.getvalue()


@pytest.mark.parametrize("table", [
    lambda state: OVERLAY,
    lambda state: as_the_service_sees(OVERLAY, state),
    lambda state: "tmpfs %s tmpfs rw,nosuid,nodev,size=65536k 0 0\n" % str(state).replace(" ", "\\040"),
], ids=["raspi-config's overlay", "the overlay, as the service's unit shows it", "a tmpfs"])
def test_a_state_folder_in_ram_is_said_once_at_start_and_play_goes_on(tmp_path, table):
    state = tmp_path / "state"
    rig = Rig(tmp_path, equalizer=False, mounts=table(state))
    said = [line for line in rig.log if "fault" in line]
    assert len(said) == 1 and said[0].startswith("fault: in-ram: %s is in RAM (" % state), said
    assert "lost at every reboot or power cut" in said[0] and "docs/troubleshooting.md" in said[0]
    rig.take(2)
    assert rig.machine.rail == 13, "play goes on"
    assert [line for line in rig.log if "fault" in line] == said, "said once, not at every save"
    rig.service.heartbeat()
    assert "Service fault: in-ram: %s is in RAM" % state in status(tmp_path)


@pytest.mark.parametrize("table", [
    lambda state: OVERLAY + "/dev/mmcblk0p3 %s ext4 rw,noatime 0 0\n" % state,
    lambda state: OVERLAY.replace(" / overlay rw,", " / overlay ro,") + "/dev/mmcblk0p3 %s ext4 rw,noatime 0 0\n"
    % state,
    lambda state: "/dev/mmcblk0p2 / ext4 rw,noatime 0 0\n",
], ids=["a partition of its own under the overlay", "the same, as the service's unit shows it", "a card as it comes"])
def test_a_state_folder_that_keeps_its_files_says_nothing(tmp_path, table):
    rig = Rig(tmp_path, equalizer=False, mounts=table(tmp_path / "state"))
    rig.take(1)
    assert [line for line in rig.log if "fault" in line] == []


def read_only(folder, monkeypatch):
    """Every write into `folder` fails as on a read-only mount (EROFS), root's too; reads work."""
    def inside(path):
        return str(path).startswith(str(folder))

    def refused():
        return OSError(errno.EROFS, os.strerror(errno.EROFS))

    real_os_open, real_open = os.open, open
    writing = os.O_WRONLY | os.O_RDWR | os.O_CREAT

    def os_open(path, flags, *args, **kwargs):
        if inside(path) and flags & writing:
            raise refused()
        return real_os_open(path, flags, *args, **kwargs)

    def builtin_open(path, mode="r", *args, **kwargs):
        if inside(path) and mode.strip("bt") != "r":
            raise refused()
        return real_open(path, mode, *args, **kwargs)
    monkeypatch.setattr(os, "open", os_open)
    monkeypatch.setattr(daemon, "open", builtin_open, raising=False)


def test_a_read_only_mount_is_named_in_the_one_line_that_says_the_game_is_not_saved(tmp_path, monkeypatch, capsys):
    """A read-only root (the card mounted ro, with no folder left writable for the service): the
    saved game resumes, and the line says where, and that the statistics are not kept either."""
    state = tmp_path / "state"
    rig = Rig(tmp_path, equalizer=False)
    rig.take(2)
    rig.service.stop()
    (state / "service.lock").write_text("")     # as the service that ran there left it
    read_only(state, monkeypatch)
    started = run_briefly(rig, monkeypatch, "/dev/mmcblk0p2 / ext4 ro,relatime 0 0\n")
    assert started == [13], "the saved game resumed"
    said = [line for line in capsys.readouterr().err.splitlines() if "fault" in line]
    assert said == ["fault: storage: cannot save the game in %s (Read-only file system): playing on unsaved; a "
                    "restart now loses this game; it is on a read-only mount (/dev/mmcblk0p2, ext4 at /), where "
                    "neither a game nor the statistics can be kept: give the service a partition of its own "
                    "(docs/troubleshooting.md)" % state]


def test_the_service_systemd_runs_reads_the_kernels_mount_table(tmp_path, monkeypatch, capsys):
    rig = Rig(tmp_path, equalizer=False)
    rig.service.stop()
    monkeypatch.setattr(mounts, "read_mounts", lambda: OVERLAY)
    monkeypatch.setenv("INVOCATION_ID", "0123456789abcdef0123456789abcdef")
    monkeypatch.setattr(mounts.os, "getppid", lambda: 1)
    assert run_briefly(rig, monkeypatch, None) == [15]
    assert "fault: in-ram: %s is in RAM" % (tmp_path / "state") in capsys.readouterr().err


@pytest.mark.parametrize("invocation, parent", [(None, 4242), ("0123456789abcdef0123456789abcdef", 4242)],
                         ids=["by hand", "under a CI runner that systemd runs"])
def test_a_run_by_hand_or_a_tests_says_nothing_of_a_folder_in_a_tmpfs(tmp_path, monkeypatch, capsys, invocation,
                                                                     parent):
    """A developer's or a test's `controller run` keeps its folder where it chose, often in a /tmp that is a
    tmpfs (Debian 13, Fedora): the service said it was in RAM, and `controller status` showed the fault,
    which failed the suite's own service tests there."""
    rig = Rig(tmp_path, equalizer=False)
    rig.service.stop()
    monkeypatch.setattr(mounts, "read_mounts", lambda: "tmpfs /tmp tmpfs rw,nosuid,nodev 0 0\n")
    if invocation:
        monkeypatch.setenv("INVOCATION_ID", invocation)
    else:
        monkeypatch.delenv("INVOCATION_ID", raising=False)
    monkeypatch.setattr(mounts.os, "getppid", lambda: parent)
    assert run_briefly(rig, monkeypatch, None) == [15]
    assert "in-ram" not in capsys.readouterr().err


def test_a_folder_made_read_only_before_the_service_first_ran_there_starts_and_plays_unsaved(tmp_path, monkeypatch,
                                                                                              capsys):
    """A card made read-only with the state folder but no service.lock in it (the folder copied or
    made by hand, the service never started there) was refused at every start ("service.state_dir:
    cannot keep the game"): systemd gave up after ten tries and the exhibit stayed dark. The folder
    itself is locked instead, so a second service is still kept out."""
    state = tmp_path / "state"
    rig = Rig(tmp_path, equalizer=False)
    rig.take(2)
    rig.service.stop()
    assert not (state / "service.lock").exists()
    read_only(state, monkeypatch)
    started = run_briefly(rig, monkeypatch, "/dev/mmcblk0p2 / ext4 ro,relatime 0 0\n")
    assert started == [13], "the saved game resumed"
    said = [line for line in capsys.readouterr().err.splitlines() if "fault" in line]
    assert len(said) == 1 and said[0].startswith("fault: storage: cannot save the game in %s (Read-only file "
                                                 "system): playing on unsaved" % state), said
    lock, unwritable = daemon.hold_state_folder(str(state))
    with lock, pytest.raises(RuntimeError, match="another controller service"):
        daemon.hold_state_folder(str(state))


def test_the_guide_mounts_the_partition_where_the_unit_keeps_its_state():
    """docs/troubleshooting.md's fstab line mounts the service's partition at the unit's own
    StateDirectory=, and turns off the overlay's recursion, without which that partition is in RAM
    too; the install guide, the assembly guides and the configuration's state_dir lead there."""
    from conftest import ROOT
    unit = (ROOT / "systemd" / "drnim-controller.service").read_text()
    folder = "/var/lib/" + re.search(r"^StateDirectory=(\S+)$", unit, re.M).group(1)
    page = (ROOT / "docs" / "troubleshooting.md").read_text()
    section = page.split("## An SD card kept read-only")[1].split("\n## ")[0]
    assert re.search(r"^echo 'LABEL=\S+ %s ext4 " % re.escape(folder), section, re.M)
    assert "overlayroot=tmpfs:recurse=0" in section
    for guide in ("README.md", "hardware/drnim/README.md", "hardware/nimatron/README.md"):
        assert "troubleshooting.md#an-sd-card-kept-read-only" in (ROOT / guide).read_text(), guide
    shipped = (ROOT / "systemd" / "config.toml").read_text()
    assert '"An SD card kept read-only"' in shipped.split("state_dir =")[1].split("runtime_dir =")[0]
