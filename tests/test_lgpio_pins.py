"""The lgpio pins on a Pi 5: the header's chip found wherever the kernel numbers it, and a servo's
pulse as wide as its angle asks. No Pi here: gpiozero's own lgpio pins run on a stand-in for the
lgpio module that records what the real one would be told (its calls and their meaning are
lgpio's: lgTxPwm takes its duty cycle in percent, as a float, and times it to the microsecond)."""

import sys
import types

import pytest

from controller.hardware.pinmap import default_pinmap_path, load_pinmap
from test_pinmap import servo_variant

PI_5 = 0xd04170         # a Pi 5 8GB's revision code (board type 0x17)


class FakeLgpio(types.ModuleType):
    """The lgpio calls gpiozero's pins make, on one chip's lines."""
    SET_PULL_NONE, SET_PULL_UP, SET_PULL_DOWN = 0x80, 0x20, 0x40
    SET_BIAS_DISABLE, SET_BIAS_PULL_UP, SET_BIAS_PULL_DOWN = 0x80, 0x20, 0x40
    RISING_EDGE, FALLING_EDGE, BOTH_EDGES = 1, 2, 3
    OUTPUT = 0x2 | 0x200

    class error(Exception):
        pass

    def __init__(self):
        super().__init__("lgpio")
        self.opened, self.modes, self.pwm = [], {}, {}
        self.held = set()       # lines a kernel driver holds: lgpio's error's text is the repr of its message

    def claim(self, gpio):
        if gpio in self.held:
            raise self.error("'GPIO busy'")

    def gpiochip_open(self, chip):
        self.opened.append(chip)
        return 7

    def gpiochip_close(self, handle):
        pass

    def gpio_claim_input(self, handle, gpio, flags=0):
        self.claim(gpio)
        self.modes[gpio] = 0x100 | flags
        self.pwm.pop(gpio, None)

    def gpio_claim_output(self, handle, gpio, level=0, flags=0):
        self.claim(gpio)
        self.modes[gpio] = self.OUTPUT

    def gpio_free(self, handle, gpio):
        self.modes.pop(gpio, None)

    def gpio_get_mode(self, handle, gpio):
        return self.modes.get(gpio, 0)

    def gpio_write(self, handle, gpio, level):
        pass

    def gpio_read(self, handle, gpio):
        return 0

    def gpio_set_debounce_micros(self, handle, gpio, micros):
        pass

    def gpio_claim_alert(self, handle, gpio, edges, flags=0):
        self.claim(gpio)
        self.modes[gpio] = 0x100 | flags

    def callback(self, handle, gpio, edges, function):
        return types.SimpleNamespace(cancel=lambda: None)

    def tx_pwm(self, handle, gpio, frequency, duty_cycle, offset=0, cycles=0):
        self.pwm[gpio] = (frequency, duty_cycle)
        return 0


@pytest.fixture
def lgpio(monkeypatch):
    """The stand-in as `lgpio`, gpiozero's lgpio pins imported anew on it (and let go after), on a Pi 5."""
    import controller.hardware
    import gpiozero.pins
    from gpiozero.pins.local import LocalPiFactory
    fake = FakeLgpio()
    monkeypatch.setitem(sys.modules, "lgpio", fake)
    for package, name in ((gpiozero.pins, "lgpio"), (controller.hardware, "lgpio_pins")):
        monkeypatch.delitem(sys.modules, "%s.%s" % (package.__name__, name), raising=False)
        monkeypatch.delattr(package, name, raising=False)
    monkeypatch.setattr(LocalPiFactory, "_get_revision", lambda self: PI_5)
    yield fake
    for package, name in ((gpiozero.pins, "lgpio"), (controller.hardware, "lgpio_pins")):
        sys.modules.pop("%s.%s" % (package.__name__, name), None)    # imported on the stand-in: not for later tests
        vars(package).pop(name, None)


def chips(tmp_path, compatibles):
    """A /sys/bus/gpio/devices with these chips, by number: their device-tree nodes' `compatible`."""
    folder = tmp_path / "devices"
    for number, compatible in compatibles.items():
        node = folder / ("gpiochip%d" % number) / "of_node"
        node.mkdir(parents=True)
        (node / "compatible").write_bytes(b"".join(name.encode() + b"\0" for name in compatible))
    return folder


BRCMSTB = ["brcm,bcm7445-gpio", "brcm,brcmstb-gpio"]
RP1 = ["raspberrypi,rp1-gpio"]


@pytest.mark.parametrize("compatibles, header", [
    ({0: BRCMSTB, 1: BRCMSTB, 2: BRCMSTB, 3: BRCMSTB, 4: RP1}, 4),          # a Pi 5's first kernels
    ({0: RP1, 10: BRCMSTB, 11: BRCMSTB, 12: BRCMSTB, 13: BRCMSTB}, 0),      # from 6.6.45
    ({11: BRCMSTB, 12: BRCMSTB, 13: BRCMSTB, 14: BRCMSTB, 15: RP1}, 15),   # neither 0 nor 4
    ({0: ["brcm,bcm2711-gpio", "brcm,bcm2835-gpio"], 1: ["raspberrypi,firmware-gpio"]}, 0),   # a Pi 4
], ids=["pi5-gpiochip4", "pi5-gpiochip0", "pi5-gpiochip15", "pi4"])
def test_the_service_opens_the_chip_of_the_header_wherever_the_kernel_numbers_it(tmp_path, monkeypatch, lgpio,
                                                                                compatibles, header):
    """gpiozero 2.0.1 opened gpiochip4 on any Pi 5 (since .post3, gpiochip0 where there is no gpiochip4):
    on a kernel that numbers the header otherwise the service found no GPIO, or the wrong chip's."""
    from controller.hardware import lgpio_pins
    from controller.service import daemon
    monkeypatch.setattr(lgpio_pins, "SYS_GPIO", str(chips(tmp_path, compatibles)))
    monkeypatch.setattr(daemon, "_listdir", lambda folder: ["gpiochip%d" % number for number in compatibles])
    factory = daemon.pin_factory_for("lgpio")
    try:
        assert lgpio.opened == [header]
        assert factory.chip == header
    finally:
        factory.close()


def test_without_a_device_tree_gpiozero_chooses_the_chip(tmp_path, monkeypatch, lgpio):
    from controller.hardware import lgpio_pins
    monkeypatch.setattr(lgpio_pins, "SYS_GPIO", str(tmp_path / "none"))
    assert lgpio_pins.header_chip() is None
    lgpio_pins.LGPIOFactory().close()
    assert lgpio.opened == [0]          # gpiozero's choice on a Pi 5 without /dev/gpiochip4


@pytest.mark.parametrize("role", ["turn", "trigger"])
def test_a_pin_a_kernel_driver_holds_stops_the_service_in_one_line_naming_its_role(tmp_path, monkeypatch, capsys,
                                                                                     lgpio, role):
    """gpio-fan's overlay takes BCM 12 by default, Dr. Nim's turn indicator's: the service died with
    lgpio's traceback, 'GPIO busy', naming neither the pin nor the role, at every restart."""
    from controller import cli
    from controller.hardware import lgpio_pins
    from controller.service import daemon
    from service_rig import write_config
    monkeypatch.setattr(lgpio_pins, "SYS_GPIO", str(chips(tmp_path, {0: RP1})))
    monkeypatch.setattr(daemon, "_listdir", lambda folder: ["gpiochip0"])
    monkeypatch.setattr(daemon.faulthandler, "enable", lambda: None)       # pytest's stderr has no file
    monkeypatch.setattr(daemon.Service, "run", lambda service: None)         # a service that starts, stops
    factories = []
    monkeypatch.setattr(daemon, "pin_factory_for", lambda name, opener=daemon.pin_factory_for: (
        factories.append(opener(name)) or factories[-1]))
    pins = load_pinmap(default_pinmap_path("drnim"))
    bcm = [pins.inputs[role].pin] if role in pins.inputs else list(pins.outputs[role].pins.values())
    lgpio.held.add(bcm[0])
    try:
        assert cli.main(["run", "--config", str(write_config(tmp_path)), "--pin-factory", "lgpio"]) == 1
    finally:
        for factory in factories:
            factory.close()         # gpiozero's Pi factories share their pins: none for the next test
    said = capsys.readouterr().err
    assert said.startswith("controller run: the pin map's %s (BCM %s) is held by another program or a driver "
                           "['GPIO busy']: " % (role, ", ".join(map(str, bcm))))
    assert "move the %s to a free pin" % role in said and said.count("\n") == 1


def test_the_servo_gate_gets_the_pulses_its_angles_ask_for(tmp_path, lgpio):
    """The shipped servo gate (5° closed, 16° open, pulses 0.5-2.4 ms) on lgpio: gpiozero rounded
    each duty cycle down to a whole percent, 0.2 ms of the 20 ms frame, so the gate was sent
    1.4 ms (-4.7°, past its slot) to close and 1.6 ms (14.2°) to open."""
    from controller.hardware.devices import release
    from controller.hardware.lgpio_pins import LGPIOFactory
    path = tmp_path / "pinmap.toml"
    path.write_text(servo_variant(default_pinmap_path("drnim").read_text(), "outputs.release"))
    spec = load_pinmap(path).outputs["release"]
    factory = LGPIOFactory(chip=0)
    gate = release(spec, factory)
    try:
        def pulse_ms():
            frequency, duty_cycle = lgpio.pwm[spec.pin]
            return duty_cycle / 100 * 1000 / frequency

        def wanted_ms(angle):
            return 0.5 + (angle + 90) / 180 * (2.4 - 0.5)

        assert pulse_ms() == pytest.approx(wanted_ms(5), abs=0.001)
        gate.open()
        assert pulse_ms() == pytest.approx(wanted_ms(16), abs=0.001)
        gate.shut()
        assert pulse_ms() == pytest.approx(wanted_ms(5), abs=0.001)
        assert gate.angle == pytest.approx(5)
    finally:
        gate.close()
        factory.close()


@pytest.mark.parametrize("model, refused", [
    (b"Raspberry Pi 5 Model B Rev 1.0\0", True),
    (b"Raspberry Pi 4 Model B Rev 1.5\0", False),
], ids=["pi5", "pi4"])
def test_config_check_refuses_rpigpio_on_a_pi_5(tmp_path, monkeypatch, model, refused):
    """An older guide's `pin_factory = "rpigpio"` passed the check on a Pi 5, where RPi.GPIO cannot reach
    the RP1 chip, and the service then failed at start; on an older Pi it is still a backend (RPi.GPIO
    compiled into the venv)."""
    import importlib.machinery
    import importlib.util
    from conftest import in_process
    from controller.service import pin_factories
    real_find_spec = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec", lambda name, *more: importlib.machinery.ModuleSpec("RPi", None)
                        if name == "RPi" else real_find_spec(name, *more))
    (tmp_path / "model").write_bytes(model)
    monkeypatch.setattr(pin_factories, "BOARD_MODEL", str(tmp_path / "model"))
    config = tmp_path / "config.toml"
    config.write_text('[service]\npin_factory = "rpigpio"\n')
    done = in_process(["config", "check", str(config)])
    if refused:
        assert done.returncode != 0
        assert done.stderr.count("\n") == 1
        assert "service.pin_factory: 'rpigpio' cannot work on this Raspberry Pi 5 Model B Rev 1.0" in done.stderr
        assert 'set it to "lgpio"' in done.stderr
    else:
        assert done.returncode == 0, done.stderr
        assert "GPIO backend rpigpio" in done.stdout


def test_config_check_refuses_rpigpio_on_a_pi_whose_install_has_no_rpi_gpio(tmp_path, monkeypatch):
    """A year-old Pi 4 set to "rpigpio" kept RPi.GPIO in its venv; an update that makes the venv again installs
    the pi extra, which does not bring it: `config check` (and the update's own check) said the file was good,
    and the service then failed at its next start, the exhibit dark. It is named in one line now; on a
    computer that is not a Pi, checking a Pi's files, nothing is said of it."""
    import importlib.util
    from conftest import in_process
    from controller.service import pin_factories
    real_find_spec = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec", lambda name, *more: None if name == "RPi" else
                        real_find_spec(name, *more))
    config = tmp_path / "config.toml"
    config.write_text('[service]\npin_factory = "rpigpio"\n')
    (tmp_path / "model").write_bytes(b"Raspberry Pi 4 Model B Rev 1.5\0")
    for model, refused in ((str(tmp_path / "model"), True), (str(tmp_path / "no-model"), False)):
        monkeypatch.setattr(pin_factories, "BOARD_MODEL", model)
        done = in_process(["config", "check", str(config)])
        if refused:
            assert done.returncode != 0 and done.stderr.count("\n") == 1, done.stderr
            assert "service.pin_factory: 'rpigpio' needs RPi.GPIO, which this install does not have" in done.stderr
        else:
            assert done.returncode == 0, done.stderr


def test_gpiozeros_own_variable_naming_rpigpio_on_a_pi_5_is_refused_in_one_line(tmp_path, monkeypatch):
    """An older guide exports GPIOZERO_PIN_FACTORY=rpigpio, which overrides the configuration's backend: on a
    Pi 5 the service then told the technician to install RPi.GPIO, which cannot reach its RP1 chip at all."""
    from controller.service import pin_factories
    from controller.service.daemon import NoGPIO, pin_factory_for
    (tmp_path / "model").write_bytes(b"Raspberry Pi 5 Model B Rev 1.0\0")
    monkeypatch.setattr(pin_factories, "BOARD_MODEL", str(tmp_path / "model"))
    monkeypatch.setenv("GPIOZERO_PIN_FACTORY", "rpigpio")
    with pytest.raises(NoGPIO) as refused:
        pin_factory_for("lgpio")
    assert str(refused.value) == ("GPIOZERO_PIN_FACTORY='rpigpio': 'rpigpio' cannot work on this Raspberry Pi 5 Model B "
                                  "Rev 1.0 (RPi.GPIO cannot reach its RP1 GPIO chip): set it to \"lgpio\", or unset it")


def test_config_check_names_gpiozeros_own_variable_as_the_service_would(tmp_path, monkeypatch):
    """docs/troubleshooting.md sends a technician who removed an older guide's GPIOZERO_PIN_FACTORY=rpigpio to
    `config check`: it said the file was good, with the configuration's backend, while `controller run` in the
    same shell failed on the variable. It now refuses as run does on a Pi 5, and elsewhere names the backend
    the variable chooses (found by the troubleshooting review)."""
    from conftest import in_process
    from controller.service import pin_factories
    config = tmp_path / "config.toml"
    config.write_text('[service]\npin_factory = "lgpio"\n')
    (tmp_path / "model").write_bytes(b"Raspberry Pi 5 Model B Rev 1.0\0")
    monkeypatch.setattr(pin_factories, "BOARD_MODEL", str(tmp_path / "model"))
    monkeypatch.setenv("GPIOZERO_PIN_FACTORY", "rpigpio")
    done = in_process(["config", "check", str(config)])
    assert done.returncode == 1 and done.stdout == ""
    assert done.stderr == ("controller config check: GPIOZERO_PIN_FACTORY='rpigpio': 'rpigpio' cannot work on this "
                           "Raspberry Pi 5 Model B Rev 1.0 (RPi.GPIO cannot reach its RP1 GPIO chip): set it to "
                           "\"lgpio\", or unset it\n")
    monkeypatch.setenv("GPIOZERO_PIN_FACTORY", "mock")
    done = in_process(["config", "check", str(config)])
    assert done.returncode == 0, done.stderr
    assert "GPIO backend mock (GPIOZERO_PIN_FACTORY, over the configuration's lgpio)" in done.stdout
    monkeypatch.delenv("GPIOZERO_PIN_FACTORY")
    assert "GPIO backend lgpio, " in in_process(["config", "check", str(config)]).stdout
