"""The machine registry: one list of machines that every shell reads, each
machine importing only itself, and each declaring what the shells need."""

import json
import re
import subprocess
import sys

import pytest

from conftest import ROOT, run_micropython
from controller.cli import build_parser, build_simulate_parser
from controller.core.exhibit import BUTTON, SWITCH, ConfigError
from controller.core.registry import NAMES, UnknownMachine, machine_class
from controller.core.saves import state_rules
from controller.core.scenario import run
from controller.hardware.pinmap import default_pinmap_path, input_roles, load_pinmap, output_roles
from controller.service.config import load_config

LAZY = ("import sys\n"
        "from controller.core.registry import machine_class\n"
        "machine_class(sys.argv[1])\n"
        "print(sorted(m.split('.')[-1] for m in sys.modules if m.startswith('controller.core.')))\n")


@pytest.mark.parametrize("name", NAMES)
def test_a_machine_imports_only_itself(name, tmp_path, micropython):
    script = tmp_path / "lazy.py"
    script.write_text(LAZY)
    cpython = subprocess.run([sys.executable, str(script), name], capture_output=True, text=True, cwd=ROOT,
                             env={"PYTHONPATH": str(ROOT)}, timeout=60)
    micro = run_micropython(micropython, str(script), name)
    for result in (cpython, micro):
        assert result.returncode == 0, result.stderr
        loaded = json.loads(result.stdout.replace("'", '"'))
        assert name in loaded and not set(loaded) & (set(NAMES) - {name})


def test_an_unknown_machine_names_the_known_ones():
    with pytest.raises(UnknownMachine) as error:
        machine_class("chess")
    assert str(error.value) == "unknown machine 'chess' (known: %s)" % ", ".join(NAMES)


@pytest.mark.parametrize("name", NAMES)
def test_each_machine_declares_its_state_and_settings(name):
    cls = machine_class(name)
    machine = cls()
    assert cls.NAME == name and cls.TITLE
    kept, declared = set(machine.state), set(state_rules(cls).STATE)
    assert kept == declared, (
        "controller/core/%s_state.py's STATE lists every key of the machine's state, and only those: the state "
        "has %s, which STATE does not list, and STATE lists %s, which the state has not"
        % (name, sorted(kept - declared) or "nothing", sorted(declared - kept) or "nothing"))
    for key, setting in cls.SETTINGS.items():
        assert setting.check(key, setting.default) == setting.default
        if isinstance(setting.default, int) and not isinstance(setting.default, bool):
            assert setting.high is not None, "%s.%s has no upper bound" % (name, key)
            with pytest.raises(ConfigError, match=key):
                cls({key: setting.high + 1})


@pytest.mark.parametrize("name", NAMES)
def test_every_shell_knows_every_machine(name, tmp_path):
    parser = build_parser()
    assert parser.parse_args(["run", "--machine", name]).machine == name
    assert build_simulate_parser().parse_args(["--simulate", "--machine", name]).machine == name
    config = tmp_path / "config.toml"
    config.write_text('[service]\nmachine = "%s"\n[%s]\n' % (name, name))
    assert load_config(str(config)).machine_name == name
    pinmap = load_pinmap(default_pinmap_path(name), name)
    assert tuple(pinmap.inputs) == input_roles(name, pinmap.rows)
    assert tuple(pinmap.outputs) == tuple(output_roles(name))
    assert run("machine %s\nwait 1s" % name).failures == []


@pytest.mark.parametrize("name", NAMES)
def test_every_declared_input_gives_events_the_machine_knows(name):
    cls = machine_class(name)
    machine = cls()
    for spec in cls.inputs(machine.layout()):
        active, inactive = spec.events
        machine.handle(active, 1000)
        if inactive:
            machine.handle(inactive, 1100)
        if spec.kind == SWITCH:
            assert set(spec.positions.values()) == {True, False}
        assert spec.kind in (BUTTON, SWITCH) or inactive is None


# A list of machines written out: two of the registry's names side by side, apart only by a comma, a bar, a
# slash, "or" or "and" (quotes and brackets around them), such as ("drnim", "nimatron") or [drnim] or [nimatron].
SIDE_BY_SIDE = r"""[\s"'`\[\]]*(?:,|\||/|\bor\b|\band\b)[\s"'`\[\]]*"""


def written_out_lists(text):
    """The line numbers of `text` that write out a list of the registry's machines."""
    either = "|".join(map(re.escape, NAMES))
    pattern = re.compile(r"\b(%s)\b%s\b(%s)\b" % (either, SIDE_BY_SIDE, either))
    return [number for number, line in enumerate(text.splitlines(), 1)
            if any(found.group(1) != found.group(2) for found in pattern.finditer(line))]


def test_no_shell_writes_out_its_own_list_of_machines():
    """registry.NAMES is the one list of machines: a shell, a benchmark or a help text that wrote out its
    own left a third machine out without a word (the visitor cards' --machine refused it and `make catalogs`
    made it no card; the heap benchmarks never measured its board)."""
    assert written_out_lists('choices=("drnim", "nimatron")\n(its [drnim] or [nimatron] section)\n'
                             '--machine drnim|nimatron\n"drnim_turn", "nimatron"\n') == [1, 2, 3]
    files = [path for folder in ("controller", "firmware", "bench") for path in sorted((ROOT / folder).rglob("*.py"))
             if path != ROOT / "controller" / "core" / "registry.py" and "shipped" not in path.parts]
    files += [ROOT / "web" / "page.js", ROOT / "web" / "index.html", ROOT / "Makefile"]
    found = ["%s:%d" % (path.relative_to(ROOT), number) for path in files
             for number in written_out_lists(path.read_text(encoding="utf-8"))]
    assert found == [], "%s write out a list of machines: take it from controller/core/registry.py's NAMES, " \
        "or name one machine as an example" % ", ".join(found)


def page_table_keys(function):
    """The keys of the table that web/page.js's `function` looks a machine's name up in."""
    page = (ROOT / "web" / "page.js").read_text(encoding="utf-8")
    if "function %s(" % function not in page:
        return set()
    body = page[page.index("function %s(" % function):]
    body = body[:body.index("\n}\n")]
    return set(re.findall(r'(?:^|[{,]\s*)"?([\w-]+)"?:\s*_\(', body, re.M))


def test_every_machine_has_its_names_for_visitors():
    """The page named every machine but Dr. Nim "The Nimatron", so a third machine took the Nimatron's name
    on its button, its tab and its heading; a machine without its words on the cards had no card at all."""
    from controller.cards import WORDS
    for where, names in (("machineName in web/page.js", page_table_keys("machineName")),
                         ("machineHeading in web/page.js", page_table_keys("machineHeading")),
                         ("WORDS in controller/cards.py", set(WORDS))):
        assert names == set(NAMES), "%s names %s, the registry %s: give each machine its line there, then make " \
            "catalogs and translate it (DEVELOPERS.md, 'Adding a machine')" % (where, sorted(names), sorted(NAMES))


def test_every_machine_has_its_build_and_its_screws():
    """A machine added to the registry without its [build] defaults and screws made every pin map of it
    fail to load with a bare KeyError (found by a contributor adding a third machine)."""
    from controller.hardware.pinmap import build
    tables = (("DEFAULTS", build.DEFAULTS), ("SCREWS", build.SCREWS))
    lacking = [(name, table) for name in NAMES for table, known in tables if name not in known]
    assert lacking == [], "add each machine's entry to controller/hardware/pinmap/build.py: %r" % lacking

