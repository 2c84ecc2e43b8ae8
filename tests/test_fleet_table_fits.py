"""The live table (`controller fleet` in a terminal) is redrawn every second: a museum's 20 exhibits in an
office laptop's 80x24 window must fit it, or say what they leave out, and never hide an exhibit that is
offline or at fault. The report of their games (`controller fleet stats`), printed once, must fit its
80 columns too."""

import datetime
import io
import re
import time

from controller.cli import main
from controller.telemetry.command import frame
from controller.telemetry.fleet import Fleet, FleetStore, table
from controller.telemetry.payloads import encode

NOW = 1795435200.0


def museum(exhibits, power=None):
    """A fleet of `exhibits` exhibits, each of which has said its status: every seventh offline, every
    ninth jammed, the others playing. `power`: the Pi's supply and heat some of them say, by number."""
    fleet = Fleet("m", FleetStore(":memory:"), lambda text: None, clock=lambda: NOW, timer=lambda: NOW)
    for n in range(1, exhibits + 1):
        name = "hall-%d-%s" % (n, "nimatron" if n % 4 == 0 else "drnim")
        said = {"power": dict(CALM_PI, **power[n])} if power and n in power else {}
        fleet.message("m/%s/status" % name, encode(dict(said, **{
            "v": 1, "exhibit": name, "online": n % 7 != 3, "at": NOW - 30,
            "machine": "nimatron" if n % 4 == 0 else "drnim", "version": "0.1.0", "uptime_s": 86400,
            "heartbeat_s": 60, "queued": 0, "mode": "play", "turn": "player", "winner": None,
            "fault": "jam" if n % 9 == 5 else None, "attract": False, "rail": 11, "loaded": 15,
            "service_faults": [],
            "today": {"date": datetime.date.fromtimestamp(NOW).isoformat(), "games": 140 + n, "machine_wins": 100 + n},
            "last_game": {"id": "%s/1" % name, "winner": "machine", "ended": NOW - 700}})), retained=True)
    return fleet


def in_80x24(fleet):
    """The live table in an 80x24 window, which it must fit: its lines, and its exhibits' rows by name."""
    lines = frame(fleet, "broker.museum.lan:1883", True, [], (80, 24)).splitlines()
    assert len(lines) <= 23 and max(len(line) for line in lines) <= 80, "\n".join(lines)
    return lines, dict((line.split()[0], line) for line in lines[4:] if line.startswith("hall-"))


def fleet_status(name):
    """An exhibit's status, online, as it sends it."""
    return {"v": 1, "exhibit": name, "online": True, "at": NOW, "machine": "drnim", "version": "0.1.0",
            "uptime_s": 86400, "heartbeat_s": 60, "queued": 0, "mode": "play", "turn": "player", "winner": None,
            "fault": None, "attract": False, "rail": 11, "loaded": 15, "service_faults": [],
            "today": {"date": datetime.date.fromtimestamp(NOW).isoformat(), "games": 0, "machine_wins": 0},
            "last_game": None}


CALM_PI = {"under_voltage": False, "episodes": 0, "cpu_c": 55.0, "hottest_c": 61.5, "hot": False, "hot_episodes": 0}


def test_twenty_exhibits_fit_an_80x24_window_and_it_says_what_it_leaves_out():
    """Found following 20 exhibits on a laptop: the table was 30 lines of up to 87 characters in an 80x24
    window, so each line wrapped and every redraw scrolled the headings and the first exhibits out of sight.
    Now each line is cut at the window's width (the last game's time first, so that it stays), the
    exhibits that do not fit are counted in one line, and those offline or at fault are never the ones
    left out."""
    fleet = museum(20)
    lines = frame(fleet, "broker.museum.lan:1883", True, ["17:05:02 ignored a message"] * 5, (80, 24)).splitlines()
    assert len(lines) <= 23 and max(len(line) for line in lines) <= 80, "\n".join(lines)
    assert lines[2].startswith("exhibit ")
    shown = [line.split()[0] for line in lines[4:] if line.startswith("hall-")]
    assert "hall-1-drnim" in shown and all(name in shown for name in fleet.exhibits
                                           if not fleet.exhibits[name]["online"] or fleet.exhibits[name]["fault"])
    more = [line for line in lines if line.startswith("+ ")]
    assert more == ["+ %d more exhibits, online without a fault: make the window taller" % (20 - len(shown))]
    assert "11 min ago" in lines[4]


def test_an_exhibit_whose_supply_sags_or_whose_cpu_is_too_hot_is_named_and_never_left_out():
    """A curator following 20 exhibits could not see which Pi's supply sagged or which ran hot without
    ssh to each: the statuses now say it, and the table's fault column names it, in the 80x24 window
    too, where such an exhibit is never among those left out for room (hall-8 and hall-9 were, last by
    name of those online without a fault). Episodes over are not shown: `controller fleet stats` counts them."""
    fleet = museum(20, power={8: {"under_voltage": True, "episodes": 3}, 9: {"cpu_c": 82.5, "hot": True},
                              11: {"episodes": 1, "hot_episodes": 2}, 16: {}})
    lines, rows = in_80x24(fleet)
    shown = dict((name, row.split()[3]) for name, row in rows.items())
    assert shown["hall-8-nimatron"] == "undervolt" and shown["hall-9-drnim"] == "hot", "\n".join(lines)
    assert lines[-1] == "+ 2 more exhibits, online without a fault: make the window taller"
    assert [row[0] for row in fleet.rows() if row[3] != "-"] == [
        "hall-14-drnim", "hall-5-drnim", "hall-8-nimatron", "hall-9-drnim"]


def test_an_exhibit_jammed_with_its_supply_sagging_and_its_cpu_hot_keeps_its_games_inside_80_columns():
    """Cut to 80 columns, "jam, under-voltage, too-hot" pushed the columns after it past the edge: the
    curator lost how many games every exhibit had played today and the machine's wins (cut off with ">")."""
    fleet = museum(20, power={5: {"under_voltage": True, "episodes": 1, "cpu_c": 83.0, "hot": True}})
    lines, rows = in_80x24(fleet)
    assert rows["hall-5-drnim"].split()[3:6] == ["jam,undervolt,hot", "145", "105"], "\n".join(lines)
    assert "machine won" in lines[2] and "today" in lines[2]
    assert [row[3] for row in fleet.rows() if row[0] == "hall-5-drnim"] == ["jam, under-voltage, too-hot"]


def test_a_fleet_that_fits_its_window_is_the_whole_table():
    fleet = museum(3)
    text = frame(fleet, "broker.museum.lan:1883", True, ["17:05:02 ignored a message"], (120, 40))
    assert table(fleet.rows()) in text and text.endswith("\n\n17:05:02 ignored a message\n")


def test_the_report_of_twenty_exhibits_fits_80_columns(tmp_path):
    """Found reporting on 20 exhibits: `controller fleet stats` had headings such as "machine's wins" for
    numbers of three figures, making each row 85 characters and its headings 94, and the faults of every
    exhibit in one line of hundreds: an 80-column terminal wrapped every line of it."""
    path = str(tmp_path / "fleet.sqlite")
    store = FleetStore(path)
    for n in range(1, 21):
        name = "hall-%d-%s" % (n, "nimatron" if n % 4 == 0 else "drnim")
        for game in range(15):
            store.game({"exhibit": name, "id": "%s/%d" % (name, game), "machine": name.split("-")[-1],
                        "winner": "player" if game % 3 else "machine", "turns": 7, "duration_s": 95,
                        "ended": 1740830400.0 + 3600 * game})
        if n % 3 == 0:
            store.fault({"exhibit": name, "id": "%s/f" % name, "machine": name.split("-")[-1], "fault": "jam",
                         "at": 1740830400.0})
    store.close()
    out = io.StringIO()
    assert main(["fleet", "stats", "--offline", "--db", path, "--period", "2025-03"], out) == 0
    lines = out.getvalue().splitlines()
    assert max(len(line) for line in lines) <= 80, out.getvalue()
    assert sum(line.startswith("hall-") for line in lines) == 20
    assert "turns, length: a game's mean" in lines and "Faults:" in lines and "  hall-12-nimatron: jam 1" in lines


def test_an_exhibit_offline_says_since_when_and_one_found_offline_says_so_honestly():
    """Found following 20 exhibits: OFFLINE had no age, so an exhibit retired months ago looked the same as
    one whose plug was pulled an hour ago. A last will has no time, but the follower knows when one came
    while it ran; one the broker kept, found at the follower's start, is older than that by an unknown time."""
    now = [NOW]
    fleet = Fleet("m", FleetStore(":memory:"), lambda text: None, clock=lambda: now[0], timer=lambda: now[0])
    retired, pulled = encode({"v": 1, "exhibit": "retired", "online": False, "machine": "drnim"}), \
        encode({"v": 1, "exhibit": "pulled", "online": False, "machine": "nimatron"})
    fleet.message("m/retired/status", retired, retained=True)           # kept by the broker for months
    fleet.message("m/pulled/status", encode(dict(fleet_status("pulled"), at=NOW)), retained=True)
    assert [row[2] for row in fleet.rows()] == ["yes", "OFFLINE"]       # found just now: nothing more to say
    now[0] += 1800
    fleet.message("m/pulled/status", pulled)                            # its will, as it came
    now[0] += 3 * 3600
    found, went = time.strftime("%H:%M:%S", time.localtime(NOW)), time.strftime("%H:%M:%S", time.localtime(
        NOW + 1800))
    assert dict((row[0], row[2]) for row in fleet.rows()) == {"pulled": "OFFLINE 3 h", "retired": "OFFLINE >3 h"}
    assert dict((row[0], row[2]) for row in fleet.rows(clock_times=True)) == {
        "pulled": "OFFLINE since %s" % went, "retired": "OFFLINE (before %s)" % found}
    # the broker restarted: the follower, subscribing again, gets the same wills, kept: what it knew stands
    fleet.message("m/pulled/status", pulled, retained=True)
    fleet.message("m/retired/status", retired, retained=True)
    assert dict((row[0], row[2]) for row in fleet.rows()) == {"pulled": "OFFLINE 3 h", "retired": "OFFLINE >3 h"}


def test_a_board_gone_offline_keeps_the_machine_it_played():
    """A Pi's monitor of a Nimatron on a Pico connects before the board names its machine, so its last will
    said the Pi's own, "drnim": killed, or at a broker's restart, the fleet showed `hall-2 drnim OFFLINE`. A
    will keeps the machine the exhibit's last status named; a goodbye says its own."""
    fleet = Fleet("m", FleetStore(":memory:"), lambda text: None, clock=lambda: NOW, timer=lambda: NOW)
    fleet.message("m/hall-2/status", encode(dict(fleet_status("hall-2"), machine="nimatron")))
    fleet.message("m/hall-2/status", encode({"v": 1, "exhibit": "hall-2", "online": False, "machine": "drnim"}))
    assert [row[:3] for row in fleet.rows()] == [["hall-2", "nimatron", "OFFLINE 0 s"]]
    fleet.message("m/new/status", encode({"v": 1, "exhibit": "new", "online": False, "machine": "drnim"}))
    assert [row[1] for row in fleet.rows() if row[0] == "new"] == ["drnim"]     # never heard online: its will's
    fleet.message("m/hall-2/status", encode(dict(fleet_status("hall-2"), online=False, machine="drnim")))
    assert [row[1] for row in fleet.rows() if row[0] == "hall-2"] == ["drnim"]     # a goodbye's own


def test_offline_exhibits_ages_keep_twenty_in_80x24_with_each_last_game_seen():
    """The age beside OFFLINE widens the online column: in 80 columns it says OFF, so that the last
    game's time, first in its column, is still inside the window."""
    fleet = museum(20)
    for name, clock, retained in (("hall-15-drnim", NOW - 3 * 3600, True), ("hall-10-drnim", NOW - 2400, False)):
        fleet.clock = fleet.timer = lambda: clock
        fleet.message("m/%s/status" % name, encode({"v": 1, "exhibit": name, "online": False, "machine": "drnim"}),
                      retained=retained)
    fleet.clock = fleet.timer = lambda: NOW
    lines, rows = in_80x24(fleet)
    assert [re.split(" {2,}", rows[name])[2] for name in ("hall-3-drnim", "hall-10-drnim", "hall-15-drnim")] == [
        "OFF 30 s", "OFF 40 min", "OFF >3 h"], "\n".join(lines)
    assert all("11 min ago" in line for line in rows.values()), "\n".join(lines)


def test_silent_exhibits_keep_twenty_in_80x24_with_each_last_game_seen():
    """Found following 20 exhibits: "silent 12 min" (13 characters) widened the online column so that the
    last game's time went past the window's edge, as OFFLINE's age did. Cut to 80 columns it says
    "silent 12m"; --once and a log keep the words."""
    fleet = museum(20)
    for name, silent_s in (("hall-6-drnim", 12 * 60), ("hall-11-drnim", 100 * 60), ("hall-13-drnim", 3 * 86400)):
        fleet.message("m/%s/status" % name, encode(dict(fleet_status(name), at=NOW - silent_s, last_game={
            "id": "%s/1" % name, "winner": "machine", "ended": NOW - 700})), retained=True)
    lines, rows = in_80x24(fleet)
    assert [re.split(" {2,}", rows[name])[2] for name in ("hall-6-drnim", "hall-11-drnim", "hall-13-drnim")] == [
        "silent 12m", "silent 100m", "silent 3d"], "\n".join(lines)
    assert all("11 min ago" in line for line in rows.values()), "\n".join(lines)
    assert dict((row[0], row[2]) for row in fleet.rows() if row[0] in ("hall-6-drnim", "hall-13-drnim")) == {
        "hall-6-drnim": "silent 12 min", "hall-13-drnim": "silent 3 days"}
    assert dict((row[0], row[2]) for row in fleet.rows(clock_times=True))["hall-6-drnim"] == \
        "silent, last heard at %s" % time.strftime("%H:%M:%S", time.localtime(NOW - 12 * 60))
