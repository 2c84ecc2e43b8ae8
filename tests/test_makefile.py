"""The Makefile as a newcomer meets it, before anything is installed."""

import glob
import os
import re
import shutil
import subprocess
import sys
import tarfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


@pytest.mark.skipif(shutil.which("make") is None, reason="make is missing (Debian: apt-get install make)")
def test_a_venv_left_without_pip_gets_pip_at_the_next_make(tmp_path):
    """Debian's python3 without its python3-venv package makes the .venv folder, then stops, saying to
    install python3-venv. After that install, the next `make simulate` must work: it had kept the .venv
    it found and failed in it with "No module named pip" until the folder was deleted by hand."""
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(tmp_path / ".venv")], check=True, timeout=120)
    make_simulator(tmp_path, sys.executable)
    has_pip = subprocess.run([str(tmp_path / ".venv" / "bin" / "python"), "-m", "pip", "--version"],
                             capture_output=True, text=True, timeout=120)
    assert has_pip.returncode == 0, has_pip.stderr


def older_python():
    """A Python older than 3.11 on this machine (an Ubuntu 22.04 laptop's python3 is 3.10), or None."""
    names = ["python3.10", "python3.9", "python3.8"]
    found = [shutil.which(name) for name in names] + sorted(glob.glob(os.path.expanduser("~/.pyenv/versions/3.*/bin/python3")))
    for python in filter(None, found):
        try:
            said = subprocess.run([python, "-c", "import sys; print(sys.version_info < (3, 11))"], capture_output=True,
                                  text=True, timeout=60)
        except OSError:
            continue
        if said.stdout.strip() == "True":
            return python
    return None


def make_simulator(folder, python):
    """`make .venv/.simulator` in a copy of what that target reads. No index: the project's own install
    then fails at once, with no network; the tests ask what became of the venv before it."""
    for name in ("Makefile", "pyproject.toml", "constraints.txt"):
        shutil.copy(ROOT / name, folder)
    return subprocess.run(["make", "-C", str(folder), ".venv/.simulator", "PYTHON=" + python],
                          env=dict(os.environ, PIP_NO_INDEX="1"), capture_output=True, text=True, timeout=300)


@pytest.fixture
def old_python():
    if shutil.which("make") is None:
        pytest.skip("make is missing (Debian: apt-get install make)")
    python = older_python()
    if python is None:
        pytest.skip("no Python older than 3.11 here (python3.10, python3.9, python3.8 or pyenv's) to try make with")
    return python


def test_a_python_too_old_is_refused_in_one_line_before_any_venv(old_python, tmp_path):
    """Ubuntu 22.04's python3 is 3.10: pip said only "ResolutionImpossible", and left a .venv of 3.10."""
    done = make_simulator(tmp_path, old_python)
    assert done.returncode != 0
    said = [line for line in done.stderr.splitlines() if not re.match(r"make(\[\d+\])?: ", line)]   # make's own
    version = subprocess.run([old_python, "-c", "import sys; print('%d.%d' % sys.version_info[:2])"],
                             capture_output=True, text=True).stdout.strip()
    assert said == ["%s is Python %s: the controller needs 3.11 or newer (make PYTHON=python3.11 ...)"
                    % (old_python, version)]
    assert not (tmp_path / ".venv").exists()


def test_a_venv_of_a_python_too_old_is_made_again_with_the_python_given(old_python, tmp_path):
    """After the 3.10 attempt, `make PYTHON=python3.11 simulate` must not keep the 3.10 .venv. (The old
    venv sees its Python's own pip, as one made by hand with pip in it would have.)"""
    subprocess.run([old_python, "-m", "venv", "--without-pip", "--system-site-packages", str(tmp_path / ".venv")],
                   check=True, timeout=120)
    make_simulator(tmp_path, sys.executable)
    version = subprocess.run([str(tmp_path / ".venv" / "bin" / "python"), "-c", "import sys; print(sys.version_info[:2])"],
                             capture_output=True, text=True, timeout=60).stdout.strip()
    assert version == str(sys.version_info[:2])


@pytest.mark.skipif(shutil.which("make") is None or shutil.which("git") is None or not (ROOT / ".git").exists()
                    or sys.prefix == sys.base_prefix, reason="make pi-offline needs make, git, a git checkout and "
                    "a virtualenv with pip (the suite's own is given as VENV)")
def test_make_pi_offlines_archive_carries_the_commit_it_was_made_from(tmp_path):
    """The Pi unpacks the archive without git: the commit is in it for install.sh and `controller --version`.
    No Python or architecture asked (PI_PYTHONS empty), so nothing is downloaded; a wheel put in its folder
    beforehand is packed as it would be."""
    checkout = tmp_path / "checkout"
    subprocess.run(["git", "clone", "--quiet", "--depth", "1", ROOT.as_uri(), str(checkout)], check=True, timeout=120)
    shutil.copy(ROOT / "Makefile", checkout)
    (checkout / "build/pi-wheels").mkdir(parents=True)
    (checkout / "build/pi-wheels/lgpio-0.2.2.0-cp313-cp313-linux_armv6l.whl").write_bytes(b"built on a Pi Zero")
    made = subprocess.run(["make", "-C", str(checkout), "pi-offline", "PI_PYTHONS=", "VENV=" + sys.prefix],
                          capture_output=True, text=True, timeout=300)
    assert made.returncode == 0, made.stderr
    commit = subprocess.run(["git", "-C", str(checkout), "rev-parse", "--short=7", "HEAD"], check=True,
                            capture_output=True, text=True, timeout=60).stdout.strip()
    with tarfile.open(checkout / "build/drnim-controller-pi.tar.gz") as archive:
        assert archive.extractfile("drnim-controller/controller/commit.txt").read().decode().strip() == commit
        assert "drnim-controller/wheels/lgpio-0.2.2.0-cp313-cp313-linux_armv6l.whl" in archive.getnames()
        assert "drnim-controller/systemd/install.sh" in archive.getnames()
