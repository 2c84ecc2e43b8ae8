"""`controller web serve`: the built page on localhost, for a try, or to a
class's phones and tablets on the school's network (--bind 0.0.0.0).

A plain static server (the standard library's), bound to 127.0.0.1 unless
told otherwise: the page needs nothing else. A museum's web server serves
the same folder.

It holds up against a program on the same computer that misbehaves: a
folder is never listed (only its index.html is served); a connection waits
for its first byte in the Lobby, on no thread of its own, and is closed without
a word when none has come within TIMEOUT_S (a browser opens connections ahead
of its requests, and sends nothing on some); a request whose head (its first
line and headers) has not all come within TIMEOUT_S of its first byte is cut
off, however it trickles in, and one of more than HEAD_LIMIT bytes is refused
(431); at most THREADS requests are served at once (the others wait in the
lobby, which holds BACKLOG, then in a listen queue of BACKLOG), and one device
holds at most half as many connections (PageServer); a connection
cut short costs no traceback. Every answer tells the browser to ask again
before it uses its copy of a file (Cache-Control: no-cache): a copy that has
not changed costs a 304 and no bytes, and a page built afresh is never run
from files of the build before it. A file of 1 KB or more is sent gzipped to a
browser that takes it (PACKED_TYPES), each made once. Each request is a line on stderr (the time, the method, the
path without its query, the status): not the device's address, which on a class's
or a museum's network is a visitor's phone's, personal data under the GDPR for
as long as a log keeps it (docs/privacy.md); `addresses` (serve's --log-addresses) adds it, for an IT
department that must see which devices read the page.

It serves only what is inside the folder: `..` (however it is written) never
leaves it, and neither does a link in it that points outside (a file whose
real path is elsewhere is not found). Every answer says its type is meant
(nosniff), sends no address on (no Referer: the page's address may hold the
broker's password) and carries the page's Content-Security-Policy, POLICY:
the page's own scripts, styles and files, its WebAssembly, and WebSockets to
the broker named in ?broker=. web/index.html carries the same policy, but for
frame-ancestors (which a <meta> cannot give), for a folder another server serves.
"""

import collections
import functools
import gzip
import io
import os
import selectors
import signal
import socket
import sys
import threading
import time
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer

from controller.printable import printable

TIMEOUT_S = 10
THREADS = 32
BACKLOG = 128
# The most a request's head (its first line and headers) may hold: a browser's is under 1 KB, a kiosk's long
# ?follow= address a few; the standard library alone takes 100 lines of 64 KB each.
HEAD_LIMIT = 16384
# What the page may load and run: nothing from elsewhere but the broker's WebSockets (ws: or wss:, any host,
# since ?broker= names it); MicroPython's WebAssembly compiled ('wasm-unsafe-eval', not JavaScript's eval).
POLICY = ("default-src 'none'; script-src 'self' 'wasm-unsafe-eval'; style-src 'self'; img-src 'self' data:; "
          "connect-src 'self' ws: wss:; base-uri 'none'; form-action 'none'; frame-ancestors 'none'")
# no-cache: a browser may keep a copy, but asks (If-Modified-Since) before it uses it. Without it, a browser used a
# copy it deemed fresh (a tenth of the file's age: a day for a build ten days old) without asking, so that after
# the page was built again a pupil's tablet ran the old page, or the old page.js with the new core.
HEADERS = {"X-Content-Type-Options": "nosniff", "Referrer-Policy": "no-referrer", "Content-Security-Policy": POLICY,
           "Cache-Control": "no-cache"}
# Whether this computer masks signals by thread (not Windows): see PageServer.process_request.
MASKS = hasattr(signal, "pthread_sigmask")
# The files sent gzipped to a browser that takes it (every browser does): the port's WebAssembly, the page's
# scripts, catalogs and the core's files list shrink to about a third, 857 KB a pupil to about 320 KB, which on
# a school's Wi-Fi shared by a class is the difference between a page up in seconds and one that crawls.
PACKED_TYPES = (".wasm", ".js", ".mjs", ".json", ".css", ".html", ".py", ".txt", "")
PACKED_FROM = 1024
# Each file's gzip, made at its first request and kept while the file stays the same: (path, mtime, size) -> bytes.
PACKED = {}
PACKED_LOCK = threading.Lock()


def packed(path, stat):
    """The gzip of the file at `path` (whose os.stat is `stat`), made once."""
    key = (path, stat.st_mtime_ns, stat.st_size)
    with PACKED_LOCK:
        if key in PACKED:
            return PACKED[key]
    with open(path, "rb") as f:
        payload = gzip.compress(f.read(), compresslevel=6, mtime=0)
    with PACKED_LOCK:
        for old in [other for other in PACKED if other[0] == path]:
            del PACKED[old]       # the file built again: its old gzip goes
        PACKED[key] = payload
    return payload


def takes_gzip(accepted):
    """Whether an Accept-Encoding header takes gzip (not `gzip;q=0`)."""
    for part in (accepted or "").split(","):
        name, *parameters = part.split(";")
        if name.strip().lower() not in ("gzip", "x-gzip"):
            continue
        for parameter in parameters:
            key, _, value = parameter.partition("=")
            if key.strip().lower() == "q":
                try:
                    return float(value) > 0
                except ValueError:
                    return False
        return True
    return False


class HeadTooLarge(Exception):
    """A request's head of more than HEAD_LIMIT bytes."""


class TimedReader(io.RawIOBase):
    """A connection's bytes until `deadline` (time.monotonic()): each read waits only for the time
    left, then TimeoutError, so that a client sending a byte now and then (slowloris) cannot hold
    a thread for longer than the timeout by keeping each wait short; and at most HEAD_LIMIT of
    them (then HeadTooLarge), so that a fat head costs no memory."""

    def __init__(self, connection, deadline):
        self.connection = connection
        self.deadline = deadline
        self.left = HEAD_LIMIT

    def readable(self):
        return True

    def readinto(self, buffer):
        left = self.deadline - time.monotonic()
        if left <= 0:
            raise TimeoutError("the request's head took longer than its time")
        if self.left <= 0:
            raise HeadTooLarge()
        self.connection.settimeout(left)
        got = self.connection.recv_into(memoryview(buffer)[:self.left])
        self.left -= got
        return got


class PageHandler(SimpleHTTPRequestHandler):
    """Serves the folder; `.mjs` as JavaScript (browsers refuse a module
    otherwise), `.wasm` as WebAssembly (streaming compilation wants it), and
    a file without an extension (the licences, LICENSE) as text to read."""

    extensions_map = dict(SimpleHTTPRequestHandler.extensions_map,
                          **{".mjs": "text/javascript", ".js": "text/javascript",
                             ".wasm": "application/wasm", ".py": "text/plain; charset=utf-8",
                             "": "text/plain; charset=utf-8"})

    quiet = False       # no line a request (make_server's quiet)
    addresses = False   # the device's address in each line (make_server's addresses)
    packed = None       # the gzip of the file being sent, when the browser takes it
    varies = False      # the answer depends on Accept-Encoding (a file that may be sent gzipped)

    def setup(self):
        super().setup()
        self.rfile.close()          # the socket's own reader, in place of which:
        self.rfile = io.BufferedReader(TimedReader(self.connection, time.monotonic() + self.timeout))

    def handle_one_request(self):
        try:
            super().handle_one_request()
        except HeadTooLarge:
            self.close_connection = True
            self.command, self.request_version = None, "HTTP/1.0"     # whatever of them was read
            self.requestline = getattr(self, "requestline", "")
            self.send_error(431, "Request head too large", "more than %d bytes" % HEAD_LIMIT)

    def parse_request(self):
        """The head read within its time: the answer is sent with the timeout for each write again."""
        parsed = super().parse_request()
        self.connection.settimeout(self.timeout)
        return parsed

    def version_string(self):
        """The server's name, without Python's version."""
        return "drnim-page"

    def list_directory(self, path):
        """A folder without an index.html: not found, never its list of files."""
        self.send_error(404, "Not found")
        return None

    def send_head(self):
        """A file inside the folder, never one a link in it points to outside it; a path that
        names no file (a NUL in it, a lone surrogate) is not found, not a dropped connection."""
        try:
            path = self.translate_path(self.path)
            inside = os.path.realpath(self.directory)
            real = os.path.realpath(path)
            if real != inside and not real.startswith(inside + os.sep):
                raise ValueError("outside the folder")
            self.packed, self.varies = None, False
            if os.path.isfile(real) and os.path.splitext(real)[1] in PACKED_TYPES:
                stat = os.stat(real)
                self.varies = stat.st_size >= PACKED_FROM
                if self.varies and takes_gzip(self.headers.get("Accept-Encoding")):
                    self.packed = packed(real, stat)
            sent = super().send_head()
            if sent is not None and self.packed is not None:
                sent.close()
                return io.BytesIO(self.packed)
            return sent
        except ValueError:
            self.send_error(404, "Not found")
            return None
        except OSError:           # gone while it was read: the build is being replaced
            self.packed = None
            self.send_error(404, "Not found")
            return None

    def send_header(self, keyword, value):
        """A gzipped file's length is its gzip's, said to be gzip."""
        if self.packed is not None and keyword.lower() == "content-length":
            super().send_header("Content-Encoding", "gzip")
            value = str(len(self.packed))
        super().send_header(keyword, value)

    def send_error(self, code, message=None, explain=None):
        self.packed, self.varies = None, False
        super().send_error(code, message, explain)

    def end_headers(self):
        for name, value in HEADERS.items():
            self.send_header(name, value)
        if self.varies:
            self.send_header("Vary", "Accept-Encoding")
        super().end_headers()

    def log_request(self, code="-", size="-"):
        """One line a request: the method, the path without its query (a kiosk's ?password= is the
        broker's) and the status."""
        path = getattr(self, "path", "")
        self.log_message("%s %s %s", self.command or "-", path.split("?")[0] + ("?\u2026" if "?" in path else ""),
                         getattr(code, "value", code))

    def log_error(self, format, *args):
        """A refusal has its line from log_request; a request cut off (its time was up) says so."""
        if not format.startswith("code "):
            self.log_message(format, *args)

    def log_message(self, format, *args):
        """A line on stderr: the time, the device's address when asked for (`addresses`) and what it did
        (its control characters as escapes: a path is anyone's text)."""
        if self.quiet:
            return
        who = [self.client_address[0]] if self.addresses else []
        sys.stderr.write(" ".join([time.strftime("%Y-%m-%d %H:%M:%S")] + who + [printable(format % args)]) + "\n")


class Lobby:
    """The connections that have sent nothing yet, all waiting on one thread (a selector), not each on a
    request's: a browser opens a connection or two ahead of its requests and may send nothing on them
    (Chromium two a load of the page), which held a request's thread each until its timeout, so that a
    class's 30 devices opening the page together held every thread and each pupil waited 10 s for the
    page instead of half a second (bench/bench_class.py). A connection's first byte sends it on to a
    request's thread as soon as one is free; one that sends nothing within `timeout` is closed, without
    a line in the log (it asked for nothing). At most `room` connections wait here: each holds a file."""

    def __init__(self, server, timeout, room=BACKLOG):
        self.server = server
        self.timeout = timeout
        self.room = threading.BoundedSemaphore(room)
        self.lock = threading.Lock()
        self.arrivals = []                      # (connection, address, deadline), from the accepting thread
        self.waiting = {}                       # connection -> (address, deadline)
        self.ready = collections.deque()        # (connection, address) that sent a byte, for a free thread
        self.selector = selectors.DefaultSelector()
        self.bell, self.ringer = socket.socketpair()
        self.ringer.setblocking(False)
        self.selector.register(self.bell, selectors.EVENT_READ)
        self.closing = False
        self.thread = None

    def enter(self, connection, address):
        """A connection just accepted, by the accepting thread once it has room (`room`)."""
        with self.lock:
            self.arrivals.append((connection, address, time.monotonic() + self.timeout))
            if self.thread is None:
                self.thread = threading.Thread(target=self.run, name="lobby", daemon=True)
                self.thread.start()
        self.ring()

    def ring(self):
        """Wake the lobby's thread: a connection came, a request's thread is free, or the server closes."""
        try:
            self.ringer.send(b"\0")
        except OSError:         # rung already (the bell is full), or closed
            pass

    def run(self):
        while True:
            with self.lock:
                if self.closing:
                    return
                arrivals, self.arrivals = self.arrivals, []
            for connection, address, deadline in arrivals:
                try:
                    self.selector.register(connection, selectors.EVENT_READ)
                except (OSError, ValueError):       # gone already: closed, and its room given back
                    self.server.shutdown_request(connection)
                    self.room.release()
                    continue
                self.waiting[connection] = (address, deadline)
            first = min((deadline for _, deadline in self.waiting.values()), default=None)
            for key, _ in self.selector.select(None if first is None else max(0, first - time.monotonic())):
                if key.fileobj is self.bell:
                    self.bell.recv(4096)
                else:
                    self.selector.unregister(key.fileobj)
                    self.ready.append((key.fileobj, self.waiting.pop(key.fileobj)[0]))
            now = time.monotonic()
            for connection, (_, deadline) in list(self.waiting.items()):
                if deadline <= now:
                    self.selector.unregister(connection)
                    del self.waiting[connection]
                    self.server.shutdown_request(connection)
                    self.room.release()
            while self.ready and self.server.slots.acquire(blocking=False):
                connection, address = self.ready.popleft()
                self.room.release()
                self.server.serve(connection, address)

    def close(self):
        """Stop the lobby's thread and close every connection still in it."""
        with self.lock:
            self.closing = True
        self.ring()
        if self.thread is not None:
            self.thread.join()
        for connection in list(self.waiting) + [connection for connection, _ in self.ready] + \
                [connection for connection, _, _ in self.arrivals]:
            self.server.shutdown_request(connection)
        self.selector.close()
        self.bell.close()
        self.ringer.close()


class PageServer(ThreadingHTTPServer):
    """A thread a request, at most `threads` at once, each started when its connection's first byte has
    come (the Lobby); a connection cut short is not an error to print. One device holds at most half the
    threads' number of connections at once (a browser opens 6 to a server): more are closed as they come,
    so that a device that opens dozens and sends a byte on each (40 held a server's 32 threads for 10 s
    each, again and again) leaves the other half to everyone else."""

    request_queue_size = BACKLOG

    def __init__(self, address, handler, threads=THREADS, timeout=TIMEOUT_S):
        self.slots = threading.BoundedSemaphore(threads)
        self.lobby = Lobby(self, timeout)
        self.share = max(1, threads // 2)
        self.held = collections.Counter()      # a device's address -> its connections open
        self.owners = {}                        # a connection -> its device's address
        self.held_lock = threading.Lock()
        super().__init__(address, handler)

    def process_request(self, request, client_address):
        """The connection goes to the lobby, whose thread is started with Ctrl-C and SIGTERM blocked, as
        each request's thread it starts is then, so that they always reach the main thread: one that a
        request's thread took was sometimes never acted on, and the server ran on after Ctrl-C (1 stop in
        10 on a busy machine, on CPython 3.11). Windows has no signal masks, and needs none: there Python
        hands Ctrl-C to the main thread alone."""
        device = client_address[0]
        with self.held_lock:
            over = self.held[device] >= self.share
            if not over:
                self.held[device] += 1
                self.owners[request] = device
        if over:
            super().shutdown_request(request)
            return
        self.lobby.room.acquire()
        held = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT, signal.SIGTERM}) if MASKS else None
        try:
            self.lobby.enter(request, client_address)
        except BaseException:
            self.lobby.room.release()
            raise
        finally:
            if MASKS:
                signal.pthread_sigmask(signal.SIG_SETMASK, held)

    def serve(self, request, client_address):
        """A request's thread for a connection that has sent its first byte (the lobby's thread, which holds
        one of the slots for it)."""
        try:
            super().process_request(request, client_address)
        except Exception:           # no thread to be had: the connection is closed, the server serves on
            self.slots.release()
            self.shutdown_request(request)

    def process_request_thread(self, request, client_address):
        try:
            super().process_request_thread(request, client_address)
        finally:
            self.slots.release()
            self.lobby.ring()

    def handle_error(self, request, client_address):
        """A client that went away (a reset, a timeout, a closed tab): nothing to say."""

    def shutdown_request(self, request):
        """Every connection is closed here, and its device's share given back."""
        with self.held_lock:
            device = self.owners.pop(request, None)
            if device is not None:
                self.held[device] -= 1
                if not self.held[device]:
                    del self.held[device]
        super().shutdown_request(request)

    def server_close(self):
        self.lobby.close()
        super().server_close()


def make_server(folder, port=8000, host="127.0.0.1", timeout=TIMEOUT_S, threads=THREADS, quiet=False,
                addresses=False):
    """A server for `folder` on `host`:`port` (0: any free port); serve_forever() runs it. `quiet`: no
    line a request (the tests' and the bench's browser); `addresses`: each line names the device that asked."""
    settings = {"timeout": timeout, "quiet": quiet, "addresses": addresses}
    handler = functools.partial(type("TimedPageHandler", (PageHandler,), settings), directory=str(folder))
    return PageServer((host, port), handler, threads, timeout)


def lan_address():
    """This computer's address on the network its traffic goes out on (what a phone beside it types),
    or None when it has no route out. Connecting a UDP socket sends nothing: it only picks the route."""
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as probe:
        try:
            probe.connect(("192.0.2.1", 9))       # TEST-NET-1 (RFC 5737): routed by the default route, never used
        except OSError:
            return None
        return probe.getsockname()[0]
