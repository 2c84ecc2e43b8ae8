"""The topics and payloads, version 1 (docs/telemetry.md is their description for museums).

    <prefix>/<exhibit>/status   retained, QoS 1: the exhibit now (and its last will: online false)
    <prefix>/<exhibit>/game     QoS 1: one finished game, with an id unique to it
    <prefix>/<exhibit>/fault    QoS 1: one fault as it happens

Every payload is one JSON object with "v": 1. A consumer checks what it reads
(`decode`): a stranger can publish anything on these topics, and a payload
that does not fit is refused with one line naming the topic and the problem.
"""

import json
import math

from controller.core.values import quoted

VERSION = 1
KINDS = ("status", "game", "fault")
# The longest payload a consumer reads: a status or a game is well under 2 KB.
MAX_PAYLOAD = 16384
SIDES = ("player", "machine")
# The longest text kept of a message (an exhibit's name, a fault's kind): by the fleet of a status, and by the
# statistics of a board's fault.
TEXT_KEPT = 64
# A time is seconds since the epoch, from 0 to LATEST (the year 2286): an exhibit's clock gives no other.
LATEST = 10 ** 10
# Every whole number is below this in size: what a store's INTEGER holds.
WHOLE_LIMIT = 2 ** 63


class BadMessage(ValueError):
    """A message on our topics that is not one of ours: ignored, with one line."""


def topic(prefix, exhibit, kind):
    return "%s/%s/%s" % (prefix, exhibit, kind)


def subscriptions(prefix):
    """What a follower of the whole fleet subscribes to, (topic, QoS) each. Statuses at QoS 0: a broker
    queues none of them for a follower's session while it is away, only games and faults (an exhibit's
    status every heartbeat would fill the queue in weeks, and the games after them would be dropped);
    the broker's retained one gives each exhibit's latest at every connection."""
    return [("%s/+/%s" % (prefix, kind), 0 if kind == "status" else 1) for kind in KINDS]


def encode(payload):
    return json.dumps(payload, separators=(",", ":"), sort_keys=True).encode()


def decode(prefix, name, raw):
    """(exhibit, kind, payload) of a message on `name`; BadMessage with one line when it is not ours."""
    head = prefix + "/"
    parts = name[len(head):].split("/") if name.startswith(head) else []
    if len(parts) != 2 or parts[1] not in KINDS or not parts[0] or len(parts[0].encode("utf-8", "replace")) > 64:
        raise BadMessage("%s: not a topic of ours (%s/<exhibit>/%s, an exhibit's name 1 to 64 bytes)"
                         % (quoted(name), prefix, "|".join(KINDS)))
    exhibit, kind = parts
    if len(raw) > MAX_PAYLOAD:
        raise BadMessage("%s: a payload of %d bytes, more than %d" % (name, len(raw), MAX_PAYLOAD))
    try:
        payload = json.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, ValueError, RecursionError):
        raise BadMessage("%s: not JSON: %s" % (name, quoted(raw)))
    if not isinstance(payload, dict):
        raise BadMessage("%s: not a JSON object: %s" % (name, quoted(raw)))
    strange = strange_value(payload)
    if strange:
        raise BadMessage("%s: %s" % (name, strange))
    if payload.get("v") != VERSION:
        raise BadMessage("%s: version %s, this controller reads version %d" % (name, quoted(payload.get("v")),
                                                                              VERSION))
    if payload.get("exhibit") != exhibit:
        raise BadMessage("%s: \"exhibit\" is %s, not the topic's %r" % (name, quoted(payload.get("exhibit")),
                                                                       exhibit))
    for key, kinds in FIELDS[kind] + (() if kind != "status" or not payload.get("online") else ONLINE_FIELDS):
        if key not in payload or not isinstance(payload[key], kinds) or isinstance(payload[key], bool) \
                and bool not in kinds:
            raise BadMessage("%s: %r is %s" % (name, key, quoted(payload.get(key)) if key in payload
                                              else "missing"))
    for key, kinds in STATUS_FIELDS if kind == "status" else ():
        if key in payload and (not isinstance(payload[key], kinds) or isinstance(payload[key], bool)
                               or key == "service_faults" and not all(
                isinstance(item, str) for item in payload[key])):
            raise BadMessage("%s: %r is %s" % (name, key, quoted(payload[key])))
    if kind == "status" and (payload["online"] or "today" in payload):
        today = payload["today"]
        if not isinstance(today, dict) or not isinstance(today.get("date"), str) or not all(
                isinstance(today.get(key), int) and not isinstance(today.get(key), bool) and today[key] >= 0
                for key in ("games", "machine_wins")):
            raise BadMessage("%s: \"today\" is %s, not {date, games, machine_wins}" % (name, quoted(today)))
    if kind == "game" and payload["winner"] not in SIDES:
        raise BadMessage("%s: \"winner\" is %s, not player or machine" % (name, quoted(payload["winner"])))
    for key in ("at", "ended", "turns", "duration_s", "uptime_s"):
        value = payload.get(key)
        if isinstance(value, NUMBER) and not 0 <= value <= (LATEST if key in ("at", "ended") else WHOLE_LIMIT):
            raise BadMessage("%s: %r is %s, out of range" % (name, key, quoted(value)))
    game = payload.get("last_game")
    if kind == "status" and game is not None and not (
            isinstance(game, dict) and isinstance(game.get("id"), str) and game.get("winner") in SIDES
            and isinstance(game.get("ended"), NUMBER) and not isinstance(game["ended"], bool)
            and 0 <= game["ended"] <= LATEST):
        raise BadMessage("%s: \"last_game\" is %s, not {id, winner, ended}" % (name, quoted(game)))
    if kind == "status" and payload.get("power") is not None and not fits_power(payload["power"]):
        raise BadMessage("%s: \"power\" is %s, not {%s}" % (name, quoted(payload["power"]),
                                                            ", ".join(key for key, _ in POWER_FIELDS)))
    return exhibit, kind, payload


def power(figures):
    """A status's "power" of the figures the service keeps of the Pi's supply and heat (service/power.py's
    Watch.status): the figures a fleet shows, the temperatures to a tenth of a degree. The time of the last
    sag is left out: it is counted back from the service's heartbeat, stale by the time a status is sent."""
    return dict((key, round(figures[key], 1) if isinstance(figures[key], float) else figures[key])
                for key, _ in POWER_FIELDS)


def fits_power(value):
    """Whether a status's "power" is the object an exhibit sends (POWER_FIELDS, each of its type; the
    counts not below 0)."""
    return isinstance(value, dict) and all(
        key in value and isinstance(value[key], kinds) and (bool in kinds) == isinstance(value[key], bool)
        and not (kinds == (int,) and value[key] < 0) for key, kinds in POWER_FIELDS)


def strange_value(payload):
    """What no exhibit sends, anywhere in `payload`, in words (None when there is none): a number
    that is not finite (1e999, NaN), a whole number no store holds, a text with a lone surrogate."""
    waiting = [("", payload)]
    while waiting:
        where, value = waiting.pop()
        if isinstance(value, dict):
            waiting.extend(("%s.%s" % (where, key) if where else key, item) for key, item in value.items())
            waiting.extend((where, key) for key in value)
        elif isinstance(value, list):
            waiting.extend(("%s[%d]" % (where, i), item) for i, item in enumerate(value))
        elif isinstance(value, float) and not math.isfinite(value):
            return "%s is %s, not a finite number" % (where or "a key", value)
        elif isinstance(value, int) and not isinstance(value, bool) and abs(value) >= WHOLE_LIMIT:
            return "%s is %s digits long, more than a store holds" % (where or "a key", len(str(abs(value))))
        elif isinstance(value, str):
            try:
                value.encode("utf-8")
            except UnicodeEncodeError:
                return "%s holds a lone surrogate, not Unicode text" % (where or "a key")
    return None


NUMBER = (int, float)
FIELDS = {
    "status": (("online", (bool,)),),
    "game": (("id", (str,)), ("machine", (str,)), ("winner", (str,)), ("turns", (int,)), ("ended", NUMBER),
             ("duration_s", (int, type(None))), ("settings", (dict,))),
    "fault": (("id", (str,)), ("machine", (str,)), ("fault", (str,)), ("at", NUMBER)),
}
ONLINE_FIELDS = (("at", NUMBER), ("machine", (str,)), ("mode", (str,)), ("fault", (str, type(None))), ("version", (str,)),
                 ("uptime_s", (int,)), ("today", (dict,)), ("last_game", (dict, type(None))))
# The Pi's own supply and heat, in the status of an exhibit whose service reads them (a Raspberry Pi): whether its
# supply sags now (an episode of under-voltage, over after a minute without) and the episodes since the service
# started; the CPU's temperature now and the hottest (°C, null until read), whether it is too hot now (from 80 °C
# until below 75 °C) and how many times it was.
POWER_FIELDS = (("under_voltage", (bool,)), ("episodes", (int,)), ("cpu_c", (int, float, type(None))),
                ("hottest_c", (int, float, type(None))), ("hot", (bool,)), ("hot_episodes", (int,)))
# In every status, online or not, when present (a last will has only some of them, and no time).
STATUS_FIELDS = (("at", NUMBER), ("machine", (str,)), ("fault", (str, type(None))), ("service_faults", (list,)))
