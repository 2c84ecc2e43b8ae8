"""The daemon behind `controller run`: one controller thread around a core machine.

gpiozero calls the board's callbacks on its own threads on a Pi (and in the
caller's thread under MockFactory); they only put raw, timestamped edges on a
queue. This one thread drains the queue, debounces, runs the core machine,
saves the game, then carries out the machine's commands with the physical
timings. It sleeps until the next thing it has to do (an edge, a machine
timer, the end of a release pulse, a watchdog ping): it never busy-polls.

Order matters for crash safety: the state is saved (fsync, atomic rename)
before the commands run, so a crash can lose a command but never leave a
release done that the saved game does not know about; a restarted machine
that finds a release under way holds in "check the marbles".
"""

import faulthandler
import json
import os
import queue
import signal
import sys
import time

from controller.core.exhibit import SWITCH, ConfigError
from controller.core.registry import machine_class
from controller.hardware.boards import Board
from controller.hardware.debounce import Debouncer
from controller.service.notify import Notifier
from controller.service.stats import Statistics
from controller.service.store import StateStore

# State that changes while nothing worth saving happens (the attract lamps).
UNSAVED = ("clock", "attract_step", "shown")


def monotonic_ms():
    return int(time.monotonic() * 1000)


class Service:
    def __init__(self, config, pinmap, pin_factory=None, clock=monotonic_ms, notifier=None, log=None):
        self.config = config
        self.pinmap = pinmap
        self.clock = clock
        self.notifier = notifier or Notifier()
        self.log = log or (lambda text: sys.stderr.write(text + "\n"))
        self.queue = queue.Queue()
        self.stopping = False
        os.makedirs(config.state_dir(), exist_ok=True)
        self.store = StateStore(config.state_dir())
        self.stats = Statistics(os.path.join(config.state_dir(), "stats.sqlite"))
        self.machine = self.restore()
        self.board = Board(pinmap, self.post, pin_factory, self.machine.layout())
        self.debouncers = {}
        for role in self.board.inputs:
            self.debouncers[role] = Debouncer(pinmap.inputs[role].debounce_ms, self.board.level(role))
        self.held_since = {}
        self.shut_at = None
        self.next_ping = None
        self.next_heartbeat = None
        self.saved = None
        self.last_fault = self.machine.fault

    # --- set-up ---------------------------------------------------------------
    def restore(self):
        cls = machine_class(self.config.machine_name)
        saved = self.store.load()
        if saved and saved.get("machine") == cls.NAME and saved.get("config") == self.config.machine:
            self.log("resuming the saved %s game" % cls.NAME)
            return cls.from_dict(saved)
        if saved:
            self.log("the saved game was for other settings: starting a new game")
        return cls(self.config.machine)

    def post(self, role, level):
        """Called by gpiozero for every edge: only timestamp and queue it."""
        self.queue.put((role, level, self.clock()))

    def start(self):
        now = self.clock()
        self.handle(("power",), now)
        if self.notifier.watchdog_ms:
            self.next_ping = now
        self.next_heartbeat = now
        self.notifier.ready("playing %s" % self.config.machine_name)
        self.log("ready: %s on %s" % (self.config.machine_name, self.pinmap.path))

    # --- the loop ---------------------------------------------------------------
    def run(self):
        self.start()
        while not self.stopping:
            self.step()
        self.stop()

    def step(self):
        """Wait for the next edge or deadline, then do everything that is due."""
        now = self.clock()
        deadline = self.next_deadline()
        timeout = None if deadline is None else max(0, deadline - now) / 1000
        try:
            self.edge(self.queue.get(timeout=timeout))
        except queue.Empty:
            pass
        self.pump()

    def pump(self):
        """Handle every queued edge and everything due, without waiting."""
        while True:
            try:
                self.edge(self.queue.get_nowait())
            except queue.Empty:
                break
        self.due(self.clock())

    def edge(self, item):
        if item is None:
            return  # the wake-up that a stop request sends
        role, level, stamp = item
        accepted = self.debouncers[role].edge(level, stamp)
        if accepted is not None:
            self.input(role, accepted, stamp)

    def next_deadline(self):
        times = [self.machine.next_deadline(), self.shut_at, self.next_ping, self.next_heartbeat]
        times += [d.due() for d in self.debouncers.values()]
        times += [since + 1000 * self.config.service["stuck_after_s"] for since in self.held_since.values()]
        times = [t for t in times if t is not None]
        return min(times) if times else None

    def due(self, now):
        for role, debouncer in self.debouncers.items():
            if debouncer.due() is not None and debouncer.due() <= now:
                accepted = debouncer.recheck(self.board.level(role), now)
                if accepted is not None:
                    self.input(role, accepted, now)
        if self.shut_at is not None and self.shut_at <= now:
            self.shut_at = None
            self.board.shut_release()
        deadline = self.machine.next_deadline()
        if deadline is not None and deadline <= now:
            self.handle(("tick",), now)
        for role, since in list(self.held_since.items()):
            if now - since >= 1000 * self.config.service["stuck_after_s"]:
                del self.held_since[role]
                self.log("fault: %s held for %d s: check the button or the sensor"
                         % (role, self.config.service["stuck_after_s"]))
                self.stats.fault(self.config.machine_name, "stuck:" + role)
        if self.next_ping is not None and self.next_ping <= now:
            self.notifier.watchdog()
            self.next_ping = now + self.notifier.watchdog_ms // 2
        if self.next_heartbeat is not None and self.next_heartbeat <= now:
            self.heartbeat()
            self.next_heartbeat = now + 1000 * self.config.service["heartbeat_s"]

    def input(self, role, level, now):
        if level and self.board.inputs[role].kind != SWITCH:
            self.held_since[role] = now
        else:
            self.held_since.pop(role, None)
        event = self.board.event_for(role, level)
        if event is not None:
            self.handle(event, now)

    def handle(self, event, now):
        mode, incidents = self.machine.mode, self.machine.incidents()
        commands = self.machine.handle(event, now)
        self.save()
        self.record(mode, incidents)
        for command in commands:
            if command[0] == "message":
                self.log("message: " + command[1])
            self.board.apply(command)
            if command == ("release",):
                self.shut_at = now + self.config.service["release_pulse_ms"]
        return commands

    def save(self):
        data = self.machine.to_dict()
        kept = json.dumps(dict((k, v) for k, v in data["state"].items() if k not in UNSAVED), sort_keys=True)
        if kept != self.saved:
            self.store.save(data)
            self.saved = kept

    def record(self, mode, incidents):
        machine = self.machine
        name = self.config.machine_name
        if mode == "play" and machine.mode == "over":
            self.stats.game(name, machine.winner)
        fault = machine.fault
        if fault and fault != self.last_fault:
            self.stats.fault(name, fault)
            self.log("fault: " + fault)
        self.last_fault = fault
        for kind, count in machine.incidents().items():
            if count > incidents.get(kind, 0):
                self.stats.fault(name, kind)

    def heartbeat(self):
        status = {"pid": os.getpid(), "heartbeat": time.time(), "machine": self.config.machine_name}
        status.update(self.machine.status())
        folder = self.config.runtime_dir()
        try:
            os.makedirs(folder, exist_ok=True)
            temporary = os.path.join(folder, "status.json.new")
            with open(temporary, "w") as f:
                json.dump(status, f)
            os.replace(temporary, os.path.join(folder, "status.json"))
        except OSError as error:
            self.log("cannot write the status file in %s: %s" % (folder, error))

    # --- the end -----------------------------------------------------------------
    def request_stop(self, *_):
        self.stopping = True
        self.queue.put(None)

    def stop(self):
        self.notifier.stopping()
        self.board.safe()
        self.save()
        self.board.close()
        self.stats.close()
        self.log("stopped: every output is off")


class NoGPIO(ConfigError):
    """No usable GPIO on this machine."""


def pin_factory_for(name):
    """The gpiozero pin factory for a backend name, or ConfigError saying why not."""
    if name == "mock":
        from gpiozero.pins.mock import MockFactory, MockPWMPin
        return MockFactory(pin_class=MockPWMPin)
    if name == "lgpio" and not any(entry.startswith("gpiochip") for entry in _listdir("/dev")):
        raise NoGPIO("this machine has no GPIO (no /dev/gpiochip*): to bench-test the controller "
                     "without hardware, use 'controller --simulate'")
    try:
        if name == "lgpio":
            from gpiozero.pins.lgpio import LGPIOFactory
            return LGPIOFactory()
        from gpiozero.pins.rpigpio import RPiGPIOFactory
        return RPiGPIOFactory()
    except ImportError as error:
        raise NoGPIO("the %s GPIO backend is not installed (%s): on a Raspberry Pi, "
                     "pip install 'drnim-controller[pi]'; without hardware, use 'controller --simulate'"
                     % (name, error))
    except Exception as error:
        raise NoGPIO("the %s GPIO backend found no GPIO here (%s): without hardware, use "
                     "'controller --simulate'" % (name, str(error).splitlines()[0] if str(error) else error))


def _listdir(path):
    try:
        return os.listdir(path)
    except OSError:
        return []


def run(config, pinmap, pin_factory):
    """Run the service until SIGTERM or SIGINT."""
    # If the watchdog ever kills a hung loop (SIGABRT), every thread's traceback goes to the journal.
    faulthandler.enable()
    service = Service(config, pinmap, pin_factory)
    signal.signal(signal.SIGTERM, service.request_stop)
    signal.signal(signal.SIGINT, service.request_stop)
    service.run()
    return 0
