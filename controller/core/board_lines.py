"""A board's lines as a host reads them (firmware/PROTOCOL.md): a module
apart from protocol.py, which a board loads, so that the host's side of the
line takes none of a board's heap."""

from .protocol import ProtocolError, decode
from .quoting import quoted

# The longest line a host reads: a board's `state` reply carries the whole saved game.
MAX_BOARD_LINE = 65536
# What a board sends (see PROTOCOL.md for the fields of each).
BOARD_KINDS = ("hello", "event", "command", "status", "fault", "game_over", "state", "ok", "advanced",
               "error")


def reply(line):
    """A board's line, read by a host: the table, or ProtocolError for a line
    that is not one (a board's boot text, noise on the wire)."""
    message = decode(line, MAX_BOARD_LINE)
    if message["kind"] not in BOARD_KINDS:
        raise ProtocolError("unknown kind %s (a board sends %s)" % (quoted(message["kind"]), ", ".join(BOARD_KINDS)))
    return message
