"""The exhibit's telemetry queue after a power cut or a worn SD card: a damaged queue is set aside at
start and a new one begun, as the statistics are, so that games reach the broker again."""

import os

import pytest

from broker_rig import free_port
from controller.telemetry.outbox import Outbox
from controller.telemetry.publisher import Telemetry
from controller.telemetry.settings import check_telemetry

PAGE = 4096


def queue_of_games(path, games=300):
    outbox = Outbox(str(path))
    for number in range(games):
        outbox.add("test/hall-1/game", b"x" * 500, ("2024-05-01", "machine", {"id": str(number)}))
    outbox.close()


def zeroed(path):
    """What a power cut leaves of a file the card was writing: its blocks, zeros."""
    path.write_bytes(b"\x00" * os.path.getsize(path))


def one_page_damaged(path):
    """One page of garbage further in, the header intact (a worn card)."""
    with open(path, "r+b") as f:
        f.seek(os.path.getsize(path) // 2)
        f.write(b"\xff" * PAGE)


@pytest.mark.parametrize("damage", [zeroed, one_page_damaged], ids=["zeroed", "a page damaged past the header"])
def test_a_damaged_queue_is_set_aside_and_the_next_games_are_kept_for_the_broker(tmp_path, damage):
    """Found in a months audit: a damaged telemetry.sqlite was never set aside. Zeroed, the queue was
    kept in memory at every start (each game lost when the service stopped before the broker took
    it); damaged further in, it opened, then every game and fault was lost ("database disk image is
    malformed"), for as long as the file stayed, which without a technician is for ever."""
    path = tmp_path / "telemetry.sqlite"
    queue_of_games(path)
    damage(path)
    settings = check_telemetry("test", {"enabled": True, "host": "127.0.0.1", "port": free_port(),
                                        "client_id": "hall-1", "topic_prefix": "test"})
    log = []
    publisher = Telemetry(settings, "drnim", str(tmp_path), log.append, clock=lambda: 1.7e9)
    publisher.game("player", 3, 40, {})
    publisher.close()
    aside = sorted(p.name for p in tmp_path.glob("telemetry.sqlite.bad-*"))
    assert len(aside) == 1, aside
    said = [line for line in log if "broker" not in line]
    assert len(said) == 1 and "\n" not in said[0], log
    assert said[0].startswith("telemetry: the queue %s was damaged (" % path), log
    assert said[0].endswith("): kept as %s, a new queue begun" % (tmp_path / aside[0])), log
    outbox = Outbox(str(path))
    assert outbox.size() == 1 and outbox.last_game()["winner"] == "player"
    outbox.close()
