"""The self-test's stages, in the order a builder wires the machine: what
lights, what moves, what is pressed, what falls.

    lamps       each lamp and the buzzer, one at a time: "is it lit?"
    indicators  each two-sided indicator (Dr. Nim's flip-flops, equalizer,
                turn) stepped left, then right
    lamp_chain  the Nimatron's 74HC595 chain walked, row by row, lamp by lamp
    inputs      each button pressed PRESSES times, the marble sensor's beam broken
                by hand as often and each switch moved there and back, echoed as
                it happens, raw edges against presses read; an input that reads
                active before anyone touches it (a stuck button, a blocked beam)
                fails at once
    release     the sensor at rest, then RELEASES marbles released and each
                one's fall from the release to the sensor timed

A stage whose part of the harness is not connected is skipped (asked at its
start, or named with --skip); so is any single check answered "s".
"""

from controller.core.exhibit import BUTTON, INDICATOR, LAMP, LAMP_ROWS, RELEASE, SENSOR, SOUND, SWITCH
from controller.hardware.pinmap import display_registers
from controller.selftest.bench import Stopped
from controller.selftest.release import BACK, SEEN_WITHIN_MS, beam_broken, sensor_role, time_marbles
from controller.selftest.report import FAIL, PASS, SKIP, where
from controller.service.config import release_open_ms

PRESSES = 3                # each button is pressed this many times
INPUT_WAIT_MS = 30000      # how long a button or switch is waited for
QUIET_MS = 1000            # after the last press: late bounces still counted
WALK_MS = 150              # each step of the lamp chain's walk
RELEASES = 3               # marbles released in the release stage
INPUT_KEYS = ("s", "skip", "n", "no", "stop")   # what ends the wait for an input (Enter does not)
RESULT = {"yes": PASS, "no": FAIL, "skip": SKIP}
READ = {BUTTON: "%d presses", SENSOR: "%d breaks of the beam"}    # a switch: "there and back"


def other(level):
    return {"low": "high", "high": "low"}[level]


def reversed_polarity(spec):
    """What to change when an output is on at the level its pin map calls off."""
    active = spec.active or "high"
    return "it is wired the other way round from %s.active = \"%s\" (%s): set active = \"%s\" in the pin map" % (
        spec.key, active, "an LED from 3.3 V to the pin, as a common-anode one is, is lit at low" if active == "high"
        else "an LED from the pin to GND is lit at high", other(active))


def sensor_polarity(spec):
    """A receiver at its active level at rest may simply be one of the other polarity."""
    return "or a receiver whose output is %s while the beam is broken (another sensor than the list's): set " \
           "%s.active = \"%s\"" % (other(spec.active), spec.key, other(spec.active))


def contact_side(spec):
    """Where a button or switch's other contact must go for its pin map's pull and level."""
    if spec.active == "low":
        return "its other contact goes to GND, as %s.active = \"low\" says (one wired to 3.3 V needs pull = " \
               "\"down\", active = \"high\")" % spec.key
    return "its other contact goes to 3.3 V, as %s.active = \"high\" says (one wired to GND needs pull = " \
           "\"up\", active = \"low\")" % spec.key


class Selftest:
    """One run: the bench, the checked configuration and pin map, the report."""

    def __init__(self, bench, config, pinmap, report, skip=()):
        self.bench = bench
        self.config = config
        self.pinmap = pinmap
        self.report = report
        self.skip = skip
        self.board = bench.board

    def stages(self):
        """The stages this machine has, as (name, what it checks, method)."""
        kinds = set(self.board.kinds.values())
        found = [("lamps", "each lamp and the buzzer, one at a time", self.lamps)]
        if INDICATOR in kinds:
            found.append(("indicators", "each indicator stepped left, then right", self.indicators))
        if LAMP_ROWS in kinds:
            found.append(("lamp_chain", "the lamp chain walked, row by row", self.lamp_chain))
        found.append(("inputs", "each button and switch, echoed as you use it", self.inputs))
        if RELEASE in kinds:
            found.append(("release", "the release pulsed, each marble timed to the sensor", self.release))
        return found

    def run(self):
        stages = self.stages()
        for number, (name, what, method) in enumerate(stages, 1):
            self.bench.say("")
            title = "Stage %d of %d, %s: %s." % (number, len(stages), name, what)
            if name in self.skip:
                self.bench.say(title + " Skipped (--skip).")
                self.report.skip_stage(name, "--skip")
            elif not self.bench.go_ahead(title + " Is that part of the harness connected?"):
                self.report.skip_stage(name, "not connected")
            else:
                method(name)
        self.board.safe()
        return self.report

    def label(self, role):
        return self.pinmap.outputs[role].label

    def answered(self, stage, check, answer, trouble):
        self.report.add(stage, check, RESULT[answer], trouble if answer == "no" else "")

    # --- the stages ------------------------------------------------------------------------
    def lamps(self, stage):
        for role, kind in self.board.kinds.items():
            if kind not in (LAMP, SOUND):
                continue
            spec = self.pinmap.outputs[role]
            device = self.board.outputs[role]
            device.on()
            answer = self.bench.ask("%s. %s" % (spec.label, "Do you hear it?" if kind == SOUND else "Is it lit?"),
                                    ("on", role))
            device.off()
            if answer == "no" and self.bench.ask("%s. And now, switched off: %s" % (
                    spec.label, "do you hear it?" if kind == SOUND else "is it lit?"), ("on", role)) == "yes":
                self.report.add(stage, role, FAIL, "on when switched off, off when on: %s" % reversed_polarity(spec))
                continue
            self.answered(stage, role, answer, "not %s with %s driven %s: check its polarity, its resistor and "
                          "its wires" % ("sounding" if kind == SOUND else "lit", where(spec.pins.values()),
                                         spec.active or "high"))

    def indicators(self, stage):
        for role, kind in self.board.kinds.items():
            if kind != INDICATOR:
                continue
            spec = self.pinmap.outputs[role]
            device = self.board.outputs[role]
            answers = []
            for side in ("left", "right"):
                device.show(side)
                shown = ("the %s LED lit, the other dark" if spec.kind == "led_pair" else "its flipper to the %s") % side
                answers.append((side, self.bench.ask("%s. Does it point %s (%s)?" % (spec.label, side, shown),
                                                     ("side", role, side))))
            device.off()
            wrong = [side for side, answer in answers if answer == "no"]
            if len(wrong) == 2 and spec.kind == "led_pair" and self.bench.ask(
                    "%s. And now, switched off: are both its LEDs dark?" % spec.label, ("off", role)) == "no":
                self.report.add(stage, role, FAIL, "wrong both ways, and lit when switched off: %s"
                                % reversed_polarity(spec))
            elif wrong:
                self.report.add(stage, role, FAIL, "wrong when told %s: check %s" % (
                    " and ".join(wrong), where(spec.pins[side] for side in wrong) if spec.kind == "led_pair"
                    else where(spec.pins.values())))
            elif all(answer == "skip" for _, answer in answers):
                self.report.add(stage, role, SKIP)
            else:
                self.report.add(stage, role, PASS)

    def lamp_chain(self, stage):
        role = next(role for role, kind in self.board.kinds.items() if kind == LAMP_ROWS)
        panel = self.board.outputs[role]
        panel.off()
        lamps = self.pinmap.lamps_per_row
        chips = 8 * display_registers(self.pinmap.rows, lamps)
        for row in range(1, self.pinmap.rows + 1):
            for lit in range(1, lamps + 1):
                panel.show_row(row, lit)
                self.bench.wait(WALK_MS)
            answer = self.bench.ask("Did the lamps of row %d light one by one, 1 to %d, on both displays?"
                                    % (row, lamps), ("row", row))
            panel.show_row(row, 0)
            first, last = (row - 1) * lamps, row * lamps - 1
            self.answered(stage, "row %d" % row, answer, "check the 74HC595 outputs %d-%d (console) and %d-%d "
                          "(spectators), their ULN2803 channels and the lamps' 5 V supply"
                          % (first, last, first + chips, last + chips))
        panel.off()
        answer = self.bench.ask("Are all the lamps dark now?", ("dark",))
        spec = self.pinmap.outputs[role]
        self.answered(stage, "all dark", answer, "the chain did not clear: check its %s" % ", ".join(
            "%s line, %s" % (name, where([spec.pins[name]])) for name in ("latch", "clock", "enable")
            if name in spec.pins))

    def inputs(self, stage):
        self.bench.inputs.listener = self.echo
        try:
            for role, spec in self.board.inputs.items():
                if spec.kind == BUTTON:
                    self.input(stage, role, PRESSES, "Press %s %d times." % (self.pinmap.inputs[role].label, PRESSES))
                elif spec.kind == SENSOR:
                    self.input(stage, role, PRESSES, "Break the beam of %s %d times (a finger through it will do)."
                               % (self.pinmap.inputs[role].label, PRESSES))
                elif spec.kind == SWITCH:
                    self.input(stage, role, 1, "Move %s to its other side and back." % self.pinmap.inputs[role].label)
        finally:
            self.bench.inputs.listener = None

    def echo(self, role, level, at):
        watch = self.bench.inputs[role]
        spec = self.board.inputs[role]
        if spec.kind == BUTTON:
            what = "pressed (%d)" % watch.presses if level else "let go"
        elif spec.kind == SENSOR:
            what = "beam broken (%d)" % watch.presses if level else "beam whole"
        else:
            what = ("" if level else "not ") + spec.means
        self.bench.say("  %s: %s   [%d raw edge%s]" % (role, what, watch.raw, "" if watch.raw == 1 else "s"))

    def input(self, stage, role, times, text):
        """Ask for `times` presses (a switch: there and back) and judge what was read."""
        watch = self.bench.inputs[role]
        spec = self.pinmap.inputs[role]
        self.bench.inputs.clear()
        rest = watch.level
        if rest and self.board.inputs[role].kind != SWITCH:
            self.report.add(stage, role, FAIL, "%s before anyone touches it: %s" % (
                ("reads its beam broken", "nothing in the beam? check the emitter's power, the alignment and the "
                 "pull-up on %s; %s" % (where([spec.pin]), sensor_polarity(spec)))
                if self.board.inputs[role].kind == SENSOR else
                ("reads pressed", "a button stuck down, or its wire touching %s: check %s"
                 % ("3.3 V" if spec.active_high else "ground", where([spec.pin])))))
            return
        self.bench.act(text, role, 2 * times)
        key = self.bench.wait(INPUT_WAIT_MS, done=lambda: len(watch.changes) >= 2 * times and watch.level == rest,
                               keys=INPUT_KEYS)
        if key == "stop":
            raise Stopped()
        if key in ("s", "skip"):
            self.report.add(stage, role, SKIP)
            return
        self.quiet()
        others = [other for other, w in self.bench.inputs.watches.items() if other != role and w.changes]
        read = len(watch.changes) // 2
        bounces = watch.raw - len(watch.changes)
        also = "; %s changed too (swapped wires?)" % ", ".join(others) if others else ""
        wired = "" if self.board.inputs[role].kind == SENSOR else "; " + contact_side(spec)
        if key in ("n", "no") and not watch.raw:
            self.report.add(stage, role, FAIL, "it does nothing: check %s and its ground%s%s"
                            % (where([spec.pin]), wired, also))
        elif watch.raw == 0:
            self.report.add(stage, role, FAIL, "nothing seen on %s in %d s: check the wire and its ground%s%s"
                            % (where([spec.pin]), INPUT_WAIT_MS // 1000, wired, also))
        elif read > times:
            self.report.add(stage, role, FAIL, "read %d times for %d: its contact bounces longer than its "
                            "debounce_ms %s (pin map %s): raise it%s" % (read, times, spec.debounce_ms, spec.key, also))
        elif read < times:
            self.report.add(stage, role, FAIL, "read %d times for %d, from %d raw edges: a loose contact?%s"
                            % (read, times, watch.raw, also))
        else:
            kind = self.board.inputs[role].kind
            self.report.add(stage, role, PASS, "%s read from %d raw edges (%d bounce%s taken out by debounce_ms "
                            "%s)%s" % (READ[kind] % read if kind in READ else "there and back", watch.raw, bounces,
                                       "" if bounces == 1 else "s", spec.debounce_ms, also))

    def quiet(self):
        """Wait until the inputs have been still for QUIET_MS: a late bounce,
        or a press the debouncer read twice, is counted before the verdict."""
        edges = None
        waited = 0
        while edges != self.raw_edges() and waited < INPUT_WAIT_MS:
            edges = self.raw_edges()
            self.bench.wait(QUIET_MS)
            waited += QUIET_MS

    def raw_edges(self):
        return sum(watch.raw for watch in self.bench.inputs.watches.values())

    def release(self, stage):
        broken = beam_broken(self.bench, self.pinmap)
        if broken:
            self.report.add(stage, "sensor at rest", FAIL, broken + ": check the emitter's power, the alignment and "
                            "the pull-up; " + sensor_polarity(self.pinmap.inputs[sensor_role(self.board)]))
            self.report.add(stage, "marbles timed", SKIP, "the sensor cannot see marbles")
            return
        self.report.add(stage, "sensor at rest", PASS, "the beam is whole")
        if not self.bench.go_ahead("Put at least %d marbles on the rail; they will be released one by one."
                                   % RELEASES):
            self.report.add(stage, "marbles timed", SKIP, "no marbles")
            return
        times = time_marbles(self.bench, release_open_ms(self.config, self.pinmap), RELEASES, self.timed)
        self.bench.say(BACK % RELEASES)
        self.report.figures["release_to_sensor_ms"] = times
        lost = [str(number) for number, ms in enumerate(times, 1) if ms is None]
        if lost:
            sensor = self.pinmap.inputs[sensor_role(self.board)]
            self.report.add(stage, "marbles timed", FAIL, "marble %s not seen within %d ms of its release: a jam in "
                            "the chute, a release that does not open (%s), or a sensor that misses the marble "
                            "(%s; the inputs stage breaks its beam by hand)"
                            % (", ".join(lost), SEEN_WITHIN_MS, where(self.pinmap.outputs["release"].pins.values()),
                               where([sensor.pin])))
        else:
            self.report.add(stage, "marbles timed", PASS, "%s ms; `controller calibrate` sets the timeout and the "
                            "pace from such times" % ", ".join(str(ms) for ms in times))

    def timed(self, number, ms):
        self.bench.say("  marble %d: %s" % (number, "%d ms from the release to the sensor" % ms if ms is not None
                                            else "not seen within %d ms" % SEEN_WITHIN_MS))
