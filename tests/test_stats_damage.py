"""Statistics after months on an SD card: damage found past the file's first page, and what
the log tells a technician while no statistics can be written."""

import io
import os
import shutil
import sqlite3
import time

import pytest

from controller.cli import main
from controller.service.stats import SCHEMA, Statistics, summary
from service_rig import write_config

PAGE = 4096


def stamp(when):
    return time.strftime("%Y%m%d-%H%M%S", time.localtime(when))


def statistics_with_games(path, games=5000):
    db = sqlite3.connect(str(path))
    db.executescript(SCHEMA)
    with db:
        db.executemany("insert into games (ended, machine, winner) values (?, 'drnim', 'machine')",
                       [(1.7e9 + i,) for i in range(games)])
    db.close()


def damage_one_page(path, pages_from_the_end):
    """What a power cut during a write, or a worn card, leaves: one page of garbage, the header intact."""
    with open(path, "r+b") as f:
        f.seek(os.path.getsize(path) - pages_from_the_end * PAGE)
        f.write(b"\xff" * PAGE)


@pytest.mark.parametrize("pages_from_the_end", [1, 3])
def test_a_page_damaged_past_the_header_is_set_aside_and_new_statistics_begun(tmp_path, pages_from_the_end):
    """Found in a months audit: only a damaged header was noticed at start; a damaged page further in
    lost every record written after it ("database disk image is malformed") or left `controller
    stats` unable to read any, until someone removed the file by hand."""
    path = tmp_path / "stats.sqlite"
    statistics_with_games(path)
    damage_one_page(path, pages_from_the_end)
    log = []
    stats = Statistics(str(path), clock=lambda: 1.7e9, log=log.append)
    stats.game("drnim", "player")
    assert stats.flush()
    stats.close()
    assert [p.name for p in tmp_path.glob("stats.sqlite.bad-*")] == ["stats.sqlite.bad-" + stamp(1.7e9)]
    assert stats.problem is None and len(log) == 1 and "damaged" in log[0] and "new statistics begun" in log[0]
    assert "\n" not in log[0], "one line in the journal"
    assert summary(str(path))["wins"] == {"player": 1}


def test_a_second_damage_in_the_same_second_keeps_the_first_file_set_aside(tmp_path):
    path = tmp_path / "stats.sqlite"
    for _ in range(2):
        path.write_bytes(b"not a database, a museum label" * 200)
        Statistics(str(path), clock=lambda: 1.7e9).close()
    assert len(list(tmp_path.glob("stats.sqlite.bad-*"))) == 2


def test_statistics_that_cannot_be_opened_say_the_game_goes_on_and_until_when_none_are_recorded(tmp_path):
    """The log said "playing on without them", which a technician read as the game stopping."""
    path = tmp_path / "stats.sqlite"
    path.mkdir()                                  # not a file at all
    log = []
    stats = Statistics(str(path), log=log.append)
    stats.game("drnim", "player")
    assert stats.flush()
    stats.close()
    assert len(log) == 1, log
    assert log[0].startswith("cannot open the statistics in %s (" % path)
    assert log[0].endswith("the game goes on, but no games or faults are recorded until the file can be opened "
                           "(tried again at each one)")


def cut_in_the_middle_of_a_write(path, folder):
    """What a power cut in the middle of a write leaves in `folder`: the file, half written, and
    its journal, "hot" (the pages as they were before the write, which SQLite puts back)."""
    db = sqlite3.connect(str(path))
    db.execute("pragma cache_size = 1")         # the write reaches the file before it is committed
    db.execute("begin")
    db.execute("update games set winner = 'player'")
    db.executemany("insert into games (ended, machine, winner) values (?, 'drnim', 'player')",
                   [(1.8e9 + i,) for i in range(2000)])
    assert os.path.exists(str(path) + "-journal")
    folder.mkdir()
    for name in (path.name, path.name + "-journal"):
        shutil.copyfile(str(path.parent / name), str(folder / name))
    db.rollback()
    db.close()


def test_controller_stats_reads_the_statistics_a_power_cut_left_in_the_middle_of_a_write(tmp_path):
    """Found in a museum's nightly power cut: cut while the service wrote a record, the statistics
    kept their journal beside them, and `controller stats` (read-only) called them damaged, "attempt
    to write a readonly database", until the service next opened them. They are whole: the write
    is rolled back, as the service does, and the games before it counted."""
    statistics_with_games(tmp_path / "stats.sqlite", games=3000)
    cut_in_the_middle_of_a_write(tmp_path / "stats.sqlite", tmp_path / "state")
    config = write_config(tmp_path)
    out = io.StringIO()
    assert main(["stats", "--config", str(config), "--period", "2023-11-01.."], out=out) == 0
    assert "Games: 3000 (visitors won 0, the machine 3000)" in out.getvalue()
    assert not os.path.exists(str(tmp_path / "state" / "stats.sqlite-journal"))
    assert not list((tmp_path / "state").glob("stats.sqlite.bad-*"))
