"""A Pico exhibit on its own, as a science fair runs one: a production build on a USB charger, no
host on its USB at all (its port never comes up, nothing reads it), for a whole weekend; the laptop
comes back only to look. On the official MicroPython on an emulated RP2040 (tests/pico_rig.py);
`make firmware-test` runs them."""

import pytest

from pico_rig import LED, Pico, blinking, images, needs_pico  # noqa: F401  (images: a fixture)

pytestmark = [needs_pico, pytest.mark.firmware_test]
S = 1_000_000_000       # the emulator counts nanoseconds


@pytest.fixture
def nimatron(images):  # noqa: F811
    board = Pico(images, "nimatron")
    yield board
    board.close()


def pins(board):
    """{role: (GP number, the level it reads pressed)} of the board's buttons."""
    return {line[0]: (line[1], line[3]) for line in board.bench.config.INPUTS}


def hold(board, role, seconds):
    """A hand on the button `role` for `seconds`, then off it for half a second."""
    number, pressed = pins(board)[role]
    bench = board.bench
    bench.drive(number, pressed)
    bench.advance(board.pico.now + int(seconds * S))
    bench.drive(number, not pressed)
    bench.advance(board.pico.now + S // 2)


def test_a_board_on_a_charger_plays_from_its_buttons_and_keeps_the_game(nimatron):
    """No host ever reads a word of it: the visitor's presses play, the machine answers, the LED says
    it plays, and the laptop plugged in on Monday finds the game where the charger left it."""
    assert nimatron.script("machine nimatron openings=1,3,5,7\n") == []
    nimatron.pico.watch([LED])
    nimatron.pico.on_charger(True)
    start = nimatron.pico.now / 1e6
    nimatron.bench.advance(nimatron.pico.now + 2 * S)
    hold(nimatron, "row4", 0.1)
    hold(nimatron, "handover", 0.1)
    nimatron.bench.advance(nimatron.pico.now + 16 * S)
    assert blinking(nimatron, start) == 1000
    nimatron.pico.on_charger(False)
    nimatron.board.wait_restart(20)
    assert nimatron.board.hello["resumed"] == "saved"
    status = nimatron.board.ask("state")["status"]
    assert (status["rows"], status["turn"], status["fault"]) == ([0, 3, 5, 6], "player", None)


def test_a_board_held_on_a_charger_starts_afresh_when_staff_hold_new_game_down(nimatron):
    """A board held after resets in a row stays held through the charger's plug pulled and put back,
    its LED blinking fast and every lamp dark; a visitor's press does nothing, and New game held 3 s
    starts a game that plays from the buttons, with no laptop anywhere."""
    for _ in range(3):
        nimatron.board.link.serial.write(b"\x03")       # Ctrl-C: the firmware stops, the watchdog resets it
        nimatron.board.wait_restart(20)
    assert nimatron.board.hello["resumed"] == "held"
    nimatron.pico.watch([LED])
    nimatron.pico.on_charger(True)
    nimatron.bench.advance(nimatron.pico.now + 2 * S)
    assert blinking(nimatron, nimatron.pico.now / 1e6 - 2000) == 100
    resets = len(nimatron.pico.resets)
    hold(nimatron, "new_game", 1)
    assert len(nimatron.pico.resets) == resets, "a press of a second is a visitor's, not staff's"
    hold(nimatron, "new_game", 3.5)
    assert [cause for cause, *_ in nimatron.pico.resets[resets:]] == ["watchdog"]
    start = nimatron.pico.now / 1e6
    nimatron.bench.advance(nimatron.pico.now + 2 * S)
    hold(nimatron, "handover", 0.1)       # refused: the visitor has put out no lamp yet
    nimatron.bench.advance(nimatron.pico.now + 16 * S)
    assert blinking(nimatron, start) == 1000
    nimatron.pico.on_charger(False)
    nimatron.board.wait_restart(20)
    assert nimatron.board.hello["resumed"] in ("new", "saved")
    assert nimatron.board.ask("state")["status"]["fault"] is None
