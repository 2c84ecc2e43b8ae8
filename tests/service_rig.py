"""A test rig for the service: gpiozero's MockFactory with a model of the
physical Dr. Nim around it, as gpiozero's own tests fake hardware: the
release pin is a MockPin subclass (the simulator's EdgePin) that lets a marble
fall past the break-beam sensor `fall_ms` after it is energised (unless the
rig jams it), on a fake clock the test moves."""

from gpiozero.pins.mock import MockFactory

from controller.core.registry import machine_class
from controller.hardware.pinmap import default_pinmap_path, load_pinmap
from controller.sim.engine import Chip74HC595, EdgePin, rest_inputs
from controller.service.config import load_config
from controller.service.daemon import Service
from controller.service.notify import Notifier
from controller.sim.pins import BoundedPin


class FakeClock:
    def __init__(self):
        self.now = 0

    def __call__(self):
        return self.now


def write_config(tmp_path, machine="drnim", languages=None, exhibit=None, **settings):
    """`exhibit`: more [exhibit] settings, as TOML text by key (the beeps: {"sound": '"none"'})."""
    lines = ['[service]', 'machine = "%s"' % machine, 'pin_factory = "mock"',
             'state_dir = "%s"' % (tmp_path / "state"), 'runtime_dir = "%s"' % (tmp_path / "run"),
             'stuck_after_s = 5']
    if languages or exhibit:
        lines.append('[exhibit]')
    if languages:
        lines.append('language = %s' % list(languages))
    lines += ["%s = %s" % item for item in (exhibit or {}).items()]
    lines.append('[%s]' % machine)
    for key, value in settings.items():
        lines.append("%s = %s" % (key, str(value).lower() if isinstance(value, bool) else repr(value)))
    path = tmp_path / "config.toml"
    path.write_text("\n".join(lines).replace("'", '"') + "\n")
    return path


class Rig:
    """The service on mock pins, a fake clock, and the marbles."""

    def __init__(self, tmp_path, machine="drnim", fall_ms=200, switches=None, languages=None, mounts="",
                 power_root=None, exhibit=None, local_time=None, **settings):
        """`switches`: where the remembered switches stand at start (role -> active); by default
        where a new game's settings say, as a person sets them. `languages`: [exhibit] language,
        `exhibit` its other settings (write_config). `mounts`: the mount table the service reads, as
        /proc/mounts's text. `power_root`: the folder whose sys/ the service reads the Pi's supply and
        heat in (None: none). `local_time`: the minute of the day the service's quiet hours read
        (None: noon, never this computer's clock)."""
        self.config = load_config(str(write_config(tmp_path, machine, languages, exhibit, **settings)))
        self.pinmap = load_pinmap(default_pinmap_path(machine))
        self.factory = MockFactory(pin_class=BoundedPin)
        self.clock = FakeClock()
        self.fall_ms = fall_ms
        self.falling = []
        self.jam = 0
        self.marbles_seen = 0
        self.log = []
        if machine == "drnim":
            self.factory.pin(self.pinmap.outputs["release"].pins["pin"], pin_class=EdgePin, on_rise=self.released)
        else:
            self.chip = Chip74HC595(self.factory, self.pinmap.outputs["lamps"])
        if switches is None:
            switches = machine_class(machine)(self.config.machine).switches()
        rest_inputs(self.factory, self.pinmap, switches)
        self.service = Service(self.config, self.pinmap, pin_factory=self.factory, clock=self.clock,
                               notifier=Notifier({}), log=self.log.append, mounts=mounts,
                               power_root=power_root, local_time=local_time or (lambda: 12 * 60))
        self.service.start()

    def pin(self, role):
        if role in self.pinmap.inputs:
            return self.factory.pin(self.pinmap.inputs[role].pin)
        return self.factory.pin(self.pinmap.outputs[role].pins["pin"])

    def released(self):
        if self.jam:
            self.jam -= 1
        else:
            self.falling.append(self.clock.now + self.fall_ms)

    def wait(self, ms):
        """Let `ms` of fake time pass, with the service and the marbles working."""
        end = self.clock.now + ms
        while True:
            self.service.pump()
            times = [t for t in self.falling + [self.service.next_deadline()] if t is not None and t <= end]
            if not times:
                break
            self.clock.now = max(self.clock.now, min(times))
            if self.falling and min(self.falling) <= self.clock.now:
                self.falling.remove(min(self.falling))
                self.marble()
        self.clock.now = end
        self.service.pump()

    def marble(self):
        """A marble breaks the beam for 5 ms."""
        sensor = self.pin("marble_sensor")
        self.marbles_seen += 1
        sensor.drive_low()
        self.service.pump()
        self.clock.now += 5
        sensor.drive_high()
        self.service.pump()

    def press(self, role, hold_ms=100):
        pin = self.pin(role)
        pin.drive_low()
        self.wait(hold_ms)
        pin.drive_high()
        self.wait(200)

    def switch(self, role, on):
        pin = self.pin(role)
        (pin.drive_low if on else pin.drive_high)()
        self.wait(100)

    def settle(self):
        """Wait until nothing is falling and Dr. Nim's turn is over."""
        for _ in range(100):
            if not self.falling and not self.service.machine.state.get("running") \
                    and not self.service.machine.state.get("in_flight"):
                return
            self.wait(500)

    def take(self, count):
        for _ in range(count):
            self.press("trigger")
        self.settle()

    def hand_over(self):
        self.switch("turn_switch", True)
        self.press("trigger")
        self.settle()
        self.switch("turn_switch", False)

    @property
    def machine(self):
        return self.service.machine

    def output_pins(self):
        """Every output pin of the board, by its key in the pin map."""
        pins = {}
        for role, spec in self.pinmap.outputs.items():
            for name, number in spec.pins.items():
                pins["%s.%s" % (role, name)] = self.factory.pin(number)
        return pins


def run_briefly(rig, monkeypatch, mounts):
    """`controller run`'s daemon.run on `rig`'s configuration and pins (the rig's own service stopped
    first), with `mounts` as the kernel's mount table (None: as the service reads it): started, then
    stopped at once. The rails it started with."""
    from controller.service import daemon
    started = []

    def started_and_stopped(service):
        service.start()
        started.append(service.machine.rail)
        service.stop()
    monkeypatch.setattr(daemon.Service, "run", started_and_stopped)
    monkeypatch.setattr(daemon.signal, "signal", lambda *args: None)        # pytest's own handlers stay
    monkeypatch.setattr(daemon.faulthandler, "enable", lambda: None)       # as does its stderr
    factory = MockFactory(pin_class=BoundedPin)
    rest_inputs(factory, rig.pinmap, {"equalizer_switch": False})
    assert daemon.run(rig.config, rig.pinmap, factory, mounts=mounts) == 0
    return started
