"""The `controller firmware` subcommands: their arguments and what each runs.

    controller firmware build [--machine M] [--out DIR]
    controller firmware deploy --port PORT [--machine M] [--build DIR]
    controller firmware monitor (--port PORT | --emulate) [--machine M] [--config PATH]
    controller firmware test (--port PORT | --emulate) SCRIPT... [--seed N] [--jam-rate R] [--glitch-rate R]

Every failure is one line on stderr, "controller firmware: ...", with exit
status 1 (2 for bad arguments, as everywhere in `controller`).
"""

import sys
from pathlib import Path

from controller.core.registry import NAMES as MACHINES
from controller.firmware.tools import FirmwareError


def default_build(machine):
    return Path("build") / "firmware" / machine


def add_parser(commands):
    """The `firmware` subcommand and its own subcommands, on cli.py's parser."""
    firmware = commands.add_parser("firmware", help="the Pico firmware: build, deploy, monitor, test")
    actions = firmware.add_subparsers(dest="firmware_command", metavar="build|deploy|monitor|test",
                                      parser_class=type(firmware))
    actions.required = True

    build = actions.add_parser("build", help="compile the core and firmware/ for the board, with its pin config")
    build.add_argument("--machine", choices=MACHINES, default=MACHINES[0])
    build.add_argument("--out", metavar="DIR", help="the build folder (default: build/firmware/MACHINE)")

    deploy = actions.add_parser("deploy", help="copy a build onto the board with mpremote, then reset it")
    deploy.add_argument("--port", required=True, help="the board's serial port, such as /dev/ttyACM0")
    deploy.add_argument("--machine", choices=MACHINES, default=MACHINES[0])
    deploy.add_argument("--build", metavar="DIR", help="the build folder (default: build/firmware/MACHINE)")
    return firmware, actions


def run(args, out):
    """Run `controller firmware ...`; the exit status."""
    try:
        if args.firmware_command == "build":
            return run_build(args, out)
        if args.firmware_command == "deploy":
            return run_deploy(args, out)
    except FirmwareError as error:
        sys.stderr.write("controller firmware: %s\n" % error)
        return 1
    raise AssertionError(args.firmware_command)


def run_build(args, out):
    from controller.firmware.build import build
    folder = Path(args.out) if args.out else default_build(args.machine)
    files = build(args.machine, folder)
    out.write("Built the %s firmware in %s: %d files.\n" % (args.machine, folder, len(files)))
    return 0


def run_deploy(args, out):
    from controller.firmware.deploy import deploy
    folder = Path(args.build) if args.build else default_build(args.machine)
    machine = deploy(args.port, folder)
    out.write("Copied the %s firmware from %s to the board on %s, and reset it.\n" % (machine, folder, args.port))
    return 0
