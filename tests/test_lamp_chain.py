"""The Nimatron's lamp chain keeps its lamps dark until it has been cleared:
its 74HC595s' OE line (active low, pulled up to 3.3 V) is driven low only
after zeros have been shifted through the whole chain and latched.
On gpiozero's MockFactory pins."""

from conftest import ROOT
from controller.hardware.boards import Board
from controller.hardware.devices import LampPanel
from controller.hardware.pinmap import load_pinmap

DATA, CLOCK, LATCH, ENABLE = 10, 11, 8, 5


def levels(pin):
    return [state.state for state in pin.states]


def test_the_outputs_are_enabled_only_after_the_cleared_chain_is_latched(mock_factory):
    # The latch and OE record their edges in one list, so their order is the order on the wires.
    edges = []
    data = mock_factory.pin(DATA)
    latch, enable = mock_factory.pin(LATCH), mock_factory.pin(ENABLE)
    for name, pin in (("latch", latch), ("enable", enable)):
        original = pin._change_state

        def record(value, name=name, original=original, pin=pin):
            if pin.state != value:
                edges.append((name, value, bool(data.state)))
            return original(value)
        pin._change_state = record
    panel = LampPanel(DATA, CLOCK, LATCH, enable=ENABLE, registers=8, rows=4, lamps_per_row=7)
    assert edges[0] == ("enable", True, False), "OE is held high (lamps off) first"
    assert edges[-1] == ("enable", False, False), "then driven low (lamps on) last"
    assert ("latch", True, False) in edges[1:-1], "the chain was latched in between"
    assert panel.bits == [False] * 64
    assert not enable.state
    panel.close()


def test_without_an_enable_pin_the_chain_is_left_alone_until_the_service_writes(mock_factory):
    LampPanel(DATA, CLOCK, LATCH, registers=8, rows=4, lamps_per_row=7)
    assert levels(mock_factory.pin(LATCH)) == [False], "nothing latched at construction"


def test_the_nimatron_board_enables_its_lamps_once_cleared(mock_factory):
    pinmap = load_pinmap(ROOT / "hardware" / "nimatron" / "pinmap.toml")
    with Board(pinmap, post=lambda role, level: None) as board:
        assert not mock_factory.pin(pinmap.outputs["lamps"].pins["enable"]).state, "OE low: the lamps can light"
        board.apply(("row", 2, 3))
        assert board.outputs["lamps"].bits[7:10] == [True, True, True]
