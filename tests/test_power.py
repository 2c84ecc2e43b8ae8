"""The Pi's supply and heat as the kernel says them (controller/service/power.py), in the journal
and `controller status`: a Raspberry Pi's sysfs written in a temporary folder, the service on
gpiozero's MockFactory (service_rig)."""

import io
import re

from service_rig import Rig
from controller.cli import main


class PiTree:
    """The files of a Raspberry Pi's sys/ the service reads: the hwmon devices (rpi_volt not the
    first of them, as on a Pi 4), and the CPU's thermal zone."""

    def __init__(self, folder, rpi_volt=True):
        self.root = folder / "pi"
        hwmon = self.root / "sys" / "class" / "hwmon"
        (hwmon / "hwmon0").mkdir(parents=True)
        (hwmon / "hwmon0" / "name").write_text("cpu_thermal\n")
        (hwmon / "hwmon0" / "temp1_input").write_text("52000\n")
        self.alarm = hwmon / "hwmon1" / "in0_lcrit_alarm"
        if rpi_volt:
            (hwmon / "hwmon1").mkdir()
            (hwmon / "hwmon1" / "name").write_text("rpi_volt\n")
            self.sag(False)
        self.temperature = self.root / "sys" / "class" / "thermal" / "thermal_zone0" / "temp"
        self.temperature.parent.mkdir(parents=True)
        self.cpu(52)

    def sag(self, on):
        """What the driver shows for its last 2 s: 1 when the supply fell below its threshold."""
        self.alarm.write_text("%d\n" % on)

    def cpu(self, celsius):
        self.temperature.write_text("%d\n" % (celsius * 1000))


def said(rig, start):
    return [line for line in rig.log if line.startswith(start)]


def status(rig, tmp_path):
    rig.service.heartbeat()
    out = io.StringIO()
    assert main(["status", "--config", str(tmp_path / "config.toml")], out=out) == 0
    return out.getvalue()


def test_a_supply_that_sags_at_every_release_is_one_episode_in_the_journal_and_controller_status(tmp_path):
    """A cheap supply sags each time a marble is released: one line when it starts and one a whole
    minute after the last sag, not one a release; `controller status` says it while it lasts and
    counts it after; the game plays on."""
    pi = PiTree(tmp_path)
    rig = Rig(tmp_path, power_root=pi.root)
    rig.wait(3000)
    assert "Power: no under-voltage since the service started.\n" in status(rig, tmp_path)
    for _ in range(3):
        pi.sag(True)
        rig.press("trigger")
        rig.wait(1700)          # the driver's 2 s answer
        pi.sag(False)
        rig.wait(8000)
    assert rig.machine.rail == 12
    assert said(rig, "under-voltage: the Pi's supply fell below about 4.65 V") == [
        "under-voltage: the Pi's supply fell below about 4.65 V (the firmware's alarm): it slows the Pi down, and "
        "a deeper sag reboots it or makes a release misfire; see docs/troubleshooting.md, \"Under-voltage and heat\""]
    assert said(rig, "under-voltage over") == []
    assert ("Power: under-voltage now (episode 1 since the service started): see\n"
            "  docs/troubleshooting.md, \"Under-voltage and heat\".\n") in status(rig, tmp_path)
    rig.wait(50000)
    assert said(rig, "under-voltage over") == [], "a minute has not passed since the last sag"
    rig.wait(3000)
    over = said(rig, "under-voltage over")
    assert len(over) == 1 and re.fullmatch(r"under-voltage over: none for a whole minute \(seen over 2\d s; "
                                           r"1 episode since the service started\)", over[0]), over
    rig.wait(5000)
    assert re.search(r"Power: 1 episode of under-voltage since the service started,\n  the last seen 1 min [0-9] s "
                     r"ago\.\n", status(rig, tmp_path))
    pi.sag(True)
    rig.wait(1000)
    assert len(said(rig, "under-voltage: ")) == 2
    assert "Power: under-voltage now (episode 2 since the service started)" in status(rig, tmp_path)


def test_a_sag_as_short_as_one_release_between_two_heartbeats_is_seen(tmp_path):
    """The driver shows a sag only for the 2 s after it asked the firmware: one that falls between
    two heartbeats (5 s apart) is still in the journal."""
    pi = PiTree(tmp_path)
    rig = Rig(tmp_path, power_root=pi.root)
    rig.wait(7500)
    pi.sag(True)
    rig.wait(2000)
    pi.sag(False)
    rig.wait(500)
    assert len(said(rig, "under-voltage: ")) == 1


def test_a_cpu_too_hot_is_said_once_when_it_reaches_the_limit_and_once_when_it_cools(tmp_path):
    """A closed box in summer sun: one line at 80 °C, where the firmware slows the Pi down, none while
    it stays there, one when it is back below 75 °C; `controller status` has the figures."""
    pi = PiTree(tmp_path)
    rig = Rig(tmp_path, power_root=pi.root)
    rig.wait(2000)
    assert "CPU: 52 °C (the hottest since the service started: 52 °C).\n" in status(rig, tmp_path)
    for celsius in (79, 81, 83, 80, 77):
        pi.cpu(celsius)
        rig.wait(30000)
    assert said(rig, "too hot") == ["too hot: the CPU is at 81 °C, where the firmware slows the Pi down (80 °C): "
                                    "shade the box, give it air; see docs/troubleshooting.md, \"Under-voltage and "
                                    "heat\""]
    assert said(rig, "cool again") == []
    assert ("CPU: 77 °C, too hot: the firmware slows the Pi down from 80 °C; see\n"
            "  docs/troubleshooting.md, \"Under-voltage and heat\".\n") in status(rig, tmp_path)
    pi.cpu(74)
    rig.wait(1000)
    assert said(rig, "cool again") == ["cool again: the CPU is at 74 °C (the hottest 83 °C)"]
    assert "CPU: 74 °C (the hottest since the service started: 83 °C; too hot 1 time).\n" in status(rig, tmp_path)
    assert said(rig, "under-voltage") == []


def test_a_computer_that_is_not_a_pi_says_nothing_and_is_woken_no_more_often(tmp_path):
    """A laptop or CI has a thermal zone and hwmon devices, but no rpi_volt: no line in the journal
    or in `controller status`, and the loop sleeps as long as a service that reads nothing."""
    laptop = PiTree(tmp_path, rpi_volt=False)
    laptop.cpu(95)
    (tmp_path / "plain").mkdir()
    plain = Rig(tmp_path / "plain")
    rig = Rig(tmp_path, power_root=laptop.root)
    rig.wait(3000)
    plain.wait(3000)
    assert rig.service.next_deadline() == plain.service.next_deadline()
    shown = status(rig, tmp_path)
    assert "Last heartbeat" in shown and "Power" not in shown and "CPU" not in shown
    assert said(rig, "too hot") == []
    nothing = tmp_path / "nothing"
    nothing.mkdir()
    bare = Rig(nothing, power_root=nothing)
    bare.wait(3000)
    assert bare.service.next_deadline() == plain.service.next_deadline()


def test_files_that_cannot_be_read_any_more_leave_the_game_playing_and_say_nothing(tmp_path):
    """A reading that fails (the driver unloaded, a temperature the sensor cannot give yet) is no
    reading: the game goes on, and the figures read before stay in `controller status`."""
    pi = PiTree(tmp_path)
    rig = Rig(tmp_path, power_root=pi.root)
    rig.wait(2000)
    pi.alarm.unlink()
    pi.temperature.write_text("")
    rig.wait(3000)
    rig.press("trigger")
    assert rig.machine.rail == 14
    assert "Power: no under-voltage since the service started.\nCPU: 52 °C" in status(rig, tmp_path)
    assert said(rig, "under-voltage") == [] and said(rig, "too hot") == []


def test_controller_stats_counts_the_episodes_of_under_voltage_and_heat_over_its_period(tmp_path):
    """A manager reading a month of `controller stats` could not tell whether the supply ever sagged:
    `controller status` counts episodes only since the service started, and a restart forgets them. Each
    episode is now counted as it begins, as a fault is; a sag within a minute of the last is the same
    episode; a computer that is not a Pi counts none."""
    pi = PiTree(tmp_path)
    rig = Rig(tmp_path, power_root=pi.root)
    for _ in range(2):
        pi.sag(True)
        rig.wait(2000)
        pi.sag(False)
        rig.wait(30000)
    rig.wait(40000)
    pi.sag(True)
    pi.cpu(81)
    rig.wait(2000)
    pi.cpu(70)
    rig.wait(1000)
    rig.service.stats.flush()
    out = io.StringIO()
    assert main(["stats", "--config", str(tmp_path / "config.toml"), "--period", "1d"], out=out) == 0
    assert "Faults: too-hot 1, under-voltage 2\n" in out.getvalue(), out.getvalue()
    assert "Under-voltage: 2 episodes; CPU too hot: 1 episode\n" in out.getvalue(), out.getvalue()


def test_controller_stats_says_none_of_under_voltage_only_where_it_is_read(tmp_path, monkeypatch):
    """On a laptop (the simulator's statistics) "Under-voltage: none" said the supply held, where nothing
    read it: a Pi with none says none; a computer without the Pi's supply alarm says it reads none."""
    for name, rpi_volt in (("pi", True), ("laptop", False)):
        folder = tmp_path / name
        folder.mkdir()
        tree = PiTree(folder, rpi_volt=rpi_volt)
        monkeypatch.setattr("controller.service.power.SYSTEM_ROOT", str(tree.root))
        rig = Rig(folder, power_root=tree.root)
        rig.press("trigger")
        rig.wait(3000)
        rig.service.stats.flush()
        out = io.StringIO()
        assert main(["stats", "--config", str(folder / "config.toml")], out=out) == 0
        assert "Faults: none\n" in out.getvalue()
        power = [line for line in out.getvalue().splitlines() if "Under-voltage" in line]
        if rpi_volt:
            assert power == ["Under-voltage: none; CPU too hot: none"]
        else:
            assert power == ["Under-voltage, CPU too hot: not read here (this computer is not a Raspberry Pi)"]
