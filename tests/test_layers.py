"""The layers import downward only: no module under controller/ or firmware/
imports one in a layer above its own (docs/design.md's layers, LAYERS here),
nor one that imports it back, directly or through others.

Every import statement counts, at the top of a module or inside a function
(a lazy import is still an import). `from package import name` counts as an
import of the submodule when `name` is one, else of the package itself.
firmware/'s modules import each other by their plain names, as the board
finds them (firmware/ and, on the host, firmware/emulator/). Not counted:
the registries that load a module named in a table (`registry.MACHINES`,
`rules.ELSEWHERE`, `solve.FAMILIES`, the historic players), whose modules
depend on the registry and never the other way round.
"""

import ast
import functools
import os

import pytest

from conftest import ROOT

PACKAGE = ROOT / "controller"
FIRMWARE = ROOT / "firmware"
# Where the board (and the emulated board) finds firmware/'s modules by plain name.
FIRMWARE_PATH = (FIRMWARE, FIRMWARE / "emulator")


def package_modules():
    """controller's modules by dotted name -> their file."""
    modules = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        if path.relative_to(PACKAGE).parts[0] == "shipped" and path.name != "__init__.py":
            continue    # links to the files the wheel ships (firmware/, web/), not the package's own modules
        parts = list(path.relative_to(ROOT).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        modules[".".join(parts)] = path
    return modules


def firmware_modules():
    """firmware/'s modules by the name a board imports them with -> their file."""
    modules = {}
    for folder in FIRMWARE_PATH:
        for path in sorted(folder.glob("*.py")):
            modules.setdefault(path.stem, path)
    return modules


MODULES = package_modules()
BOARD_MODULES = firmware_modules()


def imported(name, path, node, board):
    """The modules one import statement of module `name` (at `path`) names, as graph keys."""
    found = []
    if isinstance(node, ast.Import):
        targets = [alias.name for alias in node.names]
        names = [None] * len(targets)
    else:
        if node.level:
            base = name.split(".")
            if path.name != "__init__.py":
                base.pop()
            base = base[:len(base) - node.level + 1]
            module = ".".join(base + ([node.module] if node.module else []))
        else:
            module = node.module
        targets = [module] * len(node.names)
        names = [alias.name for alias in node.names]
    for target, member in zip(targets, names):
        if member is not None and ("%s.%s" % (target, member)) in MODULES:
            found.append("%s.%s" % (target, member))
        elif target in MODULES:
            found.append(target)
        elif board and target in BOARD_MODULES:
            found.append("firmware:" + target)
    return found


def graph():
    """Each module -> the modules it imports (controller's by dotted name, firmware's as firmware:NAME)."""
    edges = {}
    for name, path in MODULES.items():
        edges[name] = module_imports(name, path, board=False)
    for name, path in BOARD_MODULES.items():
        edges["firmware:" + name] = module_imports(name, path, board=True)
    return edges


@functools.lru_cache(maxsize=None)
def import_statements(text, filename):
    """The import statements of a module's text. Parsed once for all the file's tests (each builds the
    graph afresh; parsing every module is most of its time); a file changed, or a test's own, is parsed anew."""
    return tuple(node for node in ast.walk(ast.parse(text, filename)) if isinstance(node, (ast.Import, ast.ImportFrom)))


def module_imports(name, path, board):
    found = set()
    for node in import_statements(path.read_text(), str(path)):
        found.update(imported(name, path, node, board))
    found.discard("firmware:" + name if board else name)
    return found


def cycles(edges):
    """Every set of modules that import one another round in a circle (Tarjan's
    strongly connected components of more than one module)."""
    index, low, stack, on_stack, found = {}, {}, [], set(), []

    def visit(node):
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for other in sorted(edges.get(node, ())):
            if other not in index:
                visit(other)
                low[node] = min(low[node], low[other])
            elif other in on_stack:
                low[node] = min(low[node], index[other])
        if low[node] == index[node]:
            component = []
            while True:
                other = stack.pop()
                on_stack.discard(other)
                component.append(other)
                if other == node:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for node in sorted(edges):
        if node not in index:
            visit(node)
    return found


def circle(edges, component):
    """One path round a cycle, for the message: [a, b, ..., a]."""
    members = set(component)
    start = component[0]
    path, seen = [start], {start}
    node = start
    while True:
        following = sorted(other for other in edges[node] if other in members)
        back = [other for other in following if other == start]
        if back and len(path) > 1:
            return path + [start]
        node = next((other for other in following if other not in seen), following[0])
        if node in seen:
            return path + [node]
        path.append(node)
        seen.add(node)


def import_site(importer, target):
    """Where module `importer` first imports `target`: its file and line."""
    board = importer.startswith("firmware:")
    name = importer.split(":")[-1]
    path = BOARD_MODULES[name] if board else MODULES[name]
    lines = [node.lineno for node in import_statements(path.read_text(), str(path))
             if target in imported(name, path, node, board)]
    return "%s:%d" % (os.path.relpath(path, ROOT), min(lines))


def explained(edges, path):
    """A cycle as a contributor fixes it: each import in it, and what to do."""
    steps = ["%s imports %s (%s)" % (importer, target, import_site(importer, target))
             for importer, target in zip(path, path[1:])]
    return ("%s: %s. Move what they share down into a small module both import; a module loaded by its "
            "name in a registry's table is loaded with __import__, as registry.py does (DEVELOPERS.md, "
            "'Layers')" % (" -> ".join(path), "; ".join(steps)))


def test_no_module_imports_one_that_imports_it_back():
    edges = graph()
    found = [explained(edges, circle(edges, component)) for component in cycles(edges)]
    assert not found, "modules that import each other: " + "\n".join(found)


def test_the_graph_sees_the_imports_it_must():
    """The test above can fail: it sees a relative, an absolute, a lazy and a board import."""
    edges = graph()
    assert "controller.core.rules" in edges["controller.core.families"]          # from .rules import ...
    assert "controller.core.saves" in edges["controller.core.exhibit"]           # inside a function
    assert "controller.arguments" in edges["controller.firmware.command"]        # absolute
    assert "controller.hardware.pinmap.electrical" in edges["controller.hardware.pinmap.check"]  # a submodule
    assert "firmware:runner" in edges["firmware:app"] and "controller.core.protocol" in edges["firmware:app"]
    assert cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]


def test_a_cycle_is_said_with_the_line_of_each_import_in_it_and_what_to_do(monkeypatch, tmp_path):
    """rules.py importing families.py back, as a contributor might: the message names both lines (the
    one cycle made here, whatever else a change under way has made or moved)."""
    rules = tmp_path / "rules.py"
    rules.write_text('"""Rules."""\n\nfrom .families import Subtraction\n')
    monkeypatch.setitem(MODULES, "controller.core.rules", rules)
    edges = graph()
    found = [explained(edges, circle(edges, component)) for component in cycles(edges)
             if "controller.core.rules" in component]
    families = MODULES["controller.core.families"].read_text().splitlines()
    line = next(number for number, text in enumerate(families, 1) if text.startswith("from .rules import "))
    assert found == ["controller.core.families -> controller.core.rules -> controller.core.families: "
                     "controller.core.families imports controller.core.rules (controller/core/families.py:%d); "
                     "controller.core.rules imports controller.core.families (%s:3). Move what they share down "
                     "into a small module both import; a module loaded by its name in a registry's table is "
                     "loaded with __import__, as registry.py does (DEVELOPERS.md, 'Layers')"
                     % (line, os.path.relpath(rules, ROOT))]


# docs/design.md's layers, from the bottom up: a module's layer is the first whose prefixes match its
# name (the daemon's own part of telemetry/ and sim/ sits with the service), the shells' by default.
LAYERS = (
    ("the core", ("controller.core",)),
    ("firmware/", ("firmware:",)),
    ("what many use", ("controller.shipped", "controller.cache", "controller.extras", "controller.printable",
                       "controller.built")),
    ("the language", ("controller.language",)),
    ("the hardware", ("controller.hardware",)),
    ("the service", ("controller.service", "controller.telemetry.settings", "controller.telemetry.live",
                     "controller.telemetry.payloads", "controller.telemetry.outbox",
                     "controller.telemetry.publisher", "controller.telemetry.client", "controller.sim.pins")),
    ("arguments.py", ("controller.arguments",)),
    ("the shells", ()),
    ("cli.py", ("controller.cli", "controller.__main__")),
)


def layer(module):
    """The index in LAYERS of a module's layer (the package's own __init__, the version, is with what
    many use)."""
    if module == "controller":
        return 2
    for place, (_, prefixes) in enumerate(LAYERS):
        if any(module == prefix or module.startswith(prefix if prefix.endswith(":") else prefix + ".")
               for prefix in prefixes):
            return place
    return LAYERS.index(("the shells", ()))


def upward(edges):
    """Every import of a module in a higher layer, as the line a contributor fixes."""
    return ["%s imports %s (%s), which is in a layer above it (%s above %s; docs/design.md, 1): move what it "
            "needs down, or the module up" % (importer, target, import_site(importer, target),
                                               LAYERS[layer(target)][0], LAYERS[layer(importer)][0])
            for importer in sorted(edges) for target in sorted(edges[importer]) if layer(target) > layer(importer)]


def test_imports_run_down_the_layers_docs_design_md_gives():
    found = upward(graph())
    assert not found, "\n".join(found)


def test_an_import_up_the_layers_is_said_with_its_line(monkeypatch, tmp_path):
    """The hardware importing the service's statistics, which import nothing of the hardware: no cycle."""
    devices = tmp_path / "devices.py"
    devices.write_text('"""Devices."""\n\nfrom controller.service.stats import Statistics\n')
    monkeypatch.setitem(MODULES, "controller.hardware.devices", devices)
    assert upward(graph()) == [
        "controller.hardware.devices imports controller.service.stats (%s:3), which is in a layer above it (the "
        "service above the hardware; docs/design.md, 1): move what it needs down, or the module up"
        % os.path.relpath(devices, ROOT)]


@pytest.mark.parametrize("pair", [("controller.core.drnim", "controller.core.working"),
                                  ("controller.core.exhibit", "controller.core.saves"),
                                  ("controller.core.solve", "controller.core.search"),
                                  ("controller.hardware.pinmap.check", "controller.hardware.pinmap.model")])
def test_the_pairs_that_imported_each_other_import_one_way(pair):
    edges = graph()
    upper, lower = pair
    assert upper in edges and lower in edges
    assert not (lower in edges[upper] and upper in edges[lower])



def layout_blocks():
    """DEVELOPERS.md's Layout as {folder or file it describes: its text}, each block starting at a
    line that begins with the path (`controller/core/`, `controller/cli.py`)."""
    import re
    text = (ROOT / "DEVELOPERS.md").read_text()
    layout = text[text.index("## Layout"):text.index("\n## ", text.index("## Layout") + 1)]
    blocks = {}
    for head, body in re.findall(r"^([\w./-]+/|[\w./-]+\.py) (.*(?:\n {2,}.*)*)", layout, re.M):
        blocks[head] = body
    return blocks


def unlisted(blocks, paths):
    """The files among `paths` (relative to the checkout) that their folder's block names neither by
    file name (`solve_<family>.py` and `bench_*.py` name a pattern) nor by a bare word (`model,
    positions, check`). A file's block is the one whose path is the longest that holds it."""
    import fnmatch
    import re
    found = []
    for path in paths:
        heads = [head for head in blocks if path.as_posix() == head or path.as_posix().startswith(head)
                 and head.endswith("/")]
        text = blocks[max(heads, key=len)] if heads else ""
        patterns = [re.sub(r"<[^>]+>", "*", name) for name in re.findall(r"[\w<>*-]+\.(?:py|mjs|js)\b", text)]
        if not any(fnmatch.fnmatch(path.name, pattern) for pattern in patterns) and not (
                path.as_posix() in blocks or re.search(r"(?<![\w.])%s(?![\w])" % re.escape(path.stem), text)):
            found.append(path)
    return found


def test_developers_md_names_every_module_in_its_layout():
    """A newcomer finds a module from DEVELOPERS.md's Layout: each of controller/, firmware/, web/ and
    bench/ is named in its folder's lines there, and each file named there is still in the tree."""
    from pathlib import PurePosixPath
    import re
    files = [path for path in MODULES.values() if path.name not in ("__init__.py", "__main__.py")]
    files += [path for folder in FIRMWARE_PATH + (ROOT / "web", ROOT / "bench", PACKAGE / "firmware" / "pico")
              for path in sorted(folder.glob("*")) if path.suffix in (".py", ".mjs", ".js")]
    paths = [PurePosixPath(os.path.relpath(path, ROOT)) for path in files]
    blocks = layout_blocks()
    missing = [path.as_posix() for path in unlisted(blocks, paths)]
    assert not missing, "DEVELOPERS.md's Layout does not name %s: say in its folder's lines what each is for" % (
        ", ".join(missing))
    names = set(path.name for path in files + list(PACKAGE.rglob("__init__.py")) + list((ROOT / "tests").glob("*.py")))
    gone = sorted(set(name for text in blocks.values() for name in re.findall(r"[\w-]+\.(?:py|mjs)\b", text)
                      if name not in names))
    assert not gone, "DEVELOPERS.md's Layout names %s, which the tree no longer has" % ", ".join(gone)


def test_a_module_its_folders_lines_do_not_name_is_said_so():
    from pathlib import PurePosixPath
    blocks = {"controller/core/": "rules.py, solve_<family>.py", "bench/": "bench_*.py; the model, positions",
              "controller/cli.py": "the command"}
    paths = [PurePosixPath(name) for name in ("controller/core/rules.py", "controller/core/solve_nim.py",
                                              "bench/bench_core.py", "bench/positions.py", "bench/secret.py",
                                              "bench/model_x.py", "controller/core/positions.py",
                                              "controller/cli.py", "controller/other.py")]
    assert [path.as_posix() for path in unlisted(blocks, paths)] == [
        "bench/secret.py", "bench/model_x.py", "controller/core/positions.py", "controller/other.py"]
