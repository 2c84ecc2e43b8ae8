"""[exhibit] sound, quiet_hours and quiet_sound: a museum turns the buzzer's beeps down in the configuration
(gallery staff beside the exhibit all day, a reading room, a lecture hall next door), keeps the fault beep
so that staff hear a jam, and whoever looks at the exhibit later is told that it is quiet on purpose. The
buzzer is read from its pin on gpiozero's MockFactory; the quiet hours from a clock the test gives the
service."""

import io

import pytest

from conftest import ROOT, in_process
from service_rig import Rig, write_config
from controller.hardware import boards
from controller.service.config import EXHIBIT_SETTINGS
from controller.sim.engine import Simulation


@pytest.fixture(autouse=True)
def short_beeps(monkeypatch):
    """Each cue's count of beeps, a millisecond each: the buzzer's thread runs on the real clock."""
    monkeypatch.setattr(boards, "BEEPS", {cue: (0.001, 0.001, count) for cue, (_, _, count) in boards.BEEPS.items()})


def beeps(buzzer_pin, buzzer):
    """The beeps heard since last asked: the buzzer pin's rises, once its beeping is done."""
    if buzzer._blink_thread is not None:
        buzzer._blink_thread.join(5)
    heard = sum(1 for state in buzzer_pin.states if state.state)
    buzzer_pin.clear_states()
    return heard


def heard(rig):
    return beeps(rig.pin("buzzer"), rig.service.board.outputs["buzzer"])


def jam(rig):
    """The trigger, and every try of the release jams: Dr. Nim's fault, with its fault beep."""
    tries = rig.jam = 1 + rig.config.machine["release_retries"]
    rig.press("trigger")
    rig.wait(rig.config.machine["release_timeout_ms"] * tries + 1000)
    assert rig.machine.fault == "jam"


class Clock:
    """The Pi's local time, as a test sets it: the minute of the day."""

    def __init__(self, text):
        self.set(text)

    def set(self, text):
        hours, minutes = text.split(":")
        self.minute = int(hours) * 60 + int(minutes)

    def __call__(self):
        return self.minute


@pytest.mark.parametrize("sound, new_game, fault", [('"all"', 1, 5), ("true", 1, 5), ('"faults"', 0, 5),
                                                    ('"none"', 0, 0), ("false", 0, 0)])
def test_the_buzzer_pin_plays_what_the_sound_setting_allows(tmp_path, sound, new_game, fault):
    rig = Rig(tmp_path, exhibit={"sound": sound}, equalizer=False)
    heard(rig)
    rig.press("new_game")
    assert heard(rig) == new_game
    jam(rig)
    assert heard(rig) == fault
    assert "fault: jam" in rig.log, "the machine's fault is said all the same"
    said = [line for line in rig.log if line.startswith("sound: ")]
    assert len(said) == (0 if new_game else 1) and all("kept quiet on purpose" in line for line in said), rig.log
    rig.service.stop()


def test_quiet_hours_across_midnight_follow_the_clock_given_to_the_service(tmp_path):
    """A lecture hall next door in the evening, school groups in the morning: quiet before 10:00 and from
    17:00 on, the fault beep kept; the journal says when the quiet hours begin and end."""
    clock = Clock("23:30")
    rig = Rig(tmp_path, exhibit={"quiet_hours": '"17:00-10:00"'}, local_time=clock, equalizer=False)
    heard(rig)
    played = {}
    for time in ("23:30", "00:00", "09:59", "10:00", "16:59", "17:00"):
        clock.set(time)
        rig.press("new_game")
        played[time] = heard(rig)
    assert played == {"23:30": 0, "00:00": 0, "09:59": 0, "10:00": 1, "16:59": 1, "17:00": 0}
    clock.set("03:00")
    jam(rig)
    assert heard(rig) == 5, "the fault beep is kept in the quiet hours"
    rig.service.stop()


def test_the_journal_says_when_the_quiet_hours_begin_and_end(tmp_path):
    clock = Clock("16:58")
    rig = Rig(tmp_path, exhibit={"quiet_hours": '"17:00-10:00"', "quiet_sound": '"none"'}, local_time=clock)
    assert [line for line in rig.log if line.startswith("sound: ")] == [
        'sound: every beep (exhibit.sound = "all"), no beep, not even for a fault from 17:00 to 10:00 by this '
        "Pi's clock (exhibit.quiet_hours); at 16:58: every beep"]
    rig.log.clear()
    rig.wait(60000)
    clock.set("17:00")
    rig.wait(10000)      # a heartbeat
    clock.set("17:30")
    rig.wait(10000)
    clock.set("10:00")
    rig.wait(10000)
    said = [line.rsplit("; ", 1)[1] for line in rig.log if line.startswith("sound: ")]
    assert said == ["at 17:00: no beep, not even for a fault", "at 10:00: every beep"], rig.log
    rig.service.stop()


def test_status_says_the_buzzer_is_quiet_on_purpose(tmp_path):
    """A technician who forgot the setting must not replace a buzzer that works."""
    from controller.cli import main
    rig = Rig(tmp_path, exhibit={"sound": '"faults"'})
    rig.wait(0)     # its first heartbeat
    out = io.StringIO()
    assert main(["status", "--config", str(tmp_path / "config.toml")], out=out) == 0
    assert 'Sound: only the fault beep (exhibit.sound = "faults"): the buzzer is kept quiet on purpose.\n' \
        in out.getvalue(), out.getvalue()
    rig.service.stop()


def test_status_says_nothing_of_a_buzzer_that_plays_every_beep(tmp_path):
    from controller.cli import main
    rig = Rig(tmp_path)
    rig.wait(0)
    out = io.StringIO()
    assert main(["status", "--config", str(tmp_path / "config.toml")], out=out) == 0
    assert "Sound:" not in out.getvalue() and "Last heartbeat" in out.getvalue()
    rig.service.stop()


@pytest.mark.parametrize("line, words", [
    ('sound = "quiet"', "exhibit.sound: 'quiet' is not one of all, faults, none"),
    ("sound = 0", "exhibit.sound: must be text, not 0"),
    ('quiet_hours = "5pm-10am"', "exhibit.quiet_hours: '5pm-10am' is not a span of the day such as"),
    ('quiet_hours = "17:00-25:00"', "exhibit.quiet_hours: '17:00-25:00': 25:00 is not a time of day"),
    ('quiet_hours = "10:00-10:00"', "exhibit.quiet_hours: '10:00-10:00' begins where it ends"),
    ('quiet_sound = "all"', "exhibit.quiet_sound: 'all' is not one of faults, none"),
])
def test_a_bad_sound_setting_gets_one_line_naming_the_key(tmp_path, line, words):
    path = tmp_path / "config.toml"
    path.write_text("[exhibit]\n%s\n" % line)
    result = in_process(["config", "check", str(path)])
    assert result.returncode == 2 and result.stderr.count("\n") == 1, result.stderr
    assert "%s:2: %s" % (path, words) in result.stderr, result.stderr


def test_config_check_takes_both_museums_settings(tmp_path):
    path = tmp_path / "config.toml"
    path.write_text('[exhibit]\nsound = "none"\n')
    assert in_process(["config", "check", str(path)]).returncode == 0
    path.write_text('[exhibit]\nquiet_hours = "17:00-10:00"\nquiet_sound = "faults"\n')
    assert in_process(["config", "check", str(path)]).returncode == 0


def test_the_shipped_configuration_shows_each_exhibit_setting_with_its_default():
    import tomllib
    shown = tomllib.loads((ROOT / "systemd" / "config.toml").read_text())["exhibit"]
    assert shown == {key: setting.default for key, setting in EXHIBIT_SETTINGS.items()}


def test_the_simulator_plays_the_configuration_s_quiet_hours(tmp_path):
    """`controller --simulate --config FILE` lets a technician try the setting: its buzzer pin keeps quiet,
    and its log says which beeps were not played and when the quiet hours begin."""
    sim = Simulation("drnim", {}, exhibit={"quiet_hours": "17:00-10:00", "quiet_sound": "none"},
                     local_start=16 * 60 + 59)
    buzzer_pin = sim.factory.pin(sim.pinmap.outputs["buzzer"].pins["pin"])
    buzzer = sim.service.board.outputs["buzzer"]
    beeps(buzzer_pin, buzzer)
    sim.press("new_game")
    assert beeps(buzzer_pin, buzzer) == 1
    sim.advance(60000)
    sim.press("new_game")
    assert beeps(buzzer_pin, buzzer) == 0
    assert any(" (not played: [exhibit] sound)" in line for line in sim.log), sim.log[-20:]
    assert any(line.startswith("sound: ") and line.endswith("at 17:00: no beep, not even for a fault")
               for line in sim.log), sim.log
    sim.close()


def test_the_simulator_takes_the_sound_setting_from_its_config(tmp_path, monkeypatch):
    from controller.cli import main
    from controller.sim import engine
    made = []

    class Kept(engine.Simulation):
        def __init__(self, *args, **settings):
            super().__init__(*args, **settings)
            made.append(self)
    monkeypatch.setattr(engine, "Simulation", Kept)
    config = write_config(tmp_path, exhibit={"sound": '"none"'})
    assert main(["--simulate", "--config", str(config), "--autoplay", "1"], out=io.StringIO()) == 0
    sim = made[0]
    assert sim.config.exhibit["sound"] == "none"
    assert not any(state.state for state in sim.factory.pin(sim.pinmap.outputs["buzzer"].pins["pin"]).states)
    assert any(" (not played: [exhibit] sound)" in line for line in sim.log), sim.log[-20:]


@pytest.mark.parametrize("span, quiet, loud", [
    ("12:00-14:00", ["12:00", "13:59"], ["11:59", "14:00", "00:00"]),
    ("17:00-24:00", ["17:00", "23:59"], ["00:00", "16:59"]),
    ("0:00-9:30", ["00:00", "09:29"], ["09:30", "23:59"]),
])
def test_a_span_within_the_day_is_quiet_inside_it_only(span, quiet, loud):
    from controller.service.sound import Sound
    sound = Sound({"sound": "all", "quiet_hours": span, "quiet_sound": "none"})
    assert [sound.plays("new_game", Clock(time)()) for time in quiet] == [False] * len(quiet)
    assert [sound.plays("new_game", Clock(time)()) for time in loud] == [True] * len(loud)
