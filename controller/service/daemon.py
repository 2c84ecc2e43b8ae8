"""The daemon behind `controller run`: one controller thread around a core machine.

gpiozero calls the board's callbacks on its own threads on a Pi (and in the
caller's thread under MockFactory); they only put raw, timestamped edges on a
queue. This one thread takes the edges in batches of at most `BATCH`,
checking its deadlines after each batch (so an input that floods the queue
cannot hold a release open), debounces them, runs the core machine, saves
the game, then carries out the machine's commands with the physical timings.
It sleeps until the next thing it has to do (an edge, a machine timer, the
end of a release pulse, a watchdog ping, a reading of the Pi's supply and heat once a
second on a Raspberry Pi: power.py): it never busy-polls.

Order matters for crash safety: the state is saved (a synced write: store.py)
before a release opens, so a crash can lose a command but never leave a
release done that the saved game does not know about (other commands, the
lamps a visitor watches, go first: core/keeping.py); a restarted machine
that finds a release under way holds in "check the marbles". Only changes
worth keeping are saved: the attract pattern and the idle clock write nothing.
A change while the release is open is saved once it has shut: the write
would hold the loop, and the solenoid open, for as long as the card takes.

What never stops the game, each with one line in the log and a fault in
`controller status`: a saved game that cannot be resumed (set aside under a
time-stamped name, the machine held in fault "check" until staff press New
game); statistics that cannot be written (they have a thread of their own);
a state folder that is or turns read-only or full (the game plays on unsaved and
every change tries again); an input that changes more often than any person
or marble can (fault "noisy:<role>": ignored until it calms down); a button held, or
a beam broken, for `stuck_after_s`, from the start too (fault "stuck:<role>": until
it is let go). Nor does a servo gate whose angles jam the printed gate (pin map
check.check_gate): `config check` and `firmware build` refuse the pin map, but an
exhibit that has run with it must not go dark on an upgrade: it is a fault of the
service's own ("gate"), said in the journal and by `controller status`.

A stop request (SIGTERM, SIGINT, SIGHUP) only sets a flag and puts a wake-up on the
queue, a `queue.SimpleQueue`, whose put never waits for a lock: a signal
that arrives while the loop is inside the queue cannot deadlock the stop.
"""

import faulthandler
import json
import os
import queue
import signal
import sys
import time

from controller.built import described
from controller.core.exhibit import RESTING_TIMERS, SENSOR, SWITCH, ConfigError
from controller.core.keeping import Keeper
from controller.core.saves import resume
from controller.core.registry import machine_class
from controller.hardware.boards import Board
from controller.hardware.pinmap.check import PinMapError, check_gate, ribbon_warnings, serial_port_warnings
from controller.hardware.pins_held import PinHeld
from controller.core.debounce import Debouncer
from controller.service.clock import follow_time_zone
from controller.service.exhibit_lock import Held, take
from controller.service.config import PIN_FACTORIES, release_open_ms, unplayed_wiring
from controller.service.pin_factories import pin_factory_problem
from controller.service.mounts import IN_RAM, READ_ONLY, kernel_mounts, not_kept
from controller.service.notify import Notifier
from controller.service.power import READ_EVERY_MS, SYSTEM_ROOT, watch
from controller.service.sound import Sound, local_minute
from controller.service.stats import Statistics
from controller.service.store import StateStore, replace_file

# Edges handled before the deadlines are looked at again.
BATCH = 64
# An input with more raw edges than this in a window is in a storm: no
# button, switch or marble sensor changes that often (a bouncing contact
# gives a few dozen edges a press, a marble two).
STORM_EDGES = 100
STORM_WINDOW_MS = 100
# ...and it is calm again after a whole calm window with fewer edges than this.
CALM_EDGES = 10
CALM_WINDOW_MS = 1000
# An input that storms again within FLAPPING_AGAIN_MS of calming keeps flapping (a worn contact, a
# loose wire): it is read again only after a calm window of FLAPPING_MS, twice as long each time it
# storms again so (up to FLAPPING_MAX_MS), so that it is one fault, not one a burst in the journal,
# the statistics and the broker, and its bursts play no presses, however far apart they crackle.
FLAPPING_AGAIN_MS = 10 * 60 * 1000
FLAPPING_MS = 60 * 1000
FLAPPING_MAX_MS = 60 * 60 * 1000
# A game's first move came before this start, on another clock: its length is unknown.
RESTORED = "restored"
# What to do about a pin of the map that something else holds at start (PinHeld), %s the role: exit 1,
# so systemd tries again a few times (a self-test left running ends), then gives up.
HELD_BY_OTHERS = ("a `controller selftest` or another controller left running lets go when it ends; a HAT's or a "
                  "fan's driver keeps it (a dtoverlay line in /boot/firmware/config.txt; `gpioinfo` names the holder "
                  "of each line): list that pin under [reserved] in the pin map and move the %s to a free pin "
                  "(hardware/README.md: A HAT or a fan on the header)")


def monotonic_ms():
    return int(time.monotonic() * 1000)


class Storm:
    """How often one input changes: counted in windows of STORM_WINDOW_MS."""

    def __init__(self):
        self.start = None
        self.count = 0
        self.noisy = False
        self.dropped = 0       # edges dropped at the callback while noisy
        self.calmed_at = None  # when it last calmed down
        self.calm_ms = CALM_WINDOW_MS   # how long it must be calm to be read again

    def edge(self, stamp):
        """Count one raw edge; True when it starts a storm."""
        if self.start is None or stamp - self.start >= STORM_WINDOW_MS:
            self.start = stamp
            self.count = 0
        self.count += 1
        if not self.noisy and self.count > STORM_EDGES:
            self.noisy = True
            self.dropped = 0
            self.start = stamp
            return True
        return False


class Service:
    def __init__(self, config, pinmap, pin_factory=None, clock=monotonic_ms, notifier=None, log=None, mounts="",
                 power_root=None, local_time=local_minute):
        """`mounts`: the kernel's mount table as text (mounts.read_mounts), for what it says of the
        state folder; "" says nothing. `power_root`: the folder that holds the kernel's sys/ ("/"),
        where the Pi's under-voltage alarm and CPU temperature are read (power.py); None reads
        nothing (the simulator, a test). `local_time`: the minute of the day by the local clock,
        which the quiet hours of [exhibit] follow (sound.py)."""
        self.config = config
        self.sound = Sound(config.exhibit)
        self.local_time = local_time
        self.sound_told = None   # what the journal was last told the buzzer plays: all, faults or none
        self.language = config.language()     # what the machine says, in the log, in the museum's first language
        self.pinmap = pinmap
        self.clock = clock
        self.notifier = notifier or Notifier()
        self.log = log or (lambda text: sys.stderr.write(text + "\n"))
        self.queue = queue.SimpleQueue()
        self.stopping = False
        self.faults = {}       # the service's own faults, by kind -> one line, for `controller status`
        self.writes = 0        # saves written, for the benchmarks
        # (READ_ONLY or IN_RAM, where), when what the state folder holds is not kept over a reboot
        self.not_kept = not_kept(config.state_dir(), mounts)
        if self.not_kept and self.not_kept[0] == IN_RAM:
            self.service_fault("in-ram", "%s is %s: the saved game, the statistics and the reports not yet sent "
                                         "are lost at every reboot or power cut, and a game cut off by one does not "
                                         "resume; give the service a partition of its own (docs/troubleshooting.md)"
                               % (config.state_dir(), self.not_kept[1]))
        os.makedirs(config.state_dir(), exist_ok=True)
        self.store = StateStore(config.state_dir())
        self.stats = Statistics(os.path.join(config.state_dir(), "stats.sqlite"), log=self.log)
        self.telemetry = self.start_telemetry()
        # the live game for a screen beside the exhibit (telemetry/live.py), with telemetry
        self.live = None
        if self.telemetry:
            from controller.telemetry.live import LiveGame
            self.live = LiveGame(self.telemetry.live)
        self.machine = self.restore()
        # When this game's first move came (self.clock(), ms), for its duration: RESTORED when it
        # came before this start (unknown), None before the first move.
        self.first_move_at = RESTORED if self.machine.turns else None
        # before the board: its buttons call post() from the moment they are built, while the outputs
        # still are (a contact that bounces at power-up)
        self.storms = {}
        self.board = Board(pinmap, self.post, pin_factory, self.machine.layout())
        self.debouncers = {}
        for role in self.board.inputs:
            spec = pinmap.inputs[role]
            self.debouncers[role] = Debouncer(spec.debounce_ms, self.board.level(role), spec.min_pulse_ms)
            self.storms[role] = Storm()
        self.held_since = {}
        self.calm_check = {}
        self.shut_at = None
        self.keeper = Keeper()
        self.next_ping = None
        self.next_heartbeat = None
        self.power = watch(power_root) if power_root else None
        self.next_power_read = None
        self.last_fault = self.machine.fault

    # --- set-up ---------------------------------------------------------------
    def start_telemetry(self):
        """The publisher to the MQTT broker, when [telemetry] is enabled (its own threads). Without
        paho-mqtt the exhibit plays on unreported, its service fault saying what to install."""
        if not self.config.telemetry["enabled"]:
            return None
        try:
            from controller.telemetry.publisher import Telemetry
        except ImportError as error:
            from controller.extras import missing
            self.service_fault("telemetry", "[telemetry] is enabled, but nothing is reported: %s"
                               % missing("telemetry", error))
            return None
        return Telemetry(self.config.telemetry, self.config.machine_name, self.config.state_dir(), self.log,
                         config_path=self.config.path)

    def restore(self):
        """The saved game, resumed; a new game when there is none or the settings
        changed; the game held in "check" when the save cannot be trusted."""
        cls = machine_class(self.config.machine_name)
        data, problem = self.store.read()
        machine, how, note = resume(cls, self.config.machine, data, problem)
        if how == "saved":
            self.log("resuming the saved %s game" % cls.NAME)
        elif how == "new" and note:
            self.log("%s: starting a new game" % note)
        elif how == "check":
            aside = self.store.set_aside()
            self.log("the saved game %s cannot be resumed (%s): kept as %s; holding in fault check until staff "
                     "look at the machine and press New game" % (self.store.path, note,
                                                                 aside or "it is (cannot rename)"))
            self.fault_seen("damaged-save")
        return machine

    def post(self, role, level):
        """Called by gpiozero for every edge: only timestamp and queue it (or,
        for an input in a storm, count it and drop it)."""
        storm = self.storms.get(role)
        if storm is not None and storm.noisy:
            storm.dropped += 1
            return
        self.queue.put((role, level, self.clock()))

    def start(self):
        now = self.clock()
        self.handle(("power",), now)
        self.tell_switches(now)
        for role, debouncer in self.debouncers.items():
            if debouncer.level and self.board.inputs[role].kind != SWITCH:
                self.held_since[role] = now     # held down already (a stuck button, a blocked beam): timed as any hold
        if self.notifier.watchdog_ms:
            self.next_ping = now
        self.next_heartbeat = now
        if self.power:
            self.next_power_read = now
        self.notifier.ready("playing %s" % self.config.machine_name)
        self.log("ready: %s on %s" % (self.config.machine_name, self.pinmap.path))
        self.warn_of_wiring()
        self.tell_sound()

    def warn_of_wiring(self):
        """A fault of the service's own ("gate") when the pin map's servo gate jams the printed gate: the
        service plays on (an exhibit built before the check, or with a gate of its own, keeps running),
        and the journal and `controller status` say why the marbles stick and what `config check` says of
        it. And a warning line for each output on the serial port's pins, which a port switched on drives
        while the Pi boots, and for rows or lamps wired and never played (config.unplayed_wiring)."""
        try:
            check_gate(self.pinmap)
        except PinMapError as error:
            self.service_fault("gate", "%s (the service runs with it; controller config check refuses it until it "
                                       "is mended)" % error)
        for line in serial_port_warnings(self.pinmap) + ribbon_warnings(self.pinmap) + unplayed_wiring(
                self.config, self.pinmap):
            self.log("warning: %s" % line)

    def tell_sound(self):
        """Say in the journal what the buzzer plays, at the start and when the quiet hours begin or end:
        a technician who forgot the setting must not replace a buzzer that works."""
        minute = self.local_time()
        level, said = self.sound.level_at(minute), self.sound.said(minute)
        if said is not None and level != self.sound_told:
            self.log("sound: " + said)
        self.sound_told = level

    def tell_switches(self, now):
        """Tell the machine where the switches it remembers (Dr. Nim's equalizer) really are,
        when that is not where it believes: one may have been moved while the controller
        was off, or stand elsewhere than the configuration says."""
        for role, active in sorted(self.machine.switches().items()):
            level = self.board.level(role)
            if level != active:
                self.input(role, level, now)

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
        """Handle the queued edges, BATCH at a time with everything due after
        each batch, until the queue is empty or a stop is asked for."""
        while True:
            handled = 0
            while handled < BATCH:
                try:
                    item = self.queue.get_nowait()
                except queue.Empty:
                    break
                self.edge(item)
                handled += 1
            self.due(self.clock())
            if handled < BATCH or self.stopping:
                return

    def edge(self, item):
        if item is None:
            return  # the wake-up that a stop request sends
        role, level, stamp = item
        storm = self.storms[role]
        if storm.noisy:
            storm.dropped += 1
            return
        if storm.edge(stamp):
            self.noisy(role, stamp)
            return
        accepted = self.debouncers[role].edge(level, stamp)
        if accepted is not None:
            self.input(role, accepted, stamp)

    def noisy(self, role, now):
        """An input in a storm: reported once, ignored until it calms down."""
        kind = "noisy:" + role
        storm = self.storms[role]
        flapping = storm.calmed_at is not None and now - storm.calmed_at < FLAPPING_AGAIN_MS
        if not flapping:
            storm.calm_ms = CALM_WINDOW_MS
        else:
            storm.calm_ms = FLAPPING_MS if storm.calm_ms < FLAPPING_MS else min(FLAPPING_MAX_MS, 2 * storm.calm_ms)
        self.faults[kind] = "%s changed more than %d times in %d ms: ignored until it calms down (a loose wire, " \
                            "a floating input or interference)" % (role, STORM_EDGES, STORM_WINDOW_MS)
        if flapping:
            minutes = storm.calm_ms // 60000
            self.faults[kind] += "; again within %d minutes of calming: read again after %s" % (
                FLAPPING_AGAIN_MS // 60000, "a whole calm minute" if minutes == 1 else "%d calm minutes" % minutes)
        self.log("fault: %s: %s" % (kind, self.faults[kind]))
        self.fault_seen(kind)
        self.held_since.pop(role, None)
        self.faults.pop("stuck:" + role, None)
        self.calm_check[role] = now + storm.calm_ms

    def calm(self, role, now):
        storm = self.storms[role]
        if storm.dropped >= CALM_EDGES:
            storm.dropped = 0
            self.calm_check[role] = now + storm.calm_ms
            return
        del self.calm_check[role]
        storm.noisy = False
        storm.calmed_at = now
        storm.start = None
        self.faults.pop("noisy:" + role, None)
        # the input's level now is its level: no press is made of the storm's last edge
        self.debouncers[role].reset(self.board.level(role))
        self.log("%s is calm again: read as before" % role)

    def next_deadline(self):
        times = [self.machine.next_deadline(), self.next_ping, self.next_heartbeat, self.next_power_read,
                 self.next_busy_deadline()]
        times = [t for t in times if t is not None]
        return min(times) if times else None

    def next_busy_deadline(self):
        """The next deadline of something under way (a pulse, a debounce, a
        machine move...), leaving out what only runs at rest (the attract
        lamps, the idle clock, the heartbeat): None when the machine is at rest."""
        times = [self.shut_at] + [d.due() for d in self.debouncers.values()]
        times += [since + 1000 * self.config.service["stuck_after_s"] for since in self.held_since.values()]
        times += list(self.calm_check.values())
        times += [due for name, due in self.machine.state["timers"].items() if name not in RESTING_TIMERS]
        times = [t for t in times if t is not None]
        return min(times) if times else None

    def due(self, now):
        if self.shut_at is not None and self.shut_at <= now:
            self.shut_at = None
            self.board.shut_release()
            if self.keeper.waiting:
                self.save()
        for role, debouncer in self.debouncers.items():
            if debouncer.due() is not None and debouncer.due() <= now:
                if self.storms[role].noisy:
                    debouncer.reset(debouncer.level)     # ignored until calm: nothing to read again
                    continue
                accepted = debouncer.recheck(self.board.level(role), now)
                if accepted is not None:
                    self.input(role, accepted, now)
        for role, at in list(self.calm_check.items()):
            if at <= now:
                self.calm(role, now)
        deadline = self.machine.next_deadline()
        if deadline is not None and deadline <= now:
            self.handle(("tick",), now)
        for role, since in list(self.held_since.items()):
            if now - since >= 1000 * self.config.service["stuck_after_s"]:
                del self.held_since[role]
                self.service_fault("stuck:" + role, self.stuck_said(role, now - since))
                self.fault_seen("stuck:" + role)
        if self.next_ping is not None and self.next_ping <= now:
            self.notifier.watchdog()
            self.next_ping = now + self.notifier.watchdog_ms // 2
        if self.next_power_read is not None and self.next_power_read <= now:
            self.read_power(now)
            self.next_power_read = now + READ_EVERY_MS
        if self.next_heartbeat is not None and self.next_heartbeat <= now:
            self.heartbeat()
            self.next_heartbeat = now + 1000 * self.config.service["heartbeat_s"]

    def read_power(self, now):
        """The Pi's supply and heat read (power.py): an episode of under-voltage or heat begun is counted as
        a fault is, in the statistics and to the broker, and one begun or over sent to the broker at once."""
        before = (self.power.episodes, self.power.hot_episodes)
        said = self.power.read(now)
        for line in said:
            self.log(line)
        if self.power.episodes > before[0]:
            self.fault_seen("under-voltage")
        if self.power.hot_episodes > before[1]:
            self.fault_seen("too-hot")
        if said:
            self.publish_status()

    def input(self, role, level, now):
        if level and self.board.inputs[role].kind != SWITCH:
            self.held_since[role] = now
        else:
            self.held_since.pop(role, None)
            self.mended("stuck:" + role, "%s let go: read as before" % role)
        event = self.board.event_for(role, level)
        if event is not None:
            self.handle(event, now)

    def handle(self, event, now):
        mode, incidents, resting = self.machine.mode, self.machine.incidents(), self.machine.resting
        commands = self.machine.handle(event, now)
        saved_first = self.keeper.first(commands)
        if saved_first:
            self.save()
        self.record(mode, incidents)
        for command in commands:
            if command[0] == "message":
                self.log("message: " + self.language.message(command[1], command[2]))
            if command[0] == "sound" and not self.plays(command[1]):
                continue
            self.board.apply(command)
            if command == ("release",):
                # timed from now, not from the edge that asked for it: a late loop must not shorten the pulse
                self.shut_at = self.clock() + release_open_ms(self.config, self.pinmap)
        if not saved_first:
            self.save()
        if self.live:
            # after the outputs: the broker's copy never delays the machine's own
            self.live.handled(self.machine, event, now, commands, resting)
        return commands

    def plays(self, cue):
        """Whether the buzzer plays the machine's sound `cue` now ([exhibit] sound and quiet hours)."""
        return self.sound.plays(cue, self.local_time())

    def save(self):
        """Write the game as controller/core/keeping.py says (a release that is
        open is first let shut). A write that fails (a full or read-only card)
        leaves the game playing unsaved, with one line in the log; the next
        change tries again."""
        data = self.keeper.wanted(self.machine, self.shut_at is not None)
        if data is None:
            return
        try:
            self.store.save(data)
        except OSError as error:
            self.unsaved(error)
            return
        self.keeper.written(data)
        self.writes += 1
        self.mended("storage", "the game is saved again in %s" % self.store.folder)

    def unsaved(self, error):
        """The game cannot be saved (a full or read-only card): said once, until a save works again."""
        problem = "cannot save the game in %s (%s): playing on unsaved; a restart now loses this game" % (
            self.store.folder, error.strerror or error)
        if self.not_kept and self.not_kept[0] == READ_ONLY:
            problem += "; it is %s, where neither a game nor the statistics can be kept: give the service a " \
                       "partition of its own (docs/troubleshooting.md)" % self.not_kept[1]
        self.service_fault("storage", problem)

    def stuck_said(self, role, held_ms):
        """A stuck input, in words an attendant can act on: the part by its pin map's label, since when
        by the local clock (the line stays while it lasts: 'held for 30 s', the setting, read as how long it
        had lasted hours later), and what holds such a part."""
        since = time.strftime("since %H:%M", time.localtime(time.time() - held_ms / 1000))
        label = self.pinmap.inputs[role].label
        if self.board.inputs[role].kind == SENSOR:
            return "%s blocked %s: a marble sitting in its beam, or its emitter unpowered" % (label, since)
        return "%s held down %s: the button stuck down, or its wire touching ground" % (label, since)

    def service_fault(self, kind, problem):
        """A fault of the service's own, kept for `controller status` and the broker, and said in the
        log once until it changes: a card that stays full must not write a line every few seconds."""
        if self.faults.get(kind) != problem:
            self.log("fault: %s: %s" % (kind, problem))
        self.faults[kind] = problem

    def mended(self, kind, text):
        """A fault of the service's own is over: said once in the log."""
        if self.faults.pop(kind, None):
            self.log(text)

    def record(self, mode, incidents):
        machine = self.machine
        name = self.config.machine_name
        if mode == "play" and machine.mode == "over":
            lasted = None if self.first_move_at in (None, RESTORED) else (self.clock() - self.first_move_at) // 1000
            self.stats.game(name, machine.winner, lasted)
            if self.telemetry:
                self.telemetry.game(machine.winner, len(machine.turns), lasted, self.config.machine)
        if not machine.turns:
            self.first_move_at = None
        elif self.first_move_at is None:
            self.first_move_at = self.clock()
        fault = machine.fault
        if fault and fault != self.last_fault:
            self.fault_seen(fault)
            self.log("fault: " + fault)
        self.last_fault = fault
        for kind, count in machine.incidents().items():
            if count > incidents.get(kind, 0):
                self.fault_seen(kind)
        self.publish_status()

    def fault_seen(self, kind):
        """A fault into the statistics, and to the broker."""
        self.stats.fault(self.config.machine_name, kind)
        if self.telemetry:
            self.telemetry.fault(kind)

    def publish_status(self):
        """The status to the telemetry, which sends it at once when what staff look at changed,
        else at its heartbeat (publisher.STATUS_CHANGES)."""
        if not self.telemetry:
            return
        status = self.machine.status()
        status["service_faults"] = sorted(self.service_faults())
        if self.power:
            status["power"] = self.power.status(self.clock())
        self.telemetry.status(status)

    def service_faults(self):
        """The service's own faults (storage, statistics, noisy or stuck inputs), one line each."""
        faults = dict(self.faults)
        if self.stats.problem:
            faults["statistics"] = self.stats.problem
        return faults

    def heartbeat(self):
        follow_time_zone(self.log)
        self.board.rewrite_lamps()
        self.tell_sound()
        # a heartbeat that can be read was written: it never says that the status file cannot be (the fleet hears
        # that fault, publish_status, and `controller status` a heartbeat that grows stale)
        faults = {kind: text for kind, text in self.service_faults().items() if kind != "status-file"}
        # "monotonic": the system's clock since boot, which network time never moves (controller status)
        status = {"pid": os.getpid(), "heartbeat": time.time(), "monotonic": time.monotonic(),
                  "version": described(), "machine": self.config.machine_name, "service_faults": faults}
        if self.telemetry:
            # "problem": a proxy that forwards elsewhere, or what the broker did when last tried (Telemetry.problem)
            status["telemetry"] = {"broker": self.telemetry.where, "connected": self.telemetry.connected,
                                   "queued": self.telemetry.queued, "problem": self.telemetry.problem}
        if self.power:
            status["power"] = self.power.status(self.clock())
        said = self.sound.said(self.local_time())
        if said:
            status["sound"] = said
        status.update(self.machine.status())
        folder = self.config.runtime_dir()
        try:
            os.makedirs(folder, exist_ok=True)
            # readable by staff for `controller status`; a link planted at status.json.new is never followed
            replace_file(os.path.join(folder, "status.json"), json.dumps(status).encode(), mode=0o644, durable=False)
        except OSError as error:
            self.service_fault("status-file", "cannot write the status file in %s (%s): the game goes on, but "
                                              "`controller status` shows no new heartbeat until it can be"
                               % (folder, error.strerror or error))
        else:
            self.mended("status-file", "the status file is written again in %s" % folder)
        # after the status file, so that the fleet hears its fault begin and end with this heartbeat
        self.publish_status()

    # --- the end -----------------------------------------------------------------
    def request_stop(self, *_):
        """Safe in a signal handler: a flag, and a wake-up put without waiting for any lock."""
        self.stopping = True
        self.queue.put(None)

    def stop(self):
        self.notifier.stopping()
        self.board.safe()
        self.shut_at = None     # safe() shut the release: the last save has nothing to wait for
        self.save()
        self.board.close()
        self.stats.close()
        if self.telemetry:
            self.telemetry.close()
        try:
            os.remove(os.path.join(self.config.runtime_dir(), "status.json"))
        except OSError:
            pass    # never written, or the folder gone: nothing says the service runs
        self.log("stopped: every output is off")


class NoGPIO(ConfigError):
    """No usable GPIO on this machine."""


def pin_factory_for(name, instead="controller --simulate"):
    """The gpiozero pin factory for a backend name, or ConfigError saying why not (and, when there is
    no GPIO, the command to use `instead` on a computer without it; None: none).

    GPIOZERO_PIN_FACTORY, gpiozero's own variable, overrides the name when it is
    set, so that `controller run` and `controller safe-off` always drive the same
    pins: one of our names, or any gpiozero pin-factory entry point (a third
    party's backend, a test's pins)."""
    override = pin_factory_override()
    if override and override.lower() not in PIN_FACTORIES:
        return entry_point_factory(override)
    name = override.lower() or name
    if name == "mock":
        from gpiozero.pins.mock import MockFactory
        from controller.sim.pins import BoundedPin
        return MockFactory(pin_class=BoundedPin)
    hint = "; without hardware, use '%s'" % instead if instead else ""
    if name == "lgpio" and not any(entry.startswith("gpiochip") for entry in _listdir("/dev")):
        raise NoGPIO("this machine has no GPIO (no /dev/gpiochip*)" + hint)
    try:
        if name == "lgpio":
            from controller.hardware.lgpio_pins import LGPIOFactory
            return LGPIOFactory()
        from gpiozero.pins.rpigpio import RPiGPIOFactory
        return RPiGPIOFactory()
    except ImportError as error:
        from controller.extras import missing
        raise NoGPIO("the %s GPIO backend is not installed: %s%s"
                     % (name, missing("pi" if name == "lgpio" else "rpigpio", error), hint))
    except Exception as error:
        raise NoGPIO("the %s GPIO backend found no GPIO here (%s)%s"
                     % (name, str(error).splitlines()[0] if str(error) else error, hint))


def pin_factory_override():
    """GPIOZERO_PIN_FACTORY, gpiozero's own variable, which overrides the configuration's backend (an older
    guide has it exported): the name it gives, or ''. NoGPIO when it names one of ours that cannot drive this
    board: the configuration's own name is checked with it (config.py), the variable is not."""
    override = os.environ.get("GPIOZERO_PIN_FACTORY", "")
    problem = pin_factory_problem(override.lower()) if override.lower() in PIN_FACTORIES else None
    if problem:
        raise NoGPIO("GPIOZERO_PIN_FACTORY=%r: %s, or unset it" % (override, problem))
    return override


def entry_point_factory(name):
    """The pin factory that a gpiozero_pin_factories entry point `name` makes."""
    from importlib.metadata import entry_points
    found = [entry for entry in entry_points(group="gpiozero_pin_factories") if entry.name.lower() == name.lower()]
    if not found:
        raise NoGPIO("GPIOZERO_PIN_FACTORY=%r: no gpiozero pin factory has that name (installed: %s)" % (
            name, ", ".join(sorted(entry.name for entry in entry_points(group="gpiozero_pin_factories")))))
    try:
        return found[0].load()()
    except Exception as error:
        raise NoGPIO("GPIOZERO_PIN_FACTORY=%r: the pin factory %s failed (%s)" % (
            name, found[0].value, str(error).splitlines()[0] if str(error) else type(error).__name__))


def _listdir(path):
    try:
        return os.listdir(path)
    except OSError:
        return []


def hold_state_folder(folder, config_path=None):
    """The state folder's lock (exhibit_lock.py), held for as long as this process runs: a second
    service on the same folder, started by hand beside systemd's, or the monitor of a board run as
    the configuration's own exhibit, would overwrite its saved game and statistics. RuntimeError
    naming the one that runs it and what to do, or the setting when the folder cannot be made or
    written. A card gone read-only or full is not refused: the saved game can still be read, and the
    service plays on unsaved, as when the card fails during play. Returns (the lock, None), or (the
    lock, the OSError that says why the folder cannot be written)."""
    try:
        return take(folder)
    except ImportError:
        raise RuntimeError("the service runs on a Raspberry Pi (Linux), and this computer has no fcntl to lock its "
                           "state folder with: here, try it with controller --simulate")
    except OSError as error:
        raise RuntimeError("service.state_dir: cannot keep the game in %s (%s): give a folder this user may "
                           "write, or run as the service's user" % (folder, error.strerror or error))
    except Held as held:
        if held.port is None:
            raise RuntimeError("another controller service (pid %s) keeps its game in %s: stop it first (sudo "
                               "systemctl stop drnim-controller, or Ctrl-C where it was started by hand), or give "
                               "this one a state_dir of its own" % (held.pid, folder))
        raise RuntimeError("%s runs this exhibit, whose files are in %s: name that board in [boards] of %s for an "
                           "exhibit of its own beside this machine, or stop the monitor (sudo systemctl disable "
                           "--now drnim-monitor@$(systemd-escape --path %s).service)"
                           % (held.who(), folder, config_path or "the configuration", held.port))


def run(config, pinmap, pin_factory, mounts=None):
    """Run the service until SIGTERM, SIGINT or SIGHUP. `mounts`: the mount table's text (a test's);
    None reads the kernel's when systemd started the service (mounts.started_by_systemd), else
    says nothing of it. The Pi's supply and heat are read where the kernel shows them (power.py)."""
    # If the watchdog ever kills a hung loop (SIGABRT), every thread's traceback goes to the journal.
    faulthandler.enable()
    lock, unwritable = hold_state_folder(config.state_dir(), config.path)
    with lock:
        try:
            service = Service(config, pinmap, pin_factory, mounts=kernel_mounts() if mounts is None else mounts,
                              power_root=SYSTEM_ROOT)
        except PinHeld as error:
            sys.stderr.write("controller run: %s: %s\n" % (error, HELD_BY_OTHERS % error.role))
            return 1
        if unwritable:
            service.unsaved(unwritable)
        # SIGHUP too: a service run by hand over ssh gets it when the session closes, and must not die
        # with its outputs as they were (outside systemd no safe-off follows)
        for number in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP):
            signal.signal(number, service.request_stop)
        service.run()
    return 0
