"""Whether the wall clock is set: a Raspberry Pi has no real-time clock (a Pi 5 has one, kept only
with its battery), so after a power cut it starts from the time it last saved (fake-hwclock, every
hour), hours or days behind, until network time sets it, if ever. The statistics date each game by
that clock, and a technician reading them is told when it was never set. Its time zone is read
again while the service runs (`follow_time_zone`)."""

import ctypes
import sys
import time

# adjtimex's answer when the kernel holds the clock unsynchronised (STA_UNSYNC): what timedatectl
# shows as "System clock synchronized: no".
TIME_ERROR = 5


# What `controller stats` and `controller status` say of a clock network time never set (the service cannot ask:
# its unit protects the clock), in lines that fit an 80-column terminal (an ssh window, the Pi's own console).
UNSET_CLOCK = ("Clock: not set by network time since this computer started\n"
               "  (timedatectl: System clock synchronized: no). Without a battery-backed clock,\n"
               "  a Pi starts from the time it last saved, hours behind after a power cut, and\n"
               "  its quiet hours and the days its games count on follow that clock:\n"
               "  docs/troubleshooting.md, \"Switched off every night\".\n")


def synchronised():
    """True when network time (or another time service) has set the clock since the start, False when
    the kernel says it has not, None where that cannot be asked (not Linux, or a system call refused:
    the service's unit has ProtectClock)."""
    if not sys.platform.startswith("linux"):
        return None
    try:
        adjtimex = ctypes.CDLL(None, use_errno=True).adjtimex
    except (OSError, AttributeError):
        return None
    timex = ctypes.create_string_buffer(512)      # a struct timex with modes 0: read, change nothing
    state = adjtimex(timex)
    if state < 0:
        return None
    return state != TIME_ERROR


def follow_time_zone(say):
    """The computer's time zone, read again (each heartbeat of the service and of a board's monitor):
    C's localtime keeps the zone it read first, so a zone set while they run (raspi-config, timedatectl
    set-timezone, at a new venue) moved neither the quiet hours nor the day a game counts on until a
    restart. Said in one line when it changes. (Windows has no tzset, and a laptop's simulator runs there:
    its zone stays the one read at its start.)"""
    if not hasattr(time, "tzset"):
        return
    before = time.tzname
    time.tzset()
    if time.tzname != before:
        say("time zone: now %s (was %s): the quiet hours and the days games count on follow it"
            % ("/".join(sorted(set(time.tzname))), "/".join(sorted(set(before)))))
