"""How long the release stays open per marble, one rule for the Pi service
and the Pico firmware: a solenoid for its pulse, at most
SOLENOID_PULSE_MAX_MS (a coil held on heats up); a servo gate for its travel
(its angle at its datasheet speed) plus SERVO_SETTLE_MS, or for a time given,
never shorter than the travel (told to close before it opened, it jams)."""

SOLENOID_PULSE_MAX_MS = 500
SERVO_SETTLE_MS = 100


def open_ms(spec, pulse_ms, servo_open_ms=0):
    """The open time of the release `spec` (None: no release wired)."""
    if spec is None or spec.kind != "servo":
        return pulse_ms
    return servo_open_ms or spec.travel_ms() + SERVO_SETTLE_MS


def timing_problem(spec, pulse_ms, servo_open_ms=0):
    """(the setting at fault: "release_pulse_ms" or "servo_open_ms", why), or
    None when the release can open and close as told."""
    if spec is None:
        return None
    if spec.kind == "solenoid" and pulse_ms > SOLENOID_PULSE_MAX_MS:
        return ("release_pulse_ms", "%d, but the release is a solenoid (%s): at most %d ms, or the coil heats up"
                % (pulse_ms, spec.key, SOLENOID_PULSE_MAX_MS))
    if spec.kind == "servo" and 0 < servo_open_ms < spec.travel_ms():
        o = spec.options
        return ("servo_open_ms", "%d ms, but the servo gate (%s) needs %d ms to swing from %s° to %s° (%s s per "
                "60°): it would be told to close before it opened; use at least %d (or 0: its travel plus %d ms)"
                % (servo_open_ms, spec.key, spec.travel_ms(), o["closed_angle"], o["open_angle"],
                   o["seconds_per_60"], spec.travel_ms(), SERVO_SETTLE_MS))
    return None
