"""The `controller firmware` subcommands: their arguments and what each runs.

    controller firmware build [--machine M] [--pinmap PATH] [--out DIR] [--development] [--frozen]
    controller firmware deploy --port PORT [--machine M] [--build DIR]
    controller firmware monitor (--port PORT | --emulate unix|rp2040 [--uf2 FILE] [--machine M] [--pinmap PATH])
                                [--config PATH]
    controller firmware test (--port PORT | --emulate unix|rp2040 [--uf2 FILE] [--pinmap PATH]) [SCRIPT...]
                             [--machine M] [--seed N] [--jam-rate R] [--glitch-rate R]

Without a SCRIPT, `test` plays the scenarios shipped with the controller
(tests/scenarios/ in the repository: every behaviour of docs/machines.md, and
the policies), those of `--machine` only when it is given (or of the machine
`--pinmap` names).

`--pinmap` means the same to every subcommand: the pin map whose [pico]
section wires the board (default: the one the machine ships with), whose
machine is the board's when no --machine is given. `build` records it in
build.json and says it; `deploy` never builds, and names the pin map of the
build it copies. An emulated board (`--emulate`) is built from it, its marble
world and hands driving the pins its roles have there.

`--emulate rp2040` runs the official MicroPython for the Pico (a UF2 from
micropython.org: --uf2, or CONTROLLER_PICO_UF2) on an emulated RP2040
(controller/firmware/rp2040.py); `--emulate unix` runs the firmware under the
unix `micropython` on a fake `machine` module (controller/firmware/emulator.py).

Every failure is one line on stderr, "controller firmware: ...", with exit
status 1 (2 for bad arguments, as everywhere in `controller`).
"""

import os
import signal
import sys
from pathlib import Path

from controller.arguments import (DEFAULT_CONFIG, USAGE_ERROR, ArgumentError, argument, config_path, rate, read_script,
                                  seed, shipped_script)
from controller.core.protocol import DEVELOPMENT, PRODUCTION, REAL_CLOCK
from controller.core.registry import NAMES as MACHINES
from controller.firmware.board import BoardError, BoardUnfit
from controller.firmware.tools import FirmwareError, no_port, port_there, say
from controller.shipped import firmware_readme


def default_build(machine):
    return Path("build") / "firmware" / machine


def newest_build():
    """The build folder under build/firmware/ written last (its build.json): what `deploy`
    copies when no --machine or --build names one; FirmwareError when there is none."""
    from controller.firmware.build import MANIFEST
    found = sorted(Path("build", "firmware").glob("*/" + MANIFEST), key=lambda path: path.stat().st_mtime)
    if not found:
        raise FirmwareError("no firmware build in build/firmware/: run controller firmware build --machine M first")
    return found[-1].parent


def add_parser(commands):
    """The `firmware` subcommand and its own subcommands, on cli.py's parser."""
    firmware = commands.add_parser("firmware", help="the Pico firmware: build, deploy, monitor, test")
    firmware.set_defaults(action=run)
    actions = firmware.add_subparsers(dest="firmware_command", metavar="build|deploy|monitor|test",
                                      parser_class=type(firmware))
    actions.required = True

    build = actions.add_parser("build", help="compile the core and firmware/ for the board, with its pin config")
    build.set_defaults(firmware_action=run_build)
    build.add_argument("--machine", choices=MACHINES, help="the machine the board plays (default: the one "
                       "--pinmap names, else %s)" % MACHINES[0])
    add_pinmap_argument(build)
    build.add_argument("--out", metavar="DIR", help="the build folder (default: build/firmware/MACHINE)")
    build.add_argument("--development", action="store_true",
                       help="a board for the bench: it takes injected events and has no watchdog "
                            "(default: production, for an exhibit)")
    build.add_argument("--frozen", action="store_true",
                       help="for a board with little heap: the modules as source with a manifest that freezes "
                            "them into a MicroPython firmware you build (see %s)" % firmware_readme())

    deploy = actions.add_parser("deploy", help="copy a build onto the board with mpremote, then reset it")
    deploy.set_defaults(firmware_action=run_deploy)
    deploy.add_argument("--port", required=True, help="the board's serial port, such as /dev/ttyACM0 (COM3 on "
                        "Windows)")
    deploy.add_argument("--machine", choices=MACHINES, help="copy build/firmware/MACHINE as it was built last, "
                        "from the pin map it names (default: the build made last there, which the output names)")
    deploy.add_argument("--build", metavar="DIR", help="the build folder to copy")

    monitor = actions.add_parser("monitor", help="show a board's events and state live; record its games "
                                 "in the statistics (Ctrl-C stops)")
    monitor.set_defaults(firmware_action=run_monitor)
    add_board_arguments(monitor)
    monitor.add_argument("--machine", choices=MACHINES, help="the emulated board's machine (default: the one "
                         "--pinmap names, else %s)" % MACHINES[0])
    monitor.add_argument("--config", metavar="PATH", help="whose statistics the games go into (default: %s "
                         "when it exists)" % DEFAULT_CONFIG)

    test = actions.add_parser("test", help="run scenario scripts on a board (a real one in development mode; "
                              "--emulate rp2040 deploys a production build, as a museum's board runs)")
    test.set_defaults(firmware_action=run_test)
    add_board_arguments(test)
    test.add_argument("scripts", metavar="SCRIPT", nargs="*", help="scenario scripts, as controller --simulate "
                      "--script runs (default: every scenario shipped with the controller)")
    test.add_argument("--machine", choices=MACHINES, help="without a SCRIPT: only the shipped scenarios of this "
                      "machine (a board on --port runs one machine)")
    test.add_argument("--seed", type=seed, default=0, help="the emulated marbles' seed")
    test.add_argument("--jam-rate", type=rate, default=0.0, help="chance that a released marble jams (emulated)")
    test.add_argument("--glitch-rate", type=rate, default=0.0, help="sensor glitches per second (emulated)")
    return firmware, actions


EMULATORS = ("rp2040", "unix")


def add_board_arguments(parser):
    where = parser.add_mutually_exclusive_group(required=True)
    where.add_argument("--port", help="the board's serial port, such as /dev/ttyACM0 (COM3 on Windows)")
    where.add_argument("--emulate", choices=EMULATORS, metavar="rp2040|unix",
                       help="an emulated board on a pseudo-terminal: rp2040, the official MicroPython for the Pico "
                            "(--uf2) on an emulated RP2040, the build deployed with mpremote; unix, the firmware under "
                            "the unix micropython on a fake machine module, for quick checks")
    parser.add_argument("--uf2", metavar="FILE", help="with --emulate rp2040: MicroPython for the Raspberry Pi Pico, "
                        "the RPI_PICO .uf2 from micropython.org (default: $CONTROLLER_PICO_UF2)")
    add_pinmap_argument(parser, "with --emulate: ")


def add_pinmap_argument(parser, when=""):
    parser.add_argument("--pinmap", metavar="PATH", help="%sthe pin map whose [pico] section wires the board "
                        "(default: the one the machine ships with, hardware/MACHINE/pinmap.toml); its machine is the "
                        "board's" % when)


def pinned_machine(args):
    """With --pinmap on `monitor` or `test`: the machine of the pin map the emulated board is built from,
    checked as a build checks it (before a board is started); None without. --machine, when given, must be
    the map's."""
    if not args.pinmap:
        return None
    if not args.emulate:
        raise ArgumentError("--pinmap: it wires an emulated board (--emulate); the board on %s runs the build "
                            "deployed to it" % args.port)
    from controller.firmware.build import pin_config, pinmap_machine
    machine = pinmap_machine(args.pinmap, args.machine)
    pin_config(machine, PRODUCTION, args.pinmap)
    return machine


def run(args, out):
    """Run `controller firmware ...`; the exit status."""
    try:
        if getattr(args, "emulate", None) and not hasattr(os, "openpty"):
            raise FirmwareError("--emulate: the emulated board is reached through a pseudo-terminal, which this "
                                "computer (Windows) has none of: test a Pico on --port, or emulate on Linux, macOS "
                                "or WSL")
        if args.firmware_command == "monitor":      # the emulated board's machine, before anything starts
            args.machine = pinned_machine(args) or args.machine or MACHINES[0]
        return args.firmware_action(args, out)
    except (FirmwareError, BoardError) as error:
        sys.stderr.write("controller firmware: %s\n" % error)
        return 1


def run_build(args, out):
    from controller.firmware.build import FREEZE_MANIFEST, build, pinmap_machine, pinmap_path, shown_pinmap
    # the machine the pin map names, as `controller hardware check --pinmap` takes it; a --machine that
    # disagrees is refused with the map's machine
    machine = pinmap_machine(args.pinmap, args.machine) if args.pinmap else args.machine or MACHINES[0]
    folder = Path(args.out) if args.out else default_build(machine)
    mode = DEVELOPMENT if args.development else PRODUCTION
    files = build(machine, folder, mode, args.frozen, args.pinmap)
    pins = shown_pinmap(pinmap_path(machine, args.pinmap))
    from controller.hardware.pinmap import load_pinmap
    from controller.hardware.pinmap.check import ribbon_warnings
    pinmap = load_pinmap(pinmap_path(machine, args.pinmap))
    for line in ribbon_warnings(pinmap) + unplayed_on_a_board(pinmap):
        sys.stderr.write("controller firmware: warning: %s\n" % line)     # a board has no journal to say it in
    if args.frozen:
        out.write("Wrote the %s firmware (%s mode) from %s to freeze in %s: build MicroPython for the board with "
                  "FROZEN_MANIFEST=%s, flash it, then controller firmware deploy copies main.py.\n"
                  % (machine, mode, pins, folder, (folder / FREEZE_MANIFEST).resolve()))
        return 0
    out.write("Built the %s firmware (%s mode) in %s: %d files, from %s.\n"
              % (machine, mode, folder, len(files), pins))
    return 0


def unplayed_on_a_board(pinmap):
    """A line for each LAYOUT setting whose default plays less than the pin map wires (a Nimatron of 8 lamps a
    row): a board plays its machine's default settings until a host's new_game gives others, which it keeps,
    so what is wired beyond them stays dark; config.unplayed_wiring says the same of a Pi's configuration."""
    from controller.core.registry import machine_class
    from controller.service.config import layout_wired
    played = machine_class(pinmap.machine)({}).config
    return ["%s.%s: a board plays %d, the setting's default, but the pin map %s wires %d (%s): what is wired beyond "
            "%d stays dark until a host's new_game line sets it, which the board keeps: type "
            '{"kind": "new_game", "settings": {"%s": %d}} into controller firmware monitor'
            % (pinmap.machine, setting, wanted, pinmap.path, wired, what, wanted, setting, wired)
            for setting, what, wanted, wired in layout_wired(pinmap.machine, played, pinmap) if wanted < wired]


def run_deploy(args, out):
    from controller.firmware.build import built_from, shown_pinmap
    from controller.firmware.deploy import deploy
    if args.build:
        folder = Path(args.build)
    else:
        # deploy never builds: build/firmware/MACHINE as its last build left it, the pin map it names
        folder = default_build(args.machine) if args.machine else newest_build()
    machine, frozen = deploy(args.port, folder)
    pinmap = built_from(folder)
    pins = " (built from %s)" % shown_pinmap(pinmap) if pinmap else ""
    if frozen:
        out.write("Copied the frozen %s firmware's main.py from %s to the board on %s, and reset it%s.\n"
                  % (machine, folder, args.port, pins))
        return 0
    out.write("Copied the %s firmware from %s to the board on %s, and reset it%s.\n"
              % (machine, folder, args.port, pins))
    return 0


def run_monitor(args, out):
    from controller.printable import printable
    from controller.firmware.link import Link
    from controller.firmware.monitor import Monitor, TypedLines
    from controller.firmware.heartbeat import Heartbeat
    from controller.service.boards import board_exhibit, board_folder, board_runtime_folder, hold
    from controller.service.config import load_config, user_state_folder
    from controller.service.stats import Statistics, last_machine
    config = argument("--config", load_config, config_path(args))
    # the exhibit the board is: its name on the broker, its statistics and telemetry queue, held by it alone
    # (controller/service/boards.py)
    exhibit = board_exhibit(config, args.port)
    folder = board_folder(config, exhibit)
    exhibit_lock = None
    if config.state_dir() == user_state_folder():
        try:
            os.makedirs(config.state_dir(), exist_ok=True)      # the user's own, which nothing else makes
        except OSError:
            pass
    if os.path.isdir(config.state_dir()):
        try:
            os.makedirs(folder, exist_ok=True)
        except OSError:
            pass            # the statistics say so, in the line that says where the games go
        exhibit_lock = argument("--config", hold, config, folder, exhibit, args.port or "the emulated board")
    path = os.path.join(folder, "stats.sqlite")
    stats = telemetry = emulator = link = heartbeat = None

    def write(line):
        out.write(printable(line) + "\n")     # a board's text never reaches the terminal as escapes
        out.flush()
    # a service manager's stop (or `timeout`) is Ctrl-C from the start: the emulated board stops with the monitor,
    # even one stopped while it is still being deployed
    signal.signal(signal.SIGTERM, signal.default_int_handler)
    try:
        # the emulated board first: what it lacks (a UF2, micropython) is the one line a user sees
        if args.emulate == "rp2040":
            from controller.firmware.rp2040 import PacedPico
            emulator = PacedPico(args.machine, args.uf2, args.pinmap)
            port = emulator.port
        elif args.emulate:
            from controller.firmware.emulator import Emulator
            emulator = Emulator(args.machine, clock=REAL_CLOCK, pinmap=args.pinmap)
            port = emulator.port
        else:
            port = args.port
        # until the board names its own: the one it played last (the telemetry's last will names it), else the
        # configuration's
        machine = args.machine if args.emulate else last_machine(path) or config.machine_name
        stats = Statistics(path, log=say)
        stats.flush()       # opened, or said why not, before the line that says where the games go
        if config.telemetry["enabled"]:
            from controller.telemetry.publisher import Telemetry
            # the password file is read here, not with the configuration: one line when it cannot be
            telemetry = argument("--config", lambda: Telemetry(dict(config.telemetry, client_id=exhibit), machine,
                                                               folder, say, config_path=config.path))
        link = Link(port, report=say)
        if emulator:
            link.try_open()
            emulator.start()
        counted = "its games are not counted" if stats.problem else "its games go into %s" % path
        if sys.stdin.isatty():      # asked before the input's thread starts: a read in progress holds the input
            counted += "; a line typed here goes to the board (state, new_game, or any of firmware/PROTOCOL.md)"
        monitor = Monitor(link, write, stats, telemetry, config.language(), TypedLines(sys.stdin), machine)
        # for `controller status`, where drnim-monitor@.service has its runtime folder (or the configuration
        # names one): not on a laptop, whose /run is not this user's
        beats = board_runtime_folder(config, exhibit)
        if os.path.isdir(os.path.dirname(beats)) or config.service["runtime_dir"]:
            heartbeat = Heartbeat(beats, config.service["heartbeat_s"], exhibit, say)
        # and from then on it does
        write("Watching the board on %s, the exhibit %s; %s. Ctrl-C stops." % (port, exhibit, counted))
        while True:
            monitor.step()
            if heartbeat:
                heartbeat.beat(monitor, telemetry)
            if emulator:
                emulator.check()
    except KeyboardInterrupt:
        write("Stopped watching.")
    finally:
        if heartbeat:
            heartbeat.close()
        if link:
            link.close()
        if stats:
            stats.close()
        if telemetry:
            telemetry.close()
        if emulator:
            emulator.stop()
        if exhibit_lock:
            exhibit_lock.close()
    return 0


def script_machines(text):
    """The machines a script's `machine` and `game` lines name (a line without one is the script's error,
    said when it plays)."""
    from controller.core.scenario import parse
    return {words[1] for _, words in parse(text) if words[0] in ("machine", "game") and len(words) > 1}


def shipped_scripts(machine, emulated=True):
    """The scenarios shipped with the controller, as two lists of (name, text): those to play and those left
    out. Unless `machine` is None, only those whose every game is of `machine` (a board on a port runs one
    machine); for a real board (not `emulated`), those with a `world` line are left out: its marbles fall as
    they fall."""
    from controller import shipped
    from controller.core.scenario import parse
    scripts, left_out = [], []
    for path in shipped.scenarios():
        text = path.read_text(encoding="utf-8")
        lines = parse(text)
        played = {tuple(words[1:2]) for _, words in lines if words[0] in ("machine", "game")}
        if machine is None or played == {(machine,)}:
            world = any(words[0] == "world" for _, words in lines)
            (scripts if emulated or not world else left_out).append((path.name, text))
    return scripts, left_out


def run_test(args, out):
    from controller.core.scenario import ScriptError
    from controller.firmware.board_test import Connector, run_scripts
    if args.machine and args.scripts:
        raise ArgumentError("--machine: it chooses among the shipped scenarios; a SCRIPT names its own machine")
    if args.port and not args.scripts and not args.machine:
        raise ArgumentError("--machine: name the machine the board on %s runs, to play its shipped scenarios"
                            % args.port)
    if args.port and not port_there(args.port):
        raise no_port(args.port)        # not a script that failed: no board to play it on
    pinned = pinned_machine(args)
    scripts, left_out = ([], []) if args.scripts else shipped_scripts(args.machine or pinned, emulated=not args.port)
    if left_out:
        out.write("%d left out, which set the marbles' world (a real board's fall as they fall; --emulate plays "
                  "them): %s\n" % (len(left_out), ", ".join(name for name, _ in left_out)))
    for path in args.scripts:
        try:
            # a shipped scenario by its name from any folder, as --simulate --script takes it
            scripts.append((path, read_script(shipped_script(path, "SCRIPT"))))
        except ArgumentError as error:
            raise ArgumentError(str(error).replace("--script", "SCRIPT", 1))
        others = pinned and sorted(script_machines(scripts[-1][1]) - {pinned})
        if others:
            from controller.core.registry import machine_class
            title = machine_class(pinned).TITLE
            raise ArgumentError("SCRIPT: %s plays %s, and --pinmap %s, which the emulated board is built from, is %s's "
                                "pin map: give %s's scripts, or leave --pinmap out"
                                % (path, ", ".join(others), args.pinmap, title, title))
    if args.pinmap and args.emulate:       # what the builder's copy is tested as: said, as build and deploy say it
        out.write("The emulated board is built from the pin map %s.\n" % args.pinmap)
    connect = Connector(args.port, args.emulate, report=say, uf2=args.uf2, pinmap=args.pinmap)
    report = lambda line: out.write(line + "\n")  # noqa: E731
    try:
        results = run_scripts(scripts, connect, report, seed=args.seed, jam_rate=args.jam_rate,
                              glitch_rate=args.glitch_rate)
    except ScriptError as error:
        sys.stderr.write("controller firmware test: %s\n" % error)
        return USAGE_ERROR
    except BoardUnfit as error:
        sys.stderr.write("controller firmware test: %s\n" % error)
        return 1
    finally:
        connect.close()
    failed = sum(1 for failures in results.values() if failures)
    out.write("%d script%s: %d held, %d failed\n" % (len(results), "" if len(results) == 1 else "s",
                                                      len(results) - failed, failed))
    return 1 if failed else 0
