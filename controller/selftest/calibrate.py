"""`controller calibrate`: time marbles from the release to the sensor, and
set the release timeout and the pace from the times.

The rules (each figure rounded up to a whole ROUND_MS):

- release_timeout_ms = the slowest marble plus half of it, and at least
  MARGIN_MS more: the game retries a release whose marble is not seen by
  then, so a slow marble must never be taken for a lost one (a retry would
  let a second marble go);
- pace_ms = the slowest marble's fall, and never less than the setting's
  default (the original's chain rhythm, where each marble trips the next at
  the bottom): Dr. Nim lets its next marble go only when the one before has
  had as long again as its own fall to clear the board below the gate, and
  a quick rail does not make the machine hurry;
- both outlast the release's open time by SETTLE_MS at least (the
  configuration check's RELEASE_GAPS: a release told to open while the gate
  is still open lets no marble go), and keep within the settings' ranges.

The configuration file is changed in place (tomledit.py: only those two
values, its comments kept), after the old one is copied beside it as
config.toml.bak-YYYYmmdd-HHMMSS; the new file must pass the same checks as
`controller config check` before it replaces the old one.
"""

import os
import shutil
import stat
import time

from controller.core.registry import machine_class
from controller.selftest.release import BACK, SEEN_WITHIN_MS, beam_broken, time_marbles
from controller.selftest.tomledit import set_whole_numbers
from controller.service.config import check_with_pinmap, load_config, release_open_ms
from controller.service.store import replace_file, untaken

ROUND_MS = 50
MARGIN_MS = 200
SETTLE_MS = 100


class CalibrationError(ValueError):
    """A calibration that cannot be made or written; the message says why."""


def round_up(ms):
    return -(-ms // ROUND_MS) * ROUND_MS


def derive(times, opened, settings):
    """The release timeout and the pace for marbles that fell `times` (ms),
    with the release open `opened` ms, within the machine's `settings` table:
    {setting: (value, why)}."""
    slowest = max(times)
    margin = max(MARGIN_MS, slowest // 2)
    rhythm = settings["pace_ms"].default
    wanted = {"release_timeout_ms": (slowest + margin, "the slowest marble, %d ms, plus %d ms" % (slowest, margin)),
              "pace_ms": (slowest, "the slowest marble's fall, %d ms" % slowest) if slowest > rhythm else
              (rhythm, "the original's chain rhythm, %d ms, longer than the slowest marble's fall, %d ms"
               % (rhythm, slowest))}
    derived = {}
    for key, (ms, why) in wanted.items():
        if ms < opened + SETTLE_MS:
            ms, why = opened + SETTLE_MS, "the release's open time, %d ms, plus %d ms" % (opened, SETTLE_MS)
        derived[key] = (within(round_up(ms), settings[key]), why + ", rounded up to %d ms" % ROUND_MS)
    return derived


def within(value, setting):
    return min(max(value, setting.low), setting.high)


def write(path, section, values, pinmap, clock=time.time):
    """Set `values` in [section] of the file at `path`, keeping a backup; the backup's path."""
    with open(path, encoding="utf-8") as f:
        old = f.read()
    try:
        new = set_whole_numbers(old, section, values)
    except ValueError as error:
        raise CalibrationError("%s: %s: set %s by hand" % (path, error, ", ".join(
            "%s.%s = %d" % (section, key, value) for key, value in values.items())))
    kept = []
    before = os.stat(path)

    def check_and_keep(temporary):
        """The new file checked, and owned as the old one is (a museum's root:drnim 0640 read by the
        service; sudo would make it root's); the old one kept beside it, owned the same."""
        check_with_pinmap(load_config(temporary), pinmap)
        kept.append(untaken(path + ".bak-", clock()))
        shutil.copy2(path, kept[0])
        for made in (temporary, kept[0]):
            if (os.stat(made).st_uid, os.stat(made).st_gid) != (before.st_uid, before.st_gid):
                try:
                    os.chown(made, before.st_uid, before.st_gid)
                except PermissionError:
                    raise CalibrationError("%s: cannot keep its owner and group (%d:%d) for the service: run "
                                           "calibrate as root (sudo); nothing written" % (path, before.st_uid,
                                                                                          before.st_gid))
    replace_file(path, new.encode("utf-8"), stat.S_IMODE(before.st_mode), check_and_keep)
    return kept[0]


def calibrate(bench, config, pinmap, count, out):
    """Time `count` marbles, derive the settings, write those that change. 0 when done."""
    say = lambda text: out.write(text + "\n")  # noqa: E731
    name = config.machine_name
    cls = machine_class(name)
    if not bench.go_ahead("Put at least %d marbles on the rail: they will be released one by one and timed "
                          "from the release to the sensor." % count):
        raise CalibrationError("stopped before the first marble: nothing written")
    broken = beam_broken(bench, pinmap)
    if broken:
        raise CalibrationError(broken + ": check the sensor first (controller selftest); nothing written")

    def timed(number, ms):
        if ms is None:
            raise CalibrationError("marble %d was not seen within %d ms of its release: free the rail or the chute "
                                   "(or load more marbles) and calibrate again; nothing written"
                                   % (number, SEEN_WITHIN_MS))
        say("  marble %d: %d ms" % (number, ms))
    opened = release_open_ms(config, pinmap)
    times = time_marbles(bench, opened, count, timed)
    say("Timed %d marble%s from the release to the sensor: %d to %d ms; the release stays open %d ms."
        % (count, "" if count == 1 else "s", min(times), max(times), opened))
    say(BACK % count)
    if max(times) > 2 * min(times):
        say("The falls vary a lot: check the rail and the chute for a spot where marbles stick, and calibrate "
            "again after.")
    derived = derive(times, opened, cls.SETTINGS)
    changes = dict((key, value) for key, (value, _) in derived.items() if config.machine[key] != value)
    for key, (value, why) in derived.items():
        say("  %s.%s: %d -> %d (%s)" % (name, key, config.machine[key], value, why) if key in changes
            else "  %s.%s: %d, unchanged (%s)" % (name, key, value, why))
    if not changes:
        say("%s already holds these settings: nothing written." % config.path)
        return times, derived, None
    backup = write(config.path, name, changes, pinmap)
    wrote = "Wrote %s (the old file is kept as %s)." % (config.path, backup)
    if not bench.simulated:     # the simulated bench's figures are for trying the wizard, not for a service
        wrote += " Restart the service to use them: sudo systemctl restart drnim-controller"
    say(wrote)
    return times, derived, backup
