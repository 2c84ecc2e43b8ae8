"""The lock of an exhibit's folder: one controller at a time runs an exhibit, the Pi's service
(daemon.py) or the monitor of a board (boards.py), whichever started first.

Two on one folder would overwrite each other's saved game and statistics and send each other's
games to the broker. The lock file says who holds it ("PID service", "PID monitor PORT"), so that
the one refused is told what to stop, or what to name in [boards]; a file an older version wrote
holds the pid alone, read as the service's. A card gone read-only (a failing SD card) is not
refused: the lock is taken through the file, or the folder, for reading, and whoever holds it plays
on unsaved.
"""

import errno
import os

# The lock file in an exhibit's folder: the service's name for it, from before boards had exhibits.
LOCK = "service.lock"
SERVICE = "service"
MONITOR = "monitor"


class Held(Exception):
    """Another controller runs the exhibit: its `pid` ("?" when it could not write it) and, for a
    board's monitor, its `port` (None for the Pi's service)."""

    def __init__(self, pid, port):
        Exception.__init__(self, pid, port)
        self.pid = pid
        self.port = port

    def who(self):
        """The holder in a few words, for the line that refuses the second one."""
        if self.port is None:
            return "the Pi's service (pid %s)" % self.pid
        return "the monitor of the board on %s (pid %s)" % (self.port, self.pid)


def take(folder, port=None):
    """Hold the lock of `folder` for the service (`port` None) or the monitor of the board on `port`,
    as long as this process runs (the system lets it go when the process ends, however it ends).
    Returns (the lock, None), or (the lock, the OSError that says why the folder cannot be written).
    Raises Held when another controller holds it, OSError when the folder cannot be made or opened,
    and ImportError where the computer has no fcntl (Windows)."""
    import fcntl     # here, not at the top: the simulator and a laptop's monitor may run on Windows
    path = os.path.join(folder, LOCK)
    unwritable = None
    try:
        os.makedirs(folder, exist_ok=True)
        lock = open(path, "a+", encoding="utf-8")
    except OSError as error:
        lock = read_only_lock(folder, path) if error.errno == errno.EROFS else None
        if lock is None:
            raise
        unwritable = error
    try:
        fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        lock.close()
        raise holder(path)
    if unwritable is None:
        try:
            # unbuffered: on a full card a buffered write would fail again when the lock is closed
            os.ftruncate(lock.fileno(), 0)
            os.write(lock.fileno(), ("%d %s\n" % (os.getpid(), SERVICE if port is None else MONITOR + " " + port))
                     .encode("utf-8", "replace"))
        except OSError as error:
            unwritable = error      # the lock holds all the same; another is told "pid ?"
    return lock, unwritable


def holder(path):
    """Who holds the lock, as its file `path` says: Held, with pid "?" where nothing could be written."""
    try:
        with open(path, encoding="utf-8", errors="replace") as f:
            said = f.read().strip().split(" ", 2)
    except OSError:
        said = []
    pid = said[0] if said and said[0] else "?"
    return Held(pid, said[2] if len(said) == 3 and said[1] == MONITOR else None)


def read_only_lock(folder, path):
    """The lock of a read-only folder, where no lock file can be made: its lock file opened for
    reading (a lock taken through a read-only file excludes all the same), or, when it has none
    (the card made read-only before anything ran there), the folder itself; None when the folder
    is not there either."""
    try:
        return open(path, "r", encoding="utf-8")
    except OSError:
        pass
    try:
        return FolderLock(folder)
    except OSError:
        return None


class FolderLock:
    """A lock taken on the folder itself: fcntl.flock locks a folder opened for reading."""

    def __init__(self, folder):
        self.fd = os.open(folder, os.O_RDONLY)

    def fileno(self):
        return self.fd

    def close(self):
        os.close(self.fd)

    def __enter__(self):
        return self

    def __exit__(self, *exception):
        self.close()
