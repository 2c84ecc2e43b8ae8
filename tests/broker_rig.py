"""A real MQTT broker for the tests: Debian's mosquitto on a free loopback port,
with a configuration file written here (no system service, no root).
Stopped and started again on the same port, it keeps its sessions and their
queued messages (persistence), as a museum's broker does."""

import getpass
import os
import shutil
import signal
import socket
import subprocess
import threading
import time

import pytest

MISSING = "mosquitto is missing: install Debian's package mosquitto (apt-get install mosquitto); .ci/run does"


def find_mosquitto():
    return shutil.which("mosquitto") or next((p for p in ("/usr/sbin/mosquitto", "/sbin/mosquitto")
                                              if os.access(p, os.X_OK)), None)


def mosquitto():
    path = find_mosquitto()
    if path is None:
        pytest.skip(MISSING)
    return path


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_until(condition, timeout=10.0, what="the condition"):
    end = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > end:
            raise AssertionError("%s did not hold within %.0f s" % (what, timeout))
        time.sleep(0.02)


class Broker:
    """`listener_settings`: what the listener asks of clients (TLS files, passwords); `websockets`:
    a second listener, MQTT over WebSockets on `ws_port`, as a museum opens for its screens; `queued`: the
    messages it queues at most for a session away (max_queued_messages)."""

    def __init__(self, folder, listener_settings="allow_anonymous true", websockets=False, logging="", queued=100000):
        self.program = mosquitto()
        self.folder = folder
        (folder / "data").mkdir(exist_ok=True)
        self.config = folder / "mosquitto.conf"
        self.process = None
        self.ws_port = None
        for attempt in range(3):
            # a free port can be taken by another program before mosquitto binds it: then another
            self.port = free_port()
            ws = ""
            if websockets:
                self.ws_port = free_port()
                ws = "listener %d 127.0.0.1\nprotocol websockets\n" % self.ws_port
            # max_queued_messages: what docs/telemetry.md asks of a museum's broker, so that a fleet
            # follower that was away gets every game. user: started by root, mosquitto would become
            # the user "mosquitto", who cannot write here (its persistence would be lost).
            self.config.write_text("listener %d 127.0.0.1\n%s\npersistence true\npersistence_location %s/\n"
                                   "log_dest file %s\nuser %s\nmax_queued_messages %d\n%s%s"
                                   % (self.port, listener_settings, folder / "data", folder / "mosquitto.log",
                                      getpass.getuser(), queued, ws, logging))
            try:
                self.start()
                return
            except AssertionError:
                if attempt == 2:
                    raise

    @property
    def address(self):
        return "127.0.0.1:%d" % self.port

    @property
    def ws_address(self):
        """The WebSockets listener's address, as a page is given it."""
        return "ws://127.0.0.1:%d/" % self.ws_port

    def start(self):
        self.process = subprocess.Popen([self.program, "-c", str(self.config)], stdout=subprocess.DEVNULL,
                                        stderr=subprocess.PIPE)
        wait_until(self.listening, 10, "mosquitto listening on port %d" % self.port)

    def listening(self):
        if self.process.poll() is not None:
            raise AssertionError("mosquitto stopped: %s" % self.process.stderr.read().decode(errors="replace"))
        try:
            for port in (self.port, self.ws_port):
                if port is not None:
                    socket.create_connection(("127.0.0.1", port), timeout=1).close()
            return True
        except OSError:
            return False

    def stop(self):
        if self.process and self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            self.process.wait(10)
        self.process = None

    def restart(self):
        self.stop()
        self.start()


def certificates(folder):
    """A museum's own CA and a broker certificate it signed, for localhost, made with openssl in
    `folder` (ca.crt, broker.crt, broker.key); skipped when openssl is missing."""
    openssl = shutil.which("openssl")
    if openssl is None:
        pytest.skip("openssl is missing: install Debian's package openssl")

    def run(*args):
        subprocess.run([openssl, *args], cwd=folder, check=True, capture_output=True, timeout=60)
    run("req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", "ca.key", "-out", "ca.crt",
        "-subj", "/CN=museum CA", "-days", "2")
    run("req", "-newkey", "rsa:2048", "-nodes", "-keyout", "broker.key", "-out", "broker.csr", "-subj", "/CN=localhost")
    (folder / "names").write_text("subjectAltName=DNS:localhost\n")
    run("x509", "-req", "-in", "broker.csr", "-CA", "ca.crt", "-CAkey", "ca.key", "-CAcreateserial",
        "-out", "broker.crt", "-days", "2", "-extfile", "names")
    return folder / "ca.crt", folder / "broker.crt", folder / "broker.key"


def tls_settings(folder):
    """The listener settings of a broker with TLS, its certificate from `certificates`."""
    ca, certificate, key = certificates(folder)
    return "cafile %s\ncertfile %s\nkeyfile %s" % (ca, certificate, key)


class StrangeBroker:
    """Not mosquitto: a broker as a stranger or another make may be. It accepts one connection and answers it;
    to a subscription it sends `first` (retained PUBLISHes, (topic, payload) each) before it answers it, as
    MQTT 3.1.1 allows, then its answer (each filter granted, QoS 1); then, given a `length`, a PUBLISH that
    says it is that long, whose body it sends until the client closes the connection: `sent` is how much
    went, `closed` is set when the client closed it. Its send buffer is small, so that what it sent is about
    what the client read."""

    def __init__(self, length=None, first=()):
        self.length = length
        self.first = first
        self.sent = 0
        self.closed = threading.Event()
        self.server = socket.create_server(("127.0.0.1", 0))
        self.server.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, 65536)
        self.port = self.server.getsockname()[1]
        threading.Thread(target=self.serve, daemon=True).start()

    def serve(self):
        connection, _ = self.server.accept()
        with connection:
            connection.settimeout(10)
            connection.recv(4096)                               # CONNECT
            connection.sendall(b"\x20\x02\x00\x00")              # CONNACK: accepted
            connection.settimeout(0.5)
            try:
                asked = connection.recv(4096)
                if asked[:1] == b"\x82":                         # SUBSCRIBE
                    at = 1
                    while asked[at] & 128:                      # past the remaining length
                        at += 1
                    identifier, at, count = asked[at + 1:at + 3], at + 3, 0
                    while at < len(asked):
                        at += 2 + int.from_bytes(asked[at:at + 2], "big") + 1
                        count += 1
                    for topic, payload in self.first:
                        body = len(topic).to_bytes(2, "big") + topic.encode() + payload
                        connection.sendall(b"\x31" + remaining_length(len(body)) + body)
                    connection.sendall(bytes([0x90, 2 + count]) + identifier + b"\x01" * count)
            except TimeoutError:
                pass
            connection.settimeout(10)
            try:
                if self.length is not None:
                    connection.sendall(b"\x30" + remaining_length(self.length))
                    chunk = bytes(65536)
                    while self.sent < self.length:
                        part = chunk[:self.length - self.sent]
                        connection.sendall(part)
                        self.sent += len(part)
                while connection.recv(4096):
                    pass
                self.closed.set()
            except TimeoutError:
                pass
            except OSError:
                self.closed.set()

    def close(self):
        self.server.close()


def remaining_length(length):
    """MQTT's remaining length: 7 bits a byte, the lowest first, the top bit set where more follow."""
    encoded = b""
    while True:
        encoded += bytes([length % 128 | (128 if length >= 128 else 0)])
        length //= 128
        if not length:
            return encoded
