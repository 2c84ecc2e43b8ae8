"""`controller firmware deploy` on the official MicroPython for the Pico, on an
emulated RP2040 (tests/pico_rig.py): the real mpremote over the board's port.
Each test deploys more than once (tens of seconds each): `make firmware-test`
runs them (marked firmware_test), not `make test`."""

import io
import time

import pytest
import serial

from controller.cli import main
from controller.core.protocol import PRODUCTION
from controller.firmware import deploy
from controller.firmware.build import build
from controller.firmware.deploy import read_manifest
from pico_rig import LED, files_in, fresh_pico, heard, needs_pico, written_flash

pytestmark = [needs_pico, pytest.mark.firmware_test]
MACHINE = "drnim"


def test_a_deploy_cut_short_leaves_the_board_stopped_until_a_deploy_finishes(tmp_path, monkeypatch):
    """A board that plays is updated, and the copy stops half-way (the cable pulled): at
    every power-up after it the board runs nothing of its half-new build, its LED lit
    steady, and says why; the next deploy that finishes makes it play again."""
    build(MACHINE, tmp_path / "build", PRODUCTION)
    whole = deploy.mpremote_arguments

    def half_of_it(files):
        copy = whole(files)
        tops = copy[copy.index("-r") + 1:copy.index(":")]
        return copy[:copy.index("-r") + 1] + tops[:len(tops) // 2] + [":"]

    def power_up():
        pico.pause()
        with serial.Serial(pico.port, timeout=0.5) as port:
            pico.power_cut()
            pico.run(pico.now + 3000 * 1000000)
            return heard(port)
    pico = fresh_pico()
    try:
        deploy.deploy(pico.port, tmp_path / "build")
        assert '"kind":"hello"' in power_up()
        pico.run_free(pace=True)        # its watchdog runs: its 5 s are the host's, as on a Pico
        monkeypatch.setattr(deploy, "mpremote_arguments", half_of_it)
        deploy.deploy(pico.port, tmp_path / "build")
        pico.watch([LED])
        for _ in range(2):
            said = power_up()
            assert "stopped for maintenance while /maintenance is in the flash" in said and '"hello"' not in said
            assert [level for number, level, at in pico.pin_changes if number == LED][-1] == 1
        monkeypatch.setattr(deploy, "mpremote_arguments", whole)
        pico.run_free()
        deploy.deploy(pico.port, tmp_path / "build")
        assert '"kind":"hello"' in power_up()
    finally:
        pico.stop()


def test_deploys_in_a_row_leave_a_board_that_plays_not_one_holding_after_resets(tmp_path):
    """On a Pico machine.reset() starts the board as its watchdog does, and CrashGuard
    (firmware/app.py) holds a board safe after 3 such starts in a row: a board that has
    counted 2 (two deploys within a minute) is deployed again, and plays; its count starts
    afresh, the deploy's own reset its only one. (It held, saying it had reset 3 times.)"""
    import json
    import subprocess
    from controller.firmware.tools import find_tool
    build(MACHINE, tmp_path / "build", PRODUCTION)
    pico = fresh_pico()
    try:
        counted = subprocess.run([find_tool("mpremote"), "connect", pico.port, "exec",
                                  "open(%r, 'w').write('2')" % deploy.RESETS_FILE], capture_output=True, text=True)
        assert counted.returncode == 0, counted.stderr
        deploy.deploy(pico.port, tmp_path / "build")
        pico.pause()
        said = ""
        with serial.Serial(pico.port, timeout=0.5) as port:
            until = pico.now + 5000 * 1000000
            while '"hello"' not in said and pico.now < until:
                pico.run(until, stop_on_line=True)      # a run stops at the deploy's reset too
                said += heard(port)
        hello = [json.loads(line) for line in said.splitlines() if '"hello"' in line]
        assert hello and hello[0]["resumed"] != "held", said
        pico.save_flash(tmp_path / "flash.bin")
    finally:
        pico.stop()
    assert files_in(tmp_path / "flash.bin").get(deploy.RESETS_FILE.lstrip("/")) == b"1"


def test_a_board_run_freely_at_the_wall_clock_s_pace_runs_on_after_a_pause():
    """A board mpremote talks to runs on its own, its time the host's (a production board's
    watchdog counts real seconds); paused and run again, its time goes on. (The pause cleared
    the wall-paced run's timeout as an immediate: the next free run never ran, and mpremote
    waited for a board whose time stood still.)"""
    pico = fresh_pico()
    try:
        for _ in range(2):
            pico.pause()
            before, started = pico.now, time.monotonic()
            pico.run_free(pace=True)
            while pico.ask("effort")["now"] - before < 0.2e9 and time.monotonic() - started < 30:
                time.sleep(0.05)
            pico.pause()
            took = time.monotonic() - started
            assert 0.2e9 <= pico.now - before <= took * 1e9, ((pico.now - before) / 1e9, took)
    finally:
        pico.stop()


def test_a_deploy_leaves_the_files_that_the_tests_flash_is_written_with(tmp_path):
    """The other tests' boards start from a flash written on the host (pico_rig.written_flash):
    mpremote's deploy leaves the very same files in the board's filesystem, and nothing else."""
    build(MACHINE, tmp_path / "build", PRODUCTION)
    pico = fresh_pico()
    try:
        deploy.deploy(pico.port, tmp_path / "build")
        pico.pause()
        pico.save_flash(tmp_path / "deployed.bin")
    finally:
        pico.stop()
    written_flash(tmp_path / "written.bin", tmp_path / "build", read_manifest(tmp_path / "build")[1])
    deployed = files_in(tmp_path / "deployed.bin")
    assert deployed == files_in(tmp_path / "written.bin")
    assert "main.py" in deployed and "controller/core/drnim.mpy" in deployed


def test_deploy_copies_the_build_made_last_and_says_which(tmp_path, monkeypatch):
    """After `build --machine nimatron`, a plain `deploy --port` puts the Nimatron on the
    board, not an older Dr. Nim build beside it."""
    monkeypatch.chdir(tmp_path)
    assert main(["firmware", "build", "--machine", "drnim"], out=io.StringIO()) == 0
    assert main(["firmware", "build", "--machine", "nimatron"], out=io.StringIO()) == 0
    pico = fresh_pico()
    try:
        out = io.StringIO()
        assert main(["firmware", "deploy", "--port", pico.port], out=out) == 0
        assert out.getvalue().startswith("Copied the nimatron firmware from build/firmware/nimatron to the board")
        pico.pause()
        with serial.Serial(pico.port, timeout=0.5) as port:
            pico.power_cut()
            pico.run(pico.now + 3000 * 1000000)
            assert '"machine":"nimatron"' in heard(port)
    finally:
        pico.stop()


def test_the_monitor_watches_an_emulated_pico_in_real_time(tmp_path):
    """`controller firmware monitor --emulate rp2040`: the board deployed and started, its
    hello and its outputs shown as they come, its time the wall clock's; Ctrl-C stops it."""
    import os
    import select
    import signal
    import subprocess
    import sys
    import time
    from service_rig import write_config
    config = write_config(tmp_path)
    (tmp_path / "state").mkdir()
    monitor = subprocess.Popen([sys.executable, "-m", "controller", "firmware", "monitor", "--emulate", "rp2040",
                                "--config", str(config)], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                               env=dict(os.environ, PYTHONUNBUFFERED="1", XDG_CACHE_HOME=str(tmp_path / "cache")))
    shown = b""
    try:
        deadline = time.monotonic() + 300
        while b"status:" not in shown and time.monotonic() < deadline:
            if select.select([monitor.stdout], [], [], 1)[0]:
                shown += os.read(monitor.stdout.fileno(), 65536)
    finally:
        monitor.send_signal(signal.SIGINT)
        out, err = monitor.communicate(timeout=60)
    shown += out
    assert b"board: drnim, protocol 1, production mode" in shown, (shown, err)
    assert b"status: play" in shown and shown.endswith(b"Stopped watching.\n")
    assert monitor.returncode == 0, err


def test_a_monitor_stopped_while_it_deploys_stops_its_emulated_pico(tmp_path):
    """systemd, or `timeout`, stops a monitor with SIGTERM while it is still deploying the emulated
    board: the board's process (node, running rp2040js) stops with it, not left running on its own."""
    import os
    import signal
    import subprocess
    import sys
    from service_rig import write_config
    config = write_config(tmp_path)
    (tmp_path / "state").mkdir()
    monitor = subprocess.Popen([sys.executable, "-m", "controller", "firmware", "monitor", "--emulate", "rp2040",
                                "--config", str(config)], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                               env=dict(os.environ, XDG_CACHE_HOME=str(tmp_path / "cache")))   # a deploy: slow
    try:
        deadline = time.monotonic() + 120
        board = []
        while not board and monitor.poll() is None and time.monotonic() < deadline:
            time.sleep(0.05)
            board = subprocess.run(["pgrep", "-P", str(monitor.pid)], capture_output=True, text=True).stdout.split()
        assert board, "no emulated board was started"
    finally:
        monitor.send_signal(signal.SIGTERM)
        out, err = monitor.communicate(timeout=60)
    assert monitor.returncode == 0 and out.endswith(b"Stopped watching.\n"), (monitor.returncode, out, err)
    deadline = time.monotonic() + 10
    while any(os.path.exists("/proc/%s" % pid) for pid in board) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert not any(os.path.exists("/proc/%s" % pid) for pid in board), "the emulated Pico runs on, its monitor gone"


def test_ctrl_c_while_the_monitor_deploys_its_emulated_pico_stops_it_as_always(tmp_path):
    """Ctrl-C in a terminal reaches every process of its foreground group: the monitor, and
    whatever it started there. While the first run deploys the emulated board, it stops with
    the monitor's own line. (Node, in the same group, died of the SIGINT before the monitor
    could stop it: "the emulated Pico failed: it stopped: Read from invalid SIO address", exit 1.)"""
    import os
    import signal
    import subprocess
    import sys
    from service_rig import write_config
    config = write_config(tmp_path)
    (tmp_path / "state").mkdir()
    monitor = subprocess.Popen([sys.executable, "-m", "controller", "firmware", "monitor", "--emulate", "rp2040",
                                "--config", str(config)], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                               env=dict(os.environ, XDG_CACHE_HOME=str(tmp_path / "cache")),    # a deploy
                               start_new_session=True)      # a group of its own, as a terminal gives a command
    try:
        deadline = time.monotonic() + 120
        deploying = False
        while not deploying and monitor.poll() is None and time.monotonic() < deadline:
            time.sleep(0.1)
            children = subprocess.run(["pgrep", "-P", str(monitor.pid)], capture_output=True, text=True).stdout
            # -ww: ps cuts a command line to 80 columns when not on a terminal, and in a clone with a
            # long path, such as CI's, "mpremote" came after the cut
            deploying = any(b"mpremote" in subprocess.run(["ps", "-ww", "-o", "args=", "-p", pid],
                                                          capture_output=True).stdout for pid in children.split())
        if deploying:
            time.sleep(0.3)     # into the deploy (about 2 s on an idle machine)
    finally:
        os.killpg(monitor.pid, signal.SIGINT)
        out, err = monitor.communicate(timeout=60)
    assert deploying, ("the monitor never deployed its emulated board", monitor.returncode, out, err)
    assert monitor.returncode == 0 and out.endswith(b"Stopped watching.\n"), (monitor.returncode, out, err)


def test_jams_by_rate_and_seed_reach_the_emulated_picos_marbles(tmp_path):
    """--jam-rate and --seed act on the marble world beside the chip, as on the simulator's."""
    script = tmp_path / "jams.txt"
    script.write_text("machine drnim\nswitch turn machine\npress trigger\nwait 10s\nexpect fault none\n")
    out = io.StringIO()
    status = main(["firmware", "test", "--emulate", "rp2040", "--jam-rate", "1", "--seed", "3", str(script)],
                  out=out)
    assert status == 1 and "expect fault none: FAILED, got jam" in out.getvalue()
