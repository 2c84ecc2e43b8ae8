"""A laptop with Windows runs what a laptop is for: play and solve, the simulator, config check,
the firmware's build, the page's build and its server. Python there has no fcntl, termios, tty,
pwd..., no os.fchmod, os.openpty or O_NOFOLLOW, no SIGHUP and no signal masks, opens no folder as
a file, and reads and writes text in the computer's own encoding unless told which (cp1252 on
most). windows_rig.py runs the commands in a Python made to lack the same, once for this file,
with Python's EncodingWarning on and in a locale whose own encoding is ASCII, the strictest of them."""

import errno
import json
import os
import subprocess
import sys

import pytest

from conftest import ROOT, missing_tool
from controller import cache
from controller.hardware.assembly import Assembly
from controller.hardware.pinmap import load_default
from controller.service.store import replace_file
from controller.web import build as web_build

# A museum's own words, in the files a technician writes: cp1252 cannot even read the Greek ('ρ').
GREEK = "# Η διάταξη του μουσείου: ο ρόλος κάθε ακίδας\n"
FRENCH = "# L’exposition d’été, salle « Calcul »\n"


@pytest.fixture(scope="module")
def laptop(tmp_path_factory):
    """{name: the command's results in windows_rig.py's Python (its status, out, err, crash, encodings)}."""
    folder = tmp_path_factory.mktemp("laptop")
    pinmap = folder / "pinmap.toml"
    pinmap.write_text(GREEK + (ROOT / "hardware" / "drnim" / "pinmap.toml").read_text(encoding="utf-8"),
                      encoding="utf-8")
    config = folder / "config.toml"
    config.write_text(FRENCH + '[service]\nmachine = "drnim"\npinmap = "%s"\nstate_dir = "%s"\nruntime_dir = "%s"\n\n'
                      '[exhibit]\nlanguage = ["fr", "en"]\n' % (pinmap.as_posix(), (folder / "state").as_posix(),
                                                                (folder / "run").as_posix()), encoding="utf-8")
    page = folder / "page"
    page.mkdir()
    (page / "index.html").write_text("<!doctype html><title>Νιμ</title>\n", encoding="utf-8")
    commands = {
        "solve": ["solve", "nim", "1", "2", "3"],
        "play": ["play", "drnim", "--seed", "1", "--lang", "fr"],
        "config check": ["config", "check", str(config)],
        "simulator script": ["--simulate", "--script", "R1-one-marble-per-press.txt"],
        "simulator autoplay": ["--simulate", "--autoplay", "2", "--machine", "nimatron", "--lang", "fr"],
        "controller run": ["run", "--pin-factory", "mock", "--config", str(config)],
        "firmware build --frozen": ["firmware", "build", "--frozen", "--pinmap", str(pinmap),
                                    "--out", str(folder / "frozen")],
        "web serve": ["web", "serve", "--dir", str(page)],
        "firmware monitor --emulate": ["firmware", "monitor", "--emulate", "unix"],
    }
    if not missing_tool("mpy-cross"):
        commands["firmware build"] = ["firmware", "build", "--pinmap", str(pinmap), "--out", str(folder / "firmware")]
    if web_build.runtime_ready():
        commands["web build"] = ["web", "build", "--out", str(folder / "built")]
    env = dict(os.environ, LC_ALL="C", PYTHONUTF8="0", PYTHONCOERCECLOCALE="0", PYTHONPATH=str(ROOT))
    done = subprocess.run([sys.executable, "-X", "warn_default_encoding", str(ROOT / "tests" / "windows_rig.py")],
                          input=json.dumps(commands).encode(), capture_output=True, cwd=folder, env=env, timeout=300)
    assert done.returncode == 0, done.stderr.decode(errors="replace")
    return json.loads(done.stdout)


WORKING = ["solve", "play", "config check", "simulator script", "simulator autoplay", "firmware build --frozen",
           "firmware build", "web build", "web serve"]


@pytest.mark.parametrize("name", WORKING)
def test_a_laptop_command_runs_in_a_python_without_what_windows_lacks(laptop, name):
    if name not in laptop:
        pytest.skip("its tool is not here (see test_firmware_build.py and test_web.py)")
    result = laptop[name]
    assert result["crash"] is None, result["crash"]
    assert (result["status"], result["err"]) == (0, ""), result


def test_an_emulated_board_where_there_are_no_pseudo_terminals_is_one_line(laptop):
    """The emulated boards talk over a pseudo-terminal: Windows has none, and a user is told so, not a traceback."""
    result = laptop["firmware monitor --emulate"]
    assert result["crash"] is None, result["crash"]
    assert result["status"] == 1
    assert result["err"] == ("controller firmware: --emulate: the emulated board is reached through a pseudo-terminal, "
                             "which this computer (Windows) has none of: test a Pico on --port, or emulate on Linux, "
                             "macOS or WSL\n")


def test_the_pi_service_where_there_is_no_fcntl_is_one_line(laptop):
    """`controller run` is the Raspberry Pi's: on a computer where it cannot lock its state folder (Windows), it
    says so and what to run there instead."""
    result = laptop["controller run"]
    assert result["crash"] is None, result["crash"]
    assert (result["status"], result["err"]) == (1, "controller: the service runs on a Raspberry Pi (Linux), and this "
                                                    "computer has no fcntl to lock its state folder with: here, try "
                                                    "it with controller --simulate\n")


def test_no_laptop_command_leaves_the_encoding_of_its_text_to_the_computer(laptop):
    """A catalog, a pin map, a scenario, a build's files and the output of mpy-cross or npm are UTF-8 whatever the
    computer's own encoding: left to it, a Greek comment in a pin map stopped the firmware build with a traceback."""
    left = {name: result["encodings"] for name, result in laptop.items() if result["encodings"]}
    assert left == {}


def test_a_save_where_no_folder_opens_as_a_file_is_a_save(tmp_path, monkeypatch):
    """Windows opens no folder as a file, so the folder is not synced after the rename: the simulator's game is
    saved all the same, where its log said 'fault: storage: cannot save the game ... (Permission denied)'."""
    real_open = os.open

    def windows_open(path, flags, mode=0o777, **where):
        if os.path.isdir(path):
            raise PermissionError(13, "Permission denied", path)
        return real_open(path, flags, mode, **where)
    monkeypatch.setattr(os, "open", windows_open)
    replace_file(str(tmp_path / "game.json"), b'{"rail": 14}')
    assert (tmp_path / "game.json").read_bytes() == b'{"rail": 14}'


def test_the_cache_lock_on_windows_waits_for_as_long_as_another_run_holds_it(tmp_path, monkeypatch):
    """Windows has no fcntl: its lock is msvcrt's, whose own wait gives up after 10 s, where another run's
    render of a part takes minutes. The same byte is locked and let go."""
    calls = []

    class Msvcrt:
        LK_UNLCK, LK_LOCK = 0, 1

        @staticmethod
        def locking(fd, mode, size):
            calls.append((mode, os.lseek(fd, 0, os.SEEK_CUR), size))
            if mode == Msvcrt.LK_LOCK and len(calls) < 3:
                raise OSError(errno.EDEADLOCK, "Resource deadlock avoided")
    monkeypatch.setitem(sys.modules, "fcntl", None)
    monkeypatch.setitem(sys.modules, "msvcrt", Msvcrt)
    with cache.locked(tmp_path / "render.lock"):
        calls.append("inside")
    assert calls == [(Msvcrt.LK_LOCK, 0, 1)] * 3 + ["inside", (Msvcrt.LK_UNLCK, 0, 1)]


def test_a_cache_file_another_run_holds_open_is_left_as_it_is(tmp_path, monkeypatch):
    """Windows renames nothing over a file another process holds open: where a second `controller hardware
    check` had kept the volume two renders share and was reading it, this one stopped with a PermissionError
    traceback. It goes on with its volume, the file read is left as it is, and nothing is left beside it."""
    real_replace = os.replace
    held = []

    def windows_replace(source, target):
        if any(os.path.samefile(reading.name, target) for reading in held):
            raise PermissionError(13, "Access is denied", target)
        return real_replace(source, target)
    monkeypatch.setattr(os, "replace", windows_replace)
    renders = tmp_path / "renders"
    assembly = Assembly(load_default("nimatron"), "openscad", renders)

    def while_another_run_keeps_and_reads_it(pair, stls, work):
        cache.keep(renders / "a--b.volume", b"1.0")
        held.append(open(renders / "a--b.volume", "rb"))
        return 1.0
    assembly.scad_volume = while_another_run_keeps_and_reads_it
    try:
        assert assembly.intersection(("a", "b"), {"a": renders / "a.stl", "b": renders / "b.stl"}, tmp_path) == 1.0
    finally:
        held[0].close()
    assert [(path.name, path.read_bytes()) for path in renders.iterdir()] == [("a--b.volume", b"1.0")]


def test_a_package_from_a_clone_without_symbolic_links_says_what_it_lacks_in_one_line(tmp_path):
    """Git for Windows checks each of controller/shipped's links out as a small file holding its target
    (core.symlinks off, its default), and a wheel built from that clone lacks the firmware, the pin maps, the
    scenarios and the page: the simulator stopped with a PinMapError's traceback."""
    import shutil
    copy = tmp_path / "controller"
    shutil.copytree(ROOT / "controller", copy, symlinks=True, ignore=shutil.ignore_patterns("__pycache__"))
    for link in ("firmware", "hardware", "scenarios", "web"):
        target = os.readlink(copy / "shipped" / link)
        (copy / "shipped" / link).unlink()
        (copy / "shipped" / link).write_text(target)
    ran = subprocess.run([sys.executable, "-m", "controller", "--simulate", "--script", "R5"], capture_output=True,
                         text=True, timeout=60, cwd=tmp_path, env=dict(os.environ, PYTHONPATH=str(tmp_path)))
    assert (ran.returncode, ran.stdout) == (1, "")
    assert ran.stderr == "controller: the controller's own files are missing: %s is a small file where a link to " \
        "the repository's scenarios folder belongs (a clone made by Git for Windows without symbolic links, and a " \
        "package built from it): clone again with `git clone -c core.symlinks=true` (Windows: Developer Mode on) " \
        "and install from that clone (README, \"Try it\")\n" % (copy / "shipped" / "scenarios")
