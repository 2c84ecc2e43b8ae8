"""What the exhibit's log says about its connection to the broker, over months."""

import types

from broker_rig import free_port
from controller.telemetry.publisher import Telemetry
from controller.telemetry.settings import check_telemetry

MADE = ("connected", types.SimpleNamespace(is_failure=False))
DROPPED = ("disconnected", None)


def quiet_publisher(tmp_path, timer):
    """A publisher whose own thread has ended, so that the test alone hands it connection events."""
    settings = check_telemetry("test", {"enabled": True, "host": "127.0.0.1", "port": free_port(),
                                        "client_id": "raspberrypi"})
    log = []
    publisher = Telemetry(settings, "drnim", str(tmp_path), log.append, timer=timer)
    publisher.close()
    log.clear()
    return publisher, log


def test_two_exhibits_with_one_name_are_said_once_not_every_second(tmp_path):
    """Found in a months audit: two Pis left with the default host name, raspberrypi, connect with
    one client_id; the broker drops each when the other connects, every second or so, and each
    logged "connected" and "the broker went away" every time: about 90,000 lines a day, blaming
    the broker."""
    now = [1000.0]
    publisher, log = quiet_publisher(tmp_path, lambda: now[0])
    for _ in range(100):
        publisher.connection(MADE)
        now[0] += 1
        publisher.connection(DROPPED)
        now[0] += 1
    named = [line for line in log if "client_id" in line]
    assert len(log) == 6 and len(named) == 1, log
    assert "another exhibit connecting as 'raspberrypi'" in named[0]
    publisher.connection(MADE)
    now[0] += 3600                          # the other exhibit renamed: a connection that lasts
    publisher.connection(DROPPED)
    assert "went away" in log[-1] and len(log) == 7, log
