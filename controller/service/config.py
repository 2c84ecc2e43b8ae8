"""The service's TOML configuration: every setting has a documented default and a range.

    [service]     which machine, the pin map, the GPIO backend, paths, timings
    [exhibit]     what visitors meet: the languages they read, the beeps they hear (sound.py)
    [drnim]       the Dr. Nim machine's settings (controller/core/drnim.py)
    [nimatron]    the Nimatron's settings (controller/core/nimatron.py)
    [telemetry]   reporting to an MQTT broker, off by default (controller/telemetry/settings.py)
    [boards]      the name of each board this Pi watches, by its serial port (boards.py)

A section per machine of the registry (controller/core/registry.py), each
checked against that machine's own table of settings. `systemd/config.toml`
is the annotated default. A bad file gets one line naming the file, the key
and the problem.
"""

import os
import re
import stat
import tomllib

from controller.core.exhibit import ConfigError, Setting, check_settings
from controller.core.players import find_player
from controller.core.registry import NAMES, machine_class
from controller.hardware.pinmap import default_pinmap_path
from controller.hardware.pinmap.electrical import pulse_problem
from controller.hardware.pinmap.positions import key_lines, written_twice
from controller.language import CODES, language
from controller.hardware.pinmap.release import open_ms, timing_problem
from controller.service.boards import check_boards
from controller.service.pin_factories import PIN_FACTORIES, pin_factory_problem
from controller.service.sound import ALL, FAULTS, LEVELS, NONE, QUIET_LEVELS, quiet_span
from controller.telemetry.settings import TELEMETRY_SETTINGS, check_telemetry

SERVICE_SETTINGS = {
    "machine": Setting(NAMES[0], choices=NAMES),
    "pinmap": Setting(""),              # empty: pinmaps/<machine>.toml beside the configuration, else the shipped one
    "pin_factory": Setting("lgpio", choices=PIN_FACTORIES),
    "state_dir": Setting(""),           # empty: $STATE_DIRECTORY (set by systemd), else default_state_folder()
    "runtime_dir": Setting(""),         # empty: $RUNTIME_DIRECTORY, else /run/drnim-controller
    # how long the release solenoid stays energised (at most 500 ms: controller/hardware/pinmap/release.py)
    "release_pulse_ms": Setting(60, 1, 1000),
    # how long a servo gate stays open; 0: its travel (from the pin map) plus SERVO_SETTLE_MS
    "servo_open_ms": Setting(0, 0, 5000),
    "stuck_after_s": Setting(30, 1, 86400),     # a button held this long is reported as stuck
    "heartbeat_s": Setting(5, 1, 86400),        # how often the status file for `controller status` is written
}


EXHIBIT_SETTINGS = {
    # the languages visitors may choose, the museum's first language first: "de", or ["de", "en", "fr"]
    "language": Setting(["en"]),
    # the buzzer's beeps: all, faults (only the fault beep, so staff hear a jam) or none; true and false say all and none
    "sound": Setting(ALL, choices=LEVELS),
    # a span of the Pi's local time when the buzzer plays only quiet_sound, such as "17:00-10:00"; empty: none
    "quiet_hours": Setting(""),
    "quiet_sound": Setting(FAULTS, choices=QUIET_LEVELS),     # what it plays in the quiet hours
}


def check_exhibit(where, given):
    """The [exhibit] settings checked: `language` a language code or a list of them, each one the catalogs
    have (controller/language), none twice; as a list, first the museum's first. `sound` true or false as
    all or none (a technician's "sound on/off"), `quiet_hours` a span of the day (sound.py)."""
    given = dict(given)
    if isinstance(given.get("language"), str):
        given["language"] = [given["language"]]
    if isinstance(given.get("sound"), bool):
        given["sound"] = ALL if given["sound"] else NONE
    try:
        exhibit = check_settings(EXHIBIT_SETTINGS, given)
        languages = exhibit["language"]
        if not languages:
            raise ConfigError("language: name at least one language (%s)" % ", ".join(CODES))
        for code in languages:
            if not isinstance(code, str) or code not in CODES:
                raise ConfigError("language: %r is not a language of this controller (%s)" % (code, ", ".join(CODES)))
            if languages.count(code) > 1:
                raise ConfigError("language: %r is named twice" % code)
        try:
            quiet_span(exhibit["quiet_hours"])
        except ValueError as error:
            raise ConfigError("quiet_hours: %s" % error)
    except ConfigError as error:
        raise ConfigError("%s: exhibit.%s" % (where, error))
    return exhibit


class Config:
    """The checked settings: `service`, `machine` for the chosen machine, `exhibit`, `telemetry` and `boards`."""

    def __init__(self, service, machines, path=None, telemetry=None, exhibit=None, boards=None):
        self.service = service
        self.machines = machines
        self.path = path
        self.telemetry = telemetry or check_telemetry("the defaults", {})
        self.exhibit = exhibit or check_exhibit("the defaults", {})
        self.boards = boards or {}

    @property
    def languages(self):
        """The languages visitors may choose, the museum's first language first."""
        return self.exhibit["language"]

    def language(self):
        """The museum's first language (a controller.language.Language): what the exhibit says in."""
        return language(self.languages[0])

    @property
    def machine_name(self):
        return self.service["machine"]

    @property
    def machine(self):
        return self.machines[self.machine_name]

    def pinmap_path(self):
        """The pin map this configuration runs: service.pinmap, else the exhibit's (exhibit_pinmap_path)."""
        return self.service["pinmap"] or exhibit_pinmap_path(self.path, self.machine_name)

    def state_dir(self):
        return self.service["state_dir"] or os.environ.get("STATE_DIRECTORY", "").split(":")[0] \
            or default_state_folder()

    def runtime_dir(self):
        return self.service["runtime_dir"] or os.environ.get("RUNTIME_DIRECTORY", "").split(":")[0] \
            or "/run/drnim-controller"


# The Pi's state folder: the service unit's StateDirectory=, which systemd makes.
SYSTEM_STATE = "/var/lib/drnim-controller"


def user_state_folder():
    """The user's own state folder ($XDG_STATE_HOME/drnim-controller, else ~/.local/state/...)."""
    home = os.environ.get("XDG_STATE_HOME") or os.path.join(os.path.expanduser("~"), ".local", "state")
    return os.path.join(home, "drnim-controller")


def default_state_folder():
    """The state folder of a configuration that names none, outside systemd: the Pi's, where it is
    there (the service has run) or for root; else the user's own, which a laptop's `firmware monitor`
    makes: /var/lib is not a laptop user's, and the board's games went uncounted there."""
    euid = getattr(os, "geteuid", None)     # Windows has none
    if os.path.isdir(SYSTEM_STATE) or euid is not None and euid() == 0:
        return SYSTEM_STATE
    return user_state_folder()


def exhibit_pinmap_path(config_path, machine):
    """The pin map of `machine` for a configuration that names none: the exhibit's own
    wiring, pinmaps/<machine>.toml in the configuration's folder, where systemd/install.sh
    puts it beside /etc/drnim-controller/config.toml (and keeps it on updates), when it is
    there; else the one the machine ships with."""
    if config_path:
        own = os.path.join(os.path.dirname(os.path.abspath(config_path)), "pinmaps", machine + ".toml")
        if os.path.exists(own):
            return own
    return default_pinmap_path(machine)


class FileUnreadable(ConfigError):
    """A file that could not be read at all (not there, a folder, not this user's to read): nothing is
    said of what it holds."""


def read_regular_file(path, what="file"):
    """The bytes of `path`, refusing at once, with a one-line reason, anything that is
    not a regular readable file (a folder, a FIFO that would block, a name too long)."""
    try:
        if "\0" in str(path):
            raise ValueError("the path holds a NUL character")
        info = os.stat(path)
        if not stat.S_ISREG(info.st_mode):
            raise ValueError("not a regular file")
        with open(path, "rb") as f:
            return f.read()
    except FileNotFoundError:
        raise FileUnreadable("%s: no such %s" % (path, what))
    except OSError as error:
        raise FileUnreadable("%s: cannot read it (%s)" % (path, error.strerror or error))
    except ValueError as error:
        raise FileUnreadable("%s: cannot read it (%s)" % (path, error))


def check_not_writable_by_all(path, what="file"):
    """ConfigError when anyone on this computer may change the file at `path`: the file writable by
    every user, or its folder (without the sticky bit, which keeps others' files theirs)."""
    try:
        if os.stat(path).st_mode & stat.S_IWOTH:
            raise ConfigError("%s: the %s is writable by every user of this computer, so anyone could change "
                              "what the controller drives: chmod o-w %s" % (path, what, path))
        folder = os.path.dirname(os.path.abspath(path))
        mode = os.stat(folder).st_mode
        if mode & stat.S_IWOTH and not mode & stat.S_ISVTX:
            raise ConfigError("%s: its folder %s is writable by every user of this computer, so anyone could "
                              "replace the %s: chmod o-w %s" % (path, folder, what, folder))
    except OSError as error:
        raise ConfigError("%s: cannot read it (%s)" % (path, error.strerror or error))


def check_folder(where, key, value):
    """A folder setting: empty (the default), or a path that is, or can become, a folder."""
    if not value:
        return
    if "\0" in value:
        raise ConfigError("%s: service.%s: the path holds a NUL character" % (where, key))
    try:
        if os.path.exists(value) and not os.path.isdir(value):
            raise ConfigError("%s: service.%s: %s is a file, not a folder" % (where, key, value))
        os.stat(os.path.dirname(os.path.abspath(value)) or "/")
    except OSError as error:
        raise ConfigError("%s: service.%s: %s (%s)" % (where, key, value, error.strerror or error))


def section_settings():
    """Each section's settings by name ([boards] names serial ports, not settings: it is left out)."""
    known = {"service": SERVICE_SETTINGS, "exhibit": EXHIBIT_SETTINGS, "telemetry": TELEMETRY_SETTINGS}
    known.update((name, machine_class(name).SETTINGS) for name in NAMES)
    return known


def homes(key, known):
    """The sections of `known` (section_settings) that have a setting `key`, as a technician would look for
    them: "[exhibit]"; empty when none has it."""
    return " or ".join("[%s]" % section for section, table in known.items() if key in table)


def check_places(where, data):
    """Every table a known section, every setting in a section that has it: a setting above the first
    section, or under the section before the one meant (TOML puts a line at the end of the file under the
    last section), is named with the section it belongs to."""
    sections = ("service", "exhibit") + NAMES + ("telemetry", "boards")
    known = section_settings()
    for section in data:
        home = homes(section, known)
        if section not in sections and not isinstance(data[section], dict) and home:
            raise ConfigError("%s: %s: a setting above the first [section]: it belongs under %s"
                              % (where, section, home))
        if section not in sections:
            raise ConfigError("%s: [%s]: unknown section (known: %s)" % (where, section, ", ".join(sections)))
        if not isinstance(data[section], dict):
            raise ConfigError("%s: %s: must be a [%s] table" % (where, section, section))
        for key in data[section]:
            home = homes(key, known)
            if section in known and key not in known[section] and home:
                raise ConfigError("%s: %s.%s: not a setting of [%s]: it belongs under %s"
                                  % (where, section, key, section, home))


# The settings that name a file or folder. The service starts in its own folder (the unit's
# RuntimeDirectory), not where a technician checks the file: a path that does not begin at / meant
# another place for each, and the check passed a pin map the service then could not find.
PATH_SETTINGS = (("service", "pinmap"), ("service", "state_dir"), ("service", "runtime_dir"),
                 ("telemetry", "password_file"), ("telemetry", "ca_file"))


# What tomllib says of a backslash in double quotes that begins no escape it knows ("C:\Users", "C:\drnim").
BAD_ESCAPE = re.compile(r"Invalid hex value|Unescaped '\\\\'|escape", re.IGNORECASE)
# The escapes that a Windows path's backslashes in double quotes can make silently: "C:\temp" holds a tab.
ESCAPED = {"\t": ("\\t", "a tab"), "\n": ("\\n", "a line break"), "\r": ("\\r", "a carriage return"),
           "\b": ("\\b", "a backspace"), "\f": ("\\f", "a form feed")}
WINDOWS_PATH = "write a Windows path with forward slashes, or in single quotes"


def toml_problem(text, error):
    """tomllib's words for `error` in `text`; where a backslash in double quotes made it, as in a
    Windows path written as Explorer shows it, how to write that path."""
    message = str(error)
    at = re.search(r"at line (\d+)", message)
    # a file's last line without its newline: tomllib says "at end of document"
    number = int(at.group(1)) if at else len(text.splitlines()) if "end of document" in message else None
    twice = number and written_twice(text, message, number)
    if twice:
        return twice
    lines = text.split("\n")       # as tomllib counts them (splitlines also breaks at \f, \u2028...)
    if not (at and BAD_ESCAPE.search(message) and 0 < int(at.group(1)) <= len(lines)):
        return message
    keys = "|".join(key for _, key in PATH_SETTINGS)
    quoted = re.match(r'\s*(?:%s)\s*=\s*"([^"]*\\[^"]*)"' % keys, lines[int(at.group(1)) - 1])
    if not quoted:      # not a path: its words are not said back (a name, a password)
        return message
    return "%s: in double quotes a backslash begins an escape; %s: \"%s\"" % (
        message, WINDOWS_PATH, quoted.group(1).replace("\\", "/"))


def check_full_paths(path, data):
    for section, key in PATH_SETTINGS:
        value = data.get(section, {}).get(key)
        made = [ESCAPED[character] for character in ESCAPED if isinstance(value, str) and character in value]
        if made:
            raise ConfigError("%s: %s.%s: the path holds %s (%s in double quotes): %s" % (
                path, section, key, made[0][1], made[0][0], WINDOWS_PATH))
        if isinstance(value, str) and value and not os.path.isabs(value):
            raise ConfigError("%s: %s.%s: %s is not a full path (one that begins with /): the service does not "
                              "start in this folder; write it in full, such as %s" % (
                                  path, section, key, value, os.path.join(os.path.dirname(os.path.abspath(path)),
                                                                          value)))


def load_config(path=None, overrides=None):
    """Read and check a configuration file (None: every default); a refusal names the line too (with_line)."""
    try:
        return read_config(path, overrides)
    except ConfigError as error:
        raise lined(path, error) from None


def lined(path, error):
    """The refusal `error` naming its line in `path` (with_line), or itself, of its own kind (a file that cannot
    be read is FileUnreadable), where it names none."""
    said = with_line(path, str(error))
    return error if said == str(error) else ConfigError(said)


def with_line(path, refusal):
    """A refusal `path: key: problem` as `path:line: key: problem`, the line where the file sets the key, else
    where its table begins, as a pin map's refusals say it: a museum's configuration sets pace_ms, first and
    rule under each machine, and the key alone left the technician to find which. As it was when the file
    names neither (a default that does not fit)."""
    start = "%s: " % path
    if not path or not refusal.startswith(start):
        return refusal
    said = refusal[len(start):]
    key = said.split(": ", 1)[0]
    if key.startswith("[") and key.endswith("]"):
        key = key[1:-1]
    if not re.fullmatch(r"[A-Za-z0-9_-]+(\.[A-Za-z0-9_-]+)*", key):
        return refusal
    try:
        with open(path, encoding="utf-8-sig") as f:
            lines = key_lines(f.read())
    except (OSError, ValueError):
        return refusal
    parts = tuple(key.split("."))
    for length in range(len(parts), 0, -1):
        if parts[:length] in lines:
            return "%s:%d: %s" % (path, lines[parts[:length]], said)
    return refusal


def read_config(path, overrides):
    return checked_config(path, file_settings(path) if path else {}, overrides)


def config_for_backup(path):
    """(the configuration at `path` as far as a backup reads it, the refusals read past): each setting the
    controller refuses is taken at its default (its whole table, where the refusal names no setting of the
    file), and the file is kept as it is. A backup is wanted most when the controller refuses the file: before
    it is mended, before an update is taken back, from a dying card; `controller backup` refused one."""
    refusals = []
    try:
        check_not_writable_by_all(path, "configuration")
    except ConfigError as error:    # kept as it is, and read all the same: its folders are still the backup's
        refusals.append(str(error))
    try:
        data = file_settings(path, checked=False)
    except FileUnreadable:
        raise
    except ConfigError as error:
        return checked_config(path, {}, None), refusals + [str(error)]
    while True:
        try:
            return checked_config(path, data, None), refusals
        except ConfigError as error:
            if not data:
                raise
            refusals.append(with_line(path, str(error)))
            data = without_refused(data, str(error)[len(path) + 2:].split(": ", 1)[0])


def without_refused(data, key):
    """The file's settings `data` without the setting `key` (section.key) a refusal named, else without its
    table, else none at all."""
    section, _, name = key.strip("[]").partition(".")
    table = data.get(section)
    if isinstance(table, dict) and name in table:
        return dict(data, **{section: {each: table[each] for each in table if each != name}})
    if section in data:
        return {each: data[each] for each in data if each != section}
    return {}


def file_settings(path, checked=True):
    """The settings of the configuration file at `path`, read as TOML; ConfigError naming the file, or one
    that anyone may change (unless not `checked`)."""
    raw = read_regular_file(path)
    if checked:
        check_not_writable_by_all(path, "configuration")
    try:
        # utf-8-sig: Windows' Notepad begins the file with a byte-order mark, which TOML calls an invalid
        # statement on line 1, a comment the technician sees nothing wrong with
        data = tomllib.loads(raw.decode("utf-8-sig"))
    except UnicodeDecodeError:
        raise ConfigError("%s: not UTF-8 text (save it as UTF-8)" % path)
    except tomllib.TOMLDecodeError as error:
        raise ConfigError("%s: %s" % (path, toml_problem(raw.decode("utf-8-sig"), error)))
    except ValueError:
        # tomllib lets int() refuse a number of more than 4300 digits with a bare ValueError
        raise ConfigError("%s: a number too long to read (more than 4300 digits)" % path)
    except RecursionError:
        raise ConfigError("%s: values nested too deeply" % path)
    return data


def checked_config(path, data, overrides):
    """The Config of the settings `data` read from `path` (None: the defaults), each checked."""
    where = path or "the defaults"
    check_places(where, data)
    service_given = dict(data.get("service", {}))
    service_given.update(overrides or {})
    try:
        service = check_settings(SERVICE_SETTINGS, service_given)
    except ConfigError as error:
        raise ConfigError("%s: service.%s" % (where, error))
    problem = pin_factory_problem(service["pin_factory"])
    if problem:
        raise ConfigError("%s: service.pin_factory: %s" % (where, problem))
    for key in ("state_dir", "runtime_dir"):
        check_folder(where, key, service[key])
    check_full_paths(path, data)
    if "\0" in service["pinmap"]:
        raise ConfigError("%s: service.pinmap: the path holds a NUL character" % where)
    machines = {}
    for name in NAMES:
        try:
            machines[name] = machine_class(name)(data.get(name, {})).config
            check_opponent_name(machines[name]["opponent"])
        except ConfigError as error:
            raise ConfigError("%s: %s.%s" % (where, name, error))
    return Config(service, machines, path, check_telemetry(where, data.get("telemetry", {})),
                  check_exhibit(where, data.get("exhibit", {})), check_boards(where, data.get("boards", {})))


def check_opponent_name(name):
    """The opponent's name, checked even where no opponent plays (historic
    Dr. Nim, whose machine loads no opponent): a typo is caught before the
    day someone switches to a strategy."""
    try:
        find_player(name)
    except ValueError as error:
        raise ConfigError("opponent: %s" % error)


def release_open_ms(config, pinmap):
    """How long the release stays open per marble (pinmap/release.py)."""
    return open_ms(pinmap.outputs.get("release"), config.service["release_pulse_ms"], config.service["servo_open_ms"])


def unplayed_wiring(config, pinmap):
    """A line for each LAYOUT setting that plays less than the pin map wires (the Nimatron's rows and
    lamps): a builder who wired a fifth row and left `[nimatron] rows = 4` had a row whose button did
    nothing and whose lamps stayed dark, and every check said good. A warning, not a refusal: a museum may
    play a smaller game on the machine it built."""
    lines = []
    for setting, what, wanted, wired in layout_wired(config.machine_name, config.machine, pinmap):
        if wanted < wired:
            lines.append("%s: %s.%s: %d, but the pin map %s wires %d (%s): what is wired beyond %d is never played; "
                         "set %s = %d to play it" % (config.path or "the defaults", config.machine_name, setting,
                                                     wanted, pinmap.path, wired, what, wanted, setting, wired))
    return lines


def layout_wired(name, settings, pinmap):
    """(setting, what it counts, its value in `settings`, the pin map's) for each LAYOUT setting of the
    machine called `name` (the Nimatron's rows and lamps)."""
    return [(setting, what, settings[setting], pinmap.layout[key]) for key, setting, what in machine_class(name).LAYOUT]


def check_with_pinmap(config, pinmap, where=None):
    """The machine's settings against the wiring: each LAYOUT setting (the
    Nimatron's rows and lamps) must fit what the pin map wires, the release
    must be told an open time it can keep (pinmap/release.py), and the
    machine's RELEASE_GAPS must outlast it. `where`: where the settings come
    from, as an error names it (by default the configuration's file, with the
    line: with_line)."""
    try:
        check_settings_with_pinmap(config, pinmap, where or config.path or "the defaults")
    except ConfigError as error:
        raise lined(None if where else config.path, error) from None


def check_settings_with_pinmap(config, pinmap, where):
    problem = timing_problem(pinmap.outputs.get("release"), config.service["release_pulse_ms"],
                             config.service["servo_open_ms"])
    if problem:
        raise ConfigError("%s: service.%s: %s, in the pin map %s" % (where, problem[0], problem[1], pinmap.path))
    # a solenoid's pulses, one a pace at most, must not trip the PTC that guards its coil (as the Pico's build checks)
    release = pinmap.outputs.get("release")
    if release is not None and release.kind == "solenoid" and "pace_ms" in config.machine:
        problem = pulse_problem(release, config.service["release_pulse_ms"], config.machine["pace_ms"])
        if problem:
            raise ConfigError("%s: service.release_pulse_ms: %s (or a longer %s.pace_ms), in the pin map %s"
                              % (where, problem, config.machine_name, pinmap.path))
    cls = machine_class(config.machine_name)
    opened = release_open_ms(config, pinmap)
    for setting in cls.RELEASE_GAPS:
        if config.machine[setting] <= opened:
            raise ConfigError("%s: %s.%s: %d, but the release stays open %d ms (the pin map %s): the next release "
                              "would come while the gate is still open, and no marble with it; make it longer"
                              % (where, config.machine_name, setting, config.machine[setting], opened, pinmap.path))
    for setting, what, wanted, wired in layout_wired(config.machine_name, config.machine, pinmap):
        if wanted > wired:
            raise ConfigError("%s: %s.%s: %d, but the pin map %s wires %d (%s)" % (
                where, config.machine_name, setting, wanted, pinmap.path, wired, what))
