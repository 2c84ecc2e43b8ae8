"""systemd's notification protocol (sd_notify), in a few lines.

A datagram on the AF_UNIX socket named by $NOTIFY_SOCKET ("@" starts an
abstract name): READY=1 once the board is up, WATCHDOG=1 at least every
$WATCHDOG_USEC, STOPPING=1 on the way out. Without $NOTIFY_SOCKET (run by
hand, in tests) every call does nothing.
"""

import os
import socket


class Notifier:
    def __init__(self, environ=None):
        environ = os.environ if environ is None else environ
        self.address = environ.get("NOTIFY_SOCKET") or None
        usec = environ.get("WATCHDOG_USEC")
        pid = environ.get("WATCHDOG_PID")
        for_us = not pid or pid == str(os.getpid())
        self.watchdog_ms = int(usec) // 1000 if usec and usec.isdigit() and for_us else None

    def send(self, text):
        if not self.address:
            return False
        address = "\0" + self.address[1:] if self.address.startswith("@") else self.address
        with socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM | socket.SOCK_CLOEXEC) as sock:
            sock.connect(address)
            sock.sendall(text.encode())
        return True

    def ready(self, status=""):
        return self.send("READY=1\nSTATUS=%s" % status if status else "READY=1")

    def watchdog(self):
        return self.send("WATCHDOG=1")

    def stopping(self):
        return self.send("STOPPING=1")

    def status(self, text):
        return self.send("STATUS=" + text)
