"""make test hands the test files to its workers in the suite's own order, the
longest first (tests/conftest.py's LONGEST_FIRST): started last, a long file
of a few tests keeps one worker busy while the others stand idle."""

import shutil
import subprocess
import sys

import pytest

from conftest import LONGEST_FIRST, ROOT

ORDERING_CONFTEST = """
import importlib.util

spec = importlib.util.spec_from_file_location("suite_conftest", %r)
suite = importlib.util.module_from_spec(spec)
spec.loader.exec_module(suite)
suite.LONGEST_FIRST[:] = ["test_long.py"]
pytest_collection_modifyitems = suite.pytest_collection_modifyitems
"""


def make_variable(name, **given):
    """A variable of the Makefile as make test sets it."""
    done = subprocess.run(["make", "-s", "--no-print-directory", "--eval", "show: ; @printf '%%s\\n' '$(%s)'" % name,
                           "show"] + ["%s=%s" % item for item in given.items()],
                          cwd=ROOT, capture_output=True, text=True, check=True)
    return done.stdout.strip()


@pytest.mark.skipif(shutil.which("make") is None, reason="make is missing (Debian: apt-get install make)")
def test_the_workers_take_the_longest_file_first_whatever_its_number_of_tests(tmp_path):
    """test_long.py, first in the suite's order, has one test; test_many.py three: xdist on its
    own would start test_many.py first (the files with the most tests first)."""
    (tmp_path / "conftest.py").write_text(ORDERING_CONFTEST % str(ROOT / "tests" / "conftest.py"))
    (tmp_path / "test_many.py").write_text("".join("def test_%d():\n    pass\n" % n for n in range(3)))
    (tmp_path / "test_long.py").write_text("def test_long():\n    pass\n")
    options = make_variable("PYTEST_PARALLEL", PYTEST_WORKERS=1).split()
    done = subprocess.run([sys.executable, "-m", "pytest", "-v", "-p", "no:cacheprovider", "--rootdir", str(tmp_path)]
                          + options + [str(tmp_path)], cwd=tmp_path, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    ran = [line.split()[-1].split("::")[0] for line in done.stdout.splitlines() if " PASSED " in line]
    assert ran == ["test_long.py", "test_many.py", "test_many.py", "test_many.py"], done.stdout[-2000:]


def test_every_file_the_suite_starts_first_is_a_test_file():
    """A file renamed or removed would keep its place in LONGEST_FIRST and order nothing, silently."""
    gone = [name for name in LONGEST_FIRST if not (ROOT / "tests" / name).is_file()]
    assert gone == [], ("tests/conftest.py's LONGEST_FIRST names %s, which tests/ does not hold: give the file's new "
                        "name there, or take it out (bench/suite_cpu.py prints each file's time, the longest first)"
                        % ", ".join(gone))
