"""What the service's install takes is what was checked to install on every Raspberry Pi OS a museum runs.

systemd/install.sh installs the controller with its pi and telemetry extras on Raspberry Pi OS bookworm
(Python 3.11) and trixie (Python 3.13), 64-bit (aarch64) and 32-bit (armv7l). A package that PyPI has as
a pure-Python wheel installs on all four; one with compiled code needs a wheel for each Python and
architecture, or a compiler and headers on the Pi. Each package below was checked (README, "Install the
service on a Raspberry Pi"); a new one, or one that stops being pure Python, fails here before a museum's
install does.
"""
import ast
import importlib.metadata
import tomllib

import pytest
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

from conftest import ROOT

PYPROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text())

# Every package the install takes, and how it installs on a Pi.
PURE_PYTHON = "a pure-Python wheel on PyPI: any Pi"
CHECKED = {
    "gpiozero": PURE_PYTHON,
    "colorzero": PURE_PYTHON,
    "pyserial": PURE_PYTHON,
    "paho-mqtt": PURE_PYTHON,
    "setuptools": PURE_PYTHON,
    "lgpio": "compiled: PyPI has wheels for Python 3.9 to 3.12 on aarch64 and armv7l; elsewhere (3.13) "
             "install.sh gets what pip builds it with from apt",
}

# The Pis' Pythons and architectures, as markers see them.
PIS = [{"python_version": python, "platform_machine": machine, "sys_platform": "linux",
        "platform_system": "Linux", "os_name": "posix", "implementation_name": "cpython"}
       for python in ("3.11", "3.13") for machine in ("aarch64", "armv7l")]

# Standard-library modules that Python 3.12 (PEP 632, 594's first) and 3.13 (PEP 594) removed.
REMOVED_FROM_PYTHON = {
    "distutils", "imp", "asynchat", "asyncore", "smtpd",
    "aifc", "audioop", "cgi", "cgitb", "chunk", "crypt", "imghdr", "lib2to3", "mailcap", "msilib", "nis",
    "nntplib", "ossaudiodev", "pipes", "sndhdr", "spwd", "sunau", "telnetlib", "uu", "xdrlib",
}


def the_install_takes():
    """The packages install.sh installs: the build's requirements, the dependencies and the pi and
    telemetry extras, with what each needs on any of the Pis (read from this virtualenv's copies)."""
    extras = PYPROJECT["project"]["optional-dependencies"]
    wanted = [Requirement(text) for text in PYPROJECT["build-system"]["requires"]
              + PYPROJECT["project"]["dependencies"] + extras["pi"] + extras["telemetry"]]
    found = set()
    while wanted:
        requirement = wanted.pop()
        name = canonicalize_name(requirement.name)
        if name in found or requirement.marker and not any(
                requirement.marker.evaluate(dict(pi, extra="")) for pi in PIS):
            continue
        found.add(name)
        try:
            wanted += [Requirement(text) for text in importlib.metadata.requires(name) or []]
        except importlib.metadata.PackageNotFoundError:
            pass
    return found


def test_the_install_takes_only_packages_checked_on_every_pi():
    unchecked = the_install_takes() - set(CHECKED)
    assert not unchecked, (
        "the Pi's install now takes %s: check that PyPI has it for Python 3.11 and 3.13 on aarch64 and armv7l "
        "(pip download --no-deps --only-binary=:all: --python-version 3.13 --platform manylinux_2_36_aarch64 "
        "--platform manylinux_2_34_aarch64 --platform manylinux_2_17_aarch64 --platform linux_armv7l ...: pip "
        "takes only the tags it is given), or what building it takes, and add it to CHECKED" % ", ".join(sorted(unchecked)))


@pytest.mark.parametrize("name", [name for name, how in CHECKED.items() if how == PURE_PYTHON])
def test_a_package_checked_as_pure_python_is_so_at_the_version_installed(name):
    """The version make installs (constraints.txt) is the one a Pi gets today: a release with compiled
    code would need a wheel for each Pi."""
    wheel = importlib.metadata.distribution(name).read_text("WHEEL")
    tags = [line.split(":", 1)[1].strip() for line in wheel.splitlines() if line.startswith("Tag:")]
    assert tags and all(tag.endswith("-none-any") for tag in tags), "%s: %s" % (name, tags)


def test_the_controller_imports_no_module_that_python_3_13_removed():
    """Trixie's Python is 3.13: an import of a module it removed stops the service at its start."""
    found = []
    for path in sorted((ROOT / "controller").rglob("*.py")):
        if "shipped" in path.relative_to(ROOT / "controller").parts:
            continue
        for node in ast.walk(ast.parse(path.read_bytes(), str(path))):
            if isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom) and not node.level:
                names = [node.module]
            else:
                continue
            found += ["%s:%d: %s" % (path.relative_to(ROOT), node.lineno, name)
                      for name in names if name.split(".")[0] in REMOVED_FROM_PYTHON]
    assert not found, "imports of modules Python 3.12 or 3.13 removed: " + ", ".join(found)
