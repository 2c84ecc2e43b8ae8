"""The saved game, crash-safe, at one synced write of one block a save.

An SD card wears by its writes, and most by small synced ones: a new file written, synced, renamed
over the old one and its folder synced cost ext4 two journal commits a save, some five write
requests and 19 KiB (bench/sd_wear.py), 35 saves a game of Dr. Nim. So game.json holds two copies
of the game, each in a slot of its own, whole blocks of SLOT bytes: a save overwrites the slot that
does not hold the newest copy, and syncs its data (fdatasync: the file's size and blocks do not
change, so ext4 commits no journal for it). Each copy carries its number and a digest of its game:
a power cut in the middle of a write leaves that slot damaged or as it was, and the other slot whole,
so a reader finds the newest whole copy, the game as last saved or the save before, never half of one.

A file is made anew (`replace_file`: write, fsync, an atomic rename, an fsync of the folder) only
when there is none, when a game outgrows its slots, or when the file is not what this module wrote:
a game.json of an older version (one game as JSON), which is read as it is.

Reading changes nothing (`read`); only the service, at start, sets a damaged
file aside (`set_aside`), under a time-stamped name, for a look later.
"""

import hashlib
import json
import os
import re
import time

# Windows, where the simulator runs the service on a laptop, has no O_NOFOLLOW (there the O_EXCL
# alone makes the file new), and without O_BINARY would write each "\n" as "\r\n".
NOT_FOLLOWED = getattr(os, "O_NOFOLLOW", 0)
BYTES_AS_THEY_ARE = getattr(os, "O_BINARY", 0)
# A slot's size, or the multiple of it a larger game takes: a block of ext4 (and of the card's FAT).
SLOT = 4096
# A copy in its slot: its number, the digest of its game's JSON, the game; then spaces to the slot's end.
COPY = re.compile(rb'\{"saved":(\d+),"sum":"([0-9a-f]{16})","game":(.*)\}\s*\Z', re.S)


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


def digest(game):
    return hashlib.sha256(game).hexdigest()[:16].encode()


def copy_bytes(data, number, size=None):
    """The game `data` as copy `number`, padded to `size` bytes (None: the fewest whole SLOTs it fits)."""
    game = json.dumps(data, sort_keys=True, separators=(",", ":")).encode()
    text = b'{"saved":%d,"sum":"%s","game":%s}\n' % (number, digest(game), game)
    if size is None:
        size = -(-len(text) // SLOT) * SLOT
    return text + b" " * (size - len(text)) if len(text) <= size else None


def whole_copy(raw):
    """(the copy's number, its game) of one slot's bytes; None when the slot is damaged or empty."""
    found = COPY.match(raw)
    if found is None or digest(found.group(3)) != found.group(2):
        return None
    try:
        return int(found.group(1)), json.loads(found.group(3).decode("utf-8"))
    except ValueError:
        return None


def sync_data(fd):
    """The file's data onto the card (fdatasync where there is one: macOS and Windows have fsync only)."""
    getattr(os, "fdatasync", os.fsync)(fd)


class StateStore:
    def __init__(self, folder, name="game.json"):
        self.folder = folder
        self.path = os.path.join(folder, name)
        self.newest = None      # (its slot, its number, the slot's size) of the file as last read or written

    def save(self, data):
        """Write `data` safely; OSError (a full card, a read-only folder) is the caller's."""
        if self.newest is None:
            self.read()
        if self.newest is not None:
            slot, number, size = self.newest
            payload = copy_bytes(data, number + 1, size)
            if payload is not None and self.overwrite(1 - slot, size, payload):
                self.newest = (1 - slot, number + 1, size)
                return
        os.makedirs(self.folder, exist_ok=True)
        payload = copy_bytes(data, 1)
        replace_file(self.path, payload + b" " * len(payload))
        self.newest = (0, 1, len(payload))

    def overwrite(self, slot, size, payload):
        """Write `payload` into `slot` of the file in place, and sync it; False when the file is not
        the one last read or written (gone, a link, another size): it is then made anew."""
        try:
            fd = os.open(self.path, os.O_WRONLY | NOT_FOLLOWED | BYTES_AS_THEY_ARE)
        except OSError:
            return False
        try:
            if os.fstat(fd).st_size != 2 * size:
                return False
            os.lseek(fd, slot * size, os.SEEK_SET)
            written = 0
            while written < len(payload):
                written += os.write(fd, payload[written:])
            sync_data(fd)
        finally:
            os.close(fd)
        return True

    def read(self):
        """(data, None); (None, None) when there is no saved game; (None, problem)
        when there is one that cannot be read. Changes nothing."""
        self.newest = None
        try:
            with open(self.path, "rb") as f:
                raw = f.read()
        except FileNotFoundError:
            return None, None
        except OSError as error:
            return None, "cannot read it (%s)" % (error.strerror or error)
        size = len(raw) // 2
        if raw.startswith(b'{"saved":') or size and raw[size:].startswith(b'{"saved":'):    # either may be damaged
            copies = [(copy, slot) for slot, copy in enumerate(whole_copy(raw[slot * size:(slot + 1) * size])
                                                               for slot in (0, 1)) if copy is not None]
            if len(raw) % (2 * SLOT) or not copies:
                return None, "neither of its two copies is whole"
            (number, data), slot = max(copies, key=lambda found: found[0][0])
            self.newest = (slot, number, size)
            return data, None
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
        self.newest = None
        target = untaken(self.path + ".bad-", clock())
        try:
            os.replace(self.path, target)
        except OSError:
            return None
        return target
