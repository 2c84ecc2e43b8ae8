"""The `controller` command.

    controller solve GAME [HEAPS...] [--misere | --normal] [--k K] [--max-take M] [--seed N] [--json]
    controller play GAME [HEAPS...] [--opponent NAME] [--first you|machine|random] [--seed N] [--lang LL]
    controller run [--config PATH] [--machine MACHINE] [--pin-factory lgpio|rpigpio|mock]
    controller config check [PATH]
    controller safe-off [--config PATH]
    controller status [--config PATH] [--exhibit NAME] [--check | --json]   (see controller/status.py)
    controller stats [--config PATH] [--period 14d] [--csv] [--file PATH | --exhibit NAME]
    controller selftest|calibrate ...   (see controller/selftest/command.py)
    controller firmware build|deploy|monitor|test ...   (see controller/firmware/command.py)
    controller fleet [stats] [--broker HOST[:PORT]] [--once] [--period 7d] ...   (controller/telemetry/command.py)
    controller web build|serve ...   (see controller/web/command.py)
    controller hardware check [--machine NAME] ...   (see controller/hardware/command.py)
    controller hardware cards [--machine NAME] [--lang LL] [--out DIR]   (see controller/cards.py)
    controller --simulate [--machine MACHINE] [--config PATH] [--script FILE | --autoplay N [--visitor V]]
                          [--seed N] [--jam-rate R] [--glitch-rate R] [--bounce] [--speed X] [--lang LL]

Bad arguments get one line that names the argument, and exit status 2.
"""

import argparse
import codecs
import heapq
import itertools
import json
import os
import sys
import time

from controller.arguments import (DEFAULT_CONFIG, USAGE_ERROR, ArgumentError, Parser, add_config_argument,
                                  add_language_argument, argument, config_path, load_service_config, positive, rate,
                                  read_script, seed, shipped_script)
from controller.core import solve as solver
from controller.core.registry import NAMES as MACHINES
from controller.core.solve import SearchTooLarge
from controller.core.players import PLAYER_NAMES, Perfect, find_player
from controller.core.presets import FIRST_CHOICES, MACHINE, PRESETS, RANDOM, YOU, find_preset
from controller.core.rng import Random
from controller.core.rules import MISERE, NORMAL, position_text
from controller.core.quoting import quoted
from controller.core.values import MAX_DIGITS, is_whole, whole
from controller.service.pin_factories import PIN_FACTORIES
from controller.status import UNKNOWN, run_status, shut_out


def heap_sizes(texts):
    """The heaps typed; a number too long to read is said to be that, not to be no number, and heaps
    written as a script writes rows (1,3,5,7) or quoted together ('1 3 5 7') are shown written apart."""
    for i, text in enumerate(texts):
        if len(text) > MAX_DIGITS and not text.strip("0123456789"):
            raise ArgumentError("HEAPS: heap %d has %d digits: a heap has at most %d" % (i + 1, len(text), MAX_DIGITS))
        parts = text.replace(",", " ").split()
        if len(parts) > 1 and all(is_whole(part) for part in parts):
            raise ArgumentError("HEAPS: heap %d is %s: give each heap on its own, with spaces between: %s"
                                % (i + 1, quoted(text), " ".join(parts)))
    return [argument("HEAPS", whole, text, "heap %d" % (i + 1)) for i, text in enumerate(texts)]


def add_game_arguments(parser):
    parser.add_argument("game", metavar="GAME", help="one of: " + ", ".join(p.name for p in PRESETS))
    parser.add_argument("heaps", metavar="HEAPS", nargs="*", default=[], help="heap sizes, such as 1 3 5 7")
    rule = parser.add_mutually_exclusive_group()
    rule.add_argument("--misere", dest="rule", action="store_const", const=MISERE,
                      help="whoever takes the last object loses")
    rule.add_argument("--normal", dest="rule", action="store_const", const=NORMAL,
                      help="whoever takes the last object wins")
    parser.add_argument("--k", type=positive, help="Moore and Rosebushes: how many heaps a move may touch "
                        "(default %d)" % find_preset("moore").k)
    parser.add_argument("--max-take", type=positive, help="subtraction games: the most a move takes (default %d)"
                        % find_preset("subtraction").max_take)


class VersionAction(argparse.Action):
    """--version: the version and the commit it was built from (controller/built.py), asked only when shown."""

    def __init__(self, option_strings, dest, **options):
        super().__init__(option_strings, dest, nargs=0, help="show the version and the commit it was built "
                         "from, and exit")

    def __call__(self, parser, namespace, values, option_string=None):
        from controller.built import described
        sys.stdout.write("controller %s\n" % described())
        parser.exit()


def build_parser():
    parser = Parser(prog="controller", description="Dr. Nim Controller: historic Nim machines, solved and played. "
                    "'controller --simulate' opens the bench simulator (see --simulate --help).")
    parser.add_argument("--version", action=VersionAction)
    # Listed for the help only: main() hands `controller --simulate ...` to the simulator's own parser.
    parser.add_argument("--simulate", action="store_true", help="the bench simulator instead of a COMMAND: a "
                        "virtual replica in the terminal ('controller --simulate --help' for its options)")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=Parser)
    commands.required = True

    solve = commands.add_parser("solve", help="who wins a position, and every winning move")
    solve.set_defaults(action=run_solve)
    add_game_arguments(solve)
    solve.add_argument("--json", action="store_true", help="print one JSON object")
    solve.add_argument("--method", choices=("exact", "ip"), default="exact",
                       help="exact: closed forms and exact search (default); ip: the integer programme")
    solve.add_argument("--limit", type=positive, default=1000,
                       help="list at most this many winning moves (Nim_k can have astronomically many)")
    solve.add_argument("--seed", type=seed, help="draw a random start (applet, nimatron) as 'play' does with "
                       "this seed")

    play = commands.add_parser("play", help="play a game in the terminal")
    play.set_defaults(action=run_play)
    add_game_arguments(play)
    play.add_argument("--opponent", help="one of: " + ", ".join(PLAYER_NAMES))
    play.add_argument("--first", type=first_mover, choices=FIRST_CHOICES,
                      help="who moves first (player, the machines' word in their first setting, is you)")
    play.add_argument("--seed", type=seed, help="seed for the machine's random choices (same seed, same game)")
    add_language_argument(play)

    run = commands.add_parser("run", help="run the replica: the Raspberry Pi service")
    run.set_defaults(action=run_service)
    add_config_argument(run)
    run.add_argument("--machine", choices=MACHINES, help="overrides service.machine")
    run.add_argument("--pin-factory", choices=PIN_FACTORIES, help="overrides service.pin_factory")

    config = commands.add_parser("config", help="check a configuration file")
    config_commands = config.add_subparsers(dest="config_command", metavar="check", parser_class=Parser)
    config_commands.required = True
    check = config_commands.add_parser("check", help="check a configuration file and its pin map")
    check.set_defaults(action=run_config_check)
    check.add_argument("path", metavar="PATH", nargs="?", help="default: %s when it exists" % DEFAULT_CONFIG)
    # every other command names its configuration with --config: a user typing it here means the same file
    add_config_argument(check)

    safe_off = commands.add_parser("safe-off", help="every output of the pin map off (the unit runs it after "
                                   "every stop, crash or watchdog kill)")
    safe_off.set_defaults(action=run_safe_off)
    add_config_argument(safe_off)

    status = commands.add_parser("status", help="the running game, the last heartbeat and any fault")
    status.set_defaults(action=run_status)
    add_config_argument(status)
    status.add_argument("--exhibit", metavar="NAME", help="the status of a board [boards] names NAME, watched by "
                        "this Pi (default: the configuration's own exhibit, its client_id)")
    monitor = status.add_mutually_exclusive_group()
    monitor.add_argument("--check", action="store_true", help="for a museum's monitoring (Nagios, Icinga, a cron "
                         "job): one line, OK, WARNING, CRITICAL or UNKNOWN - ..., and the exit status 0, 1, 2 or 3")
    monitor.add_argument("--json", action="store_true", help="the same as one JSON object (\"format\": 1, "
                         "docs/troubleshooting.md), for Zabbix or a script; exit status 0")
    stats = commands.add_parser("stats", help="games per day and weekday, wins by side, faults by kind, over a period")
    stats.set_defaults(action=run_stats)
    add_config_argument(stats)
    stats.add_argument("--period", default="14d", help="how far back, in this computer's time zone: 7d, 24h, 90min, "
                       "2025-03 (a month), 2025-03-01, 2025-03-01..2025-03-31, 2025-03-01.., this-month, last-month "
                       "(default 14d)")
    stats.add_argument("--csv", action="store_true", help="one row per day of the period, for a spreadsheet: date, "
                       "weekday, exhibit, machine, games, visitors_wins, machine_wins, faults, mean_length_s")
    stats.add_argument("--file", metavar="PATH", help="read these statistics, not the service's own (stats.sqlite in "
                       "its state folder): a former venue's, kept when the exhibit moved on, or a file the service set "
                       "aside as damaged")
    stats.add_argument("--exhibit", metavar="NAME", help="the statistics of a board [boards] names NAME, watched by "
                       "this Pi (default: the configuration's own exhibit, its client_id); with --file, the name its "
                       "--csv rows are labelled with (the exhibit's name at that venue)")
    backup = commands.add_parser("backup", help="the exhibit's configuration, pin maps, statistics and telemetry "
                                 "queue in one archive, for a new SD card; safe while the service runs")
    backup.set_defaults(action=run_backup)
    backup.add_argument("file", metavar="FILE", help="the archive to write (.tar.gz; - for the standard output); "
                        "restored with sudo tar -xzf FILE -C /")
    add_config_argument(backup)
    from controller.firmware.command import add_parser as add_firmware_parser
    add_firmware_parser(commands)
    from controller.selftest.command import add_parsers as add_selftest_parsers
    add_selftest_parsers(commands)
    from controller.web.command import add_parser as add_web_parser
    add_web_parser(commands)
    from controller.telemetry.command import add_parser as add_fleet_parser
    add_fleet_parser(commands)
    from controller.hardware.command import add_parser as add_hardware_parser
    from controller.cards import add_parser as add_cards_parser
    add_cards_parser(add_hardware_parser(commands))
    return parser


def game_variant(args):
    """The preset and its variant; a choice the game does not offer is refused naming its own option."""
    preset = argument("GAME", find_preset, args.game)
    if args.rule:
        argument("--" + args.rule, preset.variant, args.rule)
    if args.k is not None:
        argument("--k", preset.variant, None, args.k)
    if args.max_take is not None:
        argument("--max-take", preset.variant, None, None, args.max_take)
    return preset, preset.variant(args.rule, args.k, args.max_take)


class Progress:
    """An exact search's progress on a terminal: nothing for the first second
    (`delay`), then "searching exactly: N positions" on one line of the
    stream, rewritten in place; nothing at all when the stream is not a
    terminal. The core calls it with the positions searched so far."""

    def __init__(self, stream=None, clock=None, delay=1.0):
        self.stream = stream or sys.stderr
        self.clock = clock or time.monotonic
        self.delay = delay
        self.start = self.clock()
        self.terminal = self.stream.isatty()
        self.shown = False
        self.searched = 0

    def __call__(self, searched):
        self.searched = searched
        if self.terminal and self.clock() - self.start >= self.delay:
            self.shown = True  # first: Ctrl-C may come in the middle of the write
            self.stream.write("\rsearching exactly: {:,} positions".format(searched))
            self.stream.flush()

    def clear(self):
        """Rub the progress line out, so what follows starts a clean line."""
        if self.shown:
            self.stream.write("\r\033[K")
            self.stream.flush()
            self.shown = False


def run_solve(args, out):
    preset, variant = game_variant(args)
    if args.seed is not None and not preset.random_start:
        raise ArgumentError("--seed: %s has no random start to draw (%s have)"
                            % (preset.name, " and ".join(p.name for p in PRESETS if p.random_start)))
    if args.seed is not None and args.heaps:
        raise ArgumentError("--seed: the heaps are given, so there is nothing to draw")
    heaps = argument("HEAPS", preset.start, heap_sizes(args.heaps), None if args.seed is None else Random(args.seed))
    progress = Progress()
    try:
        wins, moves, complete, count = solve_position(args, variant, heaps, progress)
    except KeyboardInterrupt:
        progress.clear()
        sys.stderr.write("controller: stopped by Ctrl-C after searching {:,} positions\n".format(progress.searched))
        return 130
    finally:
        progress.clear()
    over = variant.is_over(heaps)
    if args.json:
        out.write(json.dumps({
            "game": preset.name,
            "rule": variant.rule,
            "position": list(heaps),
            "game_over": over,
            "mover_wins": wins,
            "winning_moves": [{"move": str(m), "leaves": list(variant.apply(heaps, m))} for m in moves],
            "winning_move_count": count,
            "complete": complete,
            "method": args.method,
        }) + "\n")
        return 0
    out.write("%s: %s.\n" % (preset.title, variant.describe()))
    out.write("Position %s.\n" % position_text(heaps))
    if over:
        out.write("The game is over: nothing is left to take. Whoever took the last one %s, so the player to move "
                  "has %s.\n" % (("lost", "won") if variant.misere else ("won", "lost")))
        return 0
    if not wins:
        out.write("The player to move loses against perfect play: every move leaves a winning position.\n")
        if args.method == "ip":
            out.write("(The integer programme's optimum is 0 heaps changed: the position is already safe.)\n")
        return 0
    if args.method == "ip":
        out.write("The player to move wins. The integer programme's move, changing the fewest heaps:\n")
    elif complete:
        out.write("The player to move wins with %d winning move%s:\n" % (count, "" if count == 1 else "s"))
    else:
        out.write("The player to move wins with %d winning moves; %s %d:\n"
                  % (count, "the first" if count <= SORTED_UP_TO else "the solver's first", len(moves)))
    for move in moves:
        out.write("  %-12s take %s, leaving %s\n" % (move, describe_takes(move), position_text(variant.apply(heaps, move))))
    if not complete and args.method == "exact":
        out.write("  ... and %d more: raise --limit to list them.\n" % (count - len(moves)))
    return 0


def solve_position(args, variant, heaps, progress):
    """Who wins, the winning moves listed (up to --limit), whether that is all of them, and how many there are."""
    if args.method == "ip":
        wins, moves, complete = solve_by_ip(variant, heaps)
        return wins, moves, complete, solver.winning_move_count(variant, heaps)
    wins = solver.mover_wins(variant, heaps, progress)
    count = solver.winning_move_count(variant, heaps, progress)
    found = solver.winning_moves(variant, heaps, progress)
    if count <= SORTED_UP_TO:
        moves = heapq.nsmallest(args.limit, found)
    else:
        moves = sorted(itertools.islice(found, args.limit))
    return wins, moves, len(moves) == count, count


# Up to this many winning moves, --limit lists the head of the whole sorted list; beyond it (Nim_k
# can have astronomically many) the first the solver finds, sorted, and the output says so.
SORTED_UP_TO = 100000


def describe_takes(move):
    return " and ".join("%d from heap %d" % (count, heap + 1) for heap, count in move.takes)


def solve_by_ip(variant, heaps):
    if variant.family not in ("nim", "moore") or variant.misere:
        raise ArgumentError("--method ip: the integer programme solves Nim and Moore's Nim_k in normal play only")
    from controller.ip import ip_winning_move
    from controller.core.rules import Move
    takes = argument("--method ip", ip_winning_move, heaps, variant.k)
    if takes is None:
        return False, [], True
    return True, [Move(takes)], False


def run_play(args, out):
    """The terminal game; it reads the visitor's answers with `args.read_line` (input, or a test's)."""
    seed = args.seed if args.seed is not None else int.from_bytes(os.urandom(4), "big")
    rng = Random(seed)
    preset, variant = game_variant(args)
    opponent = argument("--opponent", find_player, args.opponent or preset.opponent, rng)
    if not args.heaps and preset.name == "sinclair":
        check_opponent(opponent, variant, (1,))  # its one pile, before asking how big it is
    t = args.lang
    try:
        return play_in_terminal(args, out, t, rng, seed, preset, variant, opponent)
    except Quit:
        out.write(t._("Game abandoned.") + "\n")
        return 0
    except EOFError:
        out.write("\n" + t._("Game abandoned: end of input.") + "\n")
        return 0
    except KeyboardInterrupt:
        out.write("\n" + t._("Game abandoned.") + "\n")
        return 130


class Quit(Exception):
    """The player typed q or quit: the game ends as at Ctrl-C, with the status of a game ended on purpose (0)."""


def quitting(read_line):
    """`read_line`, raising Quit when the answer is q or quit (the simulator's key, in every language)."""
    def read(prompt):
        text = read_line(prompt)
        if text.strip().lower() in ("q", "quit"):
            raise Quit
        return text
    return read


def play_in_terminal(args, out, t, rng, seed, preset, variant, opponent):
    read_line = quitting(args.read_line)
    from controller.terminal import play, rule, title
    # Translators: q is typed as it is in every language (the simulator's key to quit).
    header = "%s: %s.\n%s\n" % (title(t, preset), rule(t, variant), t._("Type q to quit."))
    asks_for_matchsticks = not args.heaps and preset.name == "sinclair"
    if asks_for_matchsticks:
        out.write(header)  # what the game is, before its first question
    while asks_for_matchsticks and not args.heaps:
        answer = read_line(t._("How many matchsticks? ")).strip()
        if is_whole(answer) and int(answer) > 0:
            args.heaps = [answer]
        else:
            out.write(t.format(t._("%(answer)s will not do: give a whole number of matchsticks, 1 or more."),
                               {"answer": quoted(answer)}) + "\n")
    heaps = argument("HEAPS", preset.start, heap_sizes(args.heaps), rng)
    if variant.is_over(heaps):
        raise ArgumentError("HEAPS: nothing to take in %s: a game needs at least one object" % position_text(heaps))
    check_opponent(opponent, variant, heaps)
    first = args.first or preset.first
    if first == RANDOM:
        first = MACHINE if rng.below(2) else YOU
    if not asks_for_matchsticks:
        out.write(header)
    if preset.name == "drnim":
        # its title promises the 1966 machine, which a perfect visitor beats moving first or second: not this game
        # Translators: controller play drnim plays the game alone; the 1966 machine, with its equalizer (a flipper that
        # makes one mistake for the visitor), is the bench simulator, a command typed as it is in every language
        out.write(t._("Dr. Nim's game, without the machine's equalizer: the machine itself, whose equalizer lets a "
                      "perfect player win whether they move first or not, is controller --simulate.") + "\n")
    who = t._("You play against %(opponent)s; the machine moves first. (seed %(seed)s)") if first == MACHINE \
        else t._("You play against %(opponent)s; you move first. (seed %(seed)s)")
    out.write(t.format(who, {"opponent": opponent.name, "seed": seed}) + "\n")
    play(variant, heaps, opponent, first == MACHINE, read_line, lambda text: out.write(text + "\n"), t)
    return 0


def check_opponent(opponent, variant, heaps):
    """The opponent can play `heaps`: a perfect (or fallible) one asks the solver at each of its moves, and a start
    too large for its exact search ended the game at the machine's first move, exit 1, after the visitor's."""
    problem = opponent.unsupported(variant, heaps)
    if problem:
        raise ArgumentError("--opponent: " + problem)
    # only where a search would be refused: one the solver can make is made at the machine's move, as before
    if isinstance(opponent, Perfect) and solver.search_estimate(heaps) > solver.search_limit:
        try:
            solver.mover_wins(variant, heaps)     # a closed form answers at once; a search too large is refused
        except SearchTooLarge as error:
            raise ArgumentError("HEAPS: %s: %s could not choose its moves; give smaller heaps" % (error, opponent.name))


def run_service(args, out):
    from controller.service import daemon
    overrides = {}
    if args.machine:
        overrides["machine"] = args.machine
    if args.pin_factory:
        overrides["pin_factory"] = args.pin_factory
    from controller.telemetry.settings import check_password
    # a jamming servo gate is warned of as the service starts, not refused: a running exhibit stays lit
    config, pinmap = load_service_config(config_path(args), overrides, gate=False)
    argument("--config", check_password, config.path or "the defaults", config.telemetry)
    try:
        factory = daemon.pin_factory_for(config.service["pin_factory"])
    except daemon.NoGPIO as error:
        sys.stderr.write("controller run: %s\n" % error)
        return 1
    return daemon.run(config, pinmap, factory)


def run_config_check(args, out):
    if args.path and args.config and args.path != args.config:
        raise ArgumentError("--config: %s, and PATH %s: name one configuration to check" % (args.config, args.path))
    path = args.path or args.config or (DEFAULT_CONFIG if os.path.exists(DEFAULT_CONFIG) else None)
    label = "--config" if args.config else ""     # PATH, or the default file: the error names the file alone
    from controller.telemetry.settings import check_password, misrouted, password_in_clear, proxy_address, proxy_target
    config, pinmap = load_service_config(path, label=label)
    argument(label, check_password, path or "the defaults", config.telemetry)
    from controller.extras import lacking
    lacks = lacking("telemetry", "paho.mqtt.client") if config.telemetry["enabled"] else None
    if lacks:
        sys.stderr.write("controller config check: %s: [telemetry] is enabled, but the service could not report: "
                         "%s\n" % (path or "the defaults", lacks))
        return 1
    # what `controller run` in this environment would drive the pins with
    from controller.service.daemon import NoGPIO, pin_factory_override
    try:
        override = pin_factory_override()
    except NoGPIO as error:
        sys.stderr.write("controller config check: %s\n" % error)
        return 1
    backend = config.service["pin_factory"]
    if override:
        backend = "%s (GPIOZERO_PIN_FACTORY, over the configuration's %s)" % (override, backend)
    out.write("%s: good: %s, pin map %s, GPIO backend %s, languages %s\n" % (
        path or "the defaults", config.machine_name, pinmap.path, backend, ", ".join(config.languages)))
    warning = password_in_clear(config.telemetry)
    if warning:
        out.write("%s: %s\n" % (path or "the defaults", warning))
    from controller.hardware.pinmap.check import ribbon_warnings, serial_port_warnings
    from controller.service.config import unplayed_wiring
    for line in serial_port_warnings(pinmap) + ribbon_warnings(pinmap) + unplayed_wiring(config, pinmap):
        out.write("warning: %s\n" % line)
    target = proxy_target(config.telemetry, path)
    if target:
        out.write("%s: telemetry: the broker %s %s\n" % (path, proxy_address(config.telemetry), misrouted(target)))
    return 0


def run_safe_off(args, out):
    from controller.service import safe_off
    return safe_off.run(config_path(args), out, sys.stderr)


def run_stats(args, out):
    """Games per day and weekday, wins and faults over --period: read only; a damaged file is said in one line."""
    import datetime
    import sqlite3
    from controller.service.config import load_config
    from controller.service.clock import UNSET_CLOCK, synchronised
    from controller.service.stats import WEEKDAYS, check_time_zone, period as read_period, summary as read_summary
    argument("TZ", check_time_zone)
    within = argument("--period", read_period, args.period)
    config = argument("--config", load_config, config_path(args))
    exhibit, path = statistics_of(args, config)
    shut_out("stats", config.state_dir(), os.path.dirname(path))
    if not os.path.exists(path):
        # said apart from a spreadsheet's rows: `stats --csv > report.csv` wrote this sentence as its only line
        (sys.stderr if args.csv else out).write("No statistics yet in %s: the %s writes them from its first game.\n"
                                                % (path, "service" if exhibit == config.telemetry["client_id"]
                                                   else "board's monitor"))
        if args.csv:    # a board's machine is said by its games alone: without one, its sheet is the header
            from controller.service.stats import write_csv
            write_csv(out, within, [], [], [(exhibit, config.machine_name)]
                      if exhibit == config.telemetry["client_id"] else [])
        return 0
    try:
        if args.csv:
            from controller.service.stats import machines, records, write_csv
            games, faults = records(path, within)
            # every day of the period has its row, a day without games too: the Pi's machine's, or each machine a
            # board's file holds, or a file kept from a former venue (which may have been a board's)
            always = (machines(path) if exhibit in config.boards.values() or args.file else []) or \
                [config.machine_name]
            # read as they are counted: years of games are never all in memory
            write_csv(out, within, ((exhibit, machine, ended, winner, seconds)
                                    for machine, ended, winner, seconds in games),
                      ((exhibit, machine, at) for machine, at in faults), [(exhibit, machine) for machine in always])
            return 0
        summary = read_summary(path, within)
    except sqlite3.Error as error:
        sys.stderr.write("controller stats: %s is not readable statistics (%s)%s\n" % (
            path, error, "" if args.file else "; the service sets a damaged file aside at its next start"))
        return 1
    if args.file:
        out.write("Statistics: %s\n" % path)
    elif args.exhibit:
        out.write("Statistics: %s, the exhibit %s\n" % (path, exhibit))
    out.write("Period: %s\n" % within.said())
    if synchronised() is False:
        out.write(UNSET_CLOCK)
    if not summary["games"]:
        out.write("No games in this period.\n")
    else:
        wins = summary["wins"]
        out.write("Games: %d (visitors won %d, the machine %d)\n" % (summary["games"], wins.get("player", 0),
                                                                      wins.get("machine", 0)))
    if summary["games"] or summary["faults_per_day"]:
        out.write("Games per day, with the day's faults:\n")
        for day, count in summary["games_per_day"]:
            # a day's faults beside its games: ten jams in a week read as nothing, and on one day they need a look
            faults = summary["faults_per_day"].get(day)
            out.write("  %s %s  %d%s\n" % (day, WEEKDAYS[datetime.date.fromisoformat(day).weekday()], count,
                                          "  faults: " + ", ".join("%s %d" % item for item in faults.items())
                                          if faults else ""))
    if summary["games"]:
        out.write("Games per weekday: %s\n" % ", ".join("%s %d" % (name, summary["games_per_weekday"][name])
                                                        for name in WEEKDAYS))
        if summary["mean_length_s"] is not None:
            out.write("Length of a game (mean, from its first move): %d s\n" % summary["mean_length_s"])
    # the visitor as the Games line above calls them, not the machine's own word (player)
    out.write("Wins: %s\n" % (", ".join("%s %d" % ("visitor" if winner == "player" else winner, count)
                                        for winner, count in sorted(summary["wins"].items())) or "none"))
    out.write("Faults: %s\n" % (", ".join("%s %d" % item for item in sorted(summary["faults"].items())) or "none"))
    out.write("Jams: %d\n" % summary["jams"])
    # on a Raspberry Pi, the service counts each as it begins (`controller status` only since it started)
    if summary["under_voltage"] or summary["too_hot"] or power_watched():
        out.write("Under-voltage: %s; CPU too hot: %s\n" % (episodes(summary["under_voltage"]),
                                                            episodes(summary["too_hot"])))
    else:
        out.write(NOT_WATCHED)
    return 0


def run_backup(args, out):
    from controller.service.backup import BackupError, backup
    from controller.service.config import config_for_backup
    path = config_path(args)
    if path is None:
        raise ArgumentError("--config: backup keeps the exhibit's configuration: give its path (there is no %s)"
                            % DEFAULT_CONFIG)
    if args.file == "-" and sys.stdout.isatty():
        raise ArgumentError("FILE: - writes the archive to the standard output, here a terminal: send it to a file "
                            "(> FILE), or name the file")
    config, refusals = argument("--config", config_for_backup, path)
    for refusal in refusals:
        sys.stderr.write("controller backup: warning: %s: the backup reads the default there, and keeps the file as "
                         "it is\n" % refusal)
    try:
        backup(config, args.file, sys.stderr if args.file == "-" else out, sys.stdout.buffer)
    except BackupError as error:
        sys.stderr.write("controller backup: %s; %s\n" % (error, "the archive is incomplete" if args.file == "-"
                                                          else "nothing written"))
        return 1
    return 0


def statistics_of(args, config):
    """(the exhibit, its statistics file) that `controller stats` reads: --exhibit's, --file's, or the
    configuration's own. A file in a board's folder is that board's exhibit, so that its CSV rows are
    labelled with its name, not the Pi's."""
    from controller.service.boards import board_folder, exhibit_named
    own = config.telemetry["client_id"]
    if args.exhibit and args.file:
        # a former venue's file, under the name the exhibit had there: not one this configuration names
        return args.exhibit, kept_statistics(args.file, config)
    if args.exhibit:
        argument("--exhibit", exhibit_named, config, args.exhibit)
        return args.exhibit, os.path.join(board_folder(config, args.exhibit), "stats.sqlite")
    if args.file:
        path = kept_statistics(args.file, config)
        folder = os.path.dirname(os.path.abspath(path))
        for name in config.boards.values():
            if os.path.abspath(board_folder(config, name)) == folder:
                return name, path
        return own, path
    return own, os.path.join(config.state_dir(), "stats.sqlite")


def kept_statistics(path, config):
    """--file's statistics: a file this user may read (the state folder is the service's user's alone);
    ArgumentError naming --file when it is not one."""
    shut_out("stats", config.state_dir(), os.path.dirname(os.path.abspath(path)))
    if not os.path.isfile(path):
        raise ArgumentError("--file: %s: %s" % (path, "a folder, not a statistics file" if os.path.isdir(path)
                                                else "no such file"))
    return path


# A laptop (the simulator's statistics) has no Pi supply alarm to read: "none" there would say the supply held.
NOT_WATCHED = "Under-voltage, CPU too hot: not read here (this computer is not a Raspberry Pi)\n"


def power_watched():
    """Whether this computer is one whose service reads the Pi's supply alarm and CPU heat."""
    from controller.service.power import SYSTEM_ROOT, watch
    return watch(SYSTEM_ROOT) is not None


def episodes(count):
    return "none" if not count else "%d episode%s" % (count, "" if count == 1 else "s")


SPEEDS = (0.1, 100.0)


def speed(text):
    """argparse type: the drawing's simulated seconds per real second (0 would stop its clock)."""
    try:
        value = float(text)
    except ValueError:
        value = 0.0
    if not SPEEDS[0] <= value <= SPEEDS[1]:
        raise argparse.ArgumentTypeError("must be a number from %g to %g, not %r" % (SPEEDS + (text,)))
    return value


def first_mover(text):
    """argparse type of play --first: `player`, as a machine's `first` setting and a script say the visitor, is
    `you` (it was refused, with only you, machine and random offered)."""
    return YOU if text == "player" else text


def build_simulate_parser():
    from controller.sim.autoplay import VISITORS
    parser = Parser(prog="controller",
                    description="The bench simulator: the real service on mock pins, with a virtual machine.")
    parser.add_argument("--simulate", action="store_true", required=True, help="the bench simulator")
    parser.add_argument("--machine", choices=MACHINES,
                        help="the replica to simulate (default: --config's machine, else %s)" % MACHINES[0])
    parser.add_argument("--config", metavar="PATH",
                        help="play with a configuration file's settings for the machine (its section, such as "
                             "[%s]: how it plays, its marbles or rows), as an exhibit would before it is deployed"
                             % MACHINES[0])
    mode = parser.add_mutually_exclusive_group()
    mode.add_argument("--script", metavar="FILE", help="run a scenario script; exit 0 when every expect holds")
    mode.add_argument("--autoplay", metavar="N", type=positive, help="play N games against a model of a visitor")
    parser.add_argument("--visitor", choices=tuple(VISITORS),
                        help="with --autoplay: how the visitor plays (default perfect)")
    parser.add_argument("--seed", type=seed, default=0, help="the same seed gives the same run")
    parser.add_argument("--jam-rate", type=rate, default=0.0, help="chance that a released marble jams")
    parser.add_argument("--glitch-rate", type=rate, default=0.0, help="sensor glitches per second")
    parser.add_argument("--bounce", action="store_true", help="buttons bounce")
    parser.add_argument("--no-working", action="store_true",
                        help="hide the working (why the machine moved), which gives the winning move: for a "
                             "projector's room asked to beat the machine")
    parser.add_argument("--speed", type=speed,
                        help="simulated seconds per real second in the drawing, %g to %g (default 1)" % SPEEDS)
    add_language_argument(parser)
    return parser


def run_simulate(argv, out):
    args = build_simulate_parser().parse_args(argv)
    if args.visitor and not args.autoplay:
        raise ArgumentError("--visitor: the visitor plays only with --autoplay N")
    if args.speed is not None and (args.script is not None or args.autoplay):
        raise ArgumentError("--speed: the drawing's; --script and --autoplay run as fast as the computer allows")
    if args.config and args.script is not None:
        raise ArgumentError("--config: a script names its own machine and settings (its game line)")
    if args.machine and args.script is not None:
        raise ArgumentError("--machine: a script names its own machine (its game line)")
    faults = {"seed": args.seed, "jam_rate": args.jam_rate, "glitch_rate": args.glitch_rate, "bounce": args.bounce}
    if args.script is not None:
        from controller.core.scenario import ScriptError
        from controller.sim.script import run_script
        text = read_script(shipped_script(args.script))
        report = lambda line: out.write(line + "\n")  # noqa: E731
        try:
            failures = run_script(text, report=report, **faults)
        except ScriptError as error:
            sys.stderr.write("controller --simulate: %s: %s\n" % (args.script, error))
            return USAGE_ERROR
        out.write("%s: %s\n" % (args.script, "every expectation holds" if not failures
                                 else "%d expectation%s failed" % (len(failures), "" if len(failures) == 1 else "s")))
        return 1 if failures else 0
    from controller.sim.engine import Simulation
    machine, settings, exhibit, pinmap = simulated_machine(args)
    check_marble_faults(args, machine)
    simulation = Simulation(machine, settings, language=args.lang.code, exhibit=exhibit, pinmap=pinmap, **faults)
    try:
        if args.autoplay:
            from controller.sim.autoplay import autoplay, summary_lines
            summary = autoplay(simulation, args.autoplay, args.visitor or "perfect", args.seed,
                               lambda line: out.write(line + "\n"))
            out.write("\n".join(summary_lines(summary)) + "\n")
            return 130 if summary["stopped"] else 0
        try:
            from controller.sim.app import run_app
        except ImportError as error:
            from controller.extras import missing
            from controller.shipped import in_checkout
            # `make simulate` is a checkout's: an installed controller (pipx, a distribution's) has no Makefile
            raise ArgumentError("--simulate: the drawing needs Textual: %s%s" % (
                missing("sim", error), " (or make simulate)" if in_checkout() else ""))
        run_app(simulation, speed=args.speed or 1.0, working=not args.no_working)
        return 0
    finally:
        simulation.close()


def check_marble_faults(args, machine):
    """--jam-rate and --glitch-rate act on marbles and their sensor: on a machine without, one line, not nothing."""
    from controller.core.registry import machine_class
    from controller.core.exhibit import RELEASE
    cls = machine_class(machine)
    if not cls.has_output(RELEASE):
        for option, value in (("--jam-rate", args.jam_rate), ("--glitch-rate", args.glitch_rate)):
            if value:
                raise ArgumentError("%s: %s has no marbles to jam, nor a marble sensor to glitch" % (option, cls.TITLE))


def simulated_machine(args):
    """(machine, its settings, the [exhibit] settings, the pin map): --machine with the defaults and its
    shipped wiring, or a configuration's, with the exhibit's own pin map (pinmaps/ beside it, or the one it
    names), both checked as `config check` checks them: the bench plays the exhibit's wiring, a servo gate
    too, before it goes out, and rows or lamps wired and never played are warned of as config check warns.
    The simulator's buzzer keeps the configuration's quiet (its language is --lang's)."""
    if not args.config:
        return args.machine or MACHINES[0], {}, None, None
    overrides = {"machine": args.machine} if args.machine else None
    config, pinmap = load_service_config(args.config, overrides)
    from controller.service.config import unplayed_wiring
    for line in unplayed_wiring(config, pinmap):
        sys.stderr.write("controller --simulate: warning: %s\n" % line)
    return config.machine_name, config.machine, config.exhibit, pinmap


def period_joined(argv):
    """`--period -7d` as `--period=-7d`: argparse takes a value that begins with '-' (and is not a plain
    negative number) for an option, and said only 'expected one argument'; joined, it reaches --period's
    own check, which says what a period is."""
    joined = []
    for word in argv:
        if joined and joined[-1] == "--period" and word.startswith("-") and not word.startswith("--"):
            joined[-1] = "--period=" + word
        else:
            joined.append(word)
    return joined


# A terminal or a file in an encoding without some language's letters (Latin-1, a Windows code page) shows
# the typographic ones as their plain look, French's ’ as ' and the narrow space of its digit groups as a
# space, and anything else as '?', where the encoding would stop the command with a traceback mid-game.
PLAIN = {"\u2018": "'", "\u2019": "'", "\u201c": '"', "\u201d": '"', "\u00ab": '"', "\u00bb": '"',
         "\u00a0": " ", "\u2009": " ", "\u202f": " ", "\u2013": "-", "\u2014": "-", "\u2026": "...",
         "\u2192": "->"}


def plain(error):
    """The codecs error handler "controller-plain": PLAIN's look of the characters the encoding lacks."""
    return "".join(PLAIN.get(character, "?") for character in error.object[error.start:error.end]), error.end


codecs.register_error("controller-plain", plain)


def main(argv=None, out=None, read_line=input):
    if out is None and hasattr(sys.stdout, "reconfigure"):
        sys.stdout.reconfigure(errors="controller-plain")
    out = out or sys.stdout
    argv = period_joined(sys.argv[1:] if argv is None else argv)
    try:
        # `controller --simulate ...` (an option first) is the simulator; a subcommand's --simulate is its own
        if "--simulate" in argv and argv[0].startswith("-"):
            return run_simulate(argv, out)
        args = build_parser().parse_args(argv)
        args.read_line = read_line
        return args.action(args, out)
    except ArgumentError as error:
        if argv[:1] == ["status"] and "--check" in argv:   # a monitor reads a bad argument as UNKNOWN
            out.write("UNKNOWN - controller status: %s\n" % error)
            return UNKNOWN
        sys.stderr.write("controller: %s\n" % error)
        return USAGE_ERROR
    except (SearchTooLarge, RuntimeError) as error:
        sys.stderr.write("controller: %s\n" % error)
        return 1
    except KeyboardInterrupt:
        out.write("\nStopped.\n")
        return 130
    except BrokenPipeError:
        # the reader went (`controller ... | head`): say nothing more, and let no flush at exit fail again
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 141
