"""gpiozero mock pins whose levels outlive the process, for the kill test.

A real GPIO line keeps the level a killed process left on it (on Raspberry Pi
OS without `dtparam=strict_gpiod`); gpiozero's MockPin forgets everything when
its process ends. A `FilePin` writes its level to a file in $DRNIM_PIN_FOLDER
on every change and reads it back when it is made, so a second process (the
unit's `controller safe-off`) finds the pin the first left on.

`FileFactory` is gpiozero's MockFactory making FilePins. `environment()`
registers it as a gpiozero pin-factory entry point, the way a third-party
backend is installed (a *.dist-info folder on the path), so that the real
`controller` command picks it with GPIOZERO_PIN_FACTORY=drnim-file-pins.
"""

import os
from pathlib import Path

from gpiozero.pins.mock import MockFactory, MockPWMPin

FOLDER = "DRNIM_PIN_FOLDER"
NAME = "drnim-file-pins"
TESTS = Path(__file__).resolve().parent


def level_path(folder, name):
    return Path(folder) / name


def level(folder, bcm):
    """The level a process last left on BCM pin `bcm` (None: never driven)."""
    path = level_path(folder, "GPIO%d" % bcm)
    return float(path.read_text()) if path.exists() else None


class FilePin(MockPWMPin):
    def __init__(self, factory, info):
        super().__init__(factory, info)
        self.path = level_path(os.environ[FOLDER], info.name)
        if self.path.exists():
            self._state = float(self.path.read_text())
            self.clear_states()

    def _change_state(self, value):
        changed = super()._change_state(value)
        if changed:
            temporary = self.path.with_suffix(".new")
            temporary.write_text(repr(float(value)))
            os.replace(temporary, self.path)
        return changed


class FileFactory(MockFactory):
    def __init__(self):
        super().__init__(pin_class=FilePin)


def environment(folder):
    """The environment for a process on file pins in `folder`: the entry point
    registered, this folder on PYTHONPATH, GPIOZERO_PIN_FACTORY naming it."""
    pins = Path(folder) / "pins"
    site = Path(folder) / "site"
    dist = site / "drnim_file_pins-1.dist-info"
    pins.mkdir(parents=True)
    dist.mkdir(parents=True)
    (dist / "METADATA").write_text("Metadata-Version: 2.1\nName: %s\nVersion: 1\n" % NAME)
    (dist / "entry_points.txt").write_text("[gpiozero_pin_factories]\n%s = file_pins:FileFactory\n" % NAME)
    path = os.pathsep.join([str(site), str(TESTS)] + [p for p in [os.environ.get("PYTHONPATH")] if p])
    return dict(os.environ, PYTHONPATH=path, GPIOZERO_PIN_FACTORY=NAME, **{FOLDER: str(pins)})
