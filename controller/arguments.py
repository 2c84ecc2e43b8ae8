"""What every `controller` command reads its arguments with.

The command line (cli.py) and each subcommand's module (firmware/command.py,
selftest/command.py, telemetry/command.py, web/command.py) import these; none
of them imports cli.py, which imports them all.

- `ArgumentError`, `argument()` and `USAGE_ERROR`: a bad argument is one line
  that names it, and exit status 2;
- `Parser`: argparse, with that one line instead of the usage block;
- the argparse types: `positive`, `seed`, `rate`;
- `--config` and what it names: `DEFAULT_CONFIG`, `add_config_argument`,
  `config_path`, `load_service_config` (the configuration and its pin map);
- `read_script`: a scenario script's text;
- `--lang`: `add_language_argument`, the visitor's language (the terminal's LANG by default).
"""

import argparse
import os

from controller.core.values import is_whole

USAGE_ERROR = 2

DEFAULT_CONFIG = "/etc/drnim-controller/config.toml"


class ArgumentError(Exception):
    """A bad command-line argument; the message names it."""


class Parser(argparse.ArgumentParser):
    """argparse, but an error is one line, not the usage block."""

    def error(self, message):
        raise ArgumentError(message)


def argument(name, function, *args):
    """Call function; a ValueError it raises becomes an error naming the argument ("" for none: an error
    that names the file the user gave)."""
    try:
        return function(*args)
    except ValueError as error:
        raise ArgumentError("%s: %s" % (name, error) if name else str(error))


def positive(text):
    """argparse type: a whole number, 1 or more."""
    if not is_whole(text) or int(text) < 1:
        raise argparse.ArgumentTypeError("must be a whole number, 1 or more, not %r" % text)
    return int(text)


def seed(text):
    """argparse type: a seed, a whole number from 0 to 2**32 - 1."""
    if not is_whole(text) or int(text) > 0xFFFFFFFF:
        raise argparse.ArgumentTypeError("must be a whole number from 0 to 4294967295, not %r" % text)
    return int(text)


def rate(text):
    """argparse type: a chance (a marble jams) or a rate (sensor glitches a second), from 0 to 1,
    written as a decimal of at most 6 places: what the simulator, the self-test's simulated
    machine and the emulated board (which reads it in millionths) all take."""
    units, point, places = text.partition(".")
    decimal = (is_whole(units) or units == "" and point) and (not point or is_whole(places) and len(places) <= 6)
    if not decimal or float(text) > 1:
        raise argparse.ArgumentTypeError("must be a number from 0 to 1 with at most 6 decimals, such as 0.1, not %r"
                                         % text)
    return Rate(text)


class Rate(float):
    """A rate whose text is always a plain decimal (0.00001, never 1e-05): the
    emulated board is sent str(rate) and reads only decimals."""

    def __str__(self):
        return ("%.6f" % self).rstrip("0").rstrip(".")


def add_config_argument(parser):
    parser.add_argument("--config", metavar="PATH", help="the configuration file (default: %s when it exists)"
                        % DEFAULT_CONFIG)


def visitor_language(text):
    """argparse type: a language of the catalogs (de, or de_DE.UTF-8), as a controller.language.Language."""
    from controller.language import UnknownLanguage, language
    try:
        return language(text)
    except UnknownLanguage as error:
        raise argparse.ArgumentTypeError(str(error))


def add_language_argument(parser, default=None):
    """--lang: the language a visitor reads, by default `default` (a code), else the terminal's (LANG)."""
    from controller.language import CODES, from_environment
    parser.add_argument("--lang", metavar="LL", type=visitor_language, default=default or from_environment(),
                        help="the visitor's language: %s (default: the terminal's, from LANG)" % ", ".join(CODES))


def config_path(args):
    """The configuration `--config` names, else DEFAULT_CONFIG when it exists, else None (the defaults)."""
    if args.config:
        return args.config
    return DEFAULT_CONFIG if os.path.exists(DEFAULT_CONFIG) else None


def load_service_config(path, overrides=None, label="--config", gate=True):
    """The configuration and its pin map, each checked and then checked against
    each other: what `config check` accepts is exactly what `run` can run. An error
    in the configuration begins with `label`, the option that named it. A servo gate
    whose angles jam the printed gate (check_gate) is refused as any other fault of
    the pin map; `gate=False` takes it (`run`: the service warns of it as it starts)."""
    from controller.hardware.pinmap.check import check_gate, load_pinmap
    from controller.service.config import check_not_writable_by_all, check_with_pinmap, load_config
    config = argument(label, load_config, path, overrides)
    pinmap_path = config.pinmap_path()
    pinmap = argument("pin map", load_pinmap, pinmap_path)
    argument("pin map", check_not_writable_by_all, pinmap_path, "pin map")
    if pinmap.machine != config.machine_name:
        raise ArgumentError("pin map: %s is for %s, not %s" % (pinmap_path, pinmap.machine, config.machine_name))
    if gate:
        argument("pin map", check_gate, pinmap)
    argument(label, check_with_pinmap, config, pinmap)
    return config, pinmap


def shipped_script(path, option="--script"):
    """`path`, or where it is not a file, the shipped scenario of that name (R1-one-marble-per-press.txt): an
    installed controller carries tests/scenarios/ inside its package, where no user would look for it. A
    name that only begins one (R5, as docs/machines.md numbers them) is told the whole names and where."""
    if not path or os.path.exists(path) or os.path.basename(path) != path:
        return path
    from controller import shipped
    scripts = shipped.scenarios()
    for script in scripts:
        if script.name == path:
            return str(script)
    names = [script.name for script in scripts]
    near = [name for name in names if name.lower().startswith(path.lower() + "-")] or \
        [name for name in names if name.lower().startswith(path.lower())]
    if not near:
        return path
    raise ArgumentError("%s: cannot read %s: no such file here; the shipped scenarios (in %s) include %s"
                        % (option, path, scripts[0].parent, " and ".join(near[:3])))


def read_script(path):
    """A script file's text; ArgumentError naming the file and what is wrong with it."""
    if not path:
        raise ArgumentError("--script: give the path of a script file")
    try:
        with open(path, "rb") as f:
            raw = f.read()
    except OSError as error:
        raise ArgumentError("--script: cannot read %s: %s" % (path, error.strerror or error))
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as error:
        if raw[:2] in (b"\xff\xfe", b"\xfe\xff"):     # Windows Notepad's "Unicode"
            raise ArgumentError("--script: %s: UTF-16 text: save it as UTF-8" % path)
        raise ArgumentError("--script: %s:%d: not UTF-8 text" % (path, raw[:error.start].count(b"\n") + 1))
