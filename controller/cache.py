"""The user's cache folder ($XDG_CACHE_HOME/drnim-controller, else ~/.cache/drnim-controller),
where the commands keep what they fetched or made once for the next run: the page's npm packages
(web/), mpy-cross's output (mpy/), rp2040js and the emulated Pico's flash (pico/, pico-flash/),
the assembly's renders (assembly/); the lock that two runs sharing a file there take, and the
way each writes a file there whole, for the other to read."""

import errno
import os
import tempfile
from contextlib import contextmanager
from pathlib import Path


def cache_folder(*names):
    """The cache folder, or the folder `names` inside it (not made here)."""
    home = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(home, "drnim-controller", *names)


@contextmanager
def locked(path):
    """Held by this process alone (the lock file `path` locked) until the block ends: two runs
    that share a folder make each thing in it once, one waiting for the other."""
    with open(path, "ab") as lock:
        release = take(lock)
        try:
            yield
        finally:
            release()


def take(lock, wait=True):
    """Lock the open file `lock`, waiting for as long as another run holds it (`wait` False: None at
    once while another holds it); returns what lets it go. fcntl's lock on Linux and macOS, msvcrt's
    on Windows, which has no fcntl: imported here, so that every command that takes no lock runs on a
    computer without one."""
    try:
        import fcntl
    except ImportError:
        import msvcrt
        lock.seek(0)
        while True:
            try:
                msvcrt.locking(lock.fileno(), msvcrt.LK_LOCK if wait else msvcrt.LK_NBLCK, 1)
                break
            except OSError as error:        # LK_LOCK gives up after 10 s; a render takes minutes
                if not wait and error.errno in (errno.EACCES, errno.EDEADLOCK):
                    return None
                if error.errno != errno.EDEADLOCK:
                    raise
        return lambda: msvcrt.locking(lock.fileno(), msvcrt.LK_UNLCK, 1)
    try:
        fcntl.flock(lock, fcntl.LOCK_EX if wait else fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        return None
    return lambda: fcntl.flock(lock, fcntl.LOCK_UN)


def keep(path, data):
    """`data` (bytes) into the file `path`, whole: written beside it under a name of its own, then
    renamed over it, so that a run reading it beside this one reads the old file or the new.
    Windows renames nothing over a file another run holds open (PermissionError): the file there
    is left as it is, and the command goes on. A file here is named after what it holds, so the
    one being read holds these bytes too; at worst the next run makes it again."""
    Path(path).parent.mkdir(parents=True, exist_ok=True)
    with tempfile.NamedTemporaryFile(dir=Path(path).parent, delete=False) as written:
        written.write(data)
    try:
        os.replace(written.name, path)
    except PermissionError:
        os.unlink(written.name)
