"""One marble released and timed from the release opening to the gate
sensor seeing it: the self-test's release stage and the calibration both
time marbles this way, through the board and the sensor's own debouncing
(its pulse filter too), so the figure is the one the game lives with."""

from controller.core.exhibit import SENSOR
from controller.selftest.report import where

# After the beam is broken, how long to wait for it to be whole again.
BEAM_CLEAR_MS = 1000
# Between two marbles, so that the rail's next one has rolled into the gate.
SETTLE_MS = 300
# A released marble not seen by then is lost.
SEEN_WITHIN_MS = 5000
# Said once the marbles are out: the service's saved game never heard of them, and counts them on the rail.
BACK = "Put the %d marbles back on the rail (free any stuck in the chute): the service's game counts them as still there."


def sensor_role(board):
    for role, spec in board.inputs.items():
        if spec.kind == SENSOR:
            return role
    return None


def beam_broken(bench, pinmap):
    """What is wrong, naming the sensor's pin, when its beam reads broken with
    no marble released; None when it is whole."""
    sensor = sensor_role(bench.board)
    if not bench.inputs[sensor].level:
        return None
    return "the beam reads broken with no marble on %s" % where([pinmap.inputs[sensor].pin])


def time_marbles(bench, opened, count, heard):
    """Release `count` marbles one by one, the release open `opened` ms, and
    time each (release_one); `heard(number, ms)` after each, ms None for a
    marble not seen within SEEN_WITHIN_MS (it may raise, to stop). The times."""
    times = []
    for number in range(1, count + 1):
        ms = release_one(bench, opened, SEEN_WITHIN_MS)
        heard(number, ms)
        times.append(ms)
    return times


def release_one(bench, open_ms, within_ms):
    """Open the release for `open_ms`, then wait up to `within_ms` (from the
    opening) for the sensor: the milliseconds from the opening to the beam
    broken, or None when no marble came."""
    sensor = bench.inputs[sensor_role(bench.board)]
    seen = len(sensor.changes)

    def arrival():
        for level, at in sensor.changes[seen:]:
            if level:
                return at
        return None
    start = bench.now()
    bench.board.apply(("release",))
    bench.wait(open_ms)
    bench.board.shut_release()
    bench.wait(max(0, start + within_ms - bench.now()), done=lambda: arrival() is not None)
    at = arrival()
    if at is None:
        return None
    bench.wait(BEAM_CLEAR_MS, done=lambda: not sensor.level)
    bench.wait(SETTLE_MS)
    return at - start
