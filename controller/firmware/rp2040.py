"""`--emulate rp2040`: the official MicroPython for the Pico, run instruction by instruction.

rp2040js (npm, pinned in controller/firmware/pico/package.json) runs the
MicroPython UF2 a user flashes (`CONTROLLER_PICO_UF2`, or `--uf2`) with the
RP2040's boot ROM (`CONTROLLER_RP2040_BOOTROM`, else bootrom-b1.bin beside
the UF2), in a Node process of its
own (pico/emulator.mjs). Its USB serial is the master end of a
pseudo-terminal: the slave end is the board's port by path, which
`controller firmware deploy` (mpremote), the monitor and the tests open with
pyserial, as a Pico's /dev/ttyACM0.

Time is the host's. While a deploy runs, the chip runs freely; otherwise it
runs only while the host waits for it: `EmulatedLink.receive(timeout)` lets
the board's own time pass until a line comes out or `timeout` seconds of it
have passed, so a script's "wait 500" is 500 ms of the board's clock however
slow the emulation. The marble world (firmware/emulator/world.py, the core's
marble model) is outside the chip: it watches the release pin and drives
the sensor pin at the very times its marbles fall, and the scripts' hands
press the buttons by driving their pins. A power cut starts the chip again
from its flash.
"""

import json
import math
import os
import select
import shutil
import subprocess
import tempfile
import threading
import time
import tty
from pathlib import Path

from controller.cache import cache_folder, locked
from controller.core.protocol import PRODUCTION
from controller.firmware.link import Link
from controller.firmware.tools import FIRMWARE, FirmwareError, say
from controller.shipped import firmware_readme

UF2_VARIABLE = "CONTROLLER_PICO_UF2"
BOOTROM_VARIABLE = "CONTROLLER_RP2040_BOOTROM"
BOOTROM_NAME = "bootrom-b1.bin"     # looked for beside the UF2 when the variable is not set
HARNESS = Path(__file__).resolve().parent / "pico"
HARNESS_FILES = ("emulator.mjs", "package.json", "package-lock.json")
WHERE = ("MicroPython for the Raspberry Pi Pico: the RPI_PICO .uf2 from micropython.org/download/RPI_PICO; "
         "the RP2040's boot ROM: bootrom-b1.bin, built from github.com/raspberrypi/pico-bootrom (%s)" % firmware_readme())
# A command that runs this long without an answer means the Node process is stuck.
ANSWER_S = 600
MS = 1000000        # the emulator counts nanoseconds
# What the board wrote reaches the port's reader within this (the pseudo-terminal's own delay).
READ_S = 5.0
# The watched pins' changes a bench keeps.
HISTORY = 10000
# A board in real time catches up with the wall clock this often.
PACE_S = 0.005


def tools(uf2=None):
    """(node, the UF2, the boot ROM) for an emulated Pico; FirmwareError saying in
    one line what is missing and where to get it."""
    uf2 = uf2 or os.environ.get(UF2_VARIABLE)
    if not uf2:
        raise FirmwareError("no MicroPython for the emulated Pico: give --uf2 FILE or set %s (%s)"
                            % (UF2_VARIABLE, WHERE))
    # the UF2 first: a typo in its name is not a boot ROM missing beside it
    if not Path(uf2).is_file():
        raise FirmwareError("%s: %s is not a file" % ("--uf2" if uf2 != os.environ.get(UF2_VARIABLE)
                                                       else UF2_VARIABLE, uf2))
    bootrom = os.environ.get(BOOTROM_VARIABLE)
    if not bootrom:
        beside = Path(uf2).parent / BOOTROM_NAME
        if not beside.is_file():
            raise FirmwareError("the emulated Pico needs the RP2040's boot ROM: set %s, or put %s beside the UF2 "
                                "(%s)" % (BOOTROM_VARIABLE, BOOTROM_NAME, WHERE))
        bootrom = str(beside)
    if not Path(bootrom).is_file():
        raise FirmwareError("%s: %s is not a file" % (BOOTROM_VARIABLE, bootrom))
    node = shutil.which("node")
    if node is None:
        raise FirmwareError("node is missing: the emulated Pico runs in Node.js (Debian: apt-get install nodejs npm)")
    return node, str(Path(uf2).resolve()), str(Path(bootrom).resolve())


def harness():
    """The folder with emulator.mjs and rp2040js beside it: the checkout's, where `npm ci` ran
    there (make does it), else a copy in the user's cache, where npm fetches rp2040js once,
    as the lock pins it (an installed wheel's folder is left as it was installed)."""
    if (HARNESS / "node_modules" / "rp2040js").is_dir():
        return HARNESS
    folder = cache_folder("pico")
    same = all((folder / name).is_file() and (folder / name).read_bytes() == (HARNESS / name).read_bytes()
               for name in HARNESS_FILES)
    if same and (folder / "node_modules" / "rp2040js").is_dir():
        return folder
    npm = shutil.which("npm")
    if npm is None:
        raise FirmwareError("npm is missing: it fetches rp2040js, the RP2040's emulator, once (Debian: apt-get "
                            "install npm)")
    try:
        folder.mkdir(parents=True, exist_ok=True)
        for name in HARNESS_FILES:
            shutil.copyfile(HARNESS / name, folder / name)
    except OSError as error:
        raise FirmwareError("cannot fetch rp2040js into %s: %s" % (folder, error.strerror or error))
    say("fetching rp2040js, the RP2040's emulator, into %s (once: npm ci, a minute or less)" % folder)
    done = subprocess.run([npm, "ci", "--ignore-scripts", "--no-audit", "--no-fund"], cwd=folder,
                          capture_output=True, encoding="utf-8", errors="replace")
    if done.returncode != 0:
        lines = (done.stderr or done.stdout).strip().splitlines() or ["no output"]
        raise FirmwareError("npm ci in %s failed: %s" % (folder, lines[-1]))
    return folder


class EmulatedPico:
    """One emulated Pico: `start()` powers it on, `port` is its serial port by path."""

    def __init__(self, uf2=None):
        self.node, self.uf2, self.bootrom = tools(uf2)
        self.harness = harness()
        master, self.slave = os.openpty()
        tty.setraw(self.slave)      # no echo, no line editing: bytes pass as over USB
        os.set_blocking(master, False)
        self.port = os.ttyname(self.slave)
        self.master = master
        self.folder = tempfile.TemporaryDirectory(prefix="drnim-pico-")
        self.log = open(Path(self.folder.name) / "emulator.log", "w+b")
        self.process = None
        self.replies = None
        self.now = 0            # the board's time as the emulator last said, ns
        self.written = 0        # the bytes it has written to the port, as it last said
        self.host_sent = 0      # the bytes the host has written to the port (a run waits for them)
        self.pin_changes = []   # (pin, level, ns) of the watched pins, in order
        self.resets = []        # (cause, ns, bytes written to the port before it): "watchdog" or "power"

    def start(self, flash=None, timer_us=0):
        """Power the board on: from a saved flash image, or from a blank flash with
        only MicroPython; `timer_us`, where its timer starts (a Pico's starts at 0)."""
        reply_read, reply_write = os.pipe()
        try:
            self.process = subprocess.Popen(
                [self.node, str(self.harness / "emulator.mjs"), "--uf2", self.uf2, "--bootrom", self.bootrom,
                 "--serial-fd", str(self.master), "--reply-fd", str(reply_write)],
                stdin=subprocess.PIPE, stdout=self.log, stderr=self.log, pass_fds=(self.master, reply_write),
                cwd=self.harness,
                # a session of its own: a terminal's Ctrl-C reaches its whole foreground group, and is the
                # controller's to handle, which then stops the board (stop()); a controller killed outright
                # closes the board's stdin, and emulator.mjs exits at its end
                start_new_session=True)
        finally:
            os.close(reply_write)
        self.replies = os.fdopen(reply_read, "rb")
        self.ask("power_on", flash=str(flash) if flash else None, timer_us=timer_us)

    # --- the emulator's commands ------------------------------------------------------------
    def ask(self, op, **fields):
        """The emulator's answer to one command; FirmwareError when it failed or stopped."""
        try:
            self.process.stdin.write((json.dumps(dict(fields, op=op)) + "\n").encode())
            self.process.stdin.flush()
        except (BrokenPipeError, OSError):
            self.stopped("it stopped")
        ready, _, _ = select.select([self.replies], [], [], ANSWER_S)
        line = self.replies.readline() if ready else b""
        if not line:
            self.stopped("it did not answer %r" % op if not ready else "it stopped")
        answer = json.loads(line)
        if "error" in answer:
            raise FirmwareError("the emulated Pico: %s" % answer["error"])
        self.now = answer.get("now", self.now)
        self.written = answer.get("written", self.written)
        self.pin_changes.extend(answer.get("pins", ()))
        self.resets.extend(answer.get("resets", ()))
        return answer

    def stopped(self, what):
        self.log.seek(0)
        said = [line.strip() for line in self.log.read().decode(errors="replace").splitlines() if line.strip()]
        raise FirmwareError("the emulated Pico failed: %s%s" % (what, ": " + said[-1] if said else ""))

    def run(self, until, stop_on_line=False):
        """Let the board's time pass until `until` (ns), or until a watched pin that stops
        a run moves, a line comes out (`stop_on_line`) or the board resets; the answer."""
        return self.ask("run", until=until, stop_on_line=stop_on_line, sent=self.host_sent)

    def drive(self, *pins):
        """Set inputs, each (GP number, level), at the board's present time."""
        self.ask("drive", pins=[[number, bool(level)] for number, level in pins])

    def watch(self, pins, stop=()):
        """Record the changes of these pins (in `pin_changes`); a change of one in `stop` ends a run."""
        return self.ask("watch", pins=list(pins), stop=list(stop))["levels"]

    def power_cut(self, timer_us=0):
        """The power goes and comes back: the chip starts again from its flash
        (`timer_us`: where its timer starts, 0 on a Pico)."""
        self.ask("power_cut", timer_us=timer_us)

    def on_charger(self, charger):
        """The power goes and comes back from a USB charger (True): no host on the board's USB, which
        never comes up, and nothing on its port; or from the host's cable again (False)."""
        self.ask("charger", on=charger)

    def host_reading(self, reading):
        """False: the host keeps the port open and reads nothing (it refuses the board's USB packets)."""
        self.ask("host_reading", on=reading)

    def run_free(self, pace=False):
        """Let the chip run on its own (`pace`: no faster than the wall clock) until `pause()`."""
        self.ask("free", pace=pace)

    def pause(self):
        self.ask("pause")

    def flash_wear(self):
        """{sector: erases} since power-on, and the 256-byte pages programmed."""
        answer = self.ask("flash")
        return dict(answer["erases"]), answer["pages"]

    def received(self):
        """The host's bytes the emulator has read from the port so far."""
        return self.ask("received")["received"]

    def cut_power_at_flash(self, operation):
        """The power goes as the board starts its `operation`-th flash erase or program
        from now (1: the next): that one is never done."""
        self.ask("cut_at_flash", operation=operation)

    def save_flash(self, path):
        self.ask("save_flash", path=str(path))

    def stop(self):
        if self.process is not None:
            if self.process.poll() is None:
                try:
                    self.process.stdin.close()
                except OSError:
                    pass
                try:
                    self.process.wait(5)
                except subprocess.TimeoutExpired:
                    self.process.kill()
                    self.process.wait()
            self.replies.close()
            self.process = None
        for fd in (self.master, self.slave):
            try:
                os.close(fd)
            except OSError:
                pass
        self.master = self.slave = None
        self.log.close()
        self.folder.cleanup()


def board_config_values(machine, mode, pinmap=None):
    """The generated board_config of `machine` (from the pin map at `pinmap`, None: the shipped one) as a
    namespace: the pins the world and the hands drive."""
    from types import SimpleNamespace

    from controller.firmware.build import pin_config
    values = {}
    exec(pin_config(machine, mode, pinmap), values)
    return SimpleNamespace(**dict((key, value) for key, value in values.items() if key.isupper()))


def world_module():
    """firmware/emulator/world.py, the marble world the unix emulator runs too, loaded here on CPython."""
    import importlib.util
    spec = importlib.util.spec_from_file_location("drnim_emulator_world", FIRMWARE / "emulator" / "world.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


class Bench:
    """An emulated Pico on the bench: its inputs in a person's hands and its sensor in the
    marble world. Time passes in `advance(until)`, each world event at its own time."""

    def __init__(self, pico, config):
        self.pico = pico
        self.config = config
        self.world_now = 0      # ms: the world's clock, the board's time at the event it handles
        self.watchers = {}
        self.history = []       # (pin, level, ns) of every watched pin that moved, the latest HISTORY
        self.world_module = world_module()
        self.world = self.world_module.World(config, lambda: self.world_now, self)
        self.resting = {}
        for role, number, pull, active_high, debounce_ms, min_pulse_ms in config.INPUTS:
            self.resting[number] = not active_high      # a button at rest, a switch in its "off" position
        if config.SENSOR:
            number, active_high = config.SENSOR[1], config.SENSOR[3]
            self.resting[number] = not active_high
        pico.drive(*self.resting.items())

    # --- the world's pins -----------------------------------------------------------------------
    def rest(self, number, level):
        self.pico.drive((number, level))

    def drive(self, number, level):
        self.pico.drive((number, level))

    def watch(self, number, callback):
        self.watchers[number] = callback
        self.pico.watch([number], stop=[number])

    # --- time ----------------------------------------------------------------------------------------
    def advance(self, until, stop_on_line=False):
        """The board's time passes to `until` (ns), the world's marbles falling at their
        own times, or less when `stop_on_line` and a line came out; the bytes the board
        wrote to its port meanwhile."""
        pico = self.pico
        written = 0
        while pico.now < until:
            due = self.world.next_due()
            target = until if due is None else min(until, due * MS)
            if target > pico.now:
                answer = pico.run(target, stop_on_line)
                written += answer["out"]
                self.seen()
                if answer["stopped"] == "line":
                    break
            self.world_now = pico.now // MS
            self.world.run(self.world_now)
        return written

    def seen(self):
        """The watched pins that moved: the world sees the release open, at its time."""
        changes, self.pico.pin_changes = self.pico.pin_changes, []
        self.history = (self.history + changes)[-HISTORY:]
        for number, level, at in changes:
            callback = self.watchers.get(number)
            if callback is not None:
                self.world_now = at // MS
                callback(level)


class EmulatedLink(Link):
    """The serial link to an emulated Pico, in its own time: `clock()` is the board's
    (seconds), and waiting for a line lets that time pass."""

    def __init__(self, bench, report=None):
        self.bench = bench
        bench.pico.drive()
        self.taken = bench.pico.written     # bytes read from the port (those before were another reader's)
        self.resets_seen = len(bench.pico.resets)
        Link.__init__(self, bench.pico.port, report=report, clock=lambda: bench.pico.now / 1e9)
        self.sent_before = bench.pico.received()    # what others wrote (a deploy) has been read

    def send(self, message):
        """Sent, and the board's time passes on only once the emulator has read it: the
        pseudo-terminal's moment of passing it on (later on a busy machine) changes nothing."""
        sent = Link.send(self, message)
        self.bench.pico.host_sent = self.sent_before + self.sent
        return sent

    def receive(self, timeout):
        pico = self.bench.pico
        deadline = pico.now + math.ceil(timeout * 1e9)     # a wait of a hair still lets time pass
        owed = 0        # bytes the board wrote that have not been read yet
        while True:
            self.port_went_away()
            line = self.next_line()
            if line is not None:
                message = self.decode(line)
                if message is not None:
                    return message
                continue
            if not self.try_open():
                raise FirmwareError("the emulated Pico's port %s cannot be opened (%s)" % (self.port, self.gone))
            waiting = self.serial.in_waiting
            if waiting or owed:
                data = self.take(max(waiting, owed))
                owed = max(0, owed - len(data)) if data else 0
                self.buffer += data
                continue
            if pico.now >= deadline:
                return None
            owed = self.bench.advance(deadline, stop_on_line=True)

    def take(self, count):
        self.serial.timeout = READ_S
        data = self.serial.read(count)
        self.taken += len(data)
        return data

    def port_went_away(self):
        """The board reset since the last look: as its USB port went away, what the
        host had not read of it then (a line cut short, the REPL's prompt) is gone."""
        resets = self.bench.pico.resets
        while self.resets_seen < len(resets):
            before = resets[self.resets_seen][2]
            self.resets_seen += 1
            if self.serial is None:
                continue
            while self.taken < before:
                data = self.take(before - self.taken)
                if not data:
                    break
                self.buffer += data
            end = self.buffer.rfind(b"\n")
            self.buffer = self.buffer[:end + 1]


def deployed_pico(machine, uf2=None, mode=PRODUCTION, images=None, write_flash=None, pinmap=None):
    """An emulated Pico with `machine`'s firmware built (from the pin map at `pinmap`,
    None: the shipped one) and deployed as a user does
    it (`controller firmware build`, then `deploy` with mpremote over its port), on
    its bench: (pico, bench). Cut its power once its port is open, to hear it
    start. The flash after a deploy is kept in `images` (by default a folder of the
    user's cache), and the next board of the same build and MicroPython starts
    from it: the same bytes, without the deploy's time. `write_flash(image, folder,
    files)`, when given, writes that flash instead of a deploy (the tests write it
    on the host, with the files a deploy copies)."""
    from controller.firmware.build import build
    from controller.firmware.deploy import deploy
    pico = EmulatedPico(uf2)
    try:
        folder = Path(images) if images else cache_folder("pico-flash")
        folder.mkdir(parents=True, exist_ok=True)
        with tempfile.TemporaryDirectory(prefix="drnim-build-") as made:
            files = build(machine, Path(made) / machine, mode, pinmap=pinmap)
            image = folder / ("%s-%s.bin" % (machine, digest(Path(made) / machine, files, pico.uf2)))
            with locked(str(image) + ".lock"):          # another run deploying the same build: its image
                if not image.is_file() and write_flash is not None:
                    write_flash(str(image) + ".new", Path(made) / machine, files)
                    os.replace(str(image) + ".new", image)
                if image.is_file():
                    pico.start(flash=image)
                else:
                    say("deploying the %s build to the emulated Pico (once for this build and UF2, about 20 s: "
                             "later runs start from the flash it leaves)" % machine)
                    pico.start()
                    pico.run_free()
                    try:
                        deploy(pico.port, Path(made) / machine)
                    finally:
                        pico.pause()
                    pico.save_flash(str(image) + ".new")
                    os.replace(str(image) + ".new", image)
        bench = Bench(pico, board_config_values(machine, mode, pinmap))
    except BaseException:
        pico.stop()
        raise
    return pico, bench


def digest(folder, files, uf2):
    """What a deployed board's flash depends on: the build's files and the MicroPython."""
    import hashlib
    total = hashlib.sha256(Path(uf2).read_bytes())
    for name in sorted(files):
        total.update(name.encode() + b"\0" + (folder / name).read_bytes())
    return total.hexdigest()[:16]


class Pacer(threading.Thread):
    """Lets an emulated board's time pass with the wall clock's, as a real board's
    does (`controller firmware monitor --emulate rp2040`); it cannot keep up while
    the board is busier than the emulator is fast."""

    def __init__(self, bench):
        threading.Thread.__init__(self, daemon=True)
        self.bench = bench
        self.stopping = threading.Event()
        self.error = None

    def run(self):
        started, board = time.monotonic(), self.bench.pico.now
        try:
            while not self.stopping.wait(PACE_S):
                self.bench.advance(board + int((time.monotonic() - started) * 1e9))
        except FirmwareError as error:
            self.error = error

    def stop(self):
        self.stopping.set()
        self.join()


class PacedPico:
    """An emulated Pico running `machine`'s production build (from the pin map at
    `pinmap`, None: the shipped one) in real time, its port by path (`port`): what
    `monitor --emulate rp2040` watches."""

    def __init__(self, machine, uf2=None, pinmap=None):
        self.pico, self.bench = deployed_pico(machine, uf2, pinmap=pinmap)
        self.port = self.pico.port
        self.pacer = Pacer(self.bench)

    def start(self):
        """Power the board on: open its port first, to hear its hello."""
        self.pico.power_cut()
        self.pacer.start()

    def check(self):
        """FirmwareError when the emulated board stopped."""
        if self.pacer.error is not None:
            raise self.pacer.error

    def stop(self):
        if self.pacer.is_alive():
            self.pacer.stop()
        self.pico.stop()
