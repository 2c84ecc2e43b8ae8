"""The firmware's own tests, run under the real `micropython` on the fake
`machine` module (tests/test_firmware.py runs them and checks the last line,
`N passed, N failed`). Each test drives pins as the world would and looks at
what a visitor or a technician would see: lamps, the release, the saved game,
the lines sent to the host.

Usage: MICROPYPATH=.frozen:CONFIG:firmware/emulator:firmware:REPO micropython units.py SCRATCH_FOLDER
(CONFIG holds a generated development-mode board_config.py for Dr. Nim).
"""

import sys
import time

import machine
from machine import PINS

import board_config as config
import flash
from drivers import Buzzer, Inputs
from marble_sensor import MarbleSensor
from lamp_chain import LampRows
from marble_release import Release
from host_clock import HostClockRunner
from runner import Lines
from world import World

from controller.core.jsontext import encode
from controller.core.protocol import decode, load

SCRATCH = sys.argv[1]


class Sent:
    """What the firmware writes, kept a line at a time, as a console with room
    for everything (app.Console's `write`, `room` and `dropped`); `fail_on`:
    raise OSError once at the end of the first line holding that text (a
    serial port that fails); `no_memory_at`: raise MemoryError once instead of
    writing the first text holding that text."""
    dropped = 0
    keep = True         # False: lines written and forgotten (days of attract lamps)

    def __init__(self, fail_on=None, no_memory_at=None):
        self.lines = []
        self.piece = []
        self.fail_on = fail_on
        self.no_memory_at = no_memory_at

    def room(self):
        return True

    def write(self, text):
        if self.no_memory_at is not None and self.no_memory_at in text:
            self.no_memory_at = None
            raise MemoryError("memory allocation failed")
        if text != "\n":
            self.piece.append(text)
            return
        line = "".join(self.piece)
        self.piece = []
        if self.keep:
            self.lines.append(line)
        if self.fail_on and self.fail_on in line:
            self.fail_on = None
            raise OSError(5)


class Board:
    """A runner on fresh fake pins, on the host's clock, with its lines kept."""

    def __init__(self, name="game.json", world=True):
        machine.reset_pins()
        self.out = Sent()
        self.sent = self.out.lines
        self.path = SCRATCH + "/" + name
        self.runner = HostClockRunner(config, self.out.write, self.path)
        if world:
            self.runner.world = World(config, lambda: self.runner.now, machine.WorldPins())

    def start(self, now=0):
        self.runner.start(now)
        return self

    def pin(self, role):
        for spec in config.INPUTS + (config.SENSOR,):
            if spec[0] == role:
                return PINS[spec[1]]
        for spec in config.OUTPUTS:
            if spec[0] == role:
                return [PINS[n] for n in spec[2]]

    def lines(self, kind):
        return [decode(text) for text in self.sent if ('"kind":"%s"' % kind) in text]

    def ask(self, message):
        before = len(self.sent)
        self.runner.line(encode(message).encode())
        return [decode(text) for text in self.sent[before:]]


def held_clock():
    """The board's ticks_ms held still for a test that names its own times: each edge counts at
    the time of the poll after it. (Read from the real clock, a millisecond could pass between a
    pin driven and the poll, on a busy machine, and the edge count a millisecond early.)"""
    return 0


class Flag:
    def __init__(self):
        self.times = 0

    def set(self):
        self.times += 1


def remove(path):
    kept = path[:-5] + "-settings.json"     # the settings a host gave, beside the saved game
    for name in (path, path + ".new", path + ".bad", kept, kept + ".bad"):
        try:
            import os
            os.remove(name)
        except OSError:
            pass


# --- drivers -----------------------------------------------------------------------
def test_a_bouncing_press_is_one_press_and_its_release_one_release():
    machine.reset_pins()
    seen = []
    inputs = Inputs([("trigger", 2, "up", False, 20, 0)], {"trigger": (("press", "trigger"), ("release", "trigger"))},
                    Flag().set, held_clock, time.ticks_diff)
    pin = PINS[2]
    for now, level in ((1000, 0), (1002, 1), (1004, 0), (1010, 1), (1012, 0)):
        pin.drive(level)
        inputs.poll(now, lambda event, at: seen.append((event, at)))
    assert seen == [(("press", "trigger"), 1000)], seen
    inputs.poll(1020, lambda event, at: seen.append((event, at)))     # the lock ends: still pressed
    pin.drive(1)
    inputs.poll(1030, lambda event, at: seen.append((event, at)))
    assert seen[1:] == [(("release", "trigger"), 1030)], seen


def test_a_tap_shorter_than_the_lock_is_not_lost():
    machine.reset_pins()
    seen = []
    inputs = Inputs([("new_game", 5, "up", False, 20, 0)], {"new_game": (("press", "new_game"), ("release", "new_game"))},
                    Flag().set, held_clock, time.ticks_diff)
    PINS[5].drive(0)
    inputs.poll(100, lambda event, at: seen.append(event))
    PINS[5].drive(1)
    assert inputs.next_due() == 120
    inputs.poll(120, lambda event, at: seen.append(event))
    assert seen == [("press", "new_game"), ("release", "new_game")], seen


def test_a_press_counts_once_it_passes_the_pulse_filter_not_when_the_finger_lifts():
    """A held button (1 ms pulse filter, as shipped): the loop is due again when the
    press has held 1 ms, and the press counts then, with the button still down."""
    machine.reset_pins()
    seen = []
    inputs = Inputs([("trigger", 2, "up", False, 20, 1)], {"trigger": (("press", "trigger"), ("release", "trigger"))},
                    Flag().set, held_clock, time.ticks_diff)
    PINS[2].drive(0)
    inputs.poll(100, lambda event, at: seen.append((event, at)))
    assert inputs.next_due() == 101, inputs.next_due()
    inputs.poll(101, lambda event, at: seen.append((event, at)))
    assert seen == [(("press", "trigger"), 101)], seen


def test_presses_made_while_the_loop_was_held_are_each_counted():
    """Two presses and their bounces while the loop is held for half a second (a save's
    erase, a write to a host that reads nothing): the interrupt kept every edge, and
    the loop counts both presses when it looks again."""
    machine.reset_pins()
    clock = [0]
    seen = []
    inputs = Inputs([("trigger", 2, "up", False, 20, 1)], {"trigger": (("press", "trigger"), ("release", "trigger"))},
                    Flag().set, lambda: clock[0], lambda a, b: a - b)
    inputs.poll(0, lambda event, at: seen.append(event))
    for at, level in ((100, 0), (101, 1), (102, 0), (200, 1), (300, 0), (400, 1), (401, 0), (402, 1)):
        clock[0] = at
        PINS[2].drive(level)
    clock[0] = 500
    inputs.poll(500, lambda event, at: seen.append(event))
    assert seen == [("press", "trigger"), ("release", "trigger")] * 2, seen


def test_the_sensor_counts_each_marble_once_in_its_interrupt_and_no_spike():
    machine.reset_pins()
    flag = Flag()
    clock = [0]
    sensor = MarbleSensor(("marble_sensor", 6, "up", False, 2, 2), flag.set, lambda: clock[0], lambda a, b: a - b)
    pin = PINS[6]
    # (broken at, clear at): a marble, its bounce 1 ms later, a spike (both edges in one ms), two marbles
    for broken, clear in ((10, 22), (23, 24), (100, 100), (300, 312), (400, 415)):
        clock[0] = broken
        pin.drive(0)
        clock[0] = clear
        pin.drive(1)
    assert sensor.take() == 3
    assert sensor.take() == 0 and flag.times == 3


def test_the_sensor_counts_in_a_hard_interrupt_that_allocates_nothing():
    machine.reset_pins()
    clock = [0]
    sensor = MarbleSensor(("marble_sensor", 6, "up", False, 2, 2), Flag().set, lambda: clock[0], lambda a, b: a - b)
    assert PINS[6].hard     # the fake runs a hard handler with the heap locked: allocating would fail
    for broken, clear in ((10, 22), (300, 312)):
        clock[0] = broken
        PINS[6].drive(0)
        clock[0] = clear
        PINS[6].drive(1)
    assert sensor.take() == 2


def test_where_a_port_has_no_hard_pin_interrupts_the_sensor_counts_in_a_soft_one():
    import drivers

    class SoftPin(machine.Pin):
        def irq(self, handler=None, trigger=machine.Pin.IRQ_FALLING | machine.Pin.IRQ_RISING):
            return machine.Pin.irq(self, handler, trigger)

    machine.reset_pins()
    clock = [0]
    drivers.Pin = SoftPin
    try:
        sensor = MarbleSensor(("marble_sensor", 6, "up", False, 2, 2), Flag().set, lambda: clock[0], lambda a, b: a - b)
    finally:
        drivers.Pin = machine.Pin
    assert not PINS[6].hard
    clock[0] = 10
    PINS[6].drive(0)
    clock[0] = 22
    PINS[6].drive(1)
    assert sensor.take() == 1


def drop(board):
    """A marble dropped past the gate by hand: it passes the beam whole."""
    board.runner.world.configure({"drop": True})
    board.runner.advance(50)


def test_the_sensor_counts_a_marble_after_days_without_one():
    """A board's ticks_ms wraps at 2**30 ms and ticks_diff is right only within 2**29 (6.2
    days): a sensor that kept its last marble's time took, a week later, every marble for
    a bounce of it, and the game faulted "jam" (the emulated board's ticks wrap as a board's)."""
    for days in (1, 7, 10, 13):
        remove(SCRATCH + "/idle.json")
        board = Board("idle.json").start()
        board.ask({"kind": "new_game", "settings": {}})
        drop(board)
        board.out.keep = False         # days of attract lamps: not kept
        board.runner.advance(days * 86400000)      # longer than an advance line may ask
        board.out.keep = True
        drop(board)
        machine_ = board.runner.machine
        assert (machine_.rail, machine_.fault) == (13, None), (days, machine_.rail, machine_.fault)


def test_a_pace_that_would_trip_the_coils_ptc_is_refused_and_nothing_of_it_saved():
    """The Pi and the simulator refuse a Dr. Nim pace_ms whose coil pulses its PTC cannot hold (the shipped map's
    60 ms pulse: under 824 ms); a board took new_game {"pace_ms": 600} from a host and played it until the PTC
    tripped and the release stayed dead (found by the settings review)."""
    assert config.SHORTEST_PACE_MS == 824, config.SHORTEST_PACE_MS
    remove(SCRATCH + "/pace.json")
    board = Board("pace.json").start()
    replies = board.ask({"kind": "new_game", "id": 4, "settings": {"pace_ms": 823}})
    assert [(reply["kind"], reply.get("id")) for reply in replies] == [("error", 4)], replies
    assert "pace_ms: 823, but the coil's PTC trips at a pace under 824 ms" in replies[0]["error"], replies
    assert board.runner.machine.config["pace_ms"] == 900
    replies = board.ask({"kind": "new_game", "id": 5, "settings": {"pace_ms": 824}})
    assert replies[-1] == {"kind": "ok", "asked": "new_game", "id": 5}, replies
    assert board.runner.machine.config["pace_ms"] == 824
    # a game saved with a shorter pace (by a build that took it) is not resumed at that pace after an update
    with open(SCRATCH + "/pace.json") as f:
        saved = load(f.read())
    assert saved["config"]["pace_ms"] == 824, saved
    saved["config"]["pace_ms"] = 600
    with open(SCRATCH + "/pace.json", "w") as f:
        f.write(encode(saved))
    board = Board("pace.json").start()
    # held in check with the board's settings: the ones the host gave last, kept
    assert board.runner.machine.fault == "check" and board.runner.machine.config["pace_ms"] == 824


def test_a_board_that_moves_its_clock_back_plays_on_as_if_it_had_not():
    """A board's clock would pass 2**30 ms, a long int on a 32-bit port, after 12.4 days
    (app.py moves it back 2**28 ms at a quiet moment past 2**29): every timer moves with
    it, and the game plays on as on a board that kept its clock."""
    import app
    played = []
    for shift in (0, -app.CLOCK_SHIFT):
        remove(SCRATCH + "/clock.json")
        board = Board("clock.json").start()
        board.out.keep = False
        board.runner.advance(7 * 86400000)         # longer than an advance line may ask
        board.out.keep = True
        board.ask({"kind": "new_game", "settings": {"marbles": 7, "capacity": 7, "equalizer": False}})
        board.ask({"kind": "advance", "ms": 1000})
        assert board.runner.now > app.CLOCK_LIMIT and board.runner.quiet()
        board.runner.move_clock(shift)
        start = len(board.sent)
        board.ask({"kind": "advance", "ms": 125000})        # idle: the attract lamps come on time
        attract = board.runner.machine.attract
        while board.runner.machine.mode == "play":
            board.ask({"kind": "inject", "event": ["press", "trigger"]})
            board.ask({"kind": "advance", "ms": 600000, "settle": True})
            board.ask({"kind": "inject", "event": ["switch", "turn", "machine"]})
            board.ask({"kind": "inject", "event": ["press", "trigger"]})
            board.ask({"kind": "advance", "ms": 600000, "settle": True})
        lines = [decode(text) for text in board.sent[start:] if '"at":' in text]
        played.append((attract, [line["command"] for line in lines if line["kind"] == "command"],
                       [line["at"] - lines[0]["at"] for line in lines], board.runner.machine.turns))
    assert played[0] == played[1] and played[0][0]


def test_a_marble_that_passes_while_the_flash_is_written_counts_and_a_spike_does_not():
    machine.reset_pins()
    clock = [0]
    sensor = MarbleSensor(("marble_sensor", 6, "up", False, 2, 2), Flag().set, lambda: clock[0], lambda a, b: a - b)
    pin = PINS[6]

    def unseen(writing, broken_at, clear_at, back_at):
        """The beam broken and clear again while interrupts are held, by a flash write or not."""
        sensor.flash_writing = writing
        state = machine.disable_irq()
        clock[0] = broken_at
        pin.drive(0)
        clock[0] = clear_at
        pin.drive(1)
        clock[0] = back_at
        machine.enable_irq(state)
        sensor.flash_writing = False

    unseen(True, 100, 115, 160)      # a write holds interrupts for tens of ms: a whole marble went by
    assert sensor.take() == 1
    unseen(False, 300, 300, 300)     # both edges before the interrupt could run, and no write: a spike
    assert sensor.take() == 0
    clock[0] = 400                   # a marble whose end falls in a write: counted when interrupts come back
    pin.drive(0)
    state = machine.disable_irq()
    sensor.flash_writing = True
    clock[0] = 412
    pin.drive(1)
    clock[0] = 450
    machine.enable_irq(state)
    sensor.flash_writing = False
    assert sensor.take() == 1


def test_the_solenoid_opens_for_its_pulse_and_the_servo_gate_moves_between_its_angles():
    machine.reset_pins()
    release = Release("solenoid", (7,), True, None, 60, Flag().set)
    release.carry_out(1000)
    assert PINS[7].value() == 1 and release.due_at == 1060
    release.due(1059)
    assert PINS[7].value() == 1
    release.due(1060)
    assert PINS[7].value() == 0 and release.due_at is None
    gate = Release("servo", (8,), None, (4915, 6007), 60, Flag().set)
    assert PINS[8].pwm.duty_u16() == 4915
    gate.carry_out(0)
    assert PINS[8].pwm.duty_u16() == 6007
    gate.safe()
    assert PINS[8].pwm.duty_u16() == 4915


class Interrupted(Release):
    """A release whose timer's interrupt lands right after the loop first reads when it is due
    (on a Pico about once in 300 releases: the loop wakes in whole milliseconds, the timer does not)."""
    armed = False

    @property
    def due_at(self):
        at = self.at
        if self.armed and at is not None:
            self.armed = False
            self.timed_out(self.timer)
        return at

    @due_at.setter
    def due_at(self, value):
        self.at = value


def test_a_release_shut_by_its_timer_while_the_loop_looks_is_shut_once_and_nothing_raises():
    """The loop read the release's due time twice, and the timer shut it in between: a TypeError
    (int >= None), and the board reset, holding in "check" with the marble under way."""
    machine.reset_pins()
    woken = Flag()
    release = Interrupted("solenoid", (7,), True, None, 60, woken.set)
    release.carry_out(1000)
    release.armed = True
    release.due(1060)
    assert PINS[7].value() == 0 and release.due_at is None and woken.times == 1
    release.carry_out(2000)
    release.armed = True
    release.shift(-500)
    release.due(1560)
    assert PINS[7].value() == 0 and release.due_at is None


def test_the_buzzer_plays_only_the_cues_its_sound_setting_keeps():
    machine.reset_pins()
    heard = {}
    for name, cues in (("all", None), ("faults", ("fault",)), ("none", ())):
        buzzer = Buzzer("buzzer", (26,), True, cues)
        heard[name] = []
        for cue in ("new_game", "win", "fault"):
            buzzer.carry_out(0, cue)
            if PINS[26].value():
                heard[name].append(cue)
            buzzer.off()
    assert heard == {"all": ["new_game", "win", "fault"], "faults": ["fault"], "none": []}, heard


def test_the_lamp_chain_lights_both_displays():
    machine.reset_pins()
    rows = LampRows("shift_register", (19, 18, 17), None, (8, 4, 7, 32))
    shifted = []
    PINS[18].watch = lambda pin, level: level and shifted.append(PINS[19].value())
    latched = []
    PINS[17].watch = lambda pin, level: level and latched.append(list(shifted))
    rows.carry_out(0, 2, 3)
    outputs = list(reversed(latched[-1]))        # output 0 is shifted last
    lit = [i for i in range(64) if outputs[i]]
    assert lit == [7, 8, 9, 39, 40, 41], lit
    rows.off()
    assert len(latched[-1]) == 128 and not any(latched[-1][64:])


def test_the_lamp_chain_is_written_again_every_two_seconds():
    """The spectators' chips, on the lamps' own supply, wake with random lamps when it comes after the
    board's: they stayed lit until a row changed. The chain is written again, as it is, every 2 s; not
    once the board has put its outputs off."""
    machine.reset_pins()
    rows = LampRows("shift_register", (19, 18, 17), None, (8, 4, 7, 32))
    shifted = []
    PINS[18].watch = lambda pin, level: level and shifted.append(PINS[19].value())
    latched = []
    PINS[17].watch = lambda pin, level: level and latched.append(list(shifted[-64:]))
    rows.carry_out(1000, 1, 3)
    rows.due(2999)
    assert len(latched) == 1
    rows.due(3000)
    assert len(latched) == 2 and latched[1] == latched[0] and any(latched[1])
    assert rows.due_at == 5000
    rows.off()
    rows.due(9000)
    assert len(latched) == 3 and not any(latched[2]) and rows.due_at is None


def test_the_lamp_chain_stays_dark_until_it_is_cleared():
    """The 74HC595s wake with random outputs: their OE (GP16 here, active low,
    pulled up) goes low only after a chain of zeros has been latched."""
    machine.reset_pins()
    Pin = machine.Pin
    log = []
    plain = Pin.value

    def value(pin, level=None):
        if level is not None and pin.id in (16, 17) and (1 if level else 0) != pin.level:
            log.append((pin.id, 1 if level else 0))
        return plain(pin, level)

    Pin.value = value
    try:
        rows = LampRows("shift_register", (19, 18, 17, 16), None, (8, 4, 7, 32))
    finally:
        Pin.value = plain
    assert PINS[16].value() == 0, "the chips' outputs were never switched on"
    assert log.index((16, 0)) > log.index((17, 1)), log
    assert not any(rows.bits)
    rows.carry_out(0, 1, 2)
    assert PINS[16].value() == 0


def test_every_output_goes_safe_with_the_release_shut():
    board = Board("safe.json").start()
    outputs = board.runner.outputs
    outputs.apply(("release",), 0)
    outputs.apply(("lamp", "fault", "blink"), 0)
    outputs.apply(("flip_flop", 1, "left"), 0)
    assert board.pin("release")[0].value() == 1
    outputs.safe()
    for role, kind, pins, active_high, options in config.OUTPUTS:
        for number in pins:
            assert PINS[number].value() == 0, role
    assert outputs.next_due() is None


# --- the runner --------------------------------------------------------------------
def test_the_game_is_saved_after_each_counted_marble_and_a_reset_resumes_it():
    remove(SCRATCH + "/resume.json")
    board = Board("resume.json").start()
    board.runner.step(999)
    board.pin("trigger").drive(0)   # pressed at 999: past the buttons' pulse filter, the press counts at 1000
    board.runner.step(1000)
    board.ask({"kind": "advance", "ms": 600000, "settle": True})
    saved = load(flash.read(board.path))
    assert saved["state"]["taken"] == 1 and not saved["state"]["in_flight"]
    again = Board("resume.json").start(5)
    assert again.lines("hello")[0]["resumed"] == "saved"
    assert again.runner.machine.rail == 14 and again.runner.machine.fault is None


def test_a_resumed_game_keeps_none_of_the_restores_code_loaded():
    """The checks of a saved game run once, at start: a board that resumed one holds
    no module more than a fresh board, and a second restore loads them again."""
    remove(SCRATCH + "/kept.json")
    board = Board("kept.json").start()
    board.ask({"kind": "inject", "event": ["press", "trigger"]})
    board.ask({"kind": "advance", "ms": 600000, "settle": True})
    for _ in range(2):
        before = set(sys.modules)
        again = Board("kept.json").start(5)
        assert again.lines("hello")[0]["resumed"] == "saved" and again.runner.machine.rail == 14
        assert set(sys.modules) - before == set(), set(sys.modules) - before
        assert "controller.core.saves" not in sys.modules
        assert not hasattr(sys.modules["controller.core"], "saves")


def test_a_second_marble_that_falls_while_the_first_is_saved_is_counted_too():
    remove(SCRATCH + "/double.json")
    board = Board("double.json", world=False).start()
    beam = board.pin("marble_sensor")
    beam.drive(1)                                   # clear
    board.pin("trigger").drive(0)
    board.runner.step(999)                          # the visitor's press, held past the buttons' pulse filter:
    board.runner.step(1000)                         # one marble released
    saves = []
    save = flash.save

    def second_marble_during_the_write(path, data):
        """A save takes tens of ms with every interrupt held: the second
        marble of a double drop goes past the beam in that time."""
        saves.append(data["state"]["taken"])
        if len(saves) == 1:
            state = machine.disable_irq()
            board.runner.now += 5
            beam.drive(0)
            board.runner.now += 12
            beam.drive(1)
            save(path, data)
            board.runner.now += 30
            machine.enable_irq(state)
        else:
            save(path, data)

    board.runner.now = 1300
    beam.drive(0)
    board.runner.now = 1312
    beam.drive(1)
    flash.save = second_marble_during_the_write
    try:
        board.runner.step(1312)
        board.runner.step(1360)
    finally:
        flash.save = save
    marbles = [line for line in board.lines("event") if line["event"] == ["marble"]]
    assert len(marbles) == 2, board.sent
    assert board.runner.machine.state["taken"] == 2 and saves[:2] == [1, 2], saves


def test_a_slow_flash_write_never_shortens_the_release_pulse():
    remove(SCRATCH + "/slow.json")
    board = Board("slow.json", world=False).start()
    release = board.pin("release")[0]
    save = flash.save

    def slow_write(path, data):
        save(path, data)
        board.runner.now += 45      # a Pico's flash write takes tens of ms: one block's erase alone, 45

    board.runner.step(999)
    board.pin("trigger").drive(0)   # pressed at 999: past the buttons' pulse filter, the press counts at 1000
    flash.save = slow_write
    try:
        board.runner.step(1000)     # the press is saved first, and the release opens when the write is done
    finally:
        flash.save = save
    opened = [line["at"] for line in board.lines("command") if line["command"] == ["release"]]
    assert opened == [1045], opened
    board.runner.step(1100)
    assert release.value() == 1, "the solenoid was let go before its 60 ms"
    board.runner.step(1105)
    assert release.value() == 0


def test_a_lever_s_lamps_change_before_the_save_and_the_release_opens_after_it():
    """A save takes a Pico up to 150 ms (a block's erase alone, 45): the turn switch's
    lamps change at once, and only the release waits for its save."""
    remove(SCRATCH + "/lamps.json")
    board = Board("lamps.json", world=False).start()
    runner = board.runner
    lamp = board.pin("lamp_drnim_turn")[0]
    release = board.pin("release")[0]
    save = flash.save
    seen = []

    def slow_write(path, data):
        seen.append((lamp.value(), release.value()))
        save(path, data)
        runner.now += 45

    runner.step(999)
    board.pin("turn_switch").drive(0)
    flash.save = slow_write
    try:
        runner.step(1000)           # the switch counts: Dr. Nim's turn, its lamp lit, then the save
        board.pin("trigger").drive(0)
        runner.step(1100)
        runner.step(1101)           # the press counts: saved, then the release opens
    finally:
        flash.save = save
    assert seen[:2] == [(1, 0), (1, 0)], seen
    assert release.value() == 1


def test_a_save_waits_until_the_release_is_shut_so_a_second_press_never_holds_it_open():
    remove(SCRATCH + "/open.json")
    board = Board("open.json", world=False).start()
    runner = board.runner
    release = board.pin("release")[0]
    trigger = board.pin("trigger")
    save = flash.save
    shut = []

    def slow_write(path, data):
        save(path, data)
        runner.now += 45

    flash.save = slow_write
    try:
        runner.step(999)
        trigger.drive(0)                # pressed at 999: past the buttons' pulse filter, the press counts at 1000:
        runner.step(1000)               # saved, then the release opens at 1045 for 60 ms
        trigger.drive(1)
        runner.step(1060)
        trigger.drive(0)
        runner.step(1090)               # a second press while it is open: queued, worth a save
        while release.value():          # the loop polls every 10 ms once it has the time
            shut.append(runner.now + 10)
            runner.step(shut[-1])
    finally:
        flash.save = save
    assert shut and shut[-1] <= 1045 + 60 + 10, "the release stayed open until %d" % shut[-1]
    assert load(flash.read(board.path))["state"]["queued"] == 1     # saved once it was shut


def test_a_board_that_starts_reads_where_the_equalizer_switch_stands():
    """Moved while the board was off (or never where the settings say): Dr. Nim is told
    at start, as the Pi service tells it, and plays on with the switch where it is."""
    from runner import Runner
    remove(SCRATCH + "/switch.json")
    machine.reset_pins()            # every lever at rest: the equalizer switch at off, the settings say armed
    out = Sent()
    runner = Runner(config, out.write, lambda: None, lambda: 0, lambda a, b: a - b, path=SCRATCH + "/switch.json")
    runner.start(0)
    assert runner.machine.config["equalizer"] and runner.machine.switches() == {"equalizer_switch": False}
    assert '"event":["switch","equalizer","left"]' in "".join(out.lines)


def test_a_reset_with_a_release_under_way_holds_in_check():
    remove(SCRATCH + "/check.json")
    board = Board("check.json").start()
    board.ask({"kind": "inject", "event": ["press", "trigger"]})      # released, the marble not yet seen
    again = Board("check.json").start(0)
    assert again.runner.machine.fault == "check"
    assert [line["fault"] for line in again.lines("fault")] == ["check"]
    assert again.pin("lamp_fault")[0].value() == 1


def test_a_damaged_save_is_set_aside_and_the_board_holds_in_check():
    remove(SCRATCH + "/bad.json")
    with open(SCRATCH + "/bad.json", "w") as f:
        f.write('{"format": 2, "machine": "drnim", "config": {}, "state": {"taken": -')
    board = Board("bad.json").start()
    assert board.lines("hello")[0]["resumed"] == "check"
    kinds = [line["fault"] for line in board.lines("fault")]
    assert kinds == ["damaged-save"], kinds
    assert flash.read(SCRATCH + "/bad.json.bad") is not None
    assert board.runner.machine.fault == "check"


def test_a_save_of_the_other_machine_starts_a_new_game():
    remove(SCRATCH + "/other.json")
    with open(SCRATCH + "/other.json", "w") as f:
        f.write('{"format": 2, "machine": "nimatron", "config": {}, "state": {}}')
    board = Board("other.json").start()
    assert board.lines("hello")[0]["resumed"] == "new" and board.runner.machine.fault is None


def test_a_flash_that_cannot_be_written_is_reported_once_and_the_game_goes_on():
    board = Board("no/such/folder/game.json").start()
    board.ask({"kind": "inject", "event": ["press", "trigger"]})
    board.ask({"kind": "advance", "ms": 600000, "settle": True})
    assert [line["fault"] for line in board.lines("fault")] == ["storage"]
    assert board.runner.machine.rail == 14


def test_a_refused_line_is_one_error_and_changes_nothing():
    remove(SCRATCH + "/refuse.json")
    board = Board("refuse.json").start()
    before = encode(board.runner.machine.to_dict())
    for text in (b'{"kind":"inject","event":["press","nobody"]}', b'{"kind":"new_game","settings":{"marbles":0}}',
                 b'{"kind":"new_game","settings":{"colour":"red"}}', b"garbage", b'{"kind":"advance","ms":-5}',
                 b'{"kind":"inject","event":["switch","turn","up"],"id":9}'):
        count = len(board.sent)
        board.runner.line(text)
        replies = board.sent[count:]
        assert len(replies) == 1 and decode(replies[0])["kind"] == "error", (text, replies)
    assert decode(replies[0])["id"] == 9
    assert encode(board.runner.machine.to_dict()) == before


def test_a_request_the_protocol_refuses_goes_back_with_its_id():
    """The host waits for the reply that carries its request's id: a refusal without it
    left the host waiting its whole timeout, then saying the board did not answer."""
    remove(SCRATCH + "/refuse.json")
    board = Board("refuse.json").start()
    for ident, text in ((1, b'{"kind":"ping","id":1}'), (2, b'{"kind":"advance","ms":-5,"id":2}'),
                        (3, b'{"kind":"new_game","settings":5,"id":3}'), (4, b'{"kind":"state","colour":1,"id":4}')):
        count = len(board.sent)
        board.runner.line(text)
        replies = [decode(line) for line in board.sent[count:]]
        assert [(reply["kind"], reply.get("id")) for reply in replies] == [("error", ident)], (text, replies)


def test_the_state_says_the_heap_only_when_asked():
    """A host polls the state several times a second while a machine is busy: counting the
    heap (a collection and two counts, about 30 ms of a Pico's loop) is for the host that asks."""
    remove(SCRATCH + "/heap.json")
    board = Board("heap.json").start()
    board.runner.line(b'{"kind":"state","id":1}')
    plain = decode(board.sent[-1], 65536)
    board.runner.line(b'{"kind":"state","heap":true,"id":2}')
    asked = decode(board.sent[-1], 65536)
    assert (plain["id"], asked["id"]) == (1, 2) and "heap" not in plain, plain
    assert asked["heap"]["free"] > 0 and asked["heap"]["used"] > 0, asked
    assert asked["status"] == plain["status"] and asked["game"] == plain["game"]


def test_a_reply_that_runs_out_of_memory_is_one_whole_error_line():
    remove(SCRATCH + "/broken.json")
    board = Board("broken.json").start()
    board.out.no_memory_at = '"kind":"state"'      # the reply, as it is written
    count = len(board.sent)
    board.runner.line(b'{"kind":"state","id":3}')
    replies = board.sent[count:]
    assert len(replies) == 1, replies
    assert decode(replies[0]) == {"kind": "error", "id": 3, "error": "the board could not do it: MemoryError memory "
                                                                     "allocation failed"}, replies
    board.runner.line(b'{"kind":"state"}')
    assert decode(board.sent[-1], 65536)["kind"] == "state"     # the next reply is whole


def test_a_line_too_long_is_refused_once_and_the_next_line_is_read():
    taken = []
    lines = Lines(lambda raw, length: taken.append((raw, length)))
    for byte in b"x" * 5000 + b"\n" + b'{"kind":"state"}\n':
        lines.byte(byte)
    assert taken == [(None, 5000), (b'{"kind":"state"}', 16)], taken


def test_a_new_game_from_the_host_takes_its_settings_and_reloads_the_marbles():
    remove(SCRATCH + "/new.json")
    board = Board("new.json").start()
    replies = board.ask({"kind": "new_game", "settings": {"marbles": 11, "rule": "last-wins"}, "id": 4})
    assert replies[-1] == {"kind": "ok", "asked": "new_game", "id": 4}
    assert board.runner.machine.rail == 11 and board.runner.world.view()["rail"] == 11


def test_a_hosts_settings_are_kept_for_a_game_set_aside_and_a_new_game_without_any():
    """A Pico's settings lived in its saved game alone: a damaged save, a held board started afresh or a bare
    new_game played the defaults, the museum's rule and marbles lost without a word (the Pico builder's
    walkthrough). A host's new_game settings are kept beside the saved game, written only when they change."""
    remove(SCRATCH + "/kept.json")
    board = Board("kept.json").start()
    board.ask({"kind": "new_game", "settings": {"marbles": 11, "rule": "last-wins"}})
    assert load(flash.read(SCRATCH + "/kept-settings.json")) == {"marbles": 11, "rule": "last-wins"}
    writes = []
    write = flash.write
    flash.write = lambda path, text: (writes.append(path), write(path, text))
    try:
        board.ask({"kind": "new_game", "settings": {"rule": "last-wins", "marbles": 11}})
    finally:
        flash.write = write
    assert writes == [], "the same settings again: nothing written"
    flash.take(SCRATCH + "/kept.json")                      # the game set aside
    again = Board("kept.json").start()
    assert again.lines("hello")[0]["resumed"] == "new" and again.lines("fault") == []
    assert (again.runner.machine.config["marbles"], again.runner.machine.config["rule"]) == (11, "last-wins")
    again.ask({"kind": "new_game"})
    assert again.runner.machine.config["marbles"] == 11 and again.runner.machine.rail == 11
    again.ask({"kind": "new_game", "settings": {}})         # the defaults, asked for
    assert again.runner.machine.config["marbles"] == 15 and flash.read(SCRATCH + "/kept-settings.json") == "{}"


def test_kept_settings_the_build_cannot_play_are_said_and_the_builds_played():
    remove(SCRATCH + "/unkept.json")
    flash.write(SCRATCH + "/unkept-settings.json", '{"marbles":0}')
    board = Board("unkept.json").start()
    faults = board.lines("fault")
    assert [line["fault"] for line in faults] == ["settings"], faults
    assert faults[0]["text"].startswith("the settings kept in %s/unkept-settings.json are not played (marbles: "
                                        % SCRATCH), faults
    assert board.runner.machine.config["marbles"] == 15 and board.runner.machine.fault is None
    # set aside: said once, not at every start (a board redeployed as the other machine kept its settings too)
    assert flash.read(SCRATCH + "/unkept-settings.json") is None
    assert flash.read(SCRATCH + "/unkept-settings.json.bad") == '{"marbles":0}'
    assert Board("unkept.json").start().lines("fault") == []
    flash.write(SCRATCH + "/unkept-settings.json", "[1, 2]")     # not a table: the board starts all the same
    board = Board("unkept.json").start()
    assert [line["fault"] for line in board.lines("fault")] == ["settings"] and board.runner.machine.rail == 15


def test_a_held_board_keeps_the_settings_of_the_new_game_that_starts_it_and_refuses_ones_it_cannot_play():
    """A held board's new_game started it afresh with the defaults, its settings dropped; one it cannot play
    started it all the same, into the crash it may have held for."""
    remove(SCRATCH + "/app.json")
    machine.CAUSE = machine.WDT_RESET
    try:
        flash.write(SCRATCH + "/resets", "3")
        written, dogs, ended = run_app("production", [b'{"kind":"new_game","settings":{"marbles":0}}'], keep=True)
        assert ended == "exit" and decode(written[-1])["kind"] == "error", written
        assert "marbles" in decode(written[-1])["error"] and flash.read(SCRATCH + "/app-settings.json") is None
        written, dogs, ended = run_app("production", [b'{"kind":"new_game","settings":{"marbles":9}}'], keep=True)
        assert ended == "reset" and decode(written[-1]) == {"kind": "ok", "asked": "new_game"}, written
    finally:
        machine.CAUSE = machine.PWRON_RESET
    assert load(flash.read(SCRATCH + "/app-settings.json")) == {"marbles": 9}
    assert flash.read(SCRATCH + "/resets") is None
    written, dogs, ended = run_app("production", [b'{"kind":"state"}'], keep=True)
    assert decode(written[0])["resumed"] == "new" and '"loaded":9' in "".join(written), written
    remove(SCRATCH + "/app.json")


def test_a_whole_game_ends_in_one_game_over_line():
    remove(SCRATCH + "/whole.json")
    board = Board("whole.json").start()
    board.ask({"kind": "new_game", "settings": {"marbles": 5, "capacity": 5, "equalizer": False}})
    machine_ = board.runner.machine
    while machine_.mode == "play":
        board.ask({"kind": "inject", "event": ["press", "trigger"]})
        board.ask({"kind": "advance", "ms": 600000, "settle": True})
        if machine_.mode == "play":
            board.ask({"kind": "inject", "event": ["switch", "turn", "machine"]})
            board.ask({"kind": "inject", "event": ["press", "trigger"]})
            board.ask({"kind": "advance", "ms": 600000, "settle": True})
    over = board.lines("game_over")
    assert len(over) == 1 and over[0]["winner"] == machine_.winner and over[0]["machine"] == "drnim"
    assert board.runner.world.view()["tray"] == 5


def test_an_idle_board_allocates_nothing_in_its_loop():
    import gc
    remove(SCRATCH + "/idle.json")
    board = Board("idle.json", world=False).start()
    board.runner.step(1)
    gc.collect()
    gc.disable()
    before = gc.mem_alloc()
    for now in range(10, 5000, 10):
        board.runner.step(now)
    allocated = gc.mem_alloc() - before
    gc.enable()
    assert allocated == 0, allocated


# --- the board's main program (firmware/app.py) --------------------------------------
def run_app(mode, lines, fail_on=None, world=None, uptime=0, keep=False):
    """app.run on a file of host lines, in `mode`, `uptime` ms after its chip started; (what it
    wrote, the watchdogs, how it ended). SCRATCH/maintenance is its maintenance file; `keep`: the
    saved game and the kept settings of a run before are kept."""
    import app
    if not keep:
        remove(SCRATCH + "/app.json")
    machine.reset_pins()
    machine.WDT.started.clear()
    config.MODE = mode
    with open(SCRATCH + "/lines.txt", "wb") as f:
        f.write(b"".join(text + b"\n" for text in lines))
    out = Sent(fail_on)
    written = out.lines
    ended = None
    machine.Timer.live = True       # the loop sleeps until a timer (or a pin) wakes it, as on a board
    try:
        with open(SCRATCH + "/lines.txt", "rb") as stream:
            app.run(stream, out, SCRATCH + "/app.json", world, stop=SCRATCH + "/maintenance", uptime=lambda: uptime)
    except machine.Reset:
        ended = "reset"
    except SystemExit:
        ended = "exit"
    finally:
        config.MODE = "development"
        machine.Timer.live = False
    return written, machine.WDT.started, ended


def test_production_mode_starts_a_watchdog_within_the_rp2040s_limit_and_feeds_it():
    written, dogs, ended = run_app("production", [b'{"kind":"state"}'])
    assert ended == "exit" and len(dogs) == 1 and dogs[0].timeout <= 8388 and dogs[0].feeds >= 1
    assert decode(written[0])["mode"] == "production"
    written, dogs, ended = run_app("development", [b'{"kind":"state"}'])
    assert dogs == []


def test_a_board_that_finds_the_maintenance_file_starts_nothing_while_it_is_there():
    """What deploy relies on: no watchdog, no game, no pin touched, at every start until
    the file is gone (an interrupted deploy leaves it, and half a build never runs)."""
    with open(SCRATCH + "/maintenance", "w"):
        pass
    for start in range(2):
        written, dogs, ended = run_app("production", [b'{"kind":"state"}'])
        assert ended is None and dogs == [] and len(written) == 1 and "stopped for maintenance" in written[0]
        assert list(PINS) == ["LED"] and PINS["LED"].value() == 1, "only the LED, lit steady"
        assert flash.read(SCRATCH + "/app.json") is None
    flash.take(SCRATCH + "/maintenance")
    written, dogs, ended = run_app("production", [b'{"kind":"state"}'])
    assert ended == "exit" and len(dogs) == 1 and decode(written[0])["kind"] == "hello"


def test_resets_in_a_row_are_counted_beside_the_saved_game():
    """On a board /resets; on the emulated board its own folder, never the host's root. A soft
    reset (Ctrl-D at the console) keeps a Pico's last cause, but not its chip's clock: not counted."""
    flash.take(SCRATCH + "/resets")
    machine.CAUSE = machine.WDT_RESET
    try:
        run_app("production", [b'{"kind":"state"}'])
        run_app("production", [b'{"kind":"state"}'])
        run_app("production", [b'{"kind":"state"}'], uptime=90000)
    finally:
        machine.CAUSE = machine.PWRON_RESET
    assert flash.read(SCRATCH + "/resets") == "2"
    run_app("production", [b'{"kind":"state"}'])          # a power-on reset: not one of them
    assert flash.read(SCRATCH + "/resets") == "2"
    flash.take(SCRATCH + "/resets")


def test_resets_played_past_are_forgotten_but_never_while_the_release_is_open():
    """Forgetting them removes the file, a flash write that holds a Pico's interrupts, and with them
    the timer that shuts the release: it waits until the release is shut."""
    import app
    flash.write(SCRATCH + "/resets", "2")
    guard = app.CrashGuard(machine.PWRON_RESET, 0, SCRATCH + "/app.json")
    guard.played(app.CrashGuard.GUARD_MS + 10, True)
    assert flash.read(SCRATCH + "/resets") == "2"
    guard.played(app.CrashGuard.GUARD_MS + 20, False)
    assert flash.read(SCRATCH + "/resets") is None and not guard.held()


def test_the_watchdog_is_fed_only_while_the_serial_task_keeps_up():
    """The play task feeds it; host bytes waiting longer than FEED_MS with none taken
    (a serial task stuck) stop the feeding, and the board is reset."""
    import app
    dog = machine.WDT(timeout=5000)
    with open(SCRATCH + "/waiting.txt", "wb") as f:
        f.write(b'{"kind":"state"}\n')
    with open(SCRATCH + "/waiting.txt", "rb") as stream:       # bytes the host sent, waiting to be read
        feeder = app.Watchdog(dog, stream)
        fed = []
        for now in range(0, 3 * app.FEED_MS, app.FEED_MS // 4):
            before = dog.feeds
            feeder.feed(now)
            fed.append(dog.feeds > before)
        assert fed[:4] == [True] * 4 and not any(fed[5:]), fed
        feeder.taken += 17                      # the task takes them: fed again
        feeder.feed(3 * app.FEED_MS)
        assert dog.feeds == 5


def test_the_serial_task_takes_the_bytes_waiting_in_chunks():
    """One wait, then every byte already there, up to a chunk: one byte an await read a
    board's input at about 0.9 KB/s on the emulated board."""
    import asyncio
    import app
    from runner import Lines
    with open(SCRATCH + "/flood.txt", "wb") as f:
        f.write(b"x" * 5000 + b"\n")
    lines = Lines(lambda raw, length: None)
    wake = Flag()
    with open(SCRATCH + "/flood.txt", "rb") as stream:
        try:
            asyncio.run(app.serial(stream, lines, wake, None))
        except SystemExit:
            pass
    assert 5001 // app.CHUNK <= wake.times <= 5001 // app.CHUNK + 1, wake.times


class Visitor:
    """A world with a visitor who presses the trigger at once."""

    def __init__(self, clock):
        self.pressed = False

    def run(self, now):
        if not self.pressed:
            self.pressed = True
            PINS[config.INPUTS[0][1]].drive(0)

    def next_due(self):
        return None

    def busy(self):
        return False

    def started(self, machine, resumed):
        pass

    def new_game(self, machine):
        pass


def test_an_error_puts_the_release_safe_reports_it_and_resets_the_board():
    assert config.INPUTS[0][0] == "trigger"
    inputs = config.INPUTS
    config.INPUTS = (inputs[0][:5] + (0,),) + inputs[1:]   # the press taken at once: the host's line ends the run
    try:
        written, dogs, ended = run_app("development", [], fail_on='"command":["release"]', world=Visitor)
    finally:
        config.INPUTS = inputs
    assert ended == "reset", (ended, written[-3:])
    assert decode(written[-1])["fault"] == "crash" and "OSError" in decode(written[-1])["text"], written[-3:]
    release = [spec for spec in config.OUTPUTS if spec[0] == "release"][0]
    assert PINS[release[2][0]].value() == 0


def main():
    passed = failed = 0
    for name in sorted(globals()):
        if name.startswith("test_"):
            try:
                globals()[name]()
                passed += 1
            except Exception as error:
                failed += 1
                print("FAILED %s: %s %s" % (name, type(error).__name__, error))
                sys.print_exception(error)
    print("%d passed, %d failed" % (passed, failed))


main()
