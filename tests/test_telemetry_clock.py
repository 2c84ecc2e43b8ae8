"""The exhibit's telemetry when the wall clock is set by hours: a Pi has no real-time clock, so
at boot it runs on the time it last saved until NTP corrects it, forward or back."""

from broker_rig import free_port
from controller.telemetry.outbox import Outbox
from controller.telemetry.payloads import decode
from controller.telemetry.publisher import Telemetry
from controller.telemetry.settings import check_telemetry

TWO_HOURS_S = 7200


def sent_status(publisher):
    """The status the publisher would send now, as a follower reads it."""
    raw = publisher.status_payload(Outbox(":memory:"), {"mode": "play", "fault": None})
    return decode("test", "test/%s/status" % publisher.exhibit, raw)[2]


def test_the_uptime_is_not_moved_by_the_wall_clock_set_back(tmp_path):
    """Found in a months audit: the uptime was wall-clock time since the start, so a clock set back
    two hours made it negative, and every status the exhibit sent was refused by the fleet as out
    of range (the exhibit shown silent) for those two hours; set forward, it claimed hours of uptime."""
    wall = [1.7e9]
    settings = check_telemetry("test", {"enabled": True, "host": "127.0.0.1", "port": free_port(),
                                        "client_id": "hall-1", "topic_prefix": "test"})
    publisher = Telemetry(settings, "drnim", str(tmp_path), lambda text: None, clock=lambda: wall[0])
    try:
        wall[0] -= TWO_HOURS_S
        assert 0 <= sent_status(publisher)["uptime_s"] < 60
        wall[0] += 2 * TWO_HOURS_S
        assert 0 <= sent_status(publisher)["uptime_s"] < 60
    finally:
        publisher.close()
