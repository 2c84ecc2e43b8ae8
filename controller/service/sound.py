"""Which of the machine's beeps the buzzer plays: [exhibit] sound, quiet_hours and quiet_sound.

Gallery staff who sit beside an exhibit all day, a library's reading room, a lecture hall next
door: a museum turns the beeps down in the configuration, not by pulling a wire. The machine still
gives every ("sound", CUE) command (controller/core/ is the machines' spec); the service drops
the ones the buzzer must not play. The fault beep (a jam, a marble that came late, a restart with a
marble on its way) can be kept, so that staff still hear a jam. Quiet hours follow the Pi's local
time, and may cross midnight ("17:00-10:00"); they can only make the buzzer quieter.
"""

import re
import time

from controller.hardware.pinmap.check import SOUND_CUES

ALL, FAULTS, NONE = LEVELS = tuple(SOUND_CUES)     # loudest first
QUIET_LEVELS = (FAULTS, NONE)
DAY_MINUTES = 24 * 60

WHAT_PLAYS = {ALL: "every beep", FAULTS: "only the fault beep", NONE: "no beep, not even for a fault"}

_SPAN = re.compile(r"^\s*(\d{1,2}):(\d\d)\s*-\s*(\d{1,2}):(\d\d)\s*$")


def quiet_span(text):
    """(first minute, minute after the last) of a day for "17:00-10:00", None for "": ValueError saying
    what is wrong otherwise."""
    if not text:
        return None
    found = _SPAN.match(text)
    if not found:
        raise ValueError("%r is not a span of the day such as \"17:00-10:00\" (24-hour clock, the Pi's local time)"
                         % text)
    hours_start, minutes_start, hours_end, minutes_end = (int(group) for group in found.groups())
    for hours, minutes in ((hours_start, minutes_start), (hours_end, minutes_end)):
        if hours > 24 or minutes > 59 or (hours == 24 and minutes):
            raise ValueError("%r: %02d:%02d is not a time of day" % (text, hours, minutes))
    start, end = (hours_start * 60 + minutes_start) % DAY_MINUTES, (hours_end * 60 + minutes_end) % DAY_MINUTES
    if start == end:
        raise ValueError("%r begins where it ends: for a buzzer quiet all day, set sound instead" % text)
    return start, end


def clock_text(minute):
    return "%02d:%02d" % divmod(minute, 60)


def local_minute():
    """The minute of the day by this computer's clock, in its time zone (read again at each heartbeat:
    clock.follow_time_zone)."""
    now = time.localtime()
    return now.tm_hour * 60 + now.tm_min


class Sound:
    """The checked [exhibit] sound settings, asked at each cue what the buzzer plays then."""

    def __init__(self, exhibit):
        self.level = exhibit["sound"]
        self.quiet = quiet_span(exhibit["quiet_hours"])
        self.quiet_level = exhibit["quiet_sound"]

    def is_quiet(self, minute):
        if self.quiet is None:
            return False
        start, end = self.quiet
        return start <= minute < end if start < end else minute >= start or minute < end

    def level_at(self, minute):
        """What the buzzer plays at `minute` of the day: all, faults or none."""
        if self.is_quiet(minute):
            return max(self.level, self.quiet_level, key=LEVELS.index)
        return self.level

    def plays(self, cue, minute):
        cues = SOUND_CUES[self.level_at(minute)]
        return cues is None or cue in cues

    def said(self, minute):
        """One line of what the buzzer plays and why, for the journal and `controller status`; None when it
        plays every beep at every hour (the default)."""
        if self.level == ALL and self.quiet is None:
            return None
        line = "%s (exhibit.sound = \"%s\")" % (WHAT_PLAYS[self.level], self.level)
        if self.quiet is None:
            return line + ": the buzzer is kept quiet on purpose"
        start, end = self.quiet
        return "%s, %s from %s to %s by this Pi's clock (exhibit.quiet_hours); at %s: %s" % (
            line, WHAT_PLAYS[self.level_at(start)], clock_text(start), clock_text(end), clock_text(minute),
            WHAT_PLAYS[self.level_at(minute)])
