"""An exhibit's files as an older version wrote them (tests/upgrade/, each naming the commit that made
it), read by today's service: what a museum finds on the card of a Pi it installed long ago and updates."""

import shutil
import sqlite3

import pytest
from gpiozero import Device

from conftest import ROOT
from service_rig import Rig
from controller.service.stats import Statistics, summary

UPGRADE = ROOT / "tests" / "upgrade"


@pytest.fixture(autouse=True)
def restore_pin_factory():
    saved = Device.pin_factory
    yield
    Device.pin_factory = saved


def test_a_game_and_statistics_an_older_version_saved_play_on_and_count(tmp_path):
    """fc6976a's service saved this game (save format 2: 12 marbles at a 700 ms pace, the visitor's turn with
    8 on the rail) and kept its statistics without the games' lengths. Today's resumes the game where it
    was, plays it to its end, and counts it beside the three games and the jam it found."""
    state = tmp_path / "state"
    state.mkdir()
    shutil.copyfile(UPGRADE / "drnim-game-fc6976a.json", state / "game.json")
    with sqlite3.connect(state / "stats.sqlite") as db:
        db.executescript((UPGRADE / "stats-fc6976a.sql").read_text())
    db.close()
    rig = Rig(tmp_path, marbles=12, pace_ms=700, idle_ms=300000)
    assert "resuming the saved drnim game" in rig.log
    assert rig.machine.rail == 8 and rig.machine.state["turns"] == [["player", 2], ["machine", 1]]
    assert rig.machine.state["turn_taken"] == 1
    rig.take(1)
    while rig.machine.state["mode"] == "play":
        rig.hand_over()
        if rig.machine.state["mode"] == "play":
            rig.take(1)
    assert rig.machine.state["winner"] == "machine"
    assert rig.service.stats.flush()
    counted = summary(rig.service.stats.path)
    assert counted["wins"] == {"machine": 4} and counted["faults"] == {"jam": 1}


def test_statistics_a_later_version_wrote_with_a_column_more_are_written_on(tmp_path):
    """Going back to this version from a later one (a rollback): a later version may give its tables a
    column more. Each record names its columns, so a game and a fault are still written, where an older
    version's 'insert into games values (?, ?, ?)' lost every game after the rollback ('table games has 4
    columns but 3 values were supplied'; found by the upgrade review)."""
    path = tmp_path / "stats.sqlite"
    with sqlite3.connect(path) as db:
        db.executescript("create table games (ended real not null, machine text not null, winner text not null, "
                         "duration_s integer, later text);\n"
                         "create table faults (at real not null, machine text not null, kind text not null, "
                         "later text);\n")
    db.close()
    said = []
    stats = Statistics(str(path), log=said.append)
    stats.game("drnim", "visitor", 61)
    stats.fault("drnim", "jam")
    assert stats.flush() and stats.problem is None, said
    counted = summary(str(path))
    assert counted["wins"] == {"visitor": 1} and counted["faults"] == {"jam": 1}


def test_status_says_the_code_the_service_runs_and_when_the_code_installed_is_another(tmp_path, monkeypatch):
    """`controller status` said nothing of the code an exhibit runs (found by the upgrade review): after an
    update whose configuration the new code refused, the service runs the code from before it until its next
    start. The heartbeat carries the running code's version and commit; status says it, and says when the
    code installed is another."""
    import io
    import json
    import controller.built
    from controller.cli import main
    rig = Rig(tmp_path)
    rig.service.heartbeat()
    running = controller.built.described()
    out = io.StringIO()
    assert main(["status", "--config", str(tmp_path / "config.toml")], out=out) == 0
    assert "Version: controller %s.\n" % running in out.getvalue()
    monkeypatch.setattr(controller.built, "described", lambda: "0.1.0 (commit 1234abc)")
    out = io.StringIO()
    assert main(["status", "--config", str(tmp_path / "config.toml")], out=out) == 0
    assert "Version: controller %s, where 0.1.0 (commit 1234abc) is installed: the service runs it from its next " \
           "start.\n" % running in out.getvalue()
    out = io.StringIO()
    main(["status", "--json", "--config", str(tmp_path / "config.toml")], out=out)
    assert json.loads(out.getvalue())["version"] == running
