"""The two replicas' boards, built from a pin map.

A board owns the gpiozero devices (a `ButtonPanel`, Dr. Nim's `MarbleGate`,
the indicators, the Nimatron's `LampPanel`, lamps and a buzzer). Their
callbacks only hand raw edges to `post(role, level)` (the service puts them, timestamped, on its queue);
`apply(command)` drives the outputs for one command of the core machine;
`safe()` puts every output in its safe state (release shut, lamps off).

The release's pulse width is the service's business: `apply(("release",))`
opens the gate and the service shuts it after `release_pulse_ms`.
"""

from gpiozero import Buzzer, LED

from controller.hardware.devices import ButtonPanel, LampPanel, MarbleGate, indicator

# Each input's role -> the machine events for its active and inactive level.
DRNIM_INPUTS = {
    "trigger": (("press", "trigger"), ("release", "trigger")),
    "new_game": (("press", "new_game"), ("release", "new_game")),
    "turn_switch": (("switch", "turn", "machine"), ("switch", "turn", "player")),
    "equalizer_switch": (("switch", "equalizer", "right"), ("switch", "equalizer", "left")),
    "marble_sensor": (("marble",), None),
}

# Sound cues of the core -> buzzer beeps (on seconds, off seconds, count).
BEEPS = {
    "marble": (0.03, 0.0, 1), "lamp": (0.03, 0.0, 1), "refuse": (0.08, 0.08, 2), "extra": (0.05, 0.05, 2),
    "new_game": (0.1, 0.0, 1), "win": (0.2, 0.1, 3), "nim_champ": (0.1, 0.05, 8), "lose": (0.6, 0.0, 1),
    "fault": (0.1, 0.1, 5),
}


class Board:
    """What both boards share: inputs with callbacks, lamps, a buzzer."""

    INPUT_EVENTS = {}
    LAMPS = ()

    def __init__(self, pinmap, post, pin_factory=None):
        self.pinmap = pinmap
        self.pin_factory = pin_factory
        self.devices = []
        roles = [role for role in self.input_events() if role != "marble_sensor"]
        self.buttons = self.add(ButtonPanel(dict((role, pinmap.inputs[role]) for role in roles),
                                            pin_factory=pin_factory))
        self.buttons.when_changed = post
        self.lamps = {}
        for name in self.LAMPS:
            spec = pinmap.outputs["lamp_" + name]
            self.lamps[name] = self.add(LED(spec.pins["pin"], active_high=spec.active != "low",
                                            pin_factory=pin_factory))
        spec = pinmap.outputs["buzzer"]
        self.buzzer = self.add(Buzzer(spec.pins["pin"], active_high=spec.active != "low", pin_factory=pin_factory))

    def input_events(self):
        return self.INPUT_EVENTS

    def add(self, device):
        self.devices.append(device)
        return device

    def event_for(self, role, level):
        """The machine event for an accepted input level, or None."""
        events = self.input_events()[role]
        return events[0] if level else events[1]

    def level(self, role):
        return self.buttons.is_active_role(role)

    def apply(self, command):
        kind = command[0]
        if kind == "lamp":
            lamp = self.lamps[command[1]]
            if command[2] == "on":
                lamp.on()
            elif command[2] == "blink":
                lamp.blink(on_time=0.4, off_time=0.4)
            else:
                lamp.off()
        elif kind == "sound":
            on, off, count = BEEPS.get(command[1], (0.05, 0.0, 1))
            self.buzzer.beep(on_time=on, off_time=off or 0.01, n=count)
        elif kind != "message":
            self.apply_own(command)

    def apply_own(self, command):
        raise ValueError("the board cannot carry out %r" % (command,))

    def safe(self):
        """Every output in its safe state: off."""
        for lamp in self.lamps.values():
            lamp.off()
        self.buzzer.off()

    def close(self):
        for device in reversed(self.devices):
            device.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()


class DrNimBoard(Board):
    """The Dr. Nim replica: trigger, switches, new game, the marble gate with its
    sensor, the indicators of the five controls, status lamps and a buzzer."""

    INPUT_EVENTS = DRNIM_INPUTS
    LAMPS = ("your_turn", "drnim_turn", "you_win", "drnim_wins", "fault")

    def __init__(self, pinmap, post, pin_factory=None):
        super().__init__(pinmap, post, pin_factory)
        self.gate = self.add(MarbleGate(pinmap.outputs["release"], pinmap.inputs["marble_sensor"],
                                        pin_factory=pin_factory))
        self.gate.when_changed = lambda active: post("marble_sensor", active)
        self.indicators = {}
        for name in ("flip_flop_1", "flip_flop_2", "flip_flop_3", "equalizer", "turn"):
            self.indicators[name] = self.add(indicator(pinmap.outputs[name], pin_factory))

    def apply_own(self, command):
        kind = command[0]
        if kind == "release":
            self.gate.open()
        elif kind == "flip_flop":
            self.indicators["flip_flop_%d" % command[1]].show(command[2])
        elif kind in ("equalizer", "turn"):
            self.indicators[kind].show(command[1])
        else:
            Board.apply_own(self, command)

    def level(self, role):
        return self.gate.beam_broken if role == "marble_sensor" else Board.level(self, role)

    def shut_release(self):
        self.gate.shut()

    def safe(self):
        self.gate.shut()
        for shown in self.indicators.values():
            shown.off()
        super().safe()


class NimatronBoard(Board):
    """The Nimatron replica: a button per row, the hand-over and new-game
    buttons, the lamp panel on 74HC595s, status lamps and a buzzer."""

    LAMPS = ("your_turn", "machine_turn", "nim_champ", "machine_wins")

    def __init__(self, pinmap, post, pin_factory=None):
        super().__init__(pinmap, post, pin_factory)
        spec = pinmap.outputs["lamps"]
        self.panel = self.add(LampPanel(spec.pins["data"], spec.pins["clock"], spec.pins["latch"],
                                        registers=spec.options["registers"], rows=pinmap.rows,
                                        lamps_per_row=pinmap.lamps_per_row, pin_factory=pin_factory))

    def input_events(self):
        events = {"handover": (("press", "handover"), ("release", "handover")),
                  "new_game": (("press", "new_game"), ("release", "new_game"))}
        for row in range(1, self.pinmap.rows + 1):
            name = "row%d" % row
            events[name] = (("press", name), ("release", name))
        return events

    def apply_own(self, command):
        if command[0] == "row":
            self.panel.show_row(command[1], command[2])
        else:
            Board.apply_own(self, command)

    def shut_release(self):
        pass

    def safe(self):
        self.panel.off()
        super().safe()


BOARDS = {"drnim": DrNimBoard, "nimatron": NimatronBoard}
