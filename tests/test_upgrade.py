"""An exhibit's files as an older version wrote them (tests/upgrade/, each naming the commit that made
it), read by today's service: what a museum finds on the card of a Pi it installed long ago and updates."""

import shutil
import sqlite3

import pytest
from gpiozero import Device

from conftest import ROOT
from service_rig import Rig
from controller.service.stats import summary

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
