"""docs/troubleshooting.md, the technician's page: every fault the code can report has its row,
every command it gives is one the controller takes, every message it quotes is one the code says,
and the pages a technician opens first lead to it."""

import re
import shlex

import pytest

from conftest import ROOT

DOC = ROOT / "docs" / "troubleshooting.md"

# Where a fault is named in the code, and how: the service's own, the statistics' kinds, the
# machine's, the board's.
SOURCES = {
    "controller/service/daemon.py": [r'service_fault\("([a-z-]+)"', r'fault_seen\("([a-z-]+)"',
                                     r'faults\["([a-z-]+)"\] =', r'"([a-z]+):" \+ role'],
    "controller/core/drnim.py": [r's\["fault"\] = "([a-z-]+)"', r'return \{"([a-z-]+)": self\.'],
    "controller/core/exhibit.py": [r'self\.state\["fault"\] = "([a-z-]+)"'],
    "firmware/runner.py": [r'self\.fault\("([a-z-]+)"'],
    "firmware/app.py": [r'fault\("([a-z-]+)"', r'"fault": "([a-z-]+)"'],
    "firmware/held.py": [r'"fault": "([a-z-]+)"'],
}


def fault_kinds():
    kinds = set()
    for path, patterns in SOURCES.items():
        text = (ROOT / path).read_text()
        for pattern in patterns:
            for kind in re.findall(pattern, text):
                kinds.add(kind + ":<input>" if pattern.endswith(r"\+ role") else kind)
    return kinds


def test_every_fault_the_code_reports_has_its_row():
    kinds = fault_kinds()
    assert kinds >= {"jam", "check", "extra-marble", "damaged-save", "stuck:<input>", "noisy:<input>", "storage",
                     "statistics", "status-file", "telemetry", "resets", "crash", "link"}, kinds
    doc = DOC.read_text()
    missing = sorted(kind for kind in kinds if "`%s`" % kind not in doc)
    assert missing == [], "docs/troubleshooting.md says nothing of %s: add what it means and what to do" % missing


# Where a command's arguments end on a line that goes on in the shell (a cron line that pipes the output on).
SHELL_OPERATORS = {"|", "||", "&&", ";", ">", ">>", "<", "2>&1"}


def commands():
    """Every `controller ...` of the page's ```sh blocks, as its arguments (up to a pipe or the like)."""
    for block in re.findall(r"^```sh\n(.*?)^```$", DOC.read_text(), re.M | re.S):
        for line in block.splitlines():
            words = shlex.split(line, comments=True)
            for at, word in enumerate(words):
                if word.endswith("/controller"):
                    given = words[at + 1:]
                    ends = [place for place, token in enumerate(given) if token in SHELL_OPERATORS]
                    yield line, given[:ends[0]] if ends else given


@pytest.mark.parametrize("line,argv", list(commands()))
def test_every_command_it_gives_is_one_the_controller_takes(line, argv):
    from controller.cli import build_parser
    try:
        build_parser().parse_args(argv)
    except SystemExit:
        pytest.fail("docs/troubleshooting.md: the controller does not take %r" % line)


def test_every_message_it_quotes_is_one_the_code_says():
    from controller.language.messages import MESSAGES
    said = set()
    for english in MESSAGES.values():
        said.update(english[:2] if isinstance(english, tuple) else [english])
    quoted = [" ".join(text.split()) for text in re.findall(r"`([A-Z][^`]*[^.]\.)`", DOC.read_text())]
    assert quoted and [text for text in quoted if text not in said] == []


def test_the_pages_a_technician_opens_first_lead_to_it():
    assert "docs/troubleshooting.md" in (ROOT / "README.md").read_text()
    for machine in ("drnim", "nimatron"):
        section = (ROOT / "hardware" / machine / "README.md").read_text().split("## Troubleshooting")[1]
        assert "../../docs/troubleshooting.md" in section.split("\n## ")[0], machine
