"""A replica's board, built from its pin map and its machine's declaration.

The board owns the gpiozero devices: a `ButtonPanel` with every input the
machine declares, and one device per output role, of the kind the pin map
names (an LED pair or a servo flipper for an indicator, a solenoid or a
servo gate for the release, a `LampPanel` for rows of lamps...). Input
callbacks only hand raw edges to `post(role, level)` (the service puts them,
timestamped, on its queue); `apply(command)` carries out one command of the
core machine on the output whose declared command it is; `safe()` puts
every output in its safe state (release shut, everything else off).

The release's pulse width is the service's business: `apply(("release",))`
opens the gate and the service shuts it (`shut_release()`) after the pulse.
"""

from gpiozero import Buzzer, LED

from controller.core.exhibit import INDICATOR, LAMP, LAMP_ROWS, RELEASE, SOUND
from controller.core.registry import machine_class
from controller.hardware.devices import ButtonPanel, LampPanel, ShiftRegister, indicator, release
from controller.hardware.pins_held import opening

# Sound cues of the core -> buzzer beeps (on seconds, off seconds, count).
BEEPS = {
    "marble": (0.03, 0.0, 1), "lamp": (0.03, 0.0, 1), "refuse": (0.08, 0.08, 2), "extra": (0.05, 0.05, 2),
    "new_game": (0.1, 0.0, 1), "win": (0.2, 0.1, 3), "nim_champ": (0.1, 0.05, 8), "lose": (0.6, 0.0, 1),
    "fault": (0.1, 0.1, 5),
}
BLINK_S = 0.4


def _one_pin(device_class):
    def build(spec, pinmap, pin_factory):
        return device_class(spec.pins["pin"], active_high=spec.active != "low", pin_factory=pin_factory)
    return build


def _lamp_panel(spec, pinmap, pin_factory):
    return LampPanel(spec.pins["data"], spec.pins["clock"], spec.pins["latch"], enable=spec.pins.get("enable"),
                     registers=spec.options["registers"],
                     rows=pinmap.rows, lamps_per_row=pinmap.lamps_per_row, pin_factory=pin_factory)


def _show_lamp(lamp, state):
    if state == "on":
        lamp.on()
    elif state == "blink":
        lamp.blink(on_time=BLINK_S, off_time=BLINK_S)
    else:
        lamp.off()


def _beep(buzzer, cue):
    on, off, count = BEEPS.get(cue, (0.05, 0.0, 1))
    buzzer.beep(on_time=on, off_time=off or 0.01, n=count)


# For each kind of output a machine declares: how to build its device from
# the pin map's spec, and how to carry out a command's value on it.
BUILD = {
    INDICATOR: lambda spec, pinmap, pin_factory: indicator(spec, pin_factory),
    LAMP: _one_pin(LED),
    RELEASE: lambda spec, pinmap, pin_factory: release(spec, pin_factory),
    SOUND: _one_pin(Buzzer),
    LAMP_ROWS: _lamp_panel,
}
CARRY_OUT = {
    INDICATOR: lambda device, side: device.show(side),
    LAMP: _show_lamp,
    RELEASE: lambda device: device.open(),
    SOUND: _beep,
    LAMP_ROWS: lambda device, row, lit: device.show_row(row, lit),
}


class Board:
    """The devices of one replica. `layout` overrides the pin map's (a
    Nimatron configured with fewer rows than its console has buttons)."""

    def __init__(self, pinmap, post, pin_factory=None, layout=None):
        self.pinmap = pinmap
        cls = machine_class(pinmap.machine)
        self.inputs = dict((spec.role, spec) for spec in cls.inputs(layout or pinmap.layout))
        self.devices = []
        self.buttons = self.add(ButtonPanel(dict((role, pinmap.inputs[role]) for role in self.inputs),
                                            pin_factory=pin_factory))
        self.buttons.when_changed = post
        self.outputs = {}
        self.kinds = {}
        self.commands = {}
        self.release = None
        try:
            for spec in cls.OUTPUTS:
                pins = pinmap.outputs[spec.role]
                with opening(spec.role, list(pins.pins.values())):
                    device = self.add(BUILD[spec.kind](pins, pinmap, pin_factory))
                self.outputs[spec.role] = device
                self.kinds[spec.role] = spec.kind
                self.commands[spec.command] = spec.role
                if spec.kind == RELEASE:
                    self.release = device
        except Exception:
            self.close()        # the pins opened so far, for whatever opens them next in this process
            raise

    def add(self, device):
        self.devices.append(device)
        return device

    def event_for(self, role, level):
        """The machine event for an accepted input level, or None."""
        events = self.inputs[role].events
        return events[0] if level else events[1]

    def level(self, role):
        return self.buttons.is_active_role(role)

    def apply(self, command):
        """Carry out one command of the machine (messages are the service's to log)."""
        if command[0] == "message":
            return
        for size in (2, 1):
            role = self.commands.get(tuple(command[:size]))
            if role is not None:
                CARRY_OUT[self.kinds[role]](self.outputs[role], *command[size:])
                return
        raise ValueError("the board cannot carry out %r" % (command,))

    def shut_release(self):
        if self.release is not None:
            self.release.shut()

    def rewrite_lamps(self):
        """Each lamp chain written again as it is: the spectators' chips have their own 3.3 V, from the
        lamps' supply, and plugged in after the Pi they wake with random lamps, which stayed lit until a
        row changed (the daemon's heartbeat calls this)."""
        for device in self.outputs.values():
            if isinstance(device, ShiftRegister):
                device.write(device.bits)

    def safe(self):
        """Every output in its safe state: the release shut, everything else off."""
        for role, device in self.outputs.items():
            (device.shut if device is self.release else device.off)()

    def close(self):
        for device in reversed(self.devices):
            device.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
