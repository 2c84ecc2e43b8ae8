"""What the Pi service writes to its SD card per game, and how long a card lasts at that. Prints
figures; asserts nothing.

    .venv/bin/python bench/sd_wear.py [GAMES]          (or: make bench; GAMES 20 by default)

Each case (Dr. Nim and the Nimatron; without telemetry, with a broker that takes every report, and
Dr. Nim with the broker away) runs the service (daemon.Service, the loop of `controller run`, on
gpiozero's mock pins: the simulator's world, on a simulated clock) in a process of its own and plays
GAMES games there with autoplay's novice visitor. After it has started (its statistics and queue
made), and again after the games, with every record written and every report acknowledged:

- the bytes the process wrote (/proc/<pid>/io: write_bytes, the pages it dirtied on the file system;
  wchar, every write call);
- under strace (when installed): the fsync and fdatasync calls (each one a synced write to the card),
  the files created and renamed, by file;
- as root: the state folder is a fresh ext4 file system of its own, on a loop device, mounted as
  Raspberry Pi OS mounts its root (noatime), and the block device's own counters say what reached
  "the card": its write requests and KiB. Without root the card's writes are estimated
  from the synced writes: each commits an ext4 journal transaction (a descriptor block, a metadata
  block or more, a commit block) beside its data, JOURNAL_BLOCKS blocks of 4 KiB at least.

A card's flash is programmed in pages and erased in blocks of MiB: each write request costs at least
a page (PAGE), and a cheap card whose controller rewrites a whole erase block (ERASE_BLOCK) for a
small write to one it had written costs that much. The years to the endurance of a CARD_GB card of
PE_CYCLES erase cycles are given for both, at GAMES_A_DAY games a day, for what the service writes
alone (the system writes its own: journald, apt).

The status file (heartbeat) goes to a folder in RAM, as the service's /run does on a Pi.
"""

import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))

GAMES_A_DAY = 300
CARD_GB = 16
PE_CYCLES = 1000        # a cheap card's TLC flash; better cards (pSLC, "high endurance") many times more
PAGE = 16 * 1024
ERASE_BLOCK = 4 * 1024 * 1024
JOURNAL_BLOCKS = 3
BLOCK = 4096
# ext4's journal commit interval (its commit= mount option; Raspberry Pi OS keeps the default)
COMMIT_MS = 5000
SYNCS = ("fsync", "fdatasync")
TRACED = "fsync,fdatasync,rename,renameat,renameat2,openat,unlink,unlinkat"
MARK = "/sd-wear-mark/"


def mark(name):
    """A line in strace's log where the games begin or end: an open of a path that is never there."""
    try:
        os.close(os.open(MARK + name, os.O_RDONLY))
    except OSError:
        pass


def proc_io():
    fields = dict(line.split(": ") for line in Path("/proc/self/io").read_text().splitlines())
    return int(fields["write_bytes"]), int(fields["wchar"])


def disk(device):
    """(write requests, sectors written) of a block device; zeros without one."""
    if not device:
        return 0, 0
    fields = Path("/sys/block/%s/stat" % device).read_text().split()
    return int(fields[4]), int(fields[6])


def sync_folder(folder):
    """Everything written in `folder`'s file system onto its device (syncfs), the metadata too."""
    subprocess.run(["sync", "-f", folder], check=True)


def child(machine, games, folder, runtime, port, device):
    """Play in this process; one JSON line of figures."""
    from broker_rig import wait_until
    from controller.sim.autoplay import autoplay
    from controller.sim.engine import Simulation
    from controller.telemetry.settings import check_telemetry
    telemetry = None
    away = port == "away"
    if away:
        from broker_rig import free_port
        port = str(free_port())     # a port no broker listens on
    if port:
        telemetry = check_telemetry("bench", {"enabled": True, "host": "127.0.0.1", "port": int(port),
                                              "client_id": "sd-wear-" + machine, "topic_prefix": "bench"})
    sim = Simulation(machine, {}, seed=1, state_dir=folder, runtime_dir=runtime, telemetry=telemetry)
    service = sim.service
    sizes, files = [0], [0]
    real_save = service.store.save

    committed = [0]

    def save(data):
        # ext4 commits its journal every COMMIT_MS when anything changed, here the file's time that each
        # write changes; the games run on a simulated clock, far faster than a visitor plays, so that
        # commit is made here, by the simulated clock, as the kernel's timer would make it in real time
        if sim.now - committed[0] >= COMMIT_MS:
            committed[0] = sim.now
            os.sync()
        real_save(data)
        sizes.append(len(json.dumps(data, sort_keys=True, separators=(",", ":"))))
        files.append(os.path.getsize(service.store.path))
    service.store.save = save
    sim.advance(2000)
    service.stats.flush()
    if telemetry and not away:
        wait_until(lambda: service.telemetry.connected, 10, "the broker connected")
    sync_folder(folder)
    mark("begin")
    io_before, disk_before, saves_before = proc_io(), disk(device), service.writes
    summary = autoplay(sim, games, "novice", seed=1)
    service.stats.flush()
    if telemetry and not away:
        wait_until(lambda: service.telemetry.queued == 0, 20, "every report acknowledged")
    elif telemetry:
        time.sleep(0.5)      # the queue's thread writes the last game
    sync_folder(folder)
    io_after, disk_after = proc_io(), disk(device)
    mark("end")
    figures = {"games": summary["games"], "marbles": summary["marbles released"],
               "saves": service.writes - saves_before, "save_bytes": max(sizes), "file_bytes": max(files),
               "write_bytes": io_after[0] - io_before[0], "wchar": io_after[1] - io_before[1],
               "requests": disk_after[0] - disk_before[0], "sectors": disk_after[1] - disk_before[1],
               "sqlite": sqlite_settings(folder)}
    sim.close()
    print(json.dumps(figures))


def sqlite_settings(folder):
    """Each database's journal mode and synchronous setting, on a connection as the service makes it."""
    import sqlite3
    said = {}
    for name in ("stats.sqlite", "telemetry.sqlite"):
        path = os.path.join(folder, name)
        if os.path.exists(path):
            db = sqlite3.connect(path)
            try:
                mode = db.execute("pragma journal_mode").fetchone()[0]
                synchronous = ("off", "normal", "full", "extra")[db.execute("pragma synchronous").fetchone()[0]]
            finally:
                db.close()
            said[name] = "journal_mode=%s, synchronous=%s" % (mode, synchronous)
    return said


def traced(log, folder):
    """From strace's log, between the marks: each synced, created, renamed and removed file's count."""
    counts = {}
    inside = False
    for line in Path(log).read_text(errors="replace").splitlines():
        if MARK + "begin" in line:
            inside = True
            continue
        if MARK + "end" in line:
            break
        found = re.match(r"\d+\s+(\w+)\((.*)", line)
        if not inside or not found or "resumed>" in line:
            continue
        call, rest = found.groups()
        paths = [os.path.basename(p.rstrip("/")) or p for p in re.findall(r'[<"](%s[^>"]*)[>"]' % re.escape(folder),
                                                                          rest)]
        what = paths[0] if paths else "?"
        if call in SYNCS:
            kind = "synced"
            what = "the state folder" if what == os.path.basename(folder) else what
        elif call == "openat" and "O_CREAT" in rest and paths:
            kind = "created"
        elif call.startswith("rename") and paths:
            kind = "renamed"
        elif call.startswith("unlink") and paths:
            kind = "removed"
        else:
            continue
        what = re.sub(r"\.bad-.*", ".bad-*", what)
        counts.setdefault(kind, {}).setdefault(what, 0)
        counts[kind][what] += 1
    return counts


def loop_file_system(folder):
    """As root: a fresh 64 MiB ext4 on a loop device mounted at `folder` (its inode tables written at
    once, so no lazy initialisation writes during the games); its device's name, or None."""
    if os.geteuid() != 0 or not shutil.which("mkfs.ext4") or not shutil.which("losetup"):
        return None
    image = folder + ".img"
    try:
        with open(image, "wb") as f:
            f.truncate(64 * 1024 * 1024)
        subprocess.run(["mkfs.ext4", "-q", "-E", "lazy_itable_init=0,lazy_journal_init=0", image], check=True,
                       capture_output=True)
        device = subprocess.run(["losetup", "--find", "--show", image], check=True, capture_output=True,
                                text=True).stdout.strip()
        os.remove(image)        # the loop device holds it until it is let go
        subprocess.run(["mount", "-o", "noatime", device, folder], check=True, capture_output=True)
    except (OSError, subprocess.CalledProcessError):
        return None
    return device


def let_go(folder, device):
    subprocess.run(["umount", folder], capture_output=True)
    subprocess.run(["losetup", "--detach", device], capture_output=True)


def case(machine, games, telemetry, broker):
    """Run one case in a child process: its figures, with strace's counts."""
    with tempfile.TemporaryDirectory(prefix="sd-wear-", dir="/var/tmp") as work, \
            tempfile.TemporaryDirectory(prefix="sd-wear-run-", dir="/dev/shm") as runtime:
        folder = os.path.join(work, "state")
        os.mkdir(folder)
        device = loop_file_system(folder)
        port = {"": "", "broker": str(broker.port) if broker else "", "away": "away"}[telemetry]
        log = os.path.join(work, "strace.log")
        command = [sys.executable, __file__, "--child", machine, str(games), folder, runtime, port,
                   os.path.basename(device) if device else ""]
        if shutil.which("strace"):
            command = ["strace", "-f", "-qq", "-y", "-e", "trace=" + TRACED, "-o", log] + command
        try:
            done = subprocess.run(command, capture_output=True, text=True, cwd=ROOT, timeout=600)
        finally:
            if device:
                let_go(folder, device)
        if done.returncode:
            raise SystemExit("%s: the child failed:\n%s" % (machine, done.stderr[-3000:]))
        figures = json.loads(done.stdout.strip().splitlines()[-1])
        figures["device"] = device
        figures["traced"] = traced(log, folder) if os.path.exists(log) else None
        return figures


def per_game(counts, games):
    return ", ".join("%s %.1f" % (name, n / games) for name, n in sorted(counts.items(), key=lambda kv: -kv[1]))


def report(label, figures):
    games = figures["games"]
    print("%s: %d games, %d marbles" % (label, games, figures["marbles"]))
    print("  saves written: %.1f a game; the game's JSON: %d bytes, game.json: %d bytes"
          % (figures["saves"] / games, figures["save_bytes"], figures["file_bytes"]))
    print("  written by the process: %.1f KiB a game (write_bytes), %.1f KiB in write calls (wchar)"
          % (figures["write_bytes"] / 1024 / games, figures["wchar"] / 1024 / games))
    print("  SQLite: %s" % ("; ".join("%s %s" % item for item in sorted(figures["sqlite"].items())) or "none"))
    syncs = None
    if figures["traced"] is not None:
        traced_counts = figures["traced"]
        syncs = sum(traced_counts.get("synced", {}).values())
        for kind in ("synced", "created", "renamed", "removed"):
            if traced_counts.get(kind):
                print("  %s a game: %.1f (%s)" % (kind, sum(traced_counts[kind].values()) / games,
                                                 per_game(traced_counts[kind], games)))
    if figures["device"]:
        requests, written = figures["requests"], figures["sectors"] * 512
        how = "measured on an ext4 of its own (%s)" % figures["device"]
    elif syncs is not None:
        requests = syncs
        written = figures["write_bytes"] + syncs * JOURNAL_BLOCKS * BLOCK
        how = "estimated: the bytes written, and %d blocks of ext4's journal a synced write" % JOURNAL_BLOCKS
    else:
        print("  the card's writes: not measured (run as root, or install strace)")
        return
    print("  the card, %s: %.1f write requests (a sync's cache flush counted as one), %.1f KiB a game"
          % (how, requests / games, written / 1024 / games))
    endurance = CARD_GB * 1e9 * PE_CYCLES
    paged = max(written, requests * PAGE) / games * GAMES_A_DAY * 365
    erased = requests * ERASE_BLOCK / games * GAMES_A_DAY * 365
    print("  a %d GB card of %d cycles at %d games a day: %.0f years writing %d KiB pages, %.1f years "
          "rewriting a %d MiB erase block a request" % (CARD_GB, PE_CYCLES, GAMES_A_DAY, endurance / paged,
                                                       PAGE // 1024, endurance / erased, ERASE_BLOCK >> 20))


def main(games):
    from broker_rig import Broker, find_mosquitto
    with tempfile.TemporaryDirectory(prefix="sd-wear-broker-") as broker_folder:
        broker = Broker(Path(broker_folder)) if find_mosquitto() else None
        try:
            cases = [("drnim", ""), ("nimatron", ""), ("drnim", "broker"), ("nimatron", "broker"), ("drnim", "away")]
            for machine, telemetry in cases:
                if telemetry == "broker" and broker is None:
                    print("%s with telemetry: mosquitto is missing (apt-get install mosquitto)" % machine)
                    continue
                label = {"": "%s, no telemetry", "broker": "%s, telemetry, the broker up",
                         "away": "%s, telemetry, the broker away"}[telemetry] % machine
                report(label, case(machine, games, telemetry, broker))
        finally:
            if broker:
                broker.stop()


if __name__ == "__main__":
    if sys.argv[1:2] == ["--child"]:
        child(sys.argv[2], int(sys.argv[3]), sys.argv[4], sys.argv[5], sys.argv[6], sys.argv[7])
    else:
        main(int(sys.argv[1]) if len(sys.argv) > 1 else 20)
