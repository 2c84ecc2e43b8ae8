"""The faults a real Pico's MicroPython has and our fake `machine` module hid,
each shown on the official MicroPython on an emulated RP2040 (tests/pico_rig.py).

Each boots an emulated chip, seconds of a CPU: `make test` runs the one a fake hid longest (the
sensor deaf past the ticks wrap) and two power cuts, `make firmware-test` (which CI runs after it)
every one, as it runs every scenario."""

import threading

import pytest

from controller.firmware.board import BoardRefused
from pico_rig import LED, TICKS_PERIOD_MS, Pico, blinking, changes, images, needs_pico  # noqa: F401

pytestmark = needs_pico


@pytest.fixture
def drnim(images):  # noqa: F811
    board = Pico(images, "drnim")
    yield board
    board.close()


@pytest.fixture
def nimatron(images):  # noqa: F811
    board = Pico(images, "nimatron")
    yield board
    board.close()


@pytest.fixture
def drnim_before_the_wrap(images):  # noqa: F811
    """A Dr. Nim board whose timer starts a minute before `ticks_ms` wraps."""
    board = Pico(images, "drnim", timer_us=(TICKS_PERIOD_MS - 60000) * 1000)
    yield board
    board.close()


def test_marbles_count_on_both_sides_of_the_ticks_wrap_and_the_led_blinks_slowly(drnim_before_the_wrap):
    drnim = drnim_before_the_wrap
    drnim.pico.watch([LED])
    assert drnim.script("machine drnim\npress trigger\nexpect rail 14\nwait 90s\npress trigger\nexpect rail 13\n"
                        "expect releases 2\nexpect fault none\n") == []
    assert blinking(drnim, 0) == 1000


@pytest.mark.firmware_test
def test_the_release_shuts_on_time_while_the_host_reads_nothing(drnim):
    release = [line[2][0] for line in drnim.bench.config.OUTPUTS if line[0] == "release"][0]
    assert drnim.script("machine drnim\n") == []
    drnim.pico.host_reading(False)
    start = drnim.pico.now / 1e6
    for _ in range(3):
        drnim.board.hands.press("trigger")
    drnim.board.hands.advance(2000)
    drnim.pico.host_reading(True)
    pulses = changes(drnim, release, start)
    assert [level for level, at in pulses] == [1, 0] * 3
    widths = [round(shut - opened) for (_, opened), (_, shut) in zip(pulses[::2], pulses[1::2])]
    assert widths == [drnim.bench.config.RELEASE_PULSE_MS] * 3, widths
    lines = []
    drnim.board.on_line = lines.append
    assert drnim.board.ask("state")["status"]["rail"] == 12      # the board played on
    drnim.board.pass_time(0.5)
    dropped = [line for line in lines if line["kind"] == "fault" and line["fault"] == "link"]
    assert len(dropped) == 1 and dropped[0]["text"].endswith("lines dropped: the host read nothing for a while")


@pytest.mark.firmware_test
def test_a_new_game_the_wiring_cannot_play_is_refused_and_nothing_of_it_saved(nimatron):
    """A Nimatron wired for 4 rows asked for 5: one error line, and the flash still
    holds a game the board can play, so the next power-up plays (no crash loop)."""
    with pytest.raises(BoardRefused, match=r"rows: 5, but the wiring has 4 \(the number of lamp rows\)"):
        nimatron.board.ask("new_game", settings={"rows": 5})
    with pytest.raises(BoardRefused, match=r"lamps: 9, but the wiring has 7"):
        nimatron.board.ask("new_game", settings={"lamps": 9})
    nimatron.pico.power_cut()
    nimatron.board.wait_restart(20)
    assert nimatron.board.hello["resumed"] in ("new", "saved")
    assert nimatron.script("machine nimatron openings=1,3,5,7\npress row4\nexpect rows 1,3,5,6\n") == []


@pytest.mark.firmware_test
def test_a_board_that_keeps_resetting_holds_safe_until_the_host_says_new_game(drnim):
    """Three resets in a row soon after the start (here a firmware stopped at its
    console, which its watchdog resets): the fourth start holds, the LED blinking
    fast, and every line but new_game gets the reason back."""
    lines = []
    drnim.board.on_line = lines.append
    drnim.pico.watch([LED])
    for _ in range(3):
        drnim.board.link.serial.write(b"\x03")        # Ctrl-C: the firmware stops; the watchdog does the rest
        drnim.board.wait_restart(20)
    assert drnim.board.hello["resumed"] == "held"
    drnim.board.pass_time(2)
    assert [line["fault"] for line in lines if line["kind"] == "fault"][-1] == "resets"
    assert blinking(drnim, drnim.pico.now / 1e6 - 2000) == 100
    with pytest.raises(BoardRefused, match="reset 3 times in a row, each soon after it started"):
        drnim.board.ask("state")
    with pytest.raises(BoardRefused, match="unknown kind 'ping'"):     # refused with its id, not left unanswered
        drnim.board.ask("ping")
    drnim.board.ask_all([("new_game", {})], restarts=True)
    assert drnim.board.hello["resumed"] == "new"
    assert drnim.script("machine drnim\npress trigger\nexpect rail 14\nexpect fault none\n") == []


@pytest.mark.firmware_test
def test_soft_resets_at_the_console_are_not_counted_as_resets_in_a_row(drnim):
    """A Pico's soft reset (Ctrl-D at its console: Thonny's Send EOF / Soft reboot, mpremote's repl) keeps
    the cause of the chip's last start, and machine.reset() (mpremote's reset, every deploy's last step)
    starts it as its watchdog does: after one, each soft reset counted as a crash, and a developer's
    second left the board holding every output safe. They count no more; resets the board makes itself
    still do, and a third holds it."""
    type_at_console(drnim, b"\x03")         # the firmware stops (a production board's watchdog waits 5 s)
    drnim.board.pass_time(0.5)
    type_at_console(drnim, b"import machine; machine.reset()\r")
    drnim.board.wait_restart(20)            # a start the board counts, as after a deploy
    drnim.board.pass_time(10)               # it plays while the developer edits
    for _ in range(3):
        type_at_console(drnim, b"\x03")
        drnim.board.pass_time(0.5)
        type_at_console(drnim, b"\x04")
        drnim.board.wait_restart(20)
        assert drnim.board.hello["resumed"] != "held", drnim.board.hello
    assert drnim.script("machine drnim\npress trigger\nexpect rail 14\nexpect fault none\n") == []
    for _ in range(2):
        type_at_console(drnim, b"\x03")     # the watchdog resets the board, as it resets a hung one
        drnim.board.wait_restart(20)
    assert drnim.board.hello["resumed"] == "held"


def type_at_console(pico, keys):
    """Keys typed at the board's console, as in Thonny or mpremote's repl; the board's time
    passes on once the emulator has read them, as after a line the link sends."""
    link = pico.board.link
    link.serial.write(keys)
    link.sent += len(keys)
    pico.pico.host_sent = link.sent_before + link.sent


@pytest.mark.firmware_test
def test_a_held_board_starts_afresh_when_staff_hold_new_game_down(drnim):
    """A board held after resets in a row waited for a host's new_game line alone, and a power cut did not
    end it (it counts only the resets the board made itself): a museum without a computer at hand had a
    dark exhibit. New game held down for 3 s starts it afresh; a short press does not. It starts with the
    settings a host gave it last, kept in its flash: it started with the defaults (the Pico builder's)."""
    drnim.board.ask("new_game", settings={"marbles": 11, "rule": "last-wins"})
    for _ in range(3):
        drnim.board.link.serial.write(b"\x03")
        drnim.board.wait_restart(20)
    assert drnim.board.hello["resumed"] == "held"
    number, high = [(line[1], line[3]) for line in drnim.bench.config.INPUTS if line[0] == "new_game"][0]
    resets = drnim.board.link.resets
    drnim.pico.drive((number, high))
    drnim.board.pass_time(1)
    drnim.pico.drive((number, not high))
    drnim.board.pass_time(1)
    assert drnim.board.link.resets == resets, "a press of a second is a visitor's, not staff's"
    drnim.pico.drive((number, high))
    drnim.board.wait_restart(20)
    drnim.pico.drive((number, not high))
    assert drnim.board.hello["resumed"] == "new"
    game = drnim.board.ask("state")["game"]
    assert (game["config"]["marbles"], game["config"]["rule"], game["state"]["loaded"]) == (11, "last-wins", 11)
    assert drnim.script("machine drnim\npress trigger\nexpect rail 14\nexpect fault none\n") == []


# The flash operations, counted from a fresh board's first game, where the power is cut: the first seven
# take in plain saves (a program each) and the first compaction (an erase and two programs, today the
# fifth to the seventh). `make test` cuts at two, one of each kind; `make firmware-test` at all seven.
CUT_SAMPLE = (1, 6)


@pytest.mark.parametrize("operation", [n if n in CUT_SAMPLE else pytest.param(n, marks=pytest.mark.firmware_test)
                                       for n in range(1, 8)])
def test_a_power_cut_at_any_flash_write_of_a_save_leaves_the_old_game_or_the_new(drnim, operation):
    """LittleFS commits a file whole when it is closed: the power going as the board
    starts any erase or program of a save leaves a game it resumes, old or new, never a
    damaged one (the save is written in place, which only that promise makes safe). A
    save is one program of its directory's block, or, when that block is full, its
    compaction into the other block of the pair."""
    board = drnim.board
    assert drnim.script("machine drnim\n") == []
    games = ({"marbles": 11, "capacity": 11}, {"marbles": 15})
    drnim.pico.cut_power_at_flash(operation)
    for attempt in range(100):          # new games, each saved, until the power goes in one
        if new_game_or_power_cut(board, games[attempt % 2], attempt):
            break
    else:
        pytest.fail("no save reached its flash operation %d" % operation)
    assert board.hello["resumed"] == "saved", (operation, board.hello)
    assert board.ask("state")["status"]["loaded"] in (11, 15)


def new_game_or_power_cut(board, settings, ident):
    """Ask for a new game; True when the board started again (its power cut) before it answered."""
    resets = board.link.resets
    board.link.restarting = True
    try:
        board.link.send({"kind": "new_game", "settings": settings, "id": ident})
        while board.link.resets == resets:
            message = board.link.receive(20)
            assert message is not None, "no answer to new_game, and no restart"
            if message.get("id") == ident:
                return False
        return True
    finally:
        board.link.restarting = False


@pytest.mark.firmware_test
def test_the_host_s_line_reaches_the_board_when_sent_however_late_the_port_passes_it_on(drnim):
    """A busy machine's pseudo-terminal passes the host's bytes on a moment late: the
    board's time waits for them, so a script plays the same on a busy machine (here half
    a second of the wall clock late, while the board sleeps and its time jumps)."""
    def took(ask):
        sent = drnim.pico.now
        assert ask("state")["status"]["rail"] == 15
        return (drnim.pico.now - sent) / 1e6
    at_once = took(drnim.board.ask)
    serial = drnim.board.link.serial
    write = serial.write
    serial.write = lambda data: threading.Timer(0.5, write, (data,)).start() or len(data)
    late = took(drnim.board.ask)
    assert late < at_once + 5, "the reply took %d ms of the board's time, %d when the bytes pass at once" % (
        late, at_once)
