"""The saved game, crash-safe.

Written after every change worth keeping with write, fsync and an atomic
rename (then an fsync of the folder, so the rename itself survives a power
cut): a reader finds either the old file or the new one, never half of one.

Reading changes nothing (`read`); only the service, at start, sets a damaged
file aside (`set_aside`), under a time-stamped name, for a look later.
"""

import json
import os
import time


class StateStore:
    def __init__(self, folder, name="game.json"):
        self.folder = folder
        self.path = os.path.join(folder, name)

    def save(self, data):
        """Write `data` safely; OSError (a full card, a read-only folder) is the caller's."""
        os.makedirs(self.folder, exist_ok=True)
        temporary = self.path + ".new"
        payload = json.dumps(data, sort_keys=True).encode()
        fd = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        try:
            written = 0
            while written < len(payload):
                written += os.write(fd, payload[written:])
            os.fsync(fd)
        finally:
            os.close(fd)
        os.replace(temporary, self.path)
        folder = os.open(self.folder, os.O_RDONLY)
        try:
            os.fsync(folder)
        finally:
            os.close(folder)

    def read(self):
        """(data, None); (None, None) when there is no saved game; (None, problem)
        when there is one that cannot be read as JSON. Changes nothing."""
        try:
            with open(self.path, "rb") as f:
                raw = f.read()
        except FileNotFoundError:
            return None, None
        except OSError as error:
            return None, "cannot read it (%s)" % (error.strerror or error)
        try:
            return json.loads(raw.decode("utf-8")), None
        except UnicodeDecodeError:
            return None, "not UTF-8 text"
        except ValueError as error:
            return None, "not JSON (%s)" % " ".join(str(error).split())
        except RecursionError:
            return None, "not JSON that can be read (nested too deeply)"

    def set_aside(self, clock=time.time):
        """Rename the saved game to game.json.bad-YYYYmmdd-HHMMSS (and -2, -3...
        if taken); returns the new path, or None when even that failed."""
        stamp = time.strftime("%Y%m%d-%H%M%S", time.localtime(clock()))
        target = "%s.bad-%s" % (self.path, stamp)
        number = 1
        while os.path.exists(target):
            number += 1
            target = "%s.bad-%s-%d" % (self.path, stamp, number)
        try:
            os.replace(self.path, target)
        except OSError:
            return None
        return target
