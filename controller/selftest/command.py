"""The `controller selftest` and `controller calibrate` subcommands.

    controller selftest [--machine MACHINE] [--config PATH] [--skip STAGE]...
                        [--simulate [--jam-rate R] [--seed N]]
    controller calibrate [--marbles N] [--config PATH] [--simulate [--jam-rate R] [--seed N]]

Exit status: 0 when every check passed, one at least (or the calibration was written), 1
when one failed or the pins are busy, 2 for bad arguments or configuration.

The bench, the stages and gpiozero are loaded by the subcommands that run, not by the
command line that names them: every `controller` command starts without them.
"""

import os
import sys

from controller.arguments import (DEFAULT_CONFIG, ArgumentError, add_config_argument, config_path, load_service_config,
                                  positive, rate, seed)
from controller.core.registry import NAMES as MACHINES
from controller.core.registry import machine_class
from controller.selftest import STAGE_NAMES
from controller.selftest.guard import ServiceRunning, busy, check_free
from controller.selftest.report import shown


def add_parsers(commands):
    """`selftest` and `calibrate`, on cli.py's parser."""
    selftest = commands.add_parser("selftest", help="bring a board up: every lamp, indicator, button, switch, "
                                   "the release and the sensor, stage by stage, with a report")
    selftest.set_defaults(action=run_selftest)
    selftest.add_argument("--machine", choices=MACHINES, help="overrides service.machine")
    add_config_argument(selftest)
    selftest.add_argument("--skip", metavar="STAGE", action="append", choices=STAGE_NAMES, default=[],
                          help="a stage whose harness is not connected (again for more): " + ", ".join(STAGE_NAMES))
    add_simulate_arguments(selftest)

    calibrate = commands.add_parser("calibrate", help="time N marbles from the release to the sensor and write "
                                    "the release timeout and the pace they call for into the configuration")
    calibrate.set_defaults(action=run_calibrate)
    calibrate.add_argument("--marbles", metavar="N", type=positive, default=10, help="marbles to time (default 10)")
    add_config_argument(calibrate)
    add_simulate_arguments(calibrate)


def add_simulate_arguments(parser):
    parser.add_argument("--simulate", action="store_true", help="on the simulated machine, which answers itself")
    parser.add_argument("--jam-rate", type=rate, default=0.0, help="with --simulate: chance that a marble jams")
    parser.add_argument("--seed", type=seed, default=0, help="with --simulate: the same seed, the same run")


def open_bench(args, config, pinmap, out, read_line=None, command="selftest"):
    """The bench: simulated, or the real board once the service is known not to hold it."""
    if not args.simulate and (args.jam_rate or args.seed):
        raise ArgumentError("--jam-rate and --seed are for the simulated machine: add --simulate")
    layout = machine_class(config.machine_name)(config.machine).layout()
    if args.simulate:
        from controller.selftest.simulated import SimulatedBench
        return SimulatedBench(pinmap, layout, out, rail=config.machine.get("marbles", 0),
                              jam_rate=args.jam_rate, seed=args.seed)
    from controller.selftest.bench import Bench
    from controller.service.daemon import pin_factory_for
    check_free(config)
    factory = pin_factory_for(config.service["pin_factory"], "controller %s --simulate" % command)
    try:
        return Bench(pinmap, factory, layout, out, read_line)
    except Exception as error:
        line = busy(error)
        if line is None:
            raise
        raise ServiceRunning(line)


def refused(command, error):
    sys.stderr.write("controller %s: %s\n" % (command, error))
    return 1


def run_selftest(args, out):
    from controller.selftest.bench import Stopped, typed_lines
    from controller.selftest.report import FAIL, Report
    from controller.selftest.stages import Selftest
    from controller.service.daemon import NoGPIO
    overrides = {"machine": args.machine} if args.machine else {}
    config, pinmap = load_service_config(config_path(args), overrides)
    try:
        bench = open_bench(args, config, pinmap, out, typed_lines(args.read_line))
    except (ServiceRunning, NoGPIO) as error:
        return refused("selftest", error)
    report = Report(config.machine_name, pinmap.path, bench.simulated)
    selftest = Selftest(bench, config, pinmap, report, args.skip)
    stages = [name for name, _, _ in selftest.stages()]
    for name in args.skip:
        if name not in stages:     # a Nimatron's stage skipped on Dr. Nim: said, not passed over as done
            bench.close()
            raise ArgumentError("--skip: the %s board has no %s stage (its stages: %s)"
                                % (config.machine_name, name, ", ".join(stages)))
    out.write(shown("Self-test of the %s board (pin map %s)%s. Answer each question with y, n or s (skip)."
                    % (config.machine_name, pinmap.path, ", simulated" if args.simulate else "")) + "\n")
    try:
        selftest.run()
    except Stopped:
        report.add("(stopped)", "end of input", FAIL, "the self-test did not finish")
    except KeyboardInterrupt:
        report.add("(stopped)", "Ctrl-C", FAIL, "the self-test did not finish")
    finally:
        bench.close()
    out.write("\n" + "\n".join(report.lines()) + "\n")
    folder = config.state_dir()
    if bench.simulated and not os.path.isdir(folder):
        # a try on a laptop, or on a Pi before the service is installed: never the one to make its folder
        out.write(shown("The report is only the text above: it was not saved, as the service's state folder %s "
                        "does not exist (installing the service makes it, and a self-test then saves its report "
                        "there)." % folder) + "\n")
        return 0 if report.passed else 1
    try:
        out.write("Report saved as %s\n" % report.save(folder))
    except OSError as error:
        out.write("The report could not be saved in %s (%s); it is the text above.\n"
                  % (folder, error.strerror or error))
    return 0 if report.passed else 1


def run_calibrate(args, out):
    from controller.core.exhibit import RELEASE
    from controller.selftest.bench import Stopped, typed_lines
    from controller.selftest.calibrate import CalibrationError, calibrate
    from controller.service.daemon import NoGPIO
    path = config_path(args)
    if path is None:
        raise ArgumentError("--config: calibrate writes into a configuration file: give its path (there is no %s)"
                            % DEFAULT_CONFIG)
    if args.simulate and os.path.exists(path) and os.path.exists(DEFAULT_CONFIG) \
            and os.path.samefile(path, DEFAULT_CONFIG):
        # the simulated marbles fall 250 ms: their timeout, written there, would retry a real marble that is slower
        # and let a second one go, at the service's next start
        raise ArgumentError("--simulate: the simulated marbles' figures are never written into the exhibit's "
                            "configuration %s: calibrate a copy (cp %s my-config.toml, then add --config "
                            "my-config.toml)" % (DEFAULT_CONFIG, DEFAULT_CONFIG))
    config, pinmap = load_service_config(path)
    if not machine_class(config.machine_name).has_output(RELEASE):
        raise ArgumentError("calibrate: the %s has no marble release: nothing to calibrate" % config.machine_name)
    capacity = config.machine["capacity"]
    if args.marbles > capacity:
        raise ArgumentError("--marbles: the rail holds at most %d marbles (%s.capacity), not %d"
                            % (capacity, config.machine_name, args.marbles))
    try:
        bench = open_bench(args, config, pinmap, out, typed_lines(args.read_line), "calibrate")
    except (ServiceRunning, NoGPIO) as error:
        return refused("calibrate", error)
    try:
        calibrate(bench, config, pinmap, args.marbles, out)
    except (CalibrationError, Stopped) as error:
        return refused("calibrate", str(error) or "stopped at the end of the input: nothing written")
    except KeyboardInterrupt:
        return refused("calibrate", "stopped by Ctrl-C: nothing written")
    except OSError as error:
        return refused("calibrate", "cannot write %s (%s): nothing written" % (path, error.strerror or error))
    finally:
        bench.close()
    return 0
