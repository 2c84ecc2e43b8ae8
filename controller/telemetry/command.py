"""`controller fleet`: every exhibit on one broker, in a table; `controller fleet stats`: their games.

    controller fleet [--broker HOST[:PORT]] [--once] [--prefix P] [--db PATH] [--tls] ...
    controller fleet stats [--broker HOST[:PORT]] [--period 7d] [--offline] ...

The table is the exhibits' retained statuses (so `--once` shows them at once,
for scripts and cron). The live table and `stats` also take every game and
fault into the fleet's store (fleet.py), under a persistent MQTT session: the
broker keeps them (QoS 1) while no follower runs, and they come in at the
next start. A message is acknowledged to the broker only once the store has
committed it (paho's manual acknowledgement): a follower killed, stopped or
out of disk space before that gets it again at its next start, and the store
keeps it once by its id. `--once` uses a session of its own, so a cron job
never takes the live table's, and so does a `stats` or a second table that
starts while another follows the same store (`sole_follower`). An
unreachable or refusing broker is one line and exit status 1.

The store, TLS and MQTT are loaded when the command runs, not by the command line that names
it: every `controller` command starts without them.
"""

import os
import queue
import shutil
import sys
import threading
import time

from controller.arguments import ArgumentError, argument
from controller.core.values import is_whole, quoted
from controller.printable import printable

# Messages kept in one transaction, at most (the broker sends 20 at a time before it waits for acknowledgements).
BATCH = 1000
# --once and stats: the broker has sent what it holds once nothing came for this long...
QUIET_S = 0.5
# ...or after this long, whatever comes.
COLLECT_S = 10.0
# In a follower's queue of messages, between the broker's: a connection made, its subscription answered, the
# connection lost. A broker may send a retained status before it answers the subscription (MQTT 3.1.1 allows it).
CONNECTED, SUBSCRIBED, DISCONNECTED = ("connected",), ("subscribed",), ("disconnected",)
CONNECT_S = 5.0
# A live table waits this long at most for a `stats` that follows the same store to end (sole_follower).
STATS_S = COLLECT_S + 2 * CONNECT_S


class Unreachable(Exception):
    """The broker cannot be reached or refuses us: one line."""


def default_db():
    state = os.environ.get("XDG_STATE_HOME") or os.path.join(os.path.expanduser("~"), ".local", "state")
    return os.path.join(state, "drnim-fleet", "fleet.sqlite")


def broker_address(text):
    """HOST[:PORT] (an IPv6 address in brackets: [::1]:1883) -> (host, port or None)."""
    host, port = text, None
    if text.startswith("["):
        host, _, rest = text[1:].partition("]")
        port = rest[1:] if rest.startswith(":") else None
    elif text.count(":") == 1:
        host, port = text.split(":")
    if not host or port is not None and not (is_whole(port) and 0 < int(port) < 65536):
        raise ValueError("not HOST[:PORT] with a port from 1 to 65535: %s" % quoted(text))
    return host, None if port is None else int(port)


def add_parser(commands):
    fleet = commands.add_parser("fleet", help="every exhibit on an MQTT broker, live (stats: their games)")
    fleet.set_defaults(action=run)
    fleet.add_argument("what", nargs="?", choices=["stats"], metavar="stats",
                       help="the games of all exhibits over a period (without it: the table of exhibits)")
    fleet.add_argument("--broker", default="localhost", metavar="HOST[:PORT]",
                       help="the broker (default localhost, port 1883, 8883 with --tls)")
    fleet.add_argument("--prefix", default="nim-museum", help="the exhibits' topic_prefix (default nim-museum)")
    fleet.add_argument("--once", action="store_true", help="print the table once and exit")
    fleet.add_argument("--period", default="7d", help="stats: how far back, in this computer's time zone: 7d, 24h, "
                       "90min, 2025-03 (a month), 2025-03-01, 2025-03-01..2025-03-31, 2025-03-01.., this-month, "
                       "last-month (default 7d)")
    fleet.add_argument("--csv", action="store_true", help="stats: one row per exhibit per day of the period, for a "
                       "spreadsheet: date, weekday, exhibit, machine, games, visitors_wins, machine_wins, faults, "
                       "mean_length_s")
    fleet.add_argument("--offline", action="store_true", help="stats: only what the store holds, without the broker")
    fleet.add_argument("--db", metavar="PATH", help="the fleet's store of games (default %s)" % default_db())
    fleet.add_argument("--client-id", help="the persistent session's name (default drnim-fleet-HOSTNAME- and a "
                       "tag made once and kept in the store)")
    fleet.add_argument("--tls", action="store_true", help="connect with TLS")
    fleet.add_argument("--ca-file", metavar="PATH", help="with --tls: the broker's CA certificate")
    fleet.add_argument("--username", help="log in to the broker as this user (with --password-file)")
    fleet.add_argument("--password-file", metavar="PATH", help="a file whose first line is the password")


def run(args, out):
    import sqlite3
    import uuid

    from controller.telemetry.fleet import Fleet, FleetStore, StoreBusy, table
    from controller.telemetry.settings import default_port
    if args.what != "stats" and (args.offline or args.csv or args.period != "7d"):
        raise ArgumentError("--period, --csv and --offline are for 'controller fleet stats'")
    if args.what == "stats" and args.once:
        raise ArgumentError("--once: 'controller fleet stats' always prints once")
    if args.ca_file and not args.tls:
        raise ArgumentError("--ca-file: give --tls too")
    if args.password_file and not args.username:
        raise ArgumentError("--password-file: give --username too")
    host, port = argument("--broker", broker_address, args.broker)
    port = port or default_port(args.tls)
    from controller.service.stats import check_time_zone, period as read_period
    if args.what == "stats":
        argument("TZ", check_time_zone)
    period = argument("--period", read_period, args.period) if args.what == "stats" else None
    log = lambda text: sys.stderr.write("controller fleet: %s\n" % printable(text))  # noqa: E731
    from controller.extras import lacking
    lacks = None if args.what == "stats" and args.offline else lacking("telemetry", "paho.mqtt.client")
    if lacks:
        log("the broker is reached with paho-mqtt: %s" % lacks)     # before the store is opened
        return 1
    path = args.db or default_db() if not args.once else ":memory:"
    try:
        store = FleetStore(path, log)
    except StoreBusy as error:
        log("the store %s: %s" % (path, error))
        return 1
    except (OSError, sqlite3.Error) as error:
        return cannot_open("the store %s" % path, error)
    fleet = Fleet(args.prefix, store, log)
    following = None
    try:
        if args.what == "stats" and args.offline:
            return print_stats(store, period, out, args.csv)
        persistent = not args.once
        left = []
        if persistent and not args.client_id:
            following = sole_follower(path, args.what or "table", log)
            persistent = following is not None
        if args.client_id or not persistent:
            client_id = args.client_id or "drnim-fleet-once-%s" % uuid.uuid4().hex[:8]
        else:
            client_id, left = session(store)
        try:
            follower = Follower(host, port, fleet, client_id, persistent, args)
        except OSError as error:
            return cannot_open("--ca-file %s" % args.ca_file, error)
        try:
            follower.start()
        except Unreachable as error:
            sys.stderr.write("controller fleet: %s:%d: %s\n" % (host, port, error))
            return 1
        try:
            for name in left:
                collect_left(follower, name, args, log)
            if args.what == "stats":
                follower.collect()
                return print_stats(store, period, out, args.csv)
            if args.once:
                follower.collect()
                rows = fleet.rows()
                out.write(table(rows) + "\n")
                if not rows:
                    log("no exhibit has reported to %s:%d under %s/ (its [telemetry] topic_prefix)"
                        % (host, port, args.prefix))
                return 0
            return live(follower, fleet, out, "%s:%d" % (host, port))
        except sqlite3.Error as error:
            sys.stderr.write("controller fleet: the store %s cannot keep what comes (%s): what it did not keep waits "
                             "at the broker\n" % (path, error))
            return 1
        finally:
            follower.stop()
    finally:
        store.close()
        if following:
            following()


def sole_follower(path, what, log):
    """What lets go of the lock that makes this process the one follower of the store `path`'s session,
    or None while another `controller fleet` holds it: that one takes the games into the store, and this
    one (`what`: "stats" or "table") follows under a session of its own, as --once does. Two under the one
    session took it from each other: a `stats` run beside the live table threw the table off the broker
    ("reconnecting..."), and two live tables on one store did so to each other every second. A table
    started while a `stats` holds it waits for that to end (STATS_S at most), as a table kept on a
    session of its own would leave its own session's games queued at the broker while it runs. The lock
    file says who holds it ("PID stats"). A store whose folder takes no lock file is followed as before."""
    from controller.cache import take
    try:
        lock = open(path + ".follower", "a+")
    except OSError:
        return lambda: None
    deadline = time.monotonic() + (STATS_S if what == "table" else 0)
    said = False
    while True:
        release = take(lock, wait=False)
        if release is not None:
            break
        try:
            lock.seek(0)
            holder = lock.read().split()
        except OSError:         # Windows: the locked byte cannot be read
            holder = []
        if holder[1:] != ["stats"] or time.monotonic() > deadline:
            lock.close()
            return None
        if not said:
            log("a controller fleet stats (pid %s) follows the store %s: the table starts once it ends"
                % (holder[0], path))
            said = True
        time.sleep(0.2)
    lock.seek(0)
    lock.truncate()
    lock.write("%d %s\n" % (os.getpid(), what))
    lock.flush()
    return lambda: (release(), lock.close())


def session(store):
    """The client ID of the follower's persistent session, and the sessions it left to collect games from.
    A name no one can guess, made once and kept in the store: the broker gives a session's games to whoever
    connects with its client ID, and throws off the connection that had it, so with drnim-fleet-HOSTNAME (the
    name before) anyone who may log in, such as the README's screens, whose password is in every screen's
    address, took the games queued while no follower ran and threw the live table off the broker. A store
    that followed under that name collects what waits there once (`collect_left`)."""
    import socket
    import uuid
    before = "drnim-fleet-%s" % socket.gethostname()
    client_id, left = store.sessions()
    left = [name for name in left if name == before]
    if client_id is None or not client_id.startswith(before + "-"):
        # none yet, or the name of the computer the store was copied from, whose follower goes on with it
        new = "%s-%s" % (before, uuid.uuid4().hex[:12])
        store.begin_session(new, before if client_id is None and store.heard_any() else None)
        client_id, left = store.sessions()
    return client_id, left


def collect_left(follower, name, args, log):
    """The games and faults waiting in the session `name`, which the follower left, kept; then that session
    ended at the broker (a clean session's connection ends it), which would hold games in it for ever. The
    follower's own session is subscribed by then, so none falls between the two."""
    fleet = follower.fleet
    games = fleet.games
    for persistent in (True, False):
        leaving = Follower(follower.host, follower.port, fleet, name, persistent, args)
        try:
            leaving.start()
        except Unreachable as error:
            log("the broker's session %s, which this follower left, could not be collected (%s): tried again at "
                "the next start" % (name, error))
            return
        try:
            quiet = leaving.collect() if persistent else True
        finally:
            leaving.stop()
        if not quiet:
            log("collected %d games of those that wait in the broker's session %s, which this follower left for "
                "one of its own: the rest at the next start" % (fleet.games - games, name))
            return
    fleet.store.collected(name)
    log("collected the games that waited in the broker's session %s (%d), which this follower left for one "
        "of its own" % (name, fleet.games - games))


def cannot_open(what, error):
    sys.stderr.write("controller fleet: %s: cannot open it (%s)\n" % (what, getattr(error, "strerror", None) or error))
    return 1


# The report's headings, short enough for a museum's 20 exhibits to fit an 80-column terminal (those it had,
# "machine's wins" and "turns (mean)" and the like, made each of their rows 85 characters, wrapped there).
STATS_HEADINGS = ["exhibit", "machine", "games", "machine won", "visitors won", "turns", "length"]


def print_stats(store, within, out, csv=False):
    """The report of `controller fleet stats`: a row per exhibit, then the faults, each exhibit's on a line
    of its own when they do not fit one line of 80 characters."""
    from controller.telemetry.fleet import table
    if csv:
        from controller.service.stats import write_csv
        write_csv(out, within, *store.records(within.start, within.end),
                  always=store.without_games(within.start, within.end))
        return 0
    games, faults = store.summary(within.start, within.end)
    quiet = store.without_games(within.start, within.end)
    out.write("Period: %s\n" % within.said())
    if not games and not quiet:
        out.write("No games in this period.\n")
    else:
        rows = sorted([[printable(exhibit), printable(machine), str(count), str(machine_wins), str(player_wins),
                        "%.1f" % turns, "-" if seconds is None else "%d s" % seconds]
                       for exhibit, machine, count, machine_wins, player_wins, turns, seconds in games]
                      + [[printable(exhibit), printable(machine), "0", "0", "0", "-", "-"] for exhibit, machine in quiet])
        total = sum(row[2] for row in games)
        rows.append(["all", "", str(total), str(sum(row[3] for row in games)), str(sum(row[4] for row in games)),
                     "", ""])
        out.write(table(rows, STATS_HEADINGS) + "\nturns, length: a game's mean\n")
    by_exhibit = {}
    for exhibit, fault, count in faults:
        by_exhibit.setdefault(exhibit, []).append("%s %d" % (printable(fault), count))
    each = ["%s: %s" % (printable(exhibit), ", ".join(kinds)) for exhibit, kinds in by_exhibit.items()]
    line = "Faults: %s" % ("; ".join(each) or "none")
    out.write(line + "\n" if len(line) <= 80 else "Faults:\n" + "".join("  %s\n" % text for text in each))
    return 0


def live(follower, fleet, out, where):
    """Redraw the table every second until Ctrl-C. Into a file or a pipe (`> fleet.log`, `| tee`), no
    terminal codes: a table each time it changes, under the time it changed."""
    notes = []
    fleet.log = lambda text: notes.append(time.strftime("%H:%M:%S ") + printable(text))
    redraw = out.isatty()
    shown = None
    try:
        while True:
            end = time.monotonic() + 1.0
            while time.monotonic() < end:
                follower.pump(end - time.monotonic())
            del notes[:-5]
            drawn = frame(fleet, where, follower.connected, notes, shutil.get_terminal_size() if redraw else None)
            stamp = time.strftime("%Y-%m-%d %H:%M:%S")
            if redraw:
                out.write("\033[H\033[2J" + stamp + drawn)
            elif drawn != shown:
                out.write(stamp + drawn + "\n")
                shown = drawn
            out.flush()
    except KeyboardInterrupt:
        out.write("\n")
        return 0


# The live table's headings where the whole table is wider than the terminal (its last game's time comes first).
NARROW_HEADINGS = ["exhibit", "machine", "online", "fault", "today", "machine won", "last game"]


def frame(fleet, where, connected, notes, size=None):
    """The live table's text under its time: the broker, the table, the last lines of the log. `size`: the
    terminal's (columns, lines) it is redrawn in, which the text fits (`fitted`); None for a file or a pipe,
    whose table is whole and gives times of day."""
    from controller.telemetry.fleet import HEADINGS, table
    top = "  broker %s (%s)  %d exhibits  %d games kept" % (
        where, "connected" if connected else "reconnecting...", len(fleet.exhibits), fleet.games)
    rows = fleet.rows(clock_times=size is None)
    if size is None:
        return "%s\n\n%s\n\n%s\n" % (top, table(rows), "\n".join(notes))
    if max(len(line) for line in table(rows).split("\n")) <= size[0]:
        return fitted(top, rows, notes, size, HEADINGS)
    return fitted(top, fleet.rows(narrow=True), notes, size, NARROW_HEADINGS)


def fitted(top, rows, notes, size, headings):
    """The live table in a terminal of `size` (columns, lines), which scrolls a redrawn text taller than
    itself and wraps a line wider: 20 exhibits in an 80x24 window scrolled the headings and the first
    exhibits out of sight every second. The exhibits that do not fit are left out, said in one line, those
    offline, silent or at fault kept first; the log's lines get what room is left; each line is cut at the
    window's width, its end marked '>'."""
    from controller.telemetry.fleet import table
    columns, height = size
    room = height - 5           # the top line, a blank one, the headings and the line the cursor waits on
    if len(rows) > room:
        calm = lambda row: row[2] == "yes" and row[3] == "-"    # noqa: E731
        first = sorted(rows, key=calm)      # those in trouble first, each by name still
        keep = max(0, room - 1)
        unseen, bad = len(rows) - keep, sum(1 for row in first[keep:] if not calm(row))
        lines = table(sorted(first[:keep], key=lambda row: row[0]), headings).split("\n") + [
            "+ %d more exhibit%s%s: make the window taller" % (
                unseen, "s" if unseen > 1 else "", " (%d offline, silent or at fault)" % bad if bad
                else ", online without a fault")]
    else:
        lines = table(rows, headings).split("\n")
    left = room - (len(lines) - 2) - 1      # under the table, a blank line and then the log's last lines
    text = [top, ""] + lines + ([""] + notes[-left:] if notes and left > 0 else [])
    return "\n".join(line if len(line) <= columns else line[:columns - 1] + ">" for line in text) + "\n"


class Follower:
    """The fleet's MQTT connection: paho's thread receives, `pump` hands the messages to the fleet."""

    def __init__(self, host, port, fleet, client_id, persistent, args):
        import paho.mqtt.client as mqtt
        from controller.telemetry.client import Client
        from controller.telemetry.settings import read_password
        self.tls = args.tls
        self.host, self.port, self.fleet = host, port, fleet
        self.messages = queue.SimpleQueue()
        self.connected = False
        self.refused = None
        self.answer = None
        self.answered = threading.Event()
        self.subscribed = threading.Event()
        self.statuses = None        # the exhibits whose status came since the connection was made, until it settles
        self.answered_subscription = False
        self.heard_at = time.monotonic()
        client = Client(mqtt.CallbackAPIVersion.VERSION2, client_id=client_id, clean_session=not persistent,
                        manual_ack=True)
        if args.tls:
            client.tls_set(ca_certs=args.ca_file)
        if args.username:
            password = argument("--password-file", read_password, args.password_file or "", None)
            client.username_pw_set(args.username, password)
        client.reconnect_delay_set(1, 10)
        client.on_connect = self.on_connect
        client.on_disconnect = self.on_disconnect
        client.on_subscribe = self.on_subscribe
        client.on_message = lambda c, u, m: self.messages.put((m.topic, m.payload, m.retain, m.mid, m.qos))
        self.client = client

    def on_connect(self, client, userdata, flags, reason, properties):
        from controller.telemetry.payloads import subscriptions
        self.answer = reason
        self.connected = not reason.is_failure
        if self.connected:
            self.messages.put(CONNECTED)
            client.subscribe(subscriptions(self.fleet.prefix))
        self.answered.set()

    def on_subscribe(self, client, userdata, mid, reasons, properties):
        """Subscribed (at each connection): the broker then hands over what it retains and what it queued."""
        self.messages.put(SUBSCRIBED)
        self.subscribed.set()

    def on_disconnect(self, client, userdata, flags, reason, properties):
        """The connection closed; before the broker answered, an answer of its own (`answer` stays None). A
        packet refused (client.py) is said once: the broker sends it again at each connection."""
        self.connected = False
        self.messages.put(DISCONNECTED)
        refused = client.take_refused()
        if refused and refused != self.refused:
            self.refused = refused
            self.fleet.log("the broker %s" % refused)
        self.answered.set()

    def start(self):
        import ssl
        from controller.telemetry.settings import refusal
        try:
            self.client.connect(self.host, self.port, keepalive=30)
        except ssl.SSLError as error:
            from controller.telemetry.publisher import tls_failure
            raise Unreachable("TLS failed: %s (see --ca-file and the broker's certificate)" % tls_failure(error))
        except (OSError, ValueError) as error:
            if self.tls and isinstance(error, ConnectionResetError):
                raise Unreachable("the broker dropped the TLS handshake (%s): is this port a listener without TLS?"
                                  % error.strerror)
            raise Unreachable("cannot reach the broker (%s)" % (getattr(error, "strerror", None) or error))
        self.client.loop_start()
        if not self.answered.wait(CONNECT_S):
            self.stop()
            raise Unreachable("the broker did not answer within %d s" % CONNECT_S)
        if self.answer is None:
            self.stop()
            raise Unreachable("the broker closed the connection without answering: is this port a listener with "
                              "TLS (--tls), or not an MQTT broker?")
        if self.answer.is_failure:
            self.stop()
            raise Unreachable("the broker refused us (%s)" % refusal(self.answer, "--username and --password-file"))

    def pump(self, timeout):
        """Hand the messages that came to the fleet, waiting up to `timeout` s for the first; a batch
        is kept in one transaction, and only then acknowledged, in the order it came. How many."""
        batch = []
        end = time.monotonic() + timeout
        while len(batch) < BATCH:
            try:
                item = self.messages.get(timeout=max(0.0, end - time.monotonic()) if not batch else 0)
            except queue.Empty:
                break
            if item in (CONNECTED, SUBSCRIBED, DISCONNECTED):
                self.follow_connection(item)
                continue
            batch.append(item)
            self.take(*item[:3])
        if batch:
            self.heard_at = time.monotonic()
            self.fleet.store.commit()
            for _, _, _, mid, qos in batch:
                if qos:
                    self.client.ack(mid, qos)
        elif time.monotonic() - self.heard_at >= QUIET_S:
            self.settle()
        return len(batch)

    def follow_connection(self, item):
        """A connection made starts the statuses heard afresh; it settles once its subscription is answered and
        the broker quiet; a connection lost before then settles nothing (what it heard may be a part)."""
        self.heard_at = time.monotonic()
        if item is CONNECTED:
            self.statuses, self.answered_subscription = set(), False
        elif item is SUBSCRIBED:
            self.answered_subscription = self.statuses is not None
        else:
            self.statuses = None

    def settle(self):
        """The broker has handed over what it holds since the subscription, each exhibit's retained status
        among it: an exhibit the store knows whose status the broker no longer holds was cleared while this
        follower was away (statuses come at QoS 0, so a clearing is not queued for it), and is forgotten, with
        a line. Not when the broker holds none of those the store knows: another broker, or another prefix
        (a typo in --prefix, a laptop's own test broker), whose silence says nothing of the museum's."""
        if self.statuses is not None and self.answered_subscription:
            heard, self.statuses = self.statuses, None
            self.fleet.forget_all_but(heard)
            self.fleet.store.commit()

    def take(self, name, payload, retained):
        """One message into the fleet. The fleet checks every message, so none should fail; should one
        fail all the same, it costs one line, not the follower (nor the games that come after it).
        The store's own failures stop the follower: then nothing more is acknowledged."""
        import sqlite3
        status = name.endswith("/status") and name.startswith(self.fleet.prefix + "/")
        if status and payload and self.statuses is not None:
            self.statuses.add(name[len(self.fleet.prefix) + 1:-len("/status")])
        try:
            self.fleet.message(name, payload, retained)
        except sqlite3.Error:
            raise
        except Exception as error:
            self.fleet.log("ignored a message: %s: it could not be read (%s: %s)" % (name, type(error).__name__,
                                                                                    error))

    def collect(self):
        """What the broker holds now: the retained statuses and any queued games, until it goes quiet or
        COLLECT_S have passed. Whether it went quiet (False: more may wait)."""
        self.subscribed.wait(CONNECT_S)
        end = time.monotonic() + COLLECT_S
        while time.monotonic() < end:
            if not self.pump(QUIET_S):
                self.settle()
                return True
        return False

    def stop(self):
        self.client.disconnect()
        self.client.loop_stop()
