"""The saved game, crash-safe.

Written after every change worth keeping by `replace_file`: write, fsync, an atomic
rename (then an fsync of the folder, so the rename itself survives a power
cut): a reader finds either the old file or the new one, never half of one.

Reading changes nothing (`read`); only the service, at start, sets a damaged
file aside (`set_aside`), under a time-stamped name, for a look later.
"""

import json
import os
import time

# Windows, where the simulator runs the service on a laptop, has no O_NOFOLLOW (there the O_EXCL
# alone makes the file new), and without O_BINARY would write each "\n" as "\r\n".
NOT_FOLLOWED = getattr(os, "O_NOFOLLOW", 0)
BYTES_AS_THEY_ARE = getattr(os, "O_BINARY", 0)


def untaken(prefix, when, suffix=""):
    """`prefix` + YYYYmmdd-HHMMSS (`when`, local time) + `suffix`, with -2, -3...
    before the suffix when that name is taken: a time-stamped name no file has."""
    stamp = time.strftime("%Y%m%d-%H%M%S", time.localtime(when))
    path = prefix + stamp + suffix
    number = 1
    while os.path.exists(path):
        number += 1
        path = "%s%s-%d%s" % (prefix, stamp, number, suffix)
    return path


def replace_file(path, payload, mode=0o600, before=None, durable=True):
    """Replace the file at `path` by `payload` (bytes) with write, fsync and an
    atomic rename, then an fsync of the folder: after a power cut, the old file
    or the new one, never half of one. `before(temporary)` is called on the new
    file, written, before the rename: when it raises, the new file is removed
    and `path` is left as it was. A symbolic link planted at `path`.new is
    removed, not written through. `durable=False` leaves out the fsyncs, for
    a file rewritten every few seconds that a power cut may lose (the
    heartbeat). OSError is the caller's."""
    temporary = path + ".new"
    try:
        # whatever is at the temporary name goes first (a link there is removed, never followed),
        # then the file is made new and only then written: its target is never someone else's file
        if os.path.lexists(temporary):
            os.remove(temporary)
        fd = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL | NOT_FOLLOWED | BYTES_AS_THEY_ARE, mode)
        try:
            if hasattr(os, "fchmod"):       # Windows has none: the simulator's saves there keep its default
                os.fchmod(fd, mode)
            written = 0
            while written < len(payload):
                written += os.write(fd, payload[written:])
            if durable:
                os.fsync(fd)
        finally:
            os.close(fd)
        if before is not None:
            before(temporary)
        os.replace(temporary, path)
    finally:
        if os.path.lexists(temporary):
            os.remove(temporary)
    if not durable:
        return
    try:
        folder = os.open(os.path.dirname(os.path.abspath(path)), os.O_RDONLY)
    except PermissionError:     # Windows opens no folder to sync (the simulator's there): the file is replaced
        return
    try:
        os.fsync(folder)
    finally:
        os.close(folder)


class StateStore:
    def __init__(self, folder, name="game.json"):
        self.folder = folder
        self.path = os.path.join(folder, name)

    def save(self, data):
        """Write `data` safely; OSError (a full card, a read-only folder) is the caller's."""
        os.makedirs(self.folder, exist_ok=True)
        replace_file(self.path, json.dumps(data, sort_keys=True).encode())

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
        target = untaken(self.path + ".bad-", clock())
        try:
            os.replace(self.path, target)
        except OSError:
            return None
        return target
