"""`controller safe-off`: every output of the pin map at its inactive level, then exit.

Why: on Raspberry Pi OS a GPIO line that a dying process lets go keeps its last
level (unless the boot configuration says `dtparam=strict_gpiod`), so a service
killed during a release pulse (the watchdog's SIGABRT, a crash, SIGKILL after a
stop that timed out) would leave the 1 A solenoid energised until the next
start, and for good once systemd stops restarting it. The unit runs this
command as `ExecStopPost=`, which systemd runs after every end of the service,
clean or not.

Each output is built with the service's own devices (controller/hardware/boards.py)
and put in the state `Board.safe()` gives it: the release shut (a solenoid off,
a servo gate at its closed angle, then detached), LEDs, LED pairs and the buzzer
off, a servo flipper detached, a 74HC595 chain shifted full of zeros and latched.
One output at a time: one that cannot be driven does not keep the others on.

A bad configuration must not stop the outputs going off: then the machine (and
the GPIO backend) it names are read from it if they can be, and the machine's
pin map is used (the configured one if it loads, else the default one). When
not even the machine can be read (`machine = "drnom"`), every output of every
machine's default pin map is driven off, one map after the other: a solenoid
left energised burns, while a pin that is an input of the machine actually
wired meets a 1 kΩ resistor (every panel button and switch has one, see
hardware/README.md) and ends at a resting level.
"""

import time
import tomllib

from controller.core.exhibit import RELEASE
from controller.core.registry import NAMES, machine_class
from controller.hardware.boards import BUILD
from controller.hardware.devices import ServoRelease
from controller.hardware.pinmap import load_pinmap
from controller.service.config import PIN_FACTORIES, SERVICE_SETTINGS, check_with_pinmap, exhibit_pinmap_path, \
    load_config, read_regular_file
from controller.service.daemon import NoGPIO, pin_factory_for

# A hobby servo crosses its whole travel (180 degrees; an SG90 takes 0.1 s per
# 60) in well under this: the gate is held at its closed angle this long
# before it is detached.
SERVO_CLOSE_S = 0.5


class Choice:
    """What safe-off drives: pin maps (one, or every machine's when the machine cannot be
    read; none: nothing) on a GPIO backend, and the configuration's problem in one line
    (None when the configuration is good)."""

    def __init__(self, pinmaps, backend, problem=None):
        self.pinmaps = pinmaps
        self.backend = backend
        self.problem = problem


def choose(path):
    """The pin map and backend the configuration at `path` (None: the defaults) names,
    or the best that can be read from it when it is bad."""
    try:
        config = load_config(path)
    except ValueError as error:
        machine, backend = named_in(path)
        return fallback(path, machine, backend, str(error))
    machine, backend = config.machine_name, config.service["pin_factory"]
    pinmap_path = config.pinmap_path()
    try:
        pinmap = load_pinmap(pinmap_path)
    except ValueError as error:
        return fallback(path, machine, backend, "pin map: %s" % error)
    if pinmap.machine != machine:
        return fallback(path, machine, backend, "pin map: %s is for %s, not %s" % (pinmap_path, pinmap.machine, machine))
    try:
        check_with_pinmap(config, pinmap)
    except ValueError as error:
        return Choice([pinmap], backend, str(error))
    return Choice([pinmap], backend)


def named_in(path):
    """The machine and GPIO backend a bad configuration names, where they can be read
    (the machine None when it cannot)."""
    default_machine, default_backend = SERVICE_SETTINGS["machine"].default, SERVICE_SETTINGS["pin_factory"].default
    try:
        data = tomllib.loads(read_regular_file(path).decode("utf-8")) if path else {}
    except (ValueError, RecursionError):
        return None, default_backend
    service = data.get("service", {})
    if not isinstance(service, dict):
        return None, default_backend
    machine = service.get("machine", default_machine)
    backend = service.get("pin_factory", default_backend)
    return (machine if machine in NAMES else None), (backend if backend in PIN_FACTORIES else default_backend)


def fallback(path, machine, backend, problem):
    """The default pin map of `machine` (the exhibit's beside the configuration at `path`, else
    the shipped one), or every machine's when the machine is None."""
    if machine is None:
        pinmaps = []
        for name in NAMES:
            try:
                pinmaps.append(load_pinmap(exhibit_pinmap_path(path, name)))
            except ValueError:
                pass    # a damaged default map: the others still go off
        return Choice(pinmaps, backend, "%s; the machine cannot be read from it: used every machine's default pin "
                      "map (%s)" % (problem, ", ".join(pinmap.machine for pinmap in pinmaps) or "none could be read"))
    pinmap_path = exhibit_pinmap_path(path, machine)
    try:
        pinmap = load_pinmap(pinmap_path)
    except ValueError as error:
        return Choice([], backend, "%s; the default %s pin map cannot be used either (%s): no output driven"
                      % (problem, machine, error))
    return Choice([pinmap], backend, "%s; used the default %s pin map %s" % (problem, machine, pinmap_path))


def switch_off(pinmap, pin_factory, sleep=time.sleep):
    """Every output of `pinmap` at its inactive level. Returns (done, failed): one
    short text per output."""
    done, failed = [], []
    for spec in machine_class(pinmap.machine).OUTPUTS:
        wiring = pinmap.outputs[spec.role]
        pins = "BCM " + ", ".join(str(pin) for pin in wiring.pins.values())
        try:
            device = BUILD[spec.kind](wiring, pinmap, pin_factory)
        except Exception as error:
            failed.append("%s (%s): %s" % (spec.role, pins, first_line(error)))
            continue
        try:
            if spec.kind == RELEASE:
                device.shut()
                if isinstance(device, ServoRelease):
                    sleep(SERVO_CLOSE_S)
            else:
                device.off()
            done.append("%s %s (%s)" % (spec.role, what_it_is_now(wiring, spec.kind), pins))
        except Exception as error:
            failed.append("%s (%s): %s" % (spec.role, pins, first_line(error)))
        finally:
            device.close()
    return done, failed


def what_it_is_now(wiring, kind):
    if wiring.kind == "servo":
        if kind == RELEASE:
            return "closed at %s degrees, detached" % wiring.options.get("closed_angle", 0)
        return "detached"
    if wiring.kind == "shift_register":
        return "all %d outputs off" % (8 * wiring.options["registers"])
    return "off"


def first_line(error):
    text = str(error).strip()
    return text.splitlines()[0] if text else type(error).__name__


def run(path, out, err):
    """`controller safe-off`: 0 when every output is off; 2 for a bad configuration
    (after driving off what it could); 1 when the GPIO could not be driven."""
    choice = choose(path)
    if choice.problem:
        err.write("controller safe-off: %s\n" % choice.problem)
    status = 2 if choice.problem else 0
    if not choice.pinmaps:
        return status
    try:
        factory = pin_factory_for(choice.backend, None)     # without GPIO there is nothing to switch off
    except NoGPIO as error:
        err.write("controller safe-off: %s\n" % error)
        return status or 1
    failed = []
    try:
        for pinmap in choice.pinmaps:
            done, more = switch_off(pinmap, factory)
            failed += more
            if done:
                out.write("controller safe-off: %s outputs at rest (pin map %s): %s\n"
                          % (pinmap.machine, pinmap.path, "; ".join(done)))
    finally:
        factory.close()
    if failed:
        err.write("controller safe-off: could not drive %s (is another program using the GPIO?)\n"
                  % "; ".join(failed))
        return status or 1
    return status
