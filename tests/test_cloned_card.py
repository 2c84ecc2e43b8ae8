"""A museum that sets up one exhibit and clones its SD card for the others: each clone starts with the
first exhibit's state directory, its telemetry queue included, and with its telemetry.client_id (or its
host name, when client_id is empty), until the technician gives it one of its own."""

import shutil

from broker_rig import Broker, free_port
from controller.telemetry.publisher import Telemetry
from controller.telemetry.settings import check_telemetry
from test_fleet import follow, waiting

STATUS = {"mode": "play", "turn": "player", "winner": None, "fault": None, "attract": False, "service_faults": [],
          "rail": 15, "loaded": 15}


def settings(port, name):
    return check_telemetry("test", {"enabled": True, "host": "127.0.0.1", "port": port, "client_id": name})


def test_a_clone_renamed_shows_none_of_the_first_exhibits_games_as_its_own(tmp_path):
    """Found cloning a card for a second exhibit: renamed hall-2, the clone's status carried hall-1's
    games of the day and its last game (kept with the queue), and the fleet's table showed both
    exhibits with hall-1's games: four clones, five times the hall's games. The games hall-1 had
    not sent yet still reach the fleet, as hall-1's and once."""
    first = tmp_path / "hall-1"
    first.mkdir()
    log = []
    away = Telemetry(settings(free_port(), "hall-1"), "drnim", str(first), log.append)     # no broker yet
    for winner in ("machine", "player", "machine"):
        away.game(winner, 7, 60, {})
    away.close()
    shutil.copytree(first, tmp_path / "hall-2")

    (tmp_path / "broker").mkdir()
    broker = Broker(tmp_path / "broker")
    follower, fleet, _ = follow(broker, "nim-museum", tmp_path)
    clone = Telemetry(settings(broker.port, "hall-2"), "drnim", str(tmp_path / "hall-2"), log.append)
    try:
        clone.status(dict(STATUS))
        waiting(follower, lambda: "hall-2" in fleet.exhibits and fleet.games == 3, 10,
                "the clone's status and the queued games")
    finally:
        clone.close()
        follower.stop()
        broker.stop()
    status = fleet.exhibits["hall-2"]
    assert status["today"]["games"] == 0 and status["last_game"] is None, status
    assert [row[0] for row in fleet.store.summary(0)[0]] == ["hall-1"]
    said = [line for line in log if "hall-1" in line]
    assert said == ["telemetry: the queue %s was kept as 'hall-1' (a card cloned from another exhibit, or a new "
                    "client_id): as 'hall-2', the day's games and the last game begin anew; the 3 games and faults "
                    "queued as 'hall-1' are still sent as that exhibit's" % (tmp_path / "hall-2" / "telemetry.sqlite")], log
