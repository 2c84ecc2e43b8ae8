"""`controller backup FILE`: what makes a new SD card the same exhibit, in one archive, taken while the
service plays (docs/troubleshooting.md, "A new SD card").

The archive is a tar.gz of files named by their paths from / (etc/drnim-controller/config.toml), with
their owners' names and their modes, so that `sudo tar -xzf FILE -C /` on a new card puts each back where
it was, owned by that card's drnim whatever number its user got there. It holds:

- the configuration's folder, whole: config.toml (calibrate's figures are in it), the pin maps edited
  there, the telemetry password file kept there;
- the files the configuration names elsewhere: its pin map, the telemetry password and CA files;
- the museum's drop-ins for the units (`systemctl edit`: a state folder elsewhere, a broker on the
  Internet), but install.sh's own telemetry.conf, which it writes again from [telemetry];
- the state folder: the statistics and the telemetry queue (the Pi's own, and each watched board's in
  boards/<name>/) copied by SQLite's online backup, whole even while the service writes them (a file copied in the middle of a write is damaged, and the
  service would set it aside and count from nothing), and the files set aside there (a former venue's
  statistics, damaged ones, selftest reports) as they are.

Left out: the saved game, which belongs to where the marbles were at that moment (a new card starts a
new game), the service's lock and the databases' journals (the copies need none).
"""

import os
import sqlite3
import stat
import tarfile
import tempfile
import tomllib
from urllib.parse import quote


# Where systemctl edit puts the museum's drop-ins for the units install.sh installs.
SYSTEMD_DIR = "/etc/systemd/system"
UNITS = ("drnim-controller.service", "drnim-mqtt.service")
INSTALLS_OWN = "telemetry.conf"
# What the service writes as it plays, copied by SQLite; each with what its copy holds, for the summary.
DATABASES = {"stats.sqlite": ("select count(*) from games", "%d games"),
             "telemetry.sqlite": ("select count(*) from outbox", "%d games and faults waiting to be sent")}
LEFT_OUT = {"game.json": "the game in progress: the new card starts a new game (every marble back on the rail, "
                         "New game)",
            "game.json.new": None, "service.lock": None, "stats.sqlite-journal": None,
            "telemetry.sqlite-journal": None}
# Pages copied at a time: the service's writer waits for the copy at most this long (1 MiB of 4 KiB pages).
PAGES_AT_A_TIME = 256


class BackupError(RuntimeError):
    """A backup that cannot be made; the message names the file and why. Nothing is written then."""


def files_of(folder):
    """Every regular file under `folder`, and the folders themselves, in order (symbolic links left out)."""
    found = [folder]
    for root, folders, files in os.walk(folder):
        folders.sort()
        found += [os.path.join(root, name) for name in folders]
        found += [os.path.join(root, name) for name in sorted(files)
                  if stat.S_ISREG(os.lstat(os.path.join(root, name)).st_mode)]
    return found


def what_to_keep(config, systemd_dir):
    """(paths to keep, {path left out: why}) for the exhibit whose configuration is `config`."""
    kept = files_of(os.path.dirname(os.path.abspath(config.path)))
    named = [config.service["pinmap"], config.telemetry["password_file"], config.telemetry["ca_file"]]
    kept += [os.path.abspath(path) for path in named if path and os.path.abspath(path) not in kept]
    for unit in UNITS:
        dropins = os.path.join(systemd_dir, unit + ".d")
        if os.path.isdir(dropins):
            kept += [path for path in files_of(dropins)[1:] if os.path.basename(path) != INSTALLS_OWN]
    left_out = {}
    state = os.path.abspath(config.state_dir())
    if os.path.isdir(state):
        if not os.access(state, os.R_OK | os.X_OK):
            raise BackupError("this user may not read the service's folder %s: run it with sudo" % state)
        for path in files_of(state):
            name = os.path.basename(path)
            if name in LEFT_OUT or name.endswith(".new"):
                if LEFT_OUT.get(name):
                    left_out[path] = LEFT_OUT[name]
            else:
                kept.append(path)
    return kept, left_out


def copy_database(path, copy):
    """The database at `path` copied whole into `copy` by SQLite's online backup, which waits out the
    service's writes (and starts again after one); what the copy holds, said, or None when it is not
    readable as a database (then the caller keeps its bytes as they are)."""
    query, said = DATABASES[os.path.basename(path)]
    try:
        # mode=rw: never made where missing, and a write a power cut left half done rolled back first
        source = sqlite3.connect("file:%s?mode=rw" % quote(path), uri=True, timeout=10)
        try:
            target = sqlite3.connect(copy)
            try:
                source.backup(target, pages=PAGES_AT_A_TIME, sleep=0.05)
                return said % target.execute(query).fetchone()[0]
            finally:
                target.close()
        finally:
            source.close()
    except sqlite3.DatabaseError:
        return None


def entry(archive, path, data=None):
    """The tar entry of `path`: its owner, group and mode as they are on this card; its content `data`
    (a file's path) or its own."""
    info = archive.gettarinfo(path, arcname=path.lstrip("/"))
    if data is not None:
        info.size = os.path.getsize(data)
    if info.isdir():
        archive.addfile(info)
        return
    with open(data or path, "rb") as f:
        archive.addfile(info, f)


def write_backup(config, stream, out):
    """Write the exhibit's archive into the binary `stream`, saying in `out` what it keeps and leaves out."""
    kept, left_out = what_to_keep(config, SYSTEMD_DIR)
    said = []
    with tempfile.TemporaryDirectory(prefix="drnim-backup-") as scratch, \
            tarfile.open(fileobj=stream, mode="w|gz") as archive:
        for path in kept:
            copy, note = None, ""
            if os.path.basename(path) in DATABASES and path.startswith(os.path.abspath(config.state_dir()) + os.sep):
                copy = os.path.join(scratch, os.path.basename(path))
                note = copy_database(path, copy)
                if note is None:
                    copy, note = None, "not readable as a database: kept as it is, which the service sets aside"
            try:
                entry(archive, path, copy)
            except OSError as error:
                raise BackupError("cannot read %s (%s)%s" % (path, error.strerror or error, "" if os.geteuid() == 0
                                                               else ": run it with sudo"))
            if not os.path.isdir(path):
                said.append("  %s%s\n" % (path, " (%s)" % note if note else ""))
    out.write("Kept:\n" + "".join(said))
    for path, why in left_out.items():
        out.write("Left out: %s, %s.\n" % (path, why))
    if config.telemetry["enabled"]:
        out.write("Telemetry reports as %r, %s.\n" % (config.telemetry["client_id"], "its client_id" if given_client_id(
            config.path) else "this computer's host name (client_id is empty): give the new card the same host name"))


def given_client_id(path):
    """Whether the configuration at `path` names its client_id (else the exhibit goes by its host name)."""
    with open(path, "rb") as f:
        return bool(tomllib.load(f).get("telemetry", {}).get("client_id"))


def backup(config, target, out, binary_stdout=None):
    """`controller backup`: the archive written to `target`, whole or not at all (a former one there is
    replaced only by a complete one), readable by its owner alone (it holds the broker's password);
    "-" writes it to `binary_stdout`, and what it keeps to `out`."""
    if target == "-":
        write_backup(config, binary_stdout, out)
        return
    folder = os.path.dirname(os.path.abspath(target))
    for kept in (os.path.dirname(os.path.abspath(config.path)), os.path.abspath(config.state_dir())):
        if os.path.commonpath([folder, kept]) == kept:
            raise BackupError("%s is in %s, which the archive keeps: put it elsewhere, off this card" % (target, kept))
    if os.path.isdir(target):
        raise BackupError("%s is a folder: give the archive's file name, such as %s"
                          % (target, os.path.join(target, "drnim-backup.tar.gz")))
    try:
        fd, partial = tempfile.mkstemp(prefix=os.path.basename(target) + ".", suffix=".part", dir=folder)
    except OSError as error:
        raise BackupError("cannot write %s (%s)" % (target, error.strerror or error))
    try:
        with os.fdopen(fd, "wb") as stream:
            write_backup(config, stream, out)
            stream.flush()
            os.fsync(stream.fileno())
        os.replace(partial, target)
    finally:
        if os.path.exists(partial):
            os.remove(partial)
    out.write("Wrote %s. On a new card: docs/troubleshooting.md, \"A new SD card\".\n" % target)
    if on_the_same_card(folder, config.state_dir()):
        out.write("It is on the same card as the statistics: copy it off, a card that dies takes it too.\n")


def on_the_same_card(folder, state):
    """Whether `folder` is on the file system that holds the state folder (a USB stick is not)."""
    try:
        return os.stat(folder).st_dev == os.stat(state).st_dev
    except OSError:
        return False
