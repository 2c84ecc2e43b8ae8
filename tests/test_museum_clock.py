"""A museum's clock: daylight saving time (Europe/Berlin, and Australia/Sydney in the southern hemisphere)
and a Raspberry Pi without a real-time clock, switched off every night. It boots with the time it last
saved (fake-hwclock), or 1970, and network time sets it a minute later, hours or fifty years forward, or
back. The quiet hours follow the local hour on the days the clocks change, a day's games count on their
local day, and a clock set while the service runs moves neither `controller status --check`'s age nor a
game's length."""

import csv
import datetime
import io
import time

import pytest

from controller.cli import main
from controller.service import sound
from service_rig import Rig

# The days the clocks change in 2026: (the 23-hour day, the 25-hour day)
CHANGES = {"Europe/Berlin": ("2026-03-29", "2026-10-25"), "Australia/Sydney": ("2026-10-04", "2026-04-05")}
FIFTY_YEARS_S = 50 * 365 * 86400


@pytest.fixture(params=sorted(CHANGES))
def zone(request, monkeypatch):
    """The museum's time zone, as the Pi's /etc/localtime gives it to the service."""
    monkeypatch.setenv("TZ", request.param)
    time.tzset()
    yield request.param
    monkeypatch.undo()
    time.tzset()


def utc(text):
    """Seconds since the epoch of a UTC time "2026-03-29 00:59"."""
    return datetime.datetime.fromisoformat(text + "+00:00").timestamp()


def local(text, fold=0):
    """Seconds since the epoch of a local time "2026-10-25 02:15" (fold=1: the second time it is said)."""
    return datetime.datetime.fromisoformat(text).replace(fold=fold).timestamp()


@pytest.fixture
def wall(monkeypatch):
    """The Pi's wall clock, as the test sets it (seconds since the epoch): time.time and time.localtime()
    read it; the clock since boot (the service's own, and time.monotonic) does not move with it."""
    now = [time.time()]
    real_localtime = time.localtime
    monkeypatch.setattr(time, "time", lambda: now[0])
    monkeypatch.setattr(time, "localtime", lambda *when: real_localtime(*when) if when and when[0] is not None
                        else real_localtime(now[0]))
    return now


def beeps(rig):
    buzzer = rig.service.board.outputs["buzzer"]
    if buzzer._blink_thread is not None:
        buzzer._blink_thread.join(5)
    pin = rig.pin("buzzer")
    heard = sum(1 for state in pin.states if state.state)
    pin.clear_states()
    return heard


@pytest.fixture(autouse=True)
def short_beeps(monkeypatch):
    from controller.hardware import boards
    monkeypatch.setattr(boards, "BEEPS", {cue: (0.001, 0.001, count) for cue, (_, _, count) in boards.BEEPS.items()})


def test_quiet_hours_follow_the_local_hour_on_the_days_the_clocks_change(tmp_path, zone, wall):
    """Quiet from 17:00 to 10:00, and from 02:30 to 03:00 for the night's cleaners: the buzzer plays New
    game's beep at 10:00 and 16:59 local time on the 23-hour and the 25-hour day as on any other (10:00 is
    an hour nearer midnight in seconds on the one, an hour further on the other), and in the hour that
    comes twice on the 25-hour day it is quiet from 02:30 each time."""
    rig = Rig(tmp_path, exhibit={"quiet_hours": '"17:00-10:00"'}, local_time=sound.local_minute, equalizer=False)
    beeps(rig)
    short, long = CHANGES[zone]
    for day in (short, long):
        for clock, played in (("09:59", 0), ("10:00", 1), ("16:59", 1), ("17:00", 0)):
            wall[0] = local("%s %s" % (day, clock))
            rig.press("new_game")
            assert beeps(rig) == played, (zone, day, clock)
    rig.service.stop()
    (tmp_path / "cleaners").mkdir()
    rig = Rig(tmp_path / "cleaners", exhibit={"quiet_hours": '"02:30-03:00"'}, local_time=sound.local_minute,
              equalizer=False)
    beeps(rig)
    heard = []
    for fold in (0, 1):
        for clock in ("02:15", "02:45"):
            wall[0] = local("%s %s" % (long, clock), fold)
            rig.press("new_game")
            heard.append((time.strftime("%H:%M %Z", time.localtime(wall[0])), beeps(rig)))
    assert [played for _, played in heard] == [1, 0, 1, 0], heard
    assert heard[0][0][-4:] != heard[2][0][-4:], "the same hour twice, in summer time then in winter time"
    rig.service.stop()


def test_a_time_zone_set_while_the_service_runs_moves_the_quiet_hours_without_a_restart(tmp_path, monkeypatch,
                                                                                          wall):
    """A Pi imaged in UTC, its zone set at the museum in Sydney while the service runs (raspi-config):
    the quiet hours stayed in UTC, the buzzer beeping at 22:00 local time, until someone restarted the
    service. The next heartbeat reads the zone again, and the journal says so."""
    monkeypatch.setenv("TZ", "UTC")
    time.tzset()
    try:
        rig = Rig(tmp_path, exhibit={"quiet_hours": '"17:00-10:00"'}, local_time=sound.local_minute,
                  equalizer=False)
        beeps(rig)
        wall[0] = utc("2026-06-15 12:00")       # noon in UTC, 22:00 in Sydney (winter there)
        rig.press("new_game")
        assert beeps(rig) == 1
        monkeypatch.setenv("TZ", "Australia/Sydney")    # what timedatectl set-timezone changes under it
        rig.service.heartbeat()
        rig.press("new_game")
        assert beeps(rig) == 0
        assert "time zone: now AEDT/AEST (was UTC): the quiet hours and the days games count on follow it" \
            in rig.log, rig.log
        rig.service.stop()
    finally:
        monkeypatch.undo()
        time.tzset()


def stats_lines(config, period, csv_too=False):
    out = io.StringIO()
    assert main(["stats", "--config", config, "--period", period] + (["--csv"] if csv_too else []), out=out) == 0
    return out.getvalue()


def test_a_days_games_count_on_their_local_day_across_the_change(tmp_path, zone):
    """Games at 00:30, in the changed hour, and at 23:30 of the 23-hour and the 25-hour day count on
    that day, and the day after's 00:30 on the day after: a day is from local midnight to local
    midnight, 23 or 25 hours long, never 24 hours added."""
    from controller.service.stats import Statistics
    from service_rig import write_config
    config = str(write_config(tmp_path))
    (tmp_path / "state").mkdir()
    now = [0.0]
    statistics = Statistics(str(tmp_path / "state" / "stats.sqlite"), clock=lambda: now[0])
    short, long = CHANGES[zone]
    after = {}
    for day in (short, long):
        following = (datetime.date.fromisoformat(day) + datetime.timedelta(days=1)).isoformat()
        after[day] = following
        times = [local(day + " 00:30"), local(day + " 23:30"), local(following + " 00:30")]
        times += [local(day + " 03:30")] if day == short else [local(day + " 02:30"), local(day + " 02:30", 1)]
        for when in times:
            now[0] = when
            statistics.game("drnim", "player", 60)
    assert statistics.flush()
    for day, games in ((short, 3), (long, 4)):
        said = stats_lines(config, "%s..%s" % (day, after[day]))
        weekday = datetime.date.fromisoformat(day).strftime("%a")
        assert "  %s %s  %d\n" % (day, weekday, games) in said, said
        assert "  %s " % after[day] in said and said.count("\n  20") == 2, said
        rows = list(csv.reader(io.StringIO(stats_lines(config, day, csv_too=True))))
        assert [(row[0], row[4]) for row in rows[1:]] == [(day, str(games))], rows
    statistics.close()


def checked(tmp_path):
    out = io.StringIO()
    code = main(["status", "--config", str(tmp_path / "config.toml"), "--check"], out=out)
    return code, out.getvalue()


@pytest.mark.parametrize("boot, synced", [("1970", 0), ("last evening", 14 * 3600), ("ahead", -5 * 3600)])
def test_status_check_is_ok_when_network_time_sets_the_clock_under_a_running_service(tmp_path, wall, boot, synced):
    """A Pi that booted at 1970 (no saved time), at the time it saved last evening, or ahead: network time
    sets its clock fifty years or hours forward, or back, between the service's heartbeat and the monitor's
    check. The heartbeat is seconds old, not fifty years stale (CRITICAL) nor in the future."""
    wall[0] = 120.0 if boot == "1970" else time.time() - synced
    rig = Rig(tmp_path, equalizer=False)
    rig.take(1)
    rig.service.heartbeat()
    wall[0] = utc("2026-11-27 09:01") if boot == "1970" else wall[0] + synced
    code, line = checked(tmp_path)
    assert code == 0 and line.startswith("OK - drnim, play, 14 of 15 marbles on the rail, player's turn; "
                                         "heartbeat 0 s ago | heartbeat_age=0."), line
    rig.service.stop()


def play_a_game(rig):
    rig.take(1)
    while rig.machine.state["mode"] == "play":
        rig.hand_over()
        if rig.machine.state["mode"] == "play":
            rig.take(1)


def test_a_game_across_the_clock_set_fifty_years_forward_keeps_its_length_and_day(tmp_path, wall):
    """The first game of the morning began at 1970 by the Pi's clock and ended after network time set it:
    its length is the minutes it lasted, not fifty years, and it counts today; no 1970 day comes into
    the statistics."""
    wall[0] = 60.0
    rig = Rig(tmp_path, marbles=5)
    rig.take(1)
    started = rig.clock.now
    wall[0] = utc("2026-11-27 09:01")
    play_a_game(rig)
    lasted = (rig.clock.now - started) // 1000
    assert rig.service.stats.flush() and 0 < lasted < 600
    said = stats_lines(str(tmp_path / "config.toml"), "14d")
    assert "Games: 1 " in said and "Length of a game (mean, from its first move): %d s\n" % lasted in said, said
    assert "1970" not in said
    rig.service.stop()


def live_status(exhibit, at):
    return {"v": 1, "exhibit": exhibit, "online": True, "at": at, "machine": "drnim", "mode": "play", "fault": None,
            "version": "0.1.0", "uptime_s": 5, "heartbeat_s": 60, "last_game": None,
            "today": {"date": time.strftime("%Y-%m-%d", time.localtime(at)), "games": 0, "machine_wins": 0}}


def test_the_fleets_table_on_a_pi_times_what_it_heard_by_the_clock_since_boot():
    """`controller fleet` on a Pi in the museum's office, started at its boot: its clock says last evening
    (fake-hwclock) until network time sets it 16 hours forward a minute later, or an hour back when it had
    run ahead. The exhibits heard before are not 'silent 16 h' nor 'OFFLINE 16 h' (the one that went a
    minute before), and one that falls silent after the clock went back is silent, not 'yes' for an hour."""
    from controller.telemetry.fleet import Fleet, FleetStore
    from controller.telemetry.payloads import encode
    wall, since_boot = [utc("2026-11-26 17:17")], [40.0]
    fleet = Fleet("m", FleetStore(":memory:"), lambda text: None, clock=lambda: wall[0], timer=lambda: since_boot[0])
    fleet.message("m/hall-1/status", encode(live_status("hall-1", utc("2026-11-27 09:00"))))
    fleet.message("m/hall-2/status", encode(live_status("hall-2", utc("2026-11-27 09:00"))))
    fleet.message("m/hall-2/status", encode({"v": 1, "exhibit": "hall-2", "online": False, "machine": "drnim"}))
    since_boot[0] += 60
    wall[0] = utc("2026-11-27 09:01")                   # network time
    assert [row[2] for row in fleet.rows()] == ["yes", "OFFLINE 60 s"]
    since_boot[0] += 600
    wall[0] += 600 - 3600                               # ten minutes on, the clock set an hour back
    assert [row[2] for row in fleet.rows()] == ["silent 11 min", "OFFLINE 11 min"]


def queued_game(exhibit, number, ended):
    return {"v": 1, "exhibit": exhibit, "id": "%s/%d" % (exhibit, number), "machine": "drnim", "winner": "player",
            "turns": 6, "duration_s": 40, "ended": ended, "settings": {}}


def test_games_queued_over_a_weekend_reach_a_follower_started_before_network_time(tmp_path):
    """The office Pi that runs `controller fleet stats` every morning is off from Friday evening to Monday,
    and boots with Friday's clock (fake-hwclock): the weekend's games, queued at the broker, came more than
    a day ahead of its clock, and each was ignored and acknowledged, lost for good. They are now held in the
    store until the clock comes near them, then counted; a game from years ahead (an exhibit's clock gone
    wrong) stays held and counts in no period."""
    from controller.telemetry.fleet import Fleet, FleetStore
    from controller.telemetry.payloads import encode
    path = str(tmp_path / "fleet.sqlite")
    friday, sunday = utc("2026-11-20 18:00"), utc("2026-11-22 15:00")
    wall, said = [friday], []
    fleet = Fleet("m", FleetStore(path), said.append, clock=lambda: wall[0])
    for number in range(3):
        fleet.message("m/hall-1/game", encode(queued_game("hall-1", number, sunday + number)))
    fleet.message("m/hall-1/game", encode(queued_game("hall-1", 0, sunday)))       # QoS 1's second delivery
    fleet.message("m/hall-1/game", encode(queued_game("hall-1", 9, utc("2031-01-01 12:00"))))
    fleet.store.commit()
    assert fleet.store.summary(0)[0] == []
    assert len(said) == 5 and said[0].startswith("held a message: m/hall-1/game: a game 45 h ahead"), said
    wall[0] = utc("2026-11-23 08:01")                   # network time, Monday morning
    fleet.message("m/hall-1/status", encode(live_status("hall-1", wall[0])))
    fleet.store.commit()
    assert [row[:3] for row in fleet.store.summary(0)[0]] == [("hall-1", "drnim", 3)]
    assert said[-1] == "kept 3 games and faults held aside: this computer's clock has come within a day of them"
    fleet.store.close()
    again = Fleet("m", FleetStore(path), said.append, clock=lambda: utc("2030-12-31 13:00"))
    assert [row[:3] for row in again.store.summary(0)[0]] == [("hall-1", "drnim", 4)]


@pytest.mark.parametrize("set_by_network", [True, False])
def test_status_says_a_clock_network_time_has_not_set(tmp_path, monkeypatch, set_by_network):
    """Only `stats` said it: a Pi whose clock no network time set after a power cut (hours behind) ran its
    quiet hours at the wrong time and counted games on the wrong days, while `status` said nothing."""
    from controller.service import clock
    monkeypatch.setattr(clock, "synchronised", lambda: set_by_network)
    rig = Rig(tmp_path, equalizer=False)
    rig.take(1)
    rig.service.heartbeat()
    out = io.StringIO()
    assert main(["status", "--config", str(tmp_path / "config.toml")], out=out) == 0
    rig.service.stop()
    said = out.getvalue()
    assert ("Clock: not set by network time since this computer started\n" in said) == (not set_by_network)
    assert ("its quiet hours and the days its games count on follow that clock" in said) == (not set_by_network)
