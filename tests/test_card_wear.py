"""What the service costs its SD card: a cheap card wears by its small synced writes (its flash is
erased in blocks of MiB), and a museum leaves it on for years at some 300 games a day
(bench/sd_wear.py measures it). A save is one synced write of one block, in a file made once; a
power cut in the middle of any write still resumes the game as last saved or the save before."""

import errno
import os

import pytest

from service_rig import Rig
from controller.service import store as store_module
from controller.service.store import SLOT, StateStore


class Counted:
    """The service's file calls into the state folder, counted: synced writes, files made, renames."""

    def __init__(self, monkeypatch, folder):
        self.folder = str(folder)
        self.syncs = self.made = self.renamed = self.written = 0
        self.paths = {}
        real = dict((name, getattr(os, name)) for name in ("open", "fsync", "fdatasync", "replace", "write"))

        def opened(path, flags, *args, **kwargs):
            fd = real["open"](path, flags, *args, **kwargs)
            self.paths[fd] = str(path)
            if str(path).startswith(self.folder) and flags & os.O_CREAT:
                self.made += 1
            return fd

        def synced(name):
            def sync(fd):
                if self.paths.get(fd, "").startswith(self.folder):
                    self.syncs += 1
                return real[name](fd)
            return sync

        def replaced(source, target):
            if str(target).startswith(self.folder):
                self.renamed += 1
            return real["replace"](source, target)

        def write(fd, data):
            if self.paths.get(fd, "").startswith(self.folder):
                self.written += len(data)
            return real["write"](fd, data)
        monkeypatch.setattr(os, "open", opened)
        monkeypatch.setattr(os, "fsync", synced("fsync"))
        monkeypatch.setattr(os, "fdatasync", synced("fdatasync"))
        monkeypatch.setattr(os, "replace", replaced)
        monkeypatch.setattr(os, "write", write)


def play_a_game(rig):
    for _ in range(6):
        rig.take(1)
        rig.hand_over()
    assert rig.machine.mode == "over"


def test_a_game_of_dr_nim_syncs_one_block_a_save_and_makes_no_file(tmp_path, monkeypatch):
    """Each save wrote a new file, synced it, renamed it over the old one and synced the folder: two
    synced writes, and ext4 a journal commit for each, 35 times a game (some 180 write requests)."""
    rig = Rig(tmp_path, equalizer=False)
    rig.take(1)         # the first save after a start makes the file
    counted = Counted(monkeypatch, tmp_path / "state")
    saves = rig.service.writes
    play_a_game(rig)
    saves = rig.service.writes - saves
    assert saves >= 20
    assert counted.syncs == saves, "one synced write a save"
    assert counted.made == 0 and counted.renamed == 0, "no file made or renamed"
    assert counted.written == saves * SLOT, "one block a save"
    monkeypatch.undo()
    rig.service.stop()
    again = Rig(tmp_path, equalizer=False)
    assert again.machine.mode == "over" and again.machine.turns == rig.machine.turns


def saves_of_a_game(tmp_path):
    """Every game the service saved in one game of Dr. Nim, in order."""
    tmp_path.mkdir()
    rig = Rig(tmp_path, equalizer=False)
    saved = []
    real = rig.service.store.save

    def save(data):
        real(data)
        saved.append(data)
    rig.service.store.save = save
    play_a_game(rig)
    rig.service.stop()
    return saved


class PowerCut(OSError):
    pass


def cut(how):
    """os.write or os.fdatasync for a power cut in the middle of a save: the block written in part
    (`how` bytes of it, or garbage when "garbage"), or whole but not yet synced ("unsynced")."""
    real_write = os.write

    def write(fd, data):
        if how == "garbage":
            real_write(fd, bytes((n * 37 + 11) % 256 for n in range(len(data))))
        elif how != "unsynced":
            real_write(fd, data[:how])
        else:
            return real_write(fd, data)
        raise PowerCut(errno.EIO, "the power is cut")

    def sync(fd):
        raise PowerCut(errno.EIO, "the power is cut")
    return write, sync


@pytest.mark.parametrize("how", [0, 1, 300, SLOT - 1, "garbage", "unsynced"])
def test_a_power_cut_in_any_save_leaves_the_last_game_or_the_one_before(tmp_path, monkeypatch, how):
    saves = saves_of_a_game(tmp_path / "played")
    folder = str(tmp_path / "cut")
    for number in range(1, len(saves) - 2):
        for name in os.listdir(folder) if os.path.isdir(folder) else ():
            os.remove(os.path.join(folder, name))
        store = StateStore(folder)
        for data in saves[:number]:
            store.save(data)
        for twice in range(2):      # cut, restarted, and cut again at its first save
            at = number + twice
            write, sync = cut(how)
            with monkeypatch.context() as patched:
                patched.setattr(os, "write", write)
                patched.setattr(store_module, "sync_data", sync)
                with pytest.raises(PowerCut):
                    StateStore(folder).save(saves[at])
            data, problem = StateStore(folder).read()
            assert problem is None and data in (saves[number - 1], saves[at]), (number, twice)
        restarted = StateStore(folder)
        restarted.read()
        restarted.save(saves[number + 2])
        assert StateStore(folder).read() == (saves[number + 2], None)


def test_a_file_with_neither_copy_whole_is_set_aside_and_the_game_held(tmp_path):
    rig = Rig(tmp_path, equalizer=False)
    rig.take(1)
    rig.service.stop()
    path = tmp_path / "state" / "game.json"
    path.write_bytes(path.read_bytes().replace(b'"taken":', b'"taken":1'))
    held = Rig(tmp_path, equalizer=False)
    assert held.machine.fault == "check"
    assert any("neither of its two copies is whole" in line for line in held.log)
    assert [p.name for p in (tmp_path / "state").glob("game.json.bad-*")]
