"""What `controller status` reads of a watched board: status.json in its exhibit's runtime folder,
written every heartbeat_s as the Pi's service writes its own (daemon.py).

A Pi that watches a Pico for months is checked the way a Pi with its own machine is (`controller
status`, `status --check` from a museum's monitoring): whether the monitor runs, whether the board
is on its port, and the board's game and fault as its last status said them. Each exhibit's is in
a folder of its own (boards.board_runtime_folder), the configuration's own exhibit's too, where a
board runs it in place of the Pi's machine; its "board" key says a monitor wrote it.
"""

import json
import os
import time

from controller.built import described
from controller.service.clock import follow_time_zone
from controller.service.store import replace_file

STATUS_FILE = "status.json"


class Heartbeat:
    """Writes `folder`/status.json every `every_s` seconds (`beat`), and removes it when the monitor
    stops (`close`). A folder that cannot be written is said once (`say`), then tried at each beat."""

    def __init__(self, folder, every_s, exhibit, say, clock=time.monotonic):
        self.path = os.path.join(folder, STATUS_FILE)
        self.every_s = every_s
        self.exhibit = exhibit
        self.say = say
        self.clock = clock
        self.started = clock()
        self.next_at = self.started
        self.problem = None

    def beat(self, monitor, telemetry):
        """The status, when one is due."""
        now = self.clock()
        if now < self.next_at:
            return
        self.next_at = now + self.every_s
        follow_time_zone(self.say)
        link = monitor.link
        status = {"pid": os.getpid(), "heartbeat": time.time(), "monotonic": time.monotonic(),
                  "version": described(), "machine": monitor.machine, "exhibit": self.exhibit,
                  "board": {"port": link.port, "there": link.serial is not None, "gone": link.gone,
                            # seconds since the port last came or went (since the monitor started, when never)
                            "for_s": round(now - (link.changed or self.started), 1)},
                  "service_faults": {"statistics": monitor.stats.problem} if monitor.stats and monitor.stats.problem
                  else {}}
        if telemetry is not None:
            status["telemetry"] = {"broker": telemetry.where, "connected": telemetry.connected,
                                   "queued": telemetry.queued, "problem": telemetry.problem}
        for key, value in (monitor.board_status or {}).items():
            status.setdefault(key, value)        # the board's game, as its last status said it; never its pid
        try:
            os.makedirs(os.path.dirname(self.path), exist_ok=True)
            replace_file(self.path, json.dumps(status).encode(), mode=0o644, durable=False)
        except OSError as error:
            if self.problem is None:
                self.say("cannot write the status file %s (%s): `controller status` shows no heartbeat of this "
                         "board until it can be" % (self.path, error.strerror or error))
            self.problem = error
            return
        if self.problem is not None:
            self.say("the status file %s is written again" % self.path)
            self.problem = None

    def close(self):
        try:
            os.remove(self.path)
        except OSError:
            pass    # never written, or the folder gone: nothing says the monitor runs
