"""The bench scripts run rarely (`make bench`, or by hand for a long run), so
a change to a module they use can break them unseen: bench/frozen_heap.py
and bench/firmware_soak.py once called functions bench/firmware_heap.py no
longer had, and failed only when someone ran them. So every name a bench
script takes from the project or from another bench script (`from M import
name`, `module.name`) must exist, checked here without running the benches.
"""

import ast
import importlib

import pytest

from conftest import ROOT

BENCH = ROOT / "bench"
# Where the bench scripts find their modules (each puts these on sys.path).
PLACES = (ROOT, BENCH, ROOT / "tests" / "mpy")


def ours(module):
    """True for the project's modules and the bench's own, the ones whose names are checked."""
    top = module.split(".")[0]
    return top == "controller" or any((place / (top + ".py")).is_file() for place in PLACES[1:])


def missing_names(path):
    """The names `path` takes from our modules that those modules do not have, as 'line N: M.name'."""
    tree = ast.parse(path.read_text())
    aliases, missing = {}, []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                if ours(alias.name):
                    aliases[alias.asname or alias.name.split(".")[0]] = alias.name if alias.asname else \
                        alias.name.split(".")[0]
        elif isinstance(node, ast.ImportFrom) and not node.level and ours(node.module):
            module = importlib.import_module(node.module)
            for alias in node.names:
                if hasattr(module, alias.name):
                    continue
                try:
                    importlib.import_module(node.module + "." + alias.name)
                except ImportError:
                    missing.append("line %d: %s.%s" % (node.lineno, node.module, alias.name))
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id in aliases:
            name = aliases[node.value.id]
            if not hasattr(importlib.import_module(name), node.attr):
                missing.append("line %d: %s.%s" % (node.lineno, name, node.attr))
    return missing


@pytest.mark.parametrize("script", sorted(path.name for path in BENCH.glob("*.py")))
def test_a_bench_script_uses_only_names_that_exist(script, monkeypatch):
    for place in reversed(PLACES):
        monkeypatch.syspath_prepend(str(place))
    assert missing_names(BENCH / script) == []


@pytest.mark.parametrize("script", sorted(path.name for path in BENCH.glob("*.py")))
def test_a_bench_script_takes_a_commands_arguments_from_its_parser(script):
    """bench/bench_assembly.py made `controller hardware check`'s arguments by hand (argparse.Namespace), and
    failed on the first run of `make bench` once the command had another (--hardware), which no test saw. A
    bench script gets them from controller.cli's parser, which always has them all."""
    assert "argparse.Namespace(" not in (BENCH / script).read_text()
