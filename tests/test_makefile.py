"""The Makefile as a newcomer meets it, before anything is installed."""

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


@pytest.mark.skipif(shutil.which("make") is None, reason="make is missing (Debian: apt-get install make)")
def test_a_venv_left_without_pip_gets_pip_at_the_next_make(tmp_path):
    """Debian's python3 without its python3-venv package makes the .venv folder, then stops, saying to
    install python3-venv. After that install, the next `make simulate` must work: it had kept the .venv
    it found and failed in it with "No module named pip" until the folder was deleted by hand."""
    for name in ("Makefile", "pyproject.toml", "constraints.txt"):
        shutil.copy(ROOT / name, tmp_path)
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(tmp_path / ".venv")], check=True, timeout=120)
    # No index: the project's own install then fails at once here, with no network; what is asked is
    # whether pip was there to try it.
    subprocess.run(["make", "-C", str(tmp_path), ".venv/.simulator", "PYTHON=" + sys.executable],
                   env=dict(os.environ, PIP_NO_INDEX="1"), capture_output=True, text=True, timeout=300)
    has_pip = subprocess.run([str(tmp_path / ".venv" / "bin" / "python"), "-m", "pip", "--version"],
                             capture_output=True, text=True, timeout=120)
    assert has_pip.returncode == 0, has_pip.stderr
