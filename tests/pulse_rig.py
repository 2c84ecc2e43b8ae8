"""The real service loop on file-backed mock pins (file_pins.py), hung in the
middle of a release pulse, for the kill test in test_systemd.py.

The rig presses the trigger; when the release pin goes active (its level
already in its file), it prints RELEASED and holds the loop there for good:
a loop hung in a pulse, as systemd's watchdog finds it before it kills it.
The test then kills this process and runs the unit's ExecStopPost= command.

Usage: pulse_rig.py CONFIG   (with DRNIM_PIN_FOLDER set)
"""

import sys
import threading

from file_pins import FileFactory, FilePin
from controller.hardware.pinmap import default_pinmap_path, load_pinmap
from controller.service.config import load_config
from controller.service.daemon import Service
from controller.service.notify import Notifier


class HungPin(FilePin):
    def _change_state(self, value):
        changed = super()._change_state(value)
        if changed and value:
            print("RELEASED", flush=True)
            threading.Event().wait()
        return changed


def main(config_path):
    config = load_config(config_path)
    pinmap = load_pinmap(default_pinmap_path(config.machine_name))
    factory = FileFactory()
    factory.pin(pinmap.outputs["release"].pin, pin_class=HungPin)
    service = Service(config, pinmap, pin_factory=factory, notifier=Notifier({}), log=lambda text: None)
    service.start()
    factory.pin(pinmap.inputs["trigger"].pin).drive_low()
    while True:
        service.step()


if __name__ == "__main__":
    main(sys.argv[1])
