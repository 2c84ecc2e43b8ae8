"""The inputs' debouncing and the marble sensor's pulse filter (core code,
clock-injected: the service, the simulator and the firmware run this one)."""

from controller.core.debounce import BUTTON_MIN_PULSE_MS, MIN_PULSE_MS, Debouncer


def sensor():
    return Debouncer(2, False, MIN_PULSE_MS)


def test_a_spike_of_microseconds_is_not_a_marble():
    filter_ = sensor()
    assert filter_.edge(True, 1000) is None
    assert filter_.edge(False, 1000) is None
    assert filter_.due() is None, "nothing left to read again"
    assert filter_.level is False


def test_a_pulse_just_under_the_minimum_is_ignored_and_one_at_it_counts():
    filter_ = sensor()
    filter_.edge(True, 0)
    assert filter_.edge(False, MIN_PULSE_MS - 1) is None and filter_.level is False
    filter_.edge(True, 100)
    assert filter_.due() == 100 + MIN_PULSE_MS
    assert filter_.recheck(True, 100 + MIN_PULSE_MS) is True


def test_a_marble_counts_even_when_its_edges_are_read_late():
    """The controller thread may be busy: the edges carry their own times, so a
    marble that broke the beam for 12 ms counts, however late it is read."""
    filter_ = sensor()
    filter_.edge(True, 0)
    assert filter_.edge(False, 12) is True, "held 12 ms before the beam came back"
    assert filter_.due() == MIN_PULSE_MS + 2
    assert filter_.recheck(False, 40) is None, "the beam's return waits out the filter too"
    assert filter_.recheck(False, filter_.due()) is False
    assert filter_.due() is not None and filter_.recheck(False, 100) is None


def test_a_spike_while_the_beam_is_broken_does_not_end_the_marble():
    filter_ = sensor()
    filter_.edge(True, 0)
    filter_.recheck(True, MIN_PULSE_MS)
    filter_.recheck(True, 10)
    assert filter_.edge(False, 11) is None
    assert filter_.edge(True, 11) is None
    assert filter_.level is True and filter_.due() is None


def test_buttons_are_accepted_at_once_then_locked():
    button = Debouncer(20, False)
    assert button.edge(True, 0) is True
    assert button.edge(False, 5) is None and button.edge(True, 6) is None
    assert button.recheck(False, 20) is False, "a tap shorter than the lock is not lost"


def test_reset_forgets_what_was_under_way():
    filter_ = sensor()
    filter_.edge(True, 0)
    filter_.reset(False)
    assert filter_.due() is None and filter_.recheck(True, 50) is None


def test_a_spike_on_a_button_is_not_a_press_and_a_press_counts_a_millisecond_later():
    button = Debouncer(20, False, BUTTON_MIN_PULSE_MS)
    assert button.edge(True, 100) is None and button.edge(False, 100) is None
    assert button.level is False and button.due() is None
    assert button.edge(True, 200) is None
    assert button.due() == 200 + BUTTON_MIN_PULSE_MS and button.recheck(True, button.due()) is True
    assert button.edge(False, 230) is None and button.recheck(False, 231) is False, "released after the lock"
