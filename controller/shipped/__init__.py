"""The files the controller ships beside its code, wherever it is installed.

The repository keeps them where their readers look for them, at its top
level: the Pico's firmware in firmware/, the web page in web/, each
machine's pin map in hardware/<machine>/pinmap.toml, the scenario scripts in
tests/scenarios/. This package holds links to those folders (so a checkout,
or an editable install, reads them in place), and the wheel and the sdist
carry the files themselves here (pyproject.toml's package-data says which).
Every command finds them through importlib.resources, never through a path
relative to a checkout, so an installed wheel (`pipx install`) can build the
firmware, build the page and play the scenarios from any folder.

They must be files on disk (mpy-cross, micropython and npm read them by
path): a wheel installed by pip or pipx always is.
"""

from importlib.resources import files
from pathlib import Path


class NotOnDisk(RuntimeError):
    """The package was imported from somewhere the shipped files are not plain files (a zip)."""


# The links this package holds to the repository's folders (LICENSE is a file either way).
LINKS = ("firmware", "hardware", "scenarios", "web")


def path(*parts):
    """The path of a shipped file or folder, such as path("firmware") or path("web", "index.html"):
    the file itself, so that in a checkout a message names the file to edit, not its link."""
    found = files(__name__)
    for part in parts:
        found = found / part
    if not isinstance(found, Path):
        raise NotOnDisk("the controller's files are not on disk (%s): install the package with pip or pipx" % found)
    if parts and parts[0] in LINKS and (files(__name__) / parts[0]).is_file():
        raise NotOnDisk(
            "the controller's own files are missing: %s is a small file where a link to the repository's %s "
            "folder belongs (a clone made by Git for Windows without symbolic links, and a package built from it): "
            "clone again with `git clone -c core.symlinks=true` (Windows: Developer Mode on) and install from that "
            "clone (README, \"Try it\")" % (files(__name__) / parts[0], parts[0]))
    return found.resolve()


def package_folder(name="controller"):
    """The folder of an installed package of ours, such as controller.core, as a path on disk."""
    found = files(name)
    if not isinstance(found, Path):
        raise NotOnDisk("the controller's files are not on disk (%s): install the package with pip or pipx" % found)
    return found


def in_checkout():
    """Whether these are the repository's own files (this package's links, in a checkout or an editable
    install) rather than copies installed with the package, which nothing may write into."""
    return (files(__name__) / "hardware").is_symlink()


def firmware():
    """firmware/: the Pico's MicroPython sources, with emulator/ for the emulated board."""
    return path("firmware")


def firmware_readme():
    """The firmware's README as a message names it: firmware/README.md in a checkout, where its reader
    stands; the installed copy's path otherwise (a wheel has no firmware/ folder to look in)."""
    return "firmware/README.md" if in_checkout() else str(path("firmware", "README.md"))


def web():
    """web/: the page's files, and package.json and package-lock.json, which pin its MicroPython port."""
    return path("web")


def hardware():
    """hardware/: the design files (.scad) and the parts lists, which controller hardware check reads."""
    return path("hardware")


def pinmap(machine):
    """The pin map `machine` ships with (hardware/<machine>/pinmap.toml)."""
    return path("hardware", machine, "pinmap.toml")


def scenarios():
    """The scenario scripts (tests/scenarios/): every behaviour of docs/machines.md, and the policies."""
    return sorted(script for script in path("scenarios").iterdir() if script.suffix in (".txt", ".sim"))


def licence():
    """The software's licence (LICENSE), which the built web page carries."""
    return path("LICENSE")
