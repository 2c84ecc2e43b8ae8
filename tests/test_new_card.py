"""A museum whose exhibit's SD card died after two years, and which keeps a spare ready since:
`controller backup` while the service plays, and docs/troubleshooting.md's "A new SD card" run as it is
written (but for sudo, and the Pi's folders under a temporary one): the card dies, its archive is
restored onto a new card, and that card is the same exhibit: `config check` passes, `controller stats`
counts the old games, and telemetry goes on under the same name with the games that were waiting."""

import io
import os
import pwd
import re
import shlex
import shutil
import sqlite3
import subprocess
import tarfile
import threading

import pytest

from broker_rig import Broker, free_port, wait_until
from conftest import ROOT
from controller.cli import main
from controller.service.config import ConfigError, load_config
from controller.service.stats import Statistics
from controller.telemetry.publisher import Telemetry
from test_fleet import follow, waiting
from test_install import REAL_CONTROLLER, install, pi, stub  # noqa: F401 (pi: its temporary root, a fixture)

ON_THE_PI = "/opt/drnim-controller/venv/bin/controller"
STATUS = {"mode": "play", "turn": "player", "winner": None, "fault": None, "attract": False, "service_faults": [],
          "rail": 15, "loaded": 15}


def blocks():
    """The ```sh blocks of docs/troubleshooting.md's "A new SD card", each as its lines."""
    text = (ROOT / "docs" / "troubleshooting.md").read_text().split("\n## A new SD card\n")[1].split("\n## ")[0]
    return [block.splitlines() for block in re.findall(r"^```sh\n(.*?)^```$", text, re.M | re.S)]


def doc_line(beginning, block_with=""):
    """The one line that begins so, of the section's blocks that have a line beginning with `block_with`."""
    found = [line for block in blocks() if any(other.startswith(block_with) for other in block)
             for line in block if line.startswith(beginning)]
    assert len(found) == 1, (beginning, found)
    return found[0]


class Card:
    """A Pi's SD card under `root`: the folders install.sh and the unit make, and the exhibit's files."""

    def __init__(self, root, usb=None):
        self.root = root
        self.usb = usb or root.parent / "usb"
        self.config_dir = root / "etc" / "drnim-controller"
        self.state = root / "var" / "lib" / "drnim-controller"
        self.config = self.config_dir / "config.toml"

    def here(self, line):
        """A line of the guide as it runs here: without sudo, the Pi's folders this card's, the USB stick
        at `usb`, and the controller given this card's configuration."""
        for there, here in (("/etc/drnim-controller", self.config_dir), ("/var/lib/drnim-controller", self.state),
                            ("/mnt/", "%s/" % self.usb)):
            line = line.replace(there, str(here))
        words = shlex.split(line.replace(ON_THE_PI, "controller"))
        while words[0] == "sudo":
            words = words[3:] if words[1] == "-u" else words[1:]
        return words

    def run(self, line):
        """(exit status, what it printed) of a line of the guide: the controller's in-process, its output cut
        as a `| head -n N` after it cuts it."""
        line, _, pipe = line.partition(" | ")
        kept = int(pipe.split("head -n ")[1]) if pipe else None
        words = self.here(line)
        if words[0] != "controller":
            done = subprocess.run(words, capture_output=True, text=True, timeout=60)
            return done.returncode, done.stdout + done.stderr
        if "--config" not in words and words[1] != "config":
            words += ["--config", str(self.config)]
        out = io.StringIO()
        return main(words[1:], out=out), "".join(out.getvalue().splitlines(True)[:kept])


def installed(root, port=0):
    """A card as install.sh leaves it, with the museum's settings: the Dr. Nim calibrated, its pin map
    rewired, telemetry on as hall-1-drnim with a password."""
    card = Card(root)
    (card.config_dir / "pinmaps").mkdir(parents=True)
    card.state.mkdir(parents=True)
    card.state.chmod(0o750)
    pinmap = (ROOT / "hardware" / "drnim" / "pinmap.toml").read_text()
    (card.config_dir / "pinmaps" / "drnim.toml").write_text(pinmap + "# the museum's: the sensor moved\n")
    password = card.config_dir / "mqtt-password"
    password.write_text("exhibit secret\n")
    password.chmod(0o640)
    card.config.write_text(
        '[service]\npin_factory = "mock"\nstate_dir = "%s"\nruntime_dir = "%s"\n'
        '[drnim]\nrelease_timeout_ms = 1850    # calibrate\npace_ms = 1000\n'
        '[telemetry]\nenabled = true\nhost = "127.0.0.1"\nport = %d\nclient_id = "hall-1-drnim"\n'
        'username = "exhibit"\npassword_file = "%s"\n' % (card.state, root / "run", port or free_port(), password))
    return card


def test_a_new_card_restored_from_an_archive_made_while_it_played_is_the_same_exhibit(tmp_path):
    """The museum's story: the archive is made while the service writes its statistics and its telemetry
    queue, then the card dies; a new card, installed and tried (a game of its own), is restored from the
    archive with the guide's lines."""
    (tmp_path / "usb").mkdir()
    card = installed(tmp_path / "card")
    settings = load_config(str(card.config)).telemetry
    log = []
    statistics = Statistics(str(card.state / "stats.sqlite"))
    telemetry = Telemetry(settings, "drnim", str(card.state), log.append)       # its broker is away today
    try:
        for winner in ("machine", "player", "machine"):
            statistics.game("drnim", winner, 70)
            telemetry.game(winner, 7, 70, {})
        statistics.flush()
        wait_until(lambda: telemetry.queued == 3, what="the games queued for the broker")
        (card.state / "game.json").write_text("{}")
        status, said = card.run(doc_line("sudo /opt/drnim-controller/venv/bin/controller backup /mnt/"))
    finally:
        telemetry.close()
        statistics.close()
    assert status == 0, said
    assert "stats.sqlite (3 games)" in said and "telemetry.sqlite (3 games and faults waiting to be sent)" in said
    assert "Left out: %s, the game in progress" % (card.state / "game.json") in said
    assert "Telemetry reports as 'hall-1-drnim', its client_id." in said
    before = {path: path.read_bytes() for path in card.config_dir.rglob("*") if path.is_file()}
    shutil.rmtree(card.root)                                                    # the card dies

    card = Card(card.root)
    card.config_dir.mkdir(parents=True)
    card.state.mkdir(parents=True)
    (card.state / "game.json").write_text("{}")                                 # the new card's trial
    Statistics(str(card.state / "stats.sqlite")).close()
    for beginning in ("sudo find /var/lib/drnim-controller", "sudo tar -xzf"):
        status, said = card.run(doc_line(beginning, block_with="sudo tar -xzf"))
        assert status == 0, said
    assert {path: path.read_bytes() for path in before} == before
    assert (card.config_dir / "mqtt-password").stat().st_mode & 0o777 == 0o640
    assert not (card.state / "game.json").exists()
    status, said = card.run(doc_line("sudo -u drnim /opt/drnim-controller/venv/bin/controller config check"))
    assert status == 0 and ": good: drnim" in said, said
    status, said = card.run(doc_line("sudo -u drnim /opt/drnim-controller/venv/bin/controller stats"))
    assert status == 0 and "Games: 3 (visitors won 1, the machine 2)" in said, said

    (tmp_path / "broker").mkdir()
    broker = Broker(tmp_path / "broker")
    config = card.config.read_text()
    card.config.write_text(re.sub(r"port = \d+", "port = %d" % broker.port, config))
    follower, fleet, _ = follow(broker, "nim-museum", tmp_path)
    del log[:]
    again = Telemetry(load_config(str(card.config)).telemetry, "drnim", str(card.state), log.append)
    try:
        again.status(dict(STATUS))
        waiting(follower, lambda: "hall-1-drnim" in fleet.exhibits and fleet.games == 3, 10,
                "the restored card's status and the games it had queued")
    finally:
        again.close()
        follower.stop()
        broker.stop()
    assert list(fleet.exhibits) == ["hall-1-drnim"]
    assert any(line.endswith("as hall-1-drnim: sending the 3 queued") for line in log), log
    assert not [line for line in log if "was kept as" in line], log


def test_an_archive_made_in_the_middle_of_a_write_holds_the_statistics_whole(tmp_path):
    """A copy of stats.sqlite made while a write is half done on the card (SQLite has written some of
    its pages, not all) is damaged, and the service would set it aside and count from nothing: the
    archive waits for the write and holds every game, whole."""
    card = installed(tmp_path / "card")
    writer = sqlite3.connect(card.state / "stats.sqlite", check_same_thread=False, isolation_level=None)
    writer.execute("create table games (ended real not null, machine text not null, winner text not null, "
                   "duration_s integer)")
    writer.execute("begin")
    writer.executemany("insert into games values (?, 'drnim', 'player', 60)", [(n,) for n in range(20000)])
    writer.execute("commit")
    writer.execute("pragma cache_size = 5")
    writer.execute("begin")
    writer.execute("update games set winner = 'machine' where rowid % 3 = 0")   # pages spilled to the file
    writer.execute("delete from games where rowid % 7 = 0")
    assert (card.state / "stats.sqlite-journal").exists()
    threading.Timer(0.5, writer.execute, ["commit"]).start()
    status, said = card.run("controller backup %s" % (tmp_path / "archive.tar.gz"))
    writer.close()
    assert status == 0, said
    with tarfile.open(tmp_path / "archive.tar.gz") as archive:
        archive.extractall(tmp_path / "restored", filter="tar")
    restored = sqlite3.connect(tmp_path / "restored" / str(card.state / "stats.sqlite").lstrip("/"))
    assert restored.execute("pragma integrity_check").fetchall() == [("ok",)]
    assert restored.execute("select count(*), sum(winner = 'machine') from games").fetchone() == (17143, 5714)
    restored.close()


def test_the_archive_keeps_each_file_with_its_owner_and_mode_and_leaves_out_what_a_new_card_must_not_have(
        tmp_path, monkeypatch):
    """The password file stays the group's alone and the archive its owner's; the museum's drop-ins are
    kept, but install.sh's own, which it writes again; a former venue's statistics, a watched board's (copied
    by SQLite: its monitor writes them) and the self-tests' reports are kept, the game and the service's lock
    are not."""
    systemd = tmp_path / "systemd"
    for unit, name in (("drnim-controller.service.d", "override.conf"), ("drnim-controller.service.d", "telemetry.conf"),
                       ("drnim-mqtt.service.d", "override.conf")):
        (systemd / unit).mkdir(parents=True, exist_ok=True)
        (systemd / unit / name).write_text("[Service]\n")
    monkeypatch.setattr("controller.service.backup.SYSTEMD_DIR", str(systemd))
    card = installed(tmp_path / "card")
    for name in ("game.json", "service.lock", "selftest-20260301-101500.json", "stats-2026-amsterdam.sqlite"):
        (card.state / name).write_text("{}")
    (card.state / "boards" / "hall2-nimatron").mkdir(parents=True)
    for folder in (card.state, card.state / "boards" / "hall2-nimatron"):
        Statistics(str(folder / "stats.sqlite")).close()
        (folder / "stats.sqlite").chmod(0o600)
    status, said = card.run("controller backup %s" % (tmp_path / "archive.tar.gz"))
    assert status == 0, said
    assert (tmp_path / "archive.tar.gz").stat().st_mode & 0o777 == 0o600
    with tarfile.open(tmp_path / "archive.tar.gz") as archive:
        members = {"/" + member.name: member for member in archive.getmembers()}
    owner = pwd.getpwuid(os.getuid()).pw_name
    assert {member.uname for member in members.values()} == {owner}
    assert members[str(card.config_dir / "mqtt-password")].mode == 0o640
    assert members[str(card.state / "stats.sqlite")].mode == 0o600
    assert members[str(card.state)].isdir() and members[str(card.state)].mode == 0o750
    assert sorted(name for name in members if name.startswith(str(card.state) + "/")) == [
        str(card.state / name) for name in ("boards", "boards/hall2-nimatron", "boards/hall2-nimatron/stats.sqlite",
                                            "selftest-20260301-101500.json", "stats-2026-amsterdam.sqlite",
                                            "stats.sqlite")]
    assert "boards/hall2-nimatron/stats.sqlite (0 games)" in said
    assert sorted(name for name in members if name.startswith(str(systemd))) == [
        str(systemd / "drnim-controller.service.d" / "override.conf"), str(systemd / "drnim-mqtt.service.d" / "override.conf")]
    assert "It is on the same card as the statistics: copy it off" in said


def test_a_configuration_the_controller_refuses_is_backed_up_as_it_is(tmp_path, capsys):
    """controller backup refused to back up a configuration the controller refuses (an idle_ms an older version
    took, a table it does not know), where a backup is wanted most: before the file is mended, before an update
    is taken back, from a dying card (found by the museum technician's upgrade walkthrough). Each refused setting
    is said, read as its default; the state folder, the pin map and the password the file names are kept."""
    card = installed(tmp_path / "card")
    Statistics(str(card.state / "stats.sqlite")).close()
    card.config.write_text(card.config.read_text().replace("pace_ms = 1000\n", "pace_ms = 1000\nidle_ms = 604800000\n")
                           + "[lights]\nlamp = 1\n")
    with pytest.raises(ConfigError):
        load_config(str(card.config))
    out = io.StringIO()
    assert main(["backup", str(tmp_path / "archive.tar.gz"), "--config", str(card.config)], out=out) == 0
    line = card.config.read_text().splitlines().index("idle_ms = 604800000") + 1
    assert capsys.readouterr().err.splitlines() == [
        "controller backup: warning: %s:%d: [lights]: unknown section (known: service, exhibit, drnim, nimatron, "
        "telemetry, boards): the backup reads the default there, and keeps the file as it is"
        % (card.config, len(card.config.read_text().splitlines()) - 1),
        "controller backup: warning: %s:%d: drnim.idle_ms: must be a whole number from 1 to 86400000, not 604800000: "
        "the backup reads the default there, and keeps the file as it is" % (card.config, line)]
    with tarfile.open(tmp_path / "archive.tar.gz") as archive:
        names = archive.getnames()
        kept = archive.extractfile(str(card.config).lstrip("/")).read().decode()
    assert kept == card.config.read_text()
    for path in (card.state / "stats.sqlite", card.config_dir / "mqtt-password", card.config_dir / "pinmaps" / "drnim.toml"):
        assert str(path).lstrip("/") in names
    assert "Telemetry reports as 'hall-1-drnim'" in out.getvalue()


def test_a_configuration_anyone_may_change_is_backed_up_from_its_own_state_folder(tmp_path, capsys):
    """Refused for its mode, the file was read as no settings at all: the backup kept the Pi's default state
    folder, not the one the file names (found by the review of the change)."""
    card = installed(tmp_path / "card")
    Statistics(str(card.state / "stats.sqlite")).close()
    card.config.chmod(0o666)
    assert main(["backup", str(tmp_path / "archive.tar.gz"), "--config", str(card.config)], out=io.StringIO()) == 0
    said = capsys.readouterr().err
    assert said.startswith("controller backup: warning: %s: the configuration is writable by every user" % card.config)
    with tarfile.open(tmp_path / "archive.tar.gz") as archive:
        assert str(card.state / "stats.sqlite").lstrip("/") in archive.getnames()


def test_an_archive_sent_over_ssh_is_the_same_archive(tmp_path, monkeypatch, capsys):
    """The guide's line for the office's computer: `ssh pi@... sudo controller backup - > FILE`, the archive
    on the standard output and what it kept on the standard error, which ssh shows."""
    card = installed(tmp_path / "card")
    line = doc_line("ssh pi@")
    assert line.endswith(" > hall-1-drnim.tar.gz")
    stdout = io.TextIOWrapper(io.BytesIO())
    monkeypatch.setattr("sys.stdout", stdout)
    words = card.here(line.split(" sudo ", 1)[1].split(" > ")[0])
    assert main(words[1:] + ["--config", str(card.config)], out=io.StringIO()) == 0
    assert "Kept:\n  %s\n" % card.config in capsys.readouterr().err
    with tarfile.open(fileobj=io.BytesIO(stdout.buffer.getvalue())) as archive:
        assert str(card.config).lstrip("/") in archive.getnames()


@pytest.mark.parametrize("where,error", [
    ("missing/archive.tar.gz", "cannot write {tmp}/missing/archive.tar.gz (No such file or directory); nothing written"),
    ("card/var/lib/drnim-controller/archive.tar.gz", "{tmp}/card/var/lib/drnim-controller/archive.tar.gz is in "
     "{tmp}/card/var/lib/drnim-controller, which the archive keeps: put it elsewhere, off this card; nothing written"),
    ("", "{tmp} is a folder: give the archive's file name, such as {tmp}/drnim-backup.tar.gz; nothing written"),
])
def test_an_archive_that_cannot_be_written_there_is_one_line_naming_it(tmp_path, capsys, where, error):
    card = installed(tmp_path / "card")
    out = io.StringIO()
    assert main(["backup", str(tmp_path / where), "--config", str(card.config)], out=out) == 1
    assert out.getvalue() == ""
    assert capsys.readouterr().err == "controller backup: %s\n" % error.format(tmp=tmp_path)
    assert sorted(os.listdir(tmp_path)) == ["card"]


def test_a_backup_with_no_configuration_names_the_one_to_give(capsys, monkeypatch):
    monkeypatch.setattr("controller.cli.DEFAULT_CONFIG", "/nonexistent/config.toml")
    monkeypatch.setattr("controller.arguments.DEFAULT_CONFIG", "/nonexistent/config.toml")
    assert main(["backup", "archive.tar.gz"], out=io.StringIO()) == 2
    assert capsys.readouterr().err == ("controller: --config: backup keeps the exhibit's configuration: give its path "
                                       "(there is no /nonexistent/config.toml)\n")


def test_an_archive_restored_onto_a_card_install_sh_made_is_kept_checked_and_started(pi):
    """The guide's restore on a card install.sh made, in test_install.py's temporary root: its install.sh
    keeps the restored settings and the pin map the museum edited, checks them with the controller, and
    starts the service on them."""
    assert install(pi).returncode == 0                                          # the old card, two years ago
    stub(pi / "opt/drnim-controller/venv/bin/controller", REAL_CONTROLLER)
    card = Card(pi, pi / "usb")
    card.usb.mkdir()
    card.state.mkdir(parents=True)
    shipped = card.config.read_text()
    calibrated = shipped.replace('state_dir = ""', 'state_dir = "%s"' % card.state).replace(
        "release_timeout_ms = 1500", "release_timeout_ms = 1850")
    card.config.write_text(calibrated)
    rewired = (card.config_dir / "pinmaps" / "drnim.toml").read_text() + "# the museum's: the sensor moved\n"
    (card.config_dir / "pinmaps" / "drnim.toml").write_text(rewired)
    statistics = Statistics(str(card.state / "stats.sqlite"))
    statistics.game("drnim", "player", 80)
    statistics.game("drnim", "machine", 65)
    statistics.close()
    status, said = card.run("controller backup /mnt/hall-1-drnim.tar.gz")
    assert status == 0, said
    shutil.rmtree(card.config_dir)                                              # the card dies
    shutil.rmtree(card.state)

    fresh = install(pi)                                                         # the new card
    assert fresh.returncode == 0 and "Installing /etc/drnim-controller/config.toml" in fresh.stdout, fresh.stderr
    card.state.mkdir(parents=True)
    for beginning in ("sudo find /var/lib/drnim-controller", "sudo tar -xzf"):
        status, said = card.run(doc_line(beginning, block_with="sudo tar -xzf"))
        assert status == 0, said
    again = install(pi)
    assert again.returncode == 0, again.stderr
    assert "Keeping the existing /etc/drnim-controller/config.toml" in again.stdout
    assert "Keeping the existing /etc/drnim-controller/pinmaps/drnim.toml, edited here" in again.stdout
    assert "Checking /etc/drnim-controller/config.toml and its pin map with the installed controller, as the drnim user" in again.stdout
    assert "systemctl restart drnim-controller" in again.log
    assert card.config.read_text() == calibrated
    assert (card.config_dir / "pinmaps" / "drnim.toml").read_text() == rewired
    status, said = card.run(doc_line("sudo -u drnim /opt/drnim-controller/venv/bin/controller stats"))
    assert status == 0 and "Games: 2 (visitors won 1, the machine 1)" in said, said


def test_a_spare_whose_code_is_older_than_the_archive_names_the_setting_it_does_not_know(tmp_path, capsys):
    """A spare a year in the drawer, restored before its `git pull`: a setting of a newer version is named by
    the guide's `config check`, and install.sh, which runs the same check, starts nothing on it."""
    card = installed(tmp_path / "card")
    card.config.write_text(card.config.read_text().replace("[drnim]\n", "[drnim]\nmarble_lift = true\n"))
    status, said = card.run(doc_line("sudo -u drnim /opt/drnim-controller/venv/bin/controller config check"))
    assert status == 2 and said == ""
    line = card.config.read_text().splitlines().index("marble_lift = true") + 1
    assert "%s:%d: drnim.marble_lift: unknown setting" % (card.config, line) in capsys.readouterr().err
