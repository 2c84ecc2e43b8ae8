"""Whether the wall clock is set: a Raspberry Pi has no real-time clock (a Pi 5 has one, kept only
with its battery), so after a power cut it starts from the time it last saved (fake-hwclock, every
hour), hours or days behind, until network time sets it, if ever. The statistics date each game by
that clock, and a technician reading them is told when it was never set."""

import ctypes
import sys

# adjtimex's answer when the kernel holds the clock unsynchronised (STA_UNSYNC): what timedatectl
# shows as "System clock synchronized: no".
TIME_ERROR = 5


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
