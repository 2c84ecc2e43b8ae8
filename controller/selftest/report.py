"""The self-test's results: one line per check, printed at the end and saved
as a small JSON file next to the statistics (the service's state folder),
so that a technician can compare today's bring-up with last month's."""

import json
import os
import textwrap
import time

from controller.hardware.pinmap import HEADER
from controller.service.store import untaken

PASS = "pass"
FAIL = "fail"
SKIP = "skip"

# The printed report fits an 80-column terminal (an ssh window, the Pi's own console): a long check goes on
# below its own start, the result and stage columns left clear, where the terminal would have cut words.
WIDTH = 79
CHECK_COLUMN = 19


def where(pins):
    """BCM numbers with their header pins, for a technician with a multimeter."""
    return ", ".join("BCM %d (header pin %d)" % (pin, HEADER[pin]) for pin in pins)


def fitted(line, indent):
    """`line` in lines of at most WIDTH columns, each after the first indented by `indent`; a word longer
    than that (a path) is kept whole."""
    return textwrap.wrap(line, WIDTH, subsequent_indent=" " * indent, break_long_words=False,
                         break_on_hyphens=False)


def shown(text):
    """`text` (what the self-test tells the technician) fitted to WIDTH columns."""
    return "\n".join(fitted(text, 0)) or text


def asking(text, choices):
    """A question and its answers (`[y/n/s]`) fitted to WIDTH columns, the answers kept whole on the
    last line, where the technician types."""
    lines = fitted(text, 0) or [""]
    if len(lines[-1]) + 1 + len(choices) > WIDTH:
        lines.append(choices)
    else:
        lines[-1] += " " + choices
    return "\n".join(lines) + " "


class Report:
    def __init__(self, machine, pinmap_path, simulated, clock=time.time):
        self.machine = machine
        self.pinmap_path = str(pinmap_path)
        self.simulated = simulated
        self.started = clock()
        self.checks = []       # {"stage", "check", "result", "detail"}
        self.figures = {}      # measured figures by name, such as release_to_sensor_ms

    def add(self, stage, check, result, detail=""):
        self.checks.append({"stage": stage, "check": check, "result": result, "detail": detail})

    def skip_stage(self, stage, why):
        self.add(stage, "(the whole stage)", SKIP, why)

    @property
    def passed(self):
        """No check failed, and one passed at least: a run with every stage skipped tested nothing."""
        return self.count(PASS) > 0 and self.count(FAIL) == 0

    def count(self, result):
        return sum(1 for check in self.checks if check["result"] == result)

    def lines(self):
        """The report as a technician reads it: each check, then the verdict."""
        lines = fitted("Self-test report: %s, pin map %s%s" % (self.machine, self.pinmap_path,
                                                            " (simulated)" if self.simulated else ""), 2)
        for check in self.checks:
            line = "  %-4s  %-10s %s" % (check["result"].upper(), check["stage"], check["check"])
            lines.extend(fitted(line + (": " + check["detail"] if check["detail"] else ""), CHECK_COLUMN))
        verdict = "PASSED" if self.passed else "FAILED" if self.count(FAIL) else "NOTHING TESTED"
        lines.append("%s: %d passed, %d failed, %d skipped" % (
            verdict, self.count(PASS), self.count(FAIL), self.count(SKIP)))
        return lines

    def to_dict(self):
        return {"machine": self.machine, "pin_map": self.pinmap_path, "simulated": self.simulated,
                "started": time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(self.started)),
                "passed": self.passed, "checks": self.checks, "figures": self.figures}

    def save(self, folder):
        """Write the report as selftest-YYYYmmdd-HHMMSS.json in `folder` (a simulated one as
        selftest-simulated-..., so that a technician tells it from the board's); its path.
        OSError (no such folder, no permission) is the caller's."""
        os.makedirs(folder, exist_ok=True)
        name = "selftest-simulated-" if self.simulated else "selftest-"
        path = untaken(os.path.join(folder, name), self.started, ".json")
        with open(path, "x", encoding="utf-8") as f:
            json.dump(self.to_dict(), f, indent=1)
            f.write("\n")
        return path
