"""The exhibit's side: its status, games and faults published to the broker, beside play.

The service calls `status`, `game` and `fault`, which only put a record on a
queue and return: the game never waits for the network. This module's thread
(`telemetry`) keeps games and faults in the on-disk queue (outbox.py) and
publishes them with QoS 1 while paho-mqtt's own thread keeps the connection:
it connects in the background, reconnects after 1, 2, 4... up to 30 s, and
sends again what the broker had not acknowledged. A message leaves the queue
only when the broker acknowledges it, so a game reaches the broker at least
once; its `id` lets a consumer keep it exactly once (fleet.py does).

The live game (live.py) goes the same way, beside play: each event at QoS 0
as it comes, dropped while the broker is away; the retained state at every
change, and again at every connection, so a screen that follows the exhibit
catches up after the broker or the exhibit restarts.

The status is retained: a consumer that connects later gets each exhibit's
latest at once. It is sent on every change (the newest only, if several
changes wait) and every `heartbeat_s`; the last will, the same topic with
"online": false, is sent by the broker when the exhibit disappears without
saying goodbye (a crash, a pulled cable: within 1.5 x KEEPALIVE_S); a clean
stop sends it itself.
"""

import datetime
import hashlib
import os
import queue
import socket
import sqlite3
import ssl
import threading
import time
import uuid

import paho.mqtt.client as mqtt

from controller.built import described
from controller.service.stats import set_aside
from controller.telemetry.client import Client
from controller.telemetry.live import STATE
from controller.telemetry.outbox import Outbox
from controller.telemetry.payloads import VERSION, encode, power, topic
from controller.telemetry.settings import misrouted, password_in_clear, proxy_target, read_password, refusal

KEEPALIVE_S = 30
# After an error that stopped the telemetry, it starts again this much later; meanwhile it holds at most HELD
# of the games, faults and statuses the service hands over (the oldest dropped).
RETRY_S = 60
HELD = 1000
# Messages sent and not yet acknowledged, at most (paho's own default limit).
IN_FLIGHT = 20
# How long a clean stop waits for the broker to take the "offline" status.
GOODBYE_S = 2.0
SOCKET_VARIABLE = "DRNIM_MQTT_SOCKET"
# A connection the broker drops sooner than this after making it is a short one; after SHORT_IN_A_ROW of
# them the log says why that may be, once, and is quiet about them until a connection lasts.
STEADY_S = 60
SHORT_IN_A_ROW = 3
# How the problem `controller status` shows begins while connections are dropped short.
THROWN_OFF = "dropped the connection within"
# What makes a new status, sent at once: the mode, the winner, a fault, the attract state. A marble
# or a turn alone is not a change worth a message: the heartbeat's status carries them.
STATUS_CHANGES = ("mode", "winner", "fault", "attract", "service_faults")
# Of the Pi's supply and heat ("power", payloads.POWER_FIELDS), what makes a new status: an episode of
# under-voltage or heat begun or over. The temperature, read every second, waits for the heartbeat.
POWER_CHANGES = ("under_voltage", "hot")


class RecordingSocket(ssl.SSLSocket):
    """A TLS socket that leaves its handshake's failure on its context: paho reports a connection
    that failed without saying why, and a refused certificate, or a listener without TLS that
    drops the handshake, is not a broker out of reach."""

    def do_handshake(self, block=False):
        try:
            super().do_handshake(block)
        except OSError as error:
            self.context.failure = error
            raise


class BrokerContext(ssl.SSLContext):
    """TLS whose certificate check names the broker, even when the connection
    goes through the local socket (whose "host" is the socket's path); the
    last handshake's failure is kept in `failure`."""

    broker = None
    failure = None
    sslsocket_class = RecordingSocket

    def wrap_socket(self, sock, server_hostname=None, **options):
        return super().wrap_socket(sock, server_hostname=self.broker, **options)


def tls_problem(error):
    """A failed TLS handshake as the log says it: the certificate check, or a listener without TLS."""
    if isinstance(error, ssl.SSLError):
        return "failed the TLS check (%s: see telemetry.ca_file and the broker's certificate)" % tls_failure(error)
    return "dropped the TLS handshake (%s: a listener without TLS? see telemetry.tls and telemetry.port)" \
        % (error.strerror or error)


def tls_failure(error):
    """A TLS error in words: the certificate check's own when there is one."""
    return getattr(error, "verify_message", None) or getattr(error, "reason", None) or str(error)


def tls_context(broker, ca_file):
    context = BrokerContext(ssl.PROTOCOL_TLS_CLIENT)
    context.broker = broker
    if ca_file:
        context.load_verify_locations(ca_file)
    else:
        context.load_default_certs()
    return context


def local_socket_pair():
    """The pair of sockets through which paho-mqtt wakes its network thread, made local (AF_UNIX).
    paho makes them over TCP on 127.0.0.1, for Windows; on a Pi the units allow the service no such
    socket (RestrictAddressFamilies=AF_UNIX: it reaches the broker through drnim-mqtt.socket), and its
    loop stopped on "Address family not supported by protocol" at the start."""
    pair = socket.socketpair()
    for end in pair:
        end.setblocking(False)
    return pair


# paho (2.0 to 2.2 at least) makes the pair in loop_start() and reconnect() with this function of its module.
if hasattr(mqtt, "_socketpair_compat"):
    mqtt._socketpair_compat = local_socket_pair


def client_id(exhibit, password):
    """The client ID the exhibit connects with: its name, and when it logs in, a tag made from its name and
    password. A broker throws off a connection when another comes with its client ID, whoever logs in: with
    the name alone, anyone who may log in at all (a screen's user, whose password is in every screen's
    address) kept the exhibit off the broker, OFFLINE in the fleet, by connecting as it. Two exhibits set up
    alike (a cloned card) still share one and throw each other off, which the log says (dropped_short)."""
    if not password:
        return exhibit
    return "%s-%s" % (exhibit, hashlib.sha256(("%s\n%s" % (exhibit, password)).encode()).hexdigest()[:12])


class Telemetry:
    def __init__(self, settings, machine, state_dir, log, clock=time.time, outbox_limit=None, timer=time.monotonic,
                 config_path=None):
        """`clock` dates what is sent (wall time); `timer` measures the heartbeat and the uptime, so that
        NTP setting the wall clock of a Pi without a real-time clock by hours moves neither. `config_path`,
        the configuration read: the proxy's broker is written beside it (settings.proxy_problem)."""
        self.settings = settings
        self.machine = machine
        self.exhibit = settings["client_id"]
        # On a Pi the service has no network: the unit routes the broker through a local socket
        # (systemd/drnim-mqtt.socket, a proxy with the network and nothing else).
        self.socket = os.environ.get(SOCKET_VARIABLE, "")
        self.where = "%s:%d" % (settings["host"], settings["port"])
        if self.socket:
            self.where += " (through %s)" % self.socket
        # the proxy forwards to another broker than the configuration names: said at start and in the status,
        # and every line of the journal names the broker the bytes reach (`heard`)
        target = proxy_target(settings, config_path) if self.socket else None
        self.misrouted = misrouted(target) if target else None
        self.heard = self.where
        if target:
            log("telemetry: the broker %s %s" % (self.where, self.misrouted))
            self.heard = "%s:%d (through %s, which drnim-mqtt.service forwards to %s)" % (
                settings["host"], settings["port"], self.socket, target[0])
        self.log = log
        self.clock = clock
        self.timer = timer
        self.started = timer()
        self.password = read_password(settings["password_file"])
        warning = password_in_clear(settings)
        if warning:
            log(warning)
        self.path = os.path.join(state_dir, "telemetry.sqlite")
        self.outbox_limit = outbox_limit
        self.inbox = queue.SimpleQueue()
        self.connected = False
        self.queued = 0          # games and faults not yet acknowledged (for tests and benches)
        self.dropped = 0         # old games and faults dropped from a full queue
        self.unreachable = None  # the outage being reported, so that it is said once
        self.answered = False    # whether the broker answered the last connection (accepted or refused it)
        self.connected_at = None  # timer() when the connection was made
        self.refused_said = None  # the last packet refused that the log said (client.py)
        self.short = 0           # connections dropped in a row within STEADY_S of being made
        self.acked = set()       # the queue's messages the broker took that could not yet be taken out of it
        self.queue_problem = None  # why the queue cannot be used, so that it is said once
        self.watched = None      # the last status's STATUS_CHANGES (status)
        self.latest = None       # the last status given, sent at the next change or heartbeat
        self.live_state = None   # the live game's last state, encoded: sent again at every connection
        self.live_sent = 0       # live messages handed to the broker (for the bench)
        self.held = []           # what the service handed over while telemetry waited to start again (run)
        self.thread = threading.Thread(target=self.run, name="telemetry", daemon=True)
        self.thread.start()

    @property
    def problem(self):
        """What `controller status` says of the broker: the proxy that forwards elsewhere, else what the
        broker did when last tried (refused us, a failed TLS, cannot be reached), else None."""
        return self.misrouted or self.unreachable

    # --- what the service calls: never blocks ---------------------------------------
    def status(self, status):
        """The exhibit's status: sent at once when what staff look at changed (STATUS_CHANGES), else
        at the next heartbeat (the newest only). Whether it changed. The service's figures of the Pi's
        supply and heat ("power") are sent in their public shape (payloads.power)."""
        if status.get("power") is not None:
            status = dict(status, power=power(status["power"]))
        watched = [status.get(key) for key in STATUS_CHANGES] + [
            (status.get("power") or {}).get(key) for key in POWER_CHANGES]
        changed = watched != self.watched
        self.watched = watched
        self.latest = status        # a fresh table each time: the thread reads it, nobody changes it
        if changed:
            self.inbox.put(("status",))     # only a change wakes the thread: play's every event costs no more
        return changed

    def game(self, winner, turns, duration_s, settings):
        self.inbox.put(("game", {"winner": winner, "turns": turns, "duration_s": duration_s,
                                 "settings": settings, "ended": self.clock()}))

    def fault(self, kind):
        self.inbox.put(("fault", {"fault": kind, "at": self.clock()}))

    def live(self, kind, record):
        """A message of the live game (live.py: its STATE or an EVENT), sent at once when connected."""
        self.inbox.put(("live", kind, record))

    def close(self, timeout=GOODBYE_S + 3):
        """Say goodbye (the status "online": false) and stop."""
        self.inbox.put(None)
        self.thread.join(timeout)

    # --- the telemetry thread ------------------------------------------------------------
    def topic(self, kind):
        return topic(self.settings["topic_prefix"], self.exhibit, kind)

    def client(self):
        s = self.settings
        transport = "unix" if self.socket else "tcp"
        client = Client(mqtt.CallbackAPIVersion.VERSION2, client_id=client_id(self.exhibit, self.password),
                        transport=transport)
        client.will_set(self.topic("status"), self.offline(), qos=1, retain=True)
        context = tls_context(s["host"], s["ca_file"]) if s["tls"] else None
        if context:
            client.tls_set_context(context)
        if s["username"]:
            client.username_pw_set(s["username"], self.password)
        client.reconnect_delay_set(1, 30)
        client.on_connect = lambda c, u, flags, reason, p: self.inbox.put(("connected", reason))
        client.on_connect_fail = lambda c, u: self.connect_failed(context)
        client.on_disconnect = lambda c, u, flags, reason, p: self.inbox.put(("disconnected", reason,
                                                                              c.take_refused()))
        client.on_publish = lambda c, u, mid, reason, p: self.inbox.put(("acked", mid))
        return client

    def connect_failed(self, context):
        """paho's thread: a connection failed; with TLS, the handshake's failure, if that was it."""
        failure = context.failure if context else None
        if context:
            context.failure = None
        self.inbox.put(("unreachable", failure))

    def open_outbox(self):
        """The on-disk queue; a damaged one (a power cut, a worn card) set aside under a time-stamped name
        and begun anew, as the statistics are; in memory when no file can be opened."""
        limit = {"limit": self.outbox_limit} if self.outbox_limit else {}
        try:
            return Outbox(self.path, **limit)
        except sqlite3.OperationalError as error:
            problem = error
        except sqlite3.DatabaseError as damage:
            try:
                aside = set_aside(self.path, self.clock())
            except OSError as error:
                problem = "it is damaged (%s) and cannot be set aside: %s" % (damage, error.strerror or error)
            else:
                self.log("telemetry: the queue %s was damaged (%s): kept as %s, a new queue begun"
                         % (self.path, damage, aside))
                try:
                    return Outbox(self.path, **limit)
                except sqlite3.Error as error:
                    problem = error
        self.log("telemetry: cannot open the queue %s (%s): games wait in memory until the broker takes "
                 "them, and are lost if the service stops first" % (self.path, problem))
        return Outbox(":memory:", **limit)

    def claim(self, outbox):
        """The queue's day and last game made this exhibit's, said when they were another's."""
        try:
            before = outbox.claim(self.exhibit)
        except sqlite3.Error as error:
            self.queue_trouble(error)
            return
        if before is not None:
            queued = "; the %d games and faults queued as %r are still sent as that exhibit's" % (
                self.queued, before) if self.queued else ""
            self.log("telemetry: the queue %s was kept as %r (a card cloned from another exhibit, or a new "
                     "client_id): as %r, the day's games and the last game begin anew%s"
                     % (self.path, before, self.exhibit, queued))

    def offline(self, day=None):
        """The status of an exhibit gone: the last will (set at start, so without the day's
        games), or the goodbye of a clean stop (with them, and the time it stopped). The will has
        no time: the broker sends it when the exhibit is gone, maybe days after the will was set,
        and a screen would say it went offline when it started."""
        payload = {"v": VERSION, "exhibit": self.exhibit, "online": False, "machine": self.machine}
        if day is not None:
            payload["at"] = self.clock()
            payload.update(day)
        return encode(payload)

    def day(self, outbox):
        """Today's tally and the last game, for the status."""
        today = datetime.date.fromtimestamp(self.clock()).isoformat()
        try:
            return {"today": outbox.today(today), "last_game": outbox.last_game()}
        except sqlite3.Error:
            return {"today": {"date": today, "games": 0, "machine_wins": 0}, "last_game": None}

    def run(self):
        """The thread. An error no session expects (a bug; a library that wants what the unit's sandbox
        forbids) ended it without a word but a traceback, and then nothing took games and faults off to the
        broker while `controller status` said "not connected yet" and --check OK. It is said in one line and
        in the status (a warning for --check), and a session begins again RETRY_S later."""
        while True:
            try:
                self.session()
                return
            except Exception as error:      # noqa: BLE001  (anything at all: play goes on, and it is said)
                self.connected = False
                self.unreachable = "is not tried: the telemetry stopped on an error (%s: %s); it starts " \
                    "again every %d s" % (type(error).__name__, error, RETRY_S)
                self.log("telemetry: stopped on an error (%s: %s): play goes on; games and faults wait to be sent, "
                         "and telemetry starts again in %d s" % (type(error).__name__, error, RETRY_S))
            if self.pause(RETRY_S):
                return

    def pause(self, seconds):
        """Wait before the next session, keeping what the service hands over for it; True when asked to stop."""
        end = self.timer() + seconds
        while self.timer() < end:
            try:
                item = self.inbox.get(timeout=max(0.0, end - self.timer()))
            except queue.Empty:
                break
            if item is None:
                return True
            if item[0] in ("game", "fault", "status"):
                self.held.append(item)
                del self.held[:-HELD]
        return False

    def session(self):
        """Connected to the broker through paho's thread, taking what the service hands over, until it stops."""
        outbox = self.open_outbox()
        client = None
        try:
            self.queued = outbox.size()
            self.claim(outbox)
            client = self.client()
            client.connect_async(self.socket or self.settings["host"], self.settings["port"], keepalive=KEEPALIVE_S)
            client.loop_start()
            self.serve(outbox, client)
        finally:
            if client is not None:
                client.disconnect()
                client.loop_stop()
            outbox.close()

    def serve(self, outbox, client):
        in_flight = {}            # paho's message id -> the outbox's sequence number
        status_due = False
        next_beat = self.timer() + self.settings["heartbeat_s"]
        stopping = False
        while not stopping:
            items, self.held = self.held or [self.next_item(next_beat)], []
            while True:
                try:
                    items.append(self.inbox.get_nowait())
                except queue.Empty:
                    break
            for item in items:
                if item is None:
                    stopping = True
                elif item[0] == "status":
                    status_due = True
                elif item[0] in ("game", "fault"):
                    self.keep(outbox, item[0], item[1])
                    status_due = status_due or item[0] == "game"
                elif item[0] == "acked" and item[1] in in_flight:
                    self.acked.add(in_flight.pop(item[1]))
                    self.forget(outbox)
                elif item[0] == "live":
                    self.send_live(client, item[1], item[2])
                else:
                    status_due = self.connection(item) or status_due
                    if self.connected and item[0] == "connected" and self.live_state is not None:
                        self.publish_live(client, STATE, self.live_state)
            self.queued = self.size(outbox)
            self.steady()
            if self.timer() >= next_beat:
                # the next beat is a heartbeat away even when this one cannot be sent: never a busy wait
                status_due = True
                next_beat = self.timer() + self.settings["heartbeat_s"]
            if stopping or not self.connected:
                continue
            for seq, name, payload in self.waiting(outbox, in_flight):
                in_flight[client.publish(name, payload, qos=1).mid] = seq
            if status_due and self.latest is not None:
                client.publish(self.topic("status"), self.status_payload(outbox, self.latest), qos=1, retain=True)
                status_due = False
                next_beat = self.timer() + self.settings["heartbeat_s"]
        if self.connected:
            goodbye = self.offline(self.day(outbox))
            client.publish(self.topic("status"), goodbye, qos=1, retain=True).wait_for_publish(GOODBYE_S)

    def next_item(self, next_beat):
        try:
            return self.inbox.get(timeout=max(0.0, next_beat - self.timer()))
        except queue.Empty:
            return ("beat",)

    def send_live(self, client, kind, record):
        """A live message, in the order play made it; the state kept for the next connection."""
        record.update({"v": VERSION, "exhibit": self.exhibit})
        payload = encode(record)
        if kind == STATE:
            self.live_state = payload
        if self.connected:
            self.publish_live(client, kind, payload)

    def publish_live(self, client, kind, payload):
        client.publish(self.topic(kind), payload, qos=0, retain=kind == STATE)
        self.live_sent += 1

    def connection(self, item):
        """A change in the connection, said once in the log; True when the status should be sent again."""
        kind, reason = item[0], item[1] if len(item) > 1 else None
        refused = item[2] if len(item) > 2 else None
        unanswered = kind == "disconnected" and not self.answered
        if kind in ("connected", "disconnected"):
            self.answered = kind == "connected"
        if kind == "connected" and not reason.is_failure:
            self.connected = True
            self.connected_at = self.timer()
            if self.short < SHORT_IN_A_ROW:
                self.log("telemetry: connected to %s as %s%s" % (self.heard, self.exhibit, "" if not self.queued
                                                                else ": sending the %d queued" % self.queued))
            # while connections keep being dropped short, `controller status` says so, not "connected", until one
            # lasts (steady)
            self.unreachable = self.thrown_off() if self.short >= SHORT_IN_A_ROW else None
            return True
        if kind == "disconnected" and refused:
            # a packet refused (client.py): a stranger's broker sends it at every connection, said once
            self.connected = False
            if refused != self.refused_said:
                self.log("telemetry: the broker %s %s: play goes on; games and faults wait in the queue and are "
                         "sent when it is back" % (self.heard, refused))
                self.refused_said = refused
            self.unreachable = refused
            return False
        if kind == "disconnected" and self.dropped_short():
            return False
        if kind in ("connected", "unreachable", "disconnected"):
            self.connected = False
            if kind == "connected":
                problem = "refused us (%s)" % refusal(reason, "telemetry.username and telemetry.password_file")
            elif kind == "unreachable" and reason is not None:
                problem = tls_problem(reason)
            elif unanswered and self.misrouted:
                problem = "closed the connection without answering (the broker the proxy still forwards to is gone? " \
                    "run sudo systemd/install.sh telemetry)"
            elif unanswered:
                problem = "closed the connection without answering (a listener with TLS, or not an MQTT broker? " \
                    "see telemetry.tls and telemetry.port)"
            else:
                problem = "cannot be reached" if kind == "unreachable" else "went away"
            if self.unreachable is None or self.unreachable.startswith(THROWN_OFF) \
                    or problem.startswith(("refused", "failed", "dropped", "closed")) and problem != self.unreachable:
                self.log("telemetry: the broker %s %s: play goes on; games and faults wait in the queue and are "
                         "sent when it is back" % (self.heard, problem))
                self.unreachable = problem
        return False

    def dropped_short(self):
        """Whether the connection just dropped was a short one, among SHORT_IN_A_ROW or more in a row:
        said once, since two exhibits with one client_id throw each other off every second, for ever."""
        lasted = self.timer() - self.connected_at if self.connected_at is not None else STEADY_S
        self.connected = False
        self.connected_at = None
        self.short = self.short + 1 if lasted < STEADY_S else 0
        if self.short == SHORT_IN_A_ROW:
            self.log("telemetry: the broker %s dropped the connection within %d s of making it, %d times in a "
                     "row: another exhibit connecting as %r does this (each needs its own telemetry.client_id; "
                     "empty means the host name, the same on every new Pi), as does a failing network. Play goes "
                     "on; not said again until a connection lasts" % (self.heard, STEADY_S, SHORT_IN_A_ROW,
                                                                       self.exhibit))
        if self.short >= SHORT_IN_A_ROW:
            self.unreachable = self.thrown_off()
        return self.short >= SHORT_IN_A_ROW

    def thrown_off(self):
        """What `controller status` says while connections are dropped short, connected in the moments between."""
        return "%s %d s of making it, %d times in a row: another exhibit connecting as %r? (each needs its own " \
            "telemetry.client_id)" % (THROWN_OFF, STEADY_S, self.short, self.exhibit)

    def steady(self):
        """After short connections were said once, the first that lasts STEADY_S is said: the technician who
        renamed the other exhibit sees that it worked."""
        if self.short >= SHORT_IN_A_ROW and self.connected and self.timer() - self.connected_at >= STEADY_S:
            self.short = 0
            self.unreachable = None
            self.log("telemetry: connected to %s as %s, and steady for %d s: the connections that the broker dropped "
                     "have stopped" % (self.heard, self.exhibit, STEADY_S))

    def keep(self, outbox, kind, record):
        """A game or a fault, put in the on-disk queue (and a game into today's tally)."""
        record.update({"v": VERSION, "exhibit": self.exhibit, "machine": self.machine,
                       "id": "%s/%s" % (self.exhibit, uuid.uuid4().hex[:16])})
        game = None
        if kind == "game":
            game = (datetime.date.fromtimestamp(record["ended"]).isoformat(), record["winner"],
                    {"id": record["id"], "winner": record["winner"], "ended": record["ended"]})
        try:
            dropped = outbox.add(self.topic(kind), encode(record), game)
        except sqlite3.Error as error:
            self.queue_trouble(error)
            return
        self.queue_works()
        # said at the first drop and every 100th after it: a long outage does not fill the journal
        if dropped and self.dropped // 100 != (self.dropped + dropped) // 100 or dropped and not self.dropped:
            self.log("telemetry: the queue is full (%d messages): the oldest are dropped, %d so far"
                     % (outbox.limit, self.dropped + dropped))
        self.dropped += dropped

    # --- the on-disk queue, which a full SD card must not stop -------------------------------
    def forget(self, outbox):
        """Take what the broker acknowledged out of the queue. What cannot be (a full card) waits in
        `acked` for the next try and is not sent again meanwhile: a consumer keeps each once by its id."""
        for seq in sorted(self.acked):
            try:
                outbox.sent(seq)
            except sqlite3.Error as error:
                self.queue_trouble(error)
                return
            self.acked.discard(seq)
        self.queue_works()

    def size(self, outbox):
        """How many wait in the queue; the last count when it cannot be read."""
        try:
            return outbox.size()
        except sqlite3.Error as error:
            self.queue_trouble(error)
            return self.queued

    def waiting(self, outbox, in_flight):
        """The next queued messages to send: none in flight, none already acknowledged."""
        try:
            return outbox.waiting(set(in_flight.values()) | self.acked, IN_FLIGHT - len(in_flight))
        except sqlite3.Error as error:
            self.queue_trouble(error)
            return []

    def queue_trouble(self, error):
        """The queue cannot be used (a full or damaged card): said once until the problem changes."""
        if str(error) != self.queue_problem:
            self.log("telemetry: cannot use the queue %s (%s): play goes on, but games and faults that come "
                     "meanwhile are lost (the log says when it works again)" % (self.path, error))
        self.queue_problem = str(error)

    def queue_works(self):
        if self.queue_problem is not None:
            self.queue_problem = None
            self.log("telemetry: the queue %s works again" % self.path)

    def status_payload(self, outbox, latest):
        now = self.clock()
        payload = {"v": VERSION, "exhibit": self.exhibit, "online": True, "at": now, "machine": self.machine,
                   "version": described(), "uptime_s": int(self.timer() - self.started), "queued": self.queued,
                   "heartbeat_s": self.settings["heartbeat_s"]}
        payload.update(latest)
        payload.update(self.day(outbox))
        return encode(payload)
