"""The gpiozero pin factories the service may run on: lgpio (any Pi, the only one on a Pi 5),
rpigpio (older Pis), mock (tests). A module of its own so that the command line's
--pin-factory can name them without loading the configuration's checks and gpiozero."""

import importlib.util
import re

PIN_FACTORIES = ("lgpio", "rpigpio", "mock")

# The board's name as its device tree gives it ("Raspberry Pi 5 Model B Rev 1.0"); no such file
# on a computer that is not a Pi.
BOARD_MODEL = "/proc/device-tree/model"
# The boards whose header is on the RP1 chip, which RPi.GPIO cannot reach: the Pi 5, the Pi 500, the CM5.
RP1_BOARDS = re.compile(r"Raspberry Pi (5|500|Compute Module 5)\b")


def board_model():
    """This computer's board, as its device tree names it, or "" where it names none."""
    try:
        with open(BOARD_MODEL, "rb") as model:
            return model.read().split(b"\0")[0].decode("ascii", "replace").strip()
    except OSError:
        return ""


def pin_factory_problem(name):
    """Why the backend `name` cannot drive this board's pins, or None. RPi.GPIO cannot reach a
    Pi 5's RP1 chip, so an rpigpio service there (an older guide's setting) fails at start."""
    if name != "rpigpio":
        return None
    model = board_model()
    if RP1_BOARDS.match(model):
        return ("'rpigpio' cannot work on this %s (RPi.GPIO cannot reach its RP1 GPIO chip): "
                "set it to \"lgpio\"" % model)
    # On a Pi, where the service runs: a venv made again by an update (the pi extra has not brought
    # RPi.GPIO since lgpio became the default) has none, and the service would then fail at its start.
    if model and importlib.util.find_spec("RPi") is None:
        return ("'rpigpio' needs RPi.GPIO, which this install does not have: set it to \"lgpio\" (every Pi), "
                "or compile it into the controller's venv: sudo /opt/drnim-controller/venv/bin/pip install RPi.GPIO")
    return None
