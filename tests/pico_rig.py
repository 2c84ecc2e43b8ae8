"""The emulated Pico for the tests: the official MicroPython for the Pico run
instruction by instruction on an emulated RP2040 (controller/firmware/rp2040.py),
the build deployed with mpremote over the board's port, its buttons and its
marble sensor on its pins, its time its own.

It needs the UF2 (CONTROLLER_PICO_UF2), the RP2040's boot ROM
(CONTROLLER_RP2040_BOOTROM), Node.js and rp2040js (npm ci in
controller/firmware/pico, which make does): without them the tests that use it
are skipped, saying which is missing (`needs_pico`). A deploy takes the
emulated board about 13 s of a core: the boards here start from a flash written
on the host instead (`written_flash`, with littlefs-python: the files a deploy
copies, in the littlefs MicroPython makes on a Pico; test_firmware_pico_deploy.py
proves a real deploy leaves the same files), kept for each build in a folder
every worker of a parallel run shares."""

from pathlib import Path

import pytest

from controller.firmware.board_test import Connector, run_scripts
from conftest import missing_tool
from controller.cache import cache_folder
from controller.firmware.rp2040 import HARNESS, HARNESS_FILES, EmulatedPico, tools
from controller.firmware.tools import FirmwareError
from controller.sim.script import run_script

LED = 25
TICKS_PERIOD_MS = 1 << 30      # a Pico's time.ticks_ms() wraps after 2**30 ms, 12.4 days
# A Pico's 2 MiB flash and MicroPython's filesystem in it (ports/rp2, RPI_PICO): the last 1408 KiB,
# littlefs v2 in 4 KiB blocks programmed 256 bytes at a time (modules/_boot.py: progsize=256).
FLASH_BYTES = 2 * 1024 * 1024
FILESYSTEM_AT = 640 * 1024
BLOCK = 4096


def emulator_fetched():
    """rp2040js where the emulated Pico looks for it (controller/firmware/rp2040.py's harness()):
    in the checkout, where make's npm ci put it, or in the user's cache. Looked for, never fetched:
    a test needs no network."""
    if (HARNESS / "node_modules" / "rp2040js").is_dir():
        return True
    folder = cache_folder("pico")
    return (folder / "node_modules" / "rp2040js").is_dir() and all(
        (folder / name).is_file() and (folder / name).read_bytes() == (HARNESS / name).read_bytes()
        for name in HARNESS_FILES)


def missing():
    """What the emulated Pico lacks here, in one line naming it and how to get it, or None."""
    try:
        tools()
    except FirmwareError as error:
        return str(error)
    if not emulator_fetched():
        return ("rp2040js is missing (make pico-emulator fetches it: npm ci in controller/firmware/pico; "
                "Debian: apt-get install npm)")
    # the builds its flash is written from, and the deploys
    return missing_tool("mpy-cross") or missing_tool("mpremote")


needs_pico = pytest.mark.skipif(missing() is not None, reason="the emulated Pico: %s" % missing())


@pytest.fixture(scope="session")
def images(tmp_path_factory):
    """The deployed builds' flash, shared by the workers of a parallel run (the folder above each one's)."""
    folder = tmp_path_factory.getbasetemp().parent / "pico-flash"
    folder.mkdir(exist_ok=True)
    return folder


def filesystem(data=None):
    """MicroPython's littlefs on a Pico, empty or read from the flash bytes `data`."""
    import littlefs
    fs = littlefs.LittleFS(block_size=BLOCK, block_count=(FLASH_BYTES - FILESYSTEM_AT) // BLOCK, prog_size=256,
                           read_size=32, lookahead_size=32, mount=data is None)
    if data is not None:
        fs.context.buffer = bytearray(data[FILESYSTEM_AT:])
        fs.mount()
    return fs


def written_flash(image, folder, files):
    """The flash of a Pico that MicroPython has run and a deploy of the build in `folder`
    has filled (its `files`, in their folders), written on the host in `image`."""
    fs = filesystem()
    for name in files:
        parent = name.rpartition("/")[0]
        if parent:
            fs.makedirs(parent, exist_ok=True)
        with fs.open(name, "wb") as file:
            file.write((Path(folder) / name).read_bytes())
    Path(image).write_bytes(b"\xff" * FILESYSTEM_AT + bytes(fs.context.buffer))


def files_in(image):
    """{path: bytes} of every file in the flash image's filesystem."""
    fs = filesystem(Path(image).read_bytes())
    found = {}
    for top, _, names in fs.walk("/"):
        for name in names:
            path = (top.rstrip("/") + "/" + name).lstrip("/")
            with fs.open(path, "rb") as file:
                found[path] = file.read()
    return found


def simulated(path):
    """What `controller --simulate --script PATH` prints."""
    lines = []
    failures = run_script(path.read_text(), report=lines.append)
    return lines + ["%s: %s" % (path, "every expectation holds" if not failures else "failed")]


def played(path, images):
    """What `controller firmware test --emulate rp2040 PATH` prints, and its failures."""
    said = []
    connect = Connector(emulate="rp2040", report=said.append, images=images, write_flash=written_flash)
    try:
        results = run_scripts([(str(path), path.read_text())], connect, said.append)
    finally:
        connect.close()
    return said, results[str(path)]


class Pico:
    """A deployed board of `machine` on the emulated Pico, with the hands and
    the world of the scripts (controller/firmware/board_test.py)."""

    def __init__(self, images, machine="drnim", timer_us=0):
        self.said = []
        self.connect = Connector(emulate="rp2040", report=self.said.append, images=images, write_flash=written_flash,
                                 timer_us=timer_us)
        self.board = self.connect(machine)
        self.pico = self.connect.emulator
        self.bench = self.board.hands.bench

    def script(self, text):
        """Play a script (it starts with its `machine` line) on this board: its failures."""
        results = run_scripts([("script", text)], lambda machine: self.board, self.said.append)
        return results["script"]

    def close(self):
        self.connect.close()


def changes(board, pin, since=0):
    """(level, ms) of each change of `pin` the bench saw since `since` ms."""
    return [(level, at / 1e6) for number, level, at in board.bench.history if number == pin and at >= since * 1e6]


def blinking(board, since):
    """The LED's half period in ms since `since` (rounded to 10 ms), once it has blinked a dozen times: half
    the median of its whole periods, on to on and off to off. (A Nimatron's lamp chain, written every 2 s,
    makes every other blink some 7 ms late: its halves then alternate 993 and 1007 ms, and a median of
    halves fell on either, by the phase the board started in.)"""
    blinks = [(level, at) for level, at in changes(board, LED, since) if level in (0, 1)][2:]
    assert len(blinks) > 12 and [level for level, at in blinks] == [blinks[0][0], 1 - blinks[0][0]] * (len(blinks) // 2) \
        + [blinks[0][0]] * (len(blinks) % 2)
    periods = sorted(b - a for (_, a), (_, b) in zip(blinks, blinks[2:]))
    return round(periods[len(periods) // 2] / 2, -1)


def heard(port):
    """What the board wrote on `port` (a pseudo-terminal passes it on within a moment)."""
    said = b""
    while True:
        more = port.read(65536)
        if not more:
            return said.decode()
        said += more


def fresh_pico():
    """An emulated Pico with MicroPython only, running freely for mpremote; its link unopened."""
    pico = EmulatedPico()
    pico.start()
    pico.run_free()
    return pico
