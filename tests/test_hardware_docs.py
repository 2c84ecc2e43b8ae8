"""The commands the hardware guides (hardware/**/*.md) give, as a reader copies them: the parts
folders' blocks run one after the other from the repository's top folder, each file they name
where the shell then is, and what they render left out of git; and a checkout's Python is the
virtualenv's."""

import re
import shlex
import subprocess

import pytest

from conftest import ROOT
from controller.core.registry import NAMES as MACHINES

DOCS = sorted((ROOT / "hardware").rglob("*.md"))


def blocks(doc):
    """The shell commands of each ```sh block of a Markdown file, one list per block."""
    found = re.findall(r"^```sh\n(.*?)^```$", doc.read_text(encoding="utf-8"), re.M | re.S)
    return [[line for line in block.splitlines() if line.strip()] for block in found]


def commands(line):
    """The commands of one shell line (split at &&), each as its words, comments left out."""
    words = shlex.split(line, comments=True)
    out, current = [], []
    for word in words:
        if word == "&&":
            out.append(current)
            current = []
        else:
            current.append(word)
    return out + [current] if current else out


def ignored(path):
    return subprocess.run(["git", "check-ignore", "--no-index", "-q", str(path)], cwd=ROOT).returncode == 0


@pytest.mark.parametrize("machine", MACHINES)
def test_the_parts_readmes_commands_run_in_order_from_the_top_folder(machine):
    here, before = ROOT, ROOT
    for block in blocks(ROOT / "hardware" / machine / "parts" / "README.md"):
        for line in block:
            for words in commands(line):
                if words[0] == "cd":
                    here, before = (before, here) if words[1:] == ["-"] else (here / words[1], here)
                    assert here.is_dir(), line
                    continue
                for at, word in enumerate(words):
                    if word.endswith((".scad", ".py")) and not word.startswith("-"):
                        assert (here / word).is_file(), "%s: %s is not in %s" % (line, word, here)
                    if word == "-o" and words[at + 1].endswith(".stl"):
                        made = here / words[at + 1]
                        assert ignored(made.relative_to(ROOT)), "%s: git would list %s" % (line, made)
    assert here == ROOT, "the last block leaves the shell in %s" % here


def test_a_checkouts_python_is_the_virtualenvs():
    bare = ["%s: %s" % (doc.relative_to(ROOT), line) for doc in DOCS
            for line in doc.read_text(encoding="utf-8").splitlines() if re.search(r"(^|[\s`(])python -m ", line)]
    assert bare == []

