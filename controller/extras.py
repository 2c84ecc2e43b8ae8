"""The controller's optional parts (pyproject.toml's extras) and the command that adds
one to the Python the controller runs in.

A message about a missing part names that very Python (a checkout's .venv, a pipx
environment, the Pi's /opt/drnim-controller/venv) and the extra's requirements as
the installed package lists them: the controller is installed from its folder, not
from PyPI, so `pip install 'drnim-controller[telemetry]'` would find nothing.
"""

import importlib
import os
import shlex
import sys
from importlib import metadata
from pathlib import Path

DISTRIBUTION = "drnim-controller"


def requirements(extra):
    """The extra's requirements as pip takes them, each with its other markers (a platform), from the
    installed package's metadata; [] when the controller runs from files pip did not install."""
    try:
        required = metadata.distribution(DISTRIBUTION).requires or []
    except metadata.PackageNotFoundError:
        return []
    clause = 'extra == "%s"' % extra
    found = []
    for spec in required:
        name, _, marker = (part.strip() for part in spec.partition(";"))
        if marker == clause:
            found.append(name)
        elif marker.endswith(" and " + clause):
            found.append("%s; %s" % (name, marker[:-len(" and " + clause)]))
    return found


def install_command(extra):
    """The command that installs `extra` into the Python running this (with sudo where that
    Python's folder is not the user's to write, as the Pi's is not)."""
    wanted = requirements(extra)
    if not wanted:
        return "pip install -e '.[%s]' in the controller's folder" % extra
    prefix = Path(sys.prefix)
    if prefix.parent.name == "venvs" and "pipx" in prefix.parent.parent.parts[-2:]:
        # pipx's own venv (a laptop's install): pipx adds to it, in any shell, with no path to quote
        return " ".join(shell_word(word) for word in ["pipx", "inject", prefix.name] + wanted)
    sudo = "" if os.access(sys.prefix, os.W_OK) or sys.platform == "win32" else "sudo "
    return sudo + " ".join(shell_word(word) for word in [sys.executable, "-m", "pip", "install"] + wanted)


# What cmd.exe or PowerShell reads as more than a letter of a word: such a word goes in double quotes there.
WINDOWS_SPECIAL = set(" \t<>|&^,;(){}@$'\"`%")


def shell_word(word):
    """`word` as this computer's shell reads it: quoted as a POSIX shell reads it, or on Windows in double
    quotes where cmd.exe or PowerShell would read something else (a requirement's < is a redirection there,
    and neither reads a POSIX shell's single quotes)."""
    if sys.platform != "win32":
        return shlex.quote(word)
    return '"%s"' % word if WINDOWS_SPECIAL & set(word) else word


def lacking(extra, module):
    """None when `module` imports, else `missing`'s line: what a command checks before it opens anything."""
    try:
        importlib.import_module(module)
    except ImportError as error:
        return missing(extra, error)
    return None


def missing(extra, error):
    """One line: the module an ImportError names is missing, and how to add it."""
    name = getattr(error, "name", None) or str(error)
    return "%s is missing (the '%s' extra): %s" % (name, extra, install_command(extra))
