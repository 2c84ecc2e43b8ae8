"""The Pi's supply and heat (controller/service/power.py) seen by the fleet, without ssh to each Pi: the
status an exhibit publishes carries them, `controller fleet`'s table shows the exhibit whose supply sags
or whose CPU is too hot now, and `controller fleet stats` counts the episodes. A real broker (Debian's
mosquitto, broker_rig), the service on mock pins with a Raspberry Pi's sysfs in a temporary folder
(service_rig, test_power's PiTree)."""

import io
import types

import pytest

from broker_rig import Broker, wait_until
from controller.cli import main
from controller.telemetry.command import Follower
from controller.telemetry.fleet import Fleet, FleetStore
from controller.telemetry.payloads import encode
from controller.telemetry.publisher import Telemetry
from controller.telemetry.settings import check_telemetry
from service_rig import Rig
from test_power import PiTree

PREFIX = "power"


@pytest.fixture
def broker(tmp_path):
    broker = Broker(tmp_path)
    yield broker
    broker.stop()


def exhibit(broker, folder, name, power_root=None):
    """The service of an exhibit reporting to the broker as `name`, a heartbeat a minute: what it sends
    before then is sent because it changed."""
    folder.mkdir()
    rig = Rig(folder, power_root=power_root)
    settings = check_telemetry("test", {"enabled": True, "host": "127.0.0.1", "port": broker.port,
                                        "client_id": name, "topic_prefix": PREFIX, "heartbeat_s": 60})
    rig.service.telemetry = Telemetry(settings, "drnim", str(folder / "state"), rig.log.append)
    return rig


def follow(broker, path):
    fleet = Fleet(PREFIX, FleetStore(str(path)), lambda text: None)
    args = types.SimpleNamespace(tls=False, ca_file=None, username=None, password_file=None)
    follower = Follower("127.0.0.1", broker.port, fleet, "power-follower", True, args)
    follower.start()
    follower.subscribed.wait(5)
    return follower, fleet


def test_the_fleet_sees_which_exhibit_s_supply_sags_and_which_runs_hot(broker, tmp_path):
    """A curator following the fleet saw nothing of a Pi whose supply sagged or whose CPU was too hot:
    only `controller status` on that Pi said so. The status now carries the figures (none from a
    computer that is not a Pi), an episode begun or over is sent at once, not at the next heartbeat, the
    table's fault column names it, and the fleet's statistics count each episode."""
    follower, fleet = follow(broker, tmp_path / "fleet.sqlite")
    pi = PiTree(tmp_path)
    hall1 = exhibit(broker, tmp_path / "hall-1", "hall-1", power_root=pi.root)
    hall2 = exhibit(broker, tmp_path / "hall-2", "hall-2")

    def row(name):
        follower.pump(0.05)
        return dict((cells[0], cells) for cells in fleet.rows()).get(name)

    def shown(name, fault, what):
        wait_until(lambda: row(name) is not None and row(name)[3] == fault, 10, what)

    try:
        hall1.wait(5000)
        hall2.wait(5000)
        shown("hall-1", "-", "hall-1's first status")
        shown("hall-2", "-", "hall-2's first status")
        assert fleet.exhibits["hall-1"]["power"] == {"under_voltage": False, "episodes": 0, "cpu_c": 52.0,
                                                     "hottest_c": 52.0, "hot": False, "hot_episodes": 0}
        assert "power" not in fleet.exhibits["hall-2"], "a laptop reads no supply: the status has no figures"
        pi.sag(True)
        hall1.wait(1000)
        shown("hall-1", "under-voltage", "the sag in the table")
        pi.sag(False)
        pi.cpu(83)
        hall1.wait(1000)
        shown("hall-1", "under-voltage, too-hot", "the heat in the table")
        assert fleet.exhibits["hall-1"]["power"] == {"under_voltage": True, "episodes": 1, "cpu_c": 83.0,
                                                     "hottest_c": 83.0, "hot": True, "hot_episodes": 1}
        hall1.wait(60000)
        shown("hall-1", "too-hot", "the sag over, a minute later")
        pi.cpu(70)
        hall1.wait(1000)
        shown("hall-1", "-", "the CPU cool again")
        assert row("hall-2")[3] == "-"
        wait_until(lambda: follower.pump(0.2) or hall1.service.telemetry.queued == 0, 10, "the faults sent")
        follower.pump(0.5)
    finally:
        for rig in (hall1, hall2):
            rig.service.telemetry.close()
        follower.stop()
        fleet.store.close()
    out = io.StringIO()
    assert main(["fleet", "stats", "--offline", "--db", str(tmp_path / "fleet.sqlite"), "--period", "1d"], out) == 0
    assert "Faults: hall-1: too-hot 1, under-voltage 1\n" in out.getvalue(), out.getvalue()


@pytest.mark.parametrize("power, problem", [
    ("sagging", "\"power\" is 'sagging', not {under_voltage, episodes, cpu_c, hottest_c, hot, hot_episodes}"),
    ({"under_voltage": 1, "episodes": 0, "cpu_c": 50, "hottest_c": 50, "hot": False, "hot_episodes": 0}, "power"),
    ({"under_voltage": False, "episodes": -1, "cpu_c": 50, "hottest_c": 50, "hot": False, "hot_episodes": 0}, "power"),
    ({"under_voltage": False, "episodes": 0, "cpu_c": True, "hottest_c": 50, "hot": False, "hot_episodes": 0}, "power"),
    ({"under_voltage": False, "episodes": 0, "hot": False}, "power")])
def test_a_stranger_s_power_that_does_not_fit_is_ignored_with_a_line(power, problem):
    """Anyone who may publish on the broker can send a "power" of any shape: the status is ignored with a
    line naming it, as for the other fields, not a crash of the table."""
    said = []
    fleet = Fleet(PREFIX, FleetStore(":memory:"), said.append)
    status = {"v": 1, "exhibit": "hall-1", "online": False, "machine": "drnim", "power": power}
    fleet.message("%s/hall-1/status" % PREFIX, encode(status))
    assert fleet.exhibits == {} and len(said) == 1 and problem in said[0], said
    fleet.message("%s/hall-1/status" % PREFIX, encode(dict(status, power=None)))
    assert fleet.rows() == [["hall-1", "drnim", "OFFLINE 0 s", "-", "-", "-", "-"]]   # its will, as it came
