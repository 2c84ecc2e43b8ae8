"""The assembly proven: every printed part placed as it is mounted, every bought part as the room
it takes, every screw, checked together with Debian's openscad (`controller hardware check`).

Each machine's `hardware/<machine>/parts/assembly.scad` is the one description of its assembly (of
the hardware/ folder given, a checkout's a builder edited; else of the copy installed with the controller).
With `mode="facts"` it echoes its solids (printed, bought, screws, and the ways a marble, a
plunger or an arm sweeps, which nothing may cross), which pairs are meant to overlap (a screw
and what it bites into), the fits to prove, the screws' stacks, the marble's flight and the
release's lift. The check works on a copy of the design files whose build.scad is written from
the pin map (pinmap/build.py), so it is of the build the service runs, whatever the committed
build.scad says; `defines` (NAME=VALUE, as for openscad -D) change a value in every file, the
parts' own included params.scad too (a test moves or resizes a part with them). Then:

- collisions: every two solids whose bounding boxes overlap are intersected; a pair whose
  intersection encloses more than TOUCH_MM3 collides (faces that only touch enclose nothing);
- fits: each fitted bought part, grown by fit_min, is among the solids (it must clear its
  pocket as printed: it is grown by half the hole_allowance more, as every round hole is drawn
  that much wider across its flats, and what goes through one is drawn whole); grown by
  fit_max, it must meet the part that holds it as drawn (it must not rattle where holes print
  true); a thread-forming screw's pilot hole, as printed, takes a pin of the least pilot the
  screw wants and not one of the largest (grown by fit_min a side);
- screwdrivers: the way out from each screw's head; a part in it must go on after the screw
  (Report.blocked, which the build guides' order is tested against);
- carriers: every printed part lies within the backboard (or the base) it is mounted on;
- screws: at least MIN_THREADS turns of thread in what a screw bites into, and a wood screw's
  tip BACK_MARGIN_MM short of its back face; and the parts list has as many of each as the
  assembly uses;
- the marble's flight from the lip lands whole inside the funnel's mouth at every exit speed;
  the release lifts the lowest marble over the lip with LIFT_MARGIN_MM to spare; a servo
  gate's angles are ones its slot takes (build.gate_problem).

The solids and their intersections are Manifold's (the `manifold3d` package, the `hardware`
extra: OpenSCAD's own newer geometry kernel), each solid made from the CSG text openscad writes
of it with OpenSCAD's own facets (csg.py): the volumes of 2021.01's CGAL render to the 0.001 mm³,
the whole check in about a twentieth of the time. Where Manifold is not installed, or a solid has a node
csg.py does not know, openscad renders the solid (and, when Manifold cannot read the mesh either,
intersects it) instead. A render is kept by its CSG text's hash (`cache`, a folder): a moved
part renders again, the rest do not; checks running at once may share the folder, one
rendering a solid while the others wait for it.
"""

import hashlib
import json
import math
import re
import shutil
import subprocess
import tempfile
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from controller import shipped
from controller.cache import keep, locked
from controller.hardware import csg
from controller.hardware.pinmap import build as made
from controller.hardware.pinmap.bom import read_bom
from controller.hardware.printed import Mesh

BAND = 3000             # mm between two solids in the one run that makes all their CSG
TOUCH_MM3 = 0.05        # an intersection enclosing less only touches (or meets a facet)
WORKERS = 2
# Solids already made, by their CSG text, and the volumes two of them share, by their two texts:
# checks of builds that differ in one part (a test's wrong pocket, another machine's build) make
# each unchanged part, and each pair of them, once. Manifold's solids are values.
MADE = {}
SHARED = {}
MADE_MOST = 500


class AssemblyError(ValueError):
    """An assembly openscad cannot read or render; the message is one line."""


class Report:
    """What the check found: one line per failure, the figures, and the counts."""

    def __init__(self):
        self.parts = 0
        self.screws_checked = 0
        self.collisions = []
        self.screws = []
        self.misfits = []
        self.figures = []
        self.blocked = []       # (what the screws hold, the part in their screwdriver's way)

    @property
    def failures(self):
        return self.collisions + self.screws + self.misfits

    @property
    def ok(self):
        return not self.failures

    def summary(self):
        """What was checked, then what failed: 'assembly: 27 parts and 40 screws checked: 0 collisions,
        0 screw faults, 0 misfits' (a screw fault: too few threads, a tip out of the back, or a count the
        parts list does not match)."""
        return "assembly: %d parts and %d screws checked: %d collisions, %d screw faults, %d misfits" % (
            self.parts, self.screws_checked, len(self.collisions), len(self.screws), len(self.misfits))


def _scad_value(text):
    """An echoed OpenSCAD value as Python (lists, numbers, strings, undef as None)."""
    return json.loads(re.sub(r"\bundef\b", "null", text))


def _scad_path(path):
    r"""`path` as an OpenSCAD string literal. Forward slashes, which OpenSCAD takes on Windows too:
    there a backslash in a literal is an escape, and C:\Users\tina\.cache reads C:Users, a tab, ina.cache.
    A backslash or a quote left in a name (Linux allows them) is escaped."""
    return '"%s"' % path.as_posix().replace("\\", "\\\\").replace('"', '\\"')


def _blocks(csg):
    """The top-level blocks of openscad's CSG text, each (first line, body lines)."""
    blocks, current, depth = [], None, 0
    for line in csg.splitlines():
        if depth == 0:
            current = [line]
            blocks.append(current)
        else:
            current.append(line)
        depth += line.count("{") - line.count("}")
    return blocks


def made_solid(text):
    """csg.solid(text), made once for each text."""
    if text not in MADE:
        if len(MADE) >= MADE_MOST:
            MADE.clear()
        MADE[text] = csg.solid(text)
    return MADE[text]


def shared_volume(one, other, texts):
    """The volume two Manifold solids share, mm³, worked out once for each two texts (when both are known)."""
    if None in texts:
        return (one ^ other).volume()
    if texts not in SHARED:
        if len(SHARED) >= 2 * MADE_MOST:
            SHARED.clear()
        SHARED[texts] = (one ^ other).volume()
    return SHARED[texts]


class Assembly:
    """One machine's assembly for a pin map: `check()` makes the Report."""

    def __init__(self, pinmap, openscad, cache, defines=(), hardware=None):
        self.pinmap = pinmap
        self.machine = pinmap.machine
        self.openscad = openscad
        self.cache = Path(cache)
        self.cache.mkdir(parents=True, exist_ok=True)
        # the design files: a hardware/ folder (a checkout's a builder edited), else those installed
        self.hardware = Path(hardware) if hardware is not None else shipped.hardware()
        self.source = self.hardware / self.machine / "parts" / "assembly.scad"
        self.defines = list(defines)

    def copy(self, work):
        """The design files in `work`, with build.scad from the pin map and the defines at the end
        of params.scad; the copy's assembly.scad."""
        parts = work / "hardware" / self.machine / "parts"
        parts.mkdir(parents=True)
        for name in ("common.scad", "bought.scad"):
            shutil.copy(self.hardware / name, work / "hardware" / name)
        for path in self.source.parent.glob("*.scad"):
            shutil.copy(path, parts / path.name)
        (parts / "build.scad").write_text(made.build_scad(self.pinmap), encoding="utf-8")
        with open(parts / "params.scad", "a", encoding="utf-8") as params:
            params.write("".join("%s;\n" % define for define in self.defines))
        return parts / "assembly.scad"

    # --- openscad --------------------------------------------------------------------------

    def run(self, source, target, extra=()):
        command = [self.openscad, "-o", str(target)]
        for define in self.defines + list(extra):
            command += ["-D", define]
        result = subprocess.run(command + [str(source)], capture_output=True, encoding="utf-8", errors="replace",
                                timeout=600)
        problems = [line for line in result.stderr.splitlines() if line.startswith(("ERROR", "WARNING"))
                    and "may not be a valid 2-manifold" not in line
                    and not (self.defines and " but was overwritten in file " in line)]
        return result, problems

    def facts(self, work):
        result, problems = self.run(self.copied, work / "facts.echo", ['mode="facts"'])
        if result.returncode != 0 or problems:
            raise AssemblyError("%s: %s" % (self.source, (problems or ["openscad exited with %d"
                                                                      % result.returncode])[0]))
        found = re.search(r"^ECHO: facts = (.*)$", (work / "facts.echo").read_text(encoding="utf-8"), re.M)
        return dict(_scad_value(found.group(1)))

    def csg(self, names, work):
        """{solid: its CSG text}, from one openscad run that places each in a band of its own."""
        lines = ["include <%s>" % self.copied]
        lines += ["translate([%d, 0, 0]) placed(\"%s\");" % (i * BAND, name) for i, name in enumerate(names)]
        source = work / "solids.scad"
        source.write_text("\n".join(lines) + "\n", encoding="utf-8")
        result, problems = self.run(source, work / "solids.csg", ['mode="none"'])
        if result.returncode != 0 or problems:
            raise AssemblyError("%s: %s" % (self.source, (problems or ["openscad exited with %d"
                                                                      % result.returncode])[0]))
        blocks = [block for block in _blocks((work / "solids.csg").read_text(encoding="utf-8"))
                  if block[0].startswith("multmatrix")]
        if len(blocks) != len(names):
            raise AssemblyError("%s: %d solids named, %d drawn" % (self.source, len(names), len(blocks)))
        return {name: "\n".join(["group() {"] + block[1:]) for name, block in zip(names, blocks)}

    def render(self, name, text):
        """The mesh of a solid from its CSG text, rendered once per text."""
        key = hashlib.sha256(text.encode()).hexdigest()[:24]
        stl = self.cache / (key + ".stl")
        if stl.exists():
            return stl
        with locked(self.cache / (key + ".lock")):
            if not stl.exists():
                source = self.cache / (key + ".csg")
                source.write_text(text + "\n", encoding="utf-8")
                target = self.cache / (key + ".part.stl")
                result, problems = self.run(source, target)
                if result.returncode != 0 or not target.exists():
                    raise AssemblyError("%s: the solid %s: %s" % (self.source, name, (problems or [
                        "openscad made nothing of it (exit status %d)" % result.returncode])[0]))
                target.rename(stl)
        return stl

    def shapes(self, texts):
        """{solid: its Manifold, or the path of openscad's STL of it where Manifold has none}."""
        made, left = {}, []
        for name, text in texts.items():
            try:
                made[name] = made_solid(text)
            except (ImportError, csg.Unknown):
                left.append(name)
        with ThreadPoolExecutor(max_workers=WORKERS) as pool:
            stls = dict(zip(left, pool.map(lambda name: self.render(name, texts[name]), left)))
        for name, stl in stls.items():
            solid = _manifold(stl)
            made[name] = stl if solid is None else solid
        return made

    def intersections(self, pairs, shapes, texts, work):
        """{pair: the volume its two solids enclose together, mm³ (0 when they only touch or are
        apart)}: Manifold's, or openscad's for a pair with a solid that Manifold has not."""
        volumes = dict(((a, b), shared_volume(shapes[a], shapes[b], (texts.get(a), texts.get(b)))) for a, b in pairs
                       if not isinstance(shapes[a], Path) and not isinstance(shapes[b], Path))
        left = [pair for pair in pairs if pair not in volumes]
        stls = dict((name, shapes[name] if isinstance(shapes[name], Path) else self.render(name, texts[name]))
                    for pair in left for name in pair)
        with ThreadPoolExecutor(max_workers=WORKERS) as pool:
            volumes.update(zip(left, pool.map(lambda pair: self.intersection(pair, stls, work), left)))
        return volumes

    def intersection(self, pair, stls, work):
        """openscad's volume of two STLs' intersection, worked out once for each two meshes."""
        a, b = pair
        kept = self.cache / ("%s.volume" % "--".join(sorted((stls[a].stem, stls[b].stem))))
        if kept.exists():
            return float(kept.read_text(encoding="utf-8"))
        volume = self.scad_volume(pair, stls, work)
        keep(kept, repr(volume).encode())       # whole, for a check running beside this one
        return volume

    def scad_volume(self, pair, stls, work):
        a, b = pair
        source = work / ("%s--%s.scad" % pair)
        imports = "".join("import(%s); " % _scad_path(stls[name]) for name in pair)
        source.write_text("intersection() { %s}\n" % imports, encoding="utf-8")
        target = work / ("%s--%s.stl" % pair)
        result, problems = self.run(source, target)
        if not target.exists():
            if "top level object is empty" in result.stderr or "No top level geometry" in result.stderr:
                return 0.0
            raise AssemblyError("%s: %s and %s: %s" % (self.source, a, b, (problems or [
                "openscad exited with %d" % result.returncode])[0]))
        return Mesh.read(target).volume()

    # --- the check -------------------------------------------------------------------------

    def check(self):
        report = Report()
        with tempfile.TemporaryDirectory(prefix="assembly-") as folder:
            work = Path(folder)
            self.copied = self.copy(work)
            facts = self.facts(work)
            solids = facts["solids"]
            names = [solid[0] for solid in solids]
            fits = facts["fits"]
            pilots = facts["pilots"]
            groups = [name[len("screws:"):] for name in names if name.startswith("screws:")]
            drivers = ["driver:" + group for group in groups]
            texts = self.csg(names + [fit[0] for fit in fits] + [pin for pilot in pilots for pin in pilot[:2]] + drivers,
                             work)
            shapes = self.shapes(texts)
            boxes = dict((name, _bounds(shape)) for name, shape in shapes.items())
            kinds = dict((solid[0], solid[1]) for solid in solids)
            joins = set(tuple(sorted(pair)) for pair in facts["joins"])
            pairs = [(a, b) for i, a in enumerate(names) for b in names[i + 1:]
                     if (a, b) not in joins and (b, a) not in joins
                     and not (kinds[a] == "path" and kinds[b] == "path") and _overlap(boxes[a], boxes[b])]
            checked = len(pairs)
            pairs += [(fit[0], fit[1]) for fit in fits]
            pairs += [(pin, pilot[2]) for pilot in pilots for pin in pilot[:2]]
            ways = self.driver_pairs(facts, groups, kinds, boxes)
            pairs += ways
            volumes = self.intersections(pairs, shapes, texts, work)
        report.parts = sum(1 for solid in solids if solid[1] in ("board", "printed", "bought"))
        for a, b in pairs[:checked]:
            if volumes[(a, b)] > TOUCH_MM3:
                report.collisions.append("collision: %s and %s share %.1f mm³" % (a, b, volumes[(a, b)]))
        fit_min, fit_max, allowance = facts["fit"]
        held = []
        for grown, holder, what, gap in fits:
            if volumes[(grown, holder)] <= TOUCH_MM3:
                report.misfits.append("loose: %s: it clears %s even grown by %s mm a side (it rattles)"
                                      % (what, holder, fit_max))
            else:
                held.append("%s %.2f" % (what, gap))
        report.figures.append("fits (proven between %s and %s mm a side, holes printing %s mm small; as printed, "
                              "mm): %s" % (fit_min, fit_max, allowance, "; ".join(held)))
        for least, most, holder, what, low, high in pilots:
            if volumes[(least, holder)] > TOUCH_MM3:
                report.misfits.append("tight: %s: a hole in %s prints narrower than %s mm across its flats (holes "
                                      "print %s mm small): the screw splits it" % (what, holder, low, allowance))
            if volumes[(most, holder)] <= TOUCH_MM3:
                report.misfits.append("loose: %s: a hole in %s prints wider than %s mm (holes print %s mm small): "
                                      "the screw strips it" % (what, holder, high, allowance))
        report.blocked = [(a[len("driver:"):], b) for a, b in ways if volumes[(a, b)] > TOUCH_MM3]
        report.figures.append("screwdrivers: " + ("; ".join("%s covers the screws of %s" % (part, held_by)
                                                            for held_by, part in report.blocked) or "every way clear"))
        self.carriers(facts, solids, boxes, report)
        self.screws(facts, report)
        if "flight" in facts:
            self.flight(facts, report)
        if "drop" in facts:
            self.drop(facts, report)
        if "lift" in facts:
            self.lift(facts, report)
        problem = made.gate_problem(self.pinmap)
        if problem:
            report.misfits.append("gate: %s: %s" % problem)
        return report

    def driver_pairs(self, facts, groups, kinds, boxes):
        """(the way to a group's screw heads, a part in reach of it): every solid but the screws,
        the ways a marble or a plunger takes, what the screws hold or go into, and what goes on
        last over them all."""
        into = {}
        for name, _, _, part, holds in facts["screws"]:
            into.setdefault(holds, set()).add(part)
        pairs = []
        for group in groups:
            way = "driver:" + group
            for name, kind in kinds.items():
                if kind in ("screw", "path") or name == group or name in into[group] or name in facts["last"]:
                    continue
                if _overlap(boxes[way], boxes[name]):
                    pairs.append((way, name))
        return pairs

    def carriers(self, facts, solids, boxes, report):
        for name, kind, carrier in solids:
            if kind != "printed" or not carrier:
                continue
            (x0, x1), (y0, y1), (z0, z1) = boxes[name]
            left, right, low, high = facts[carrier]
            axis = "z" if carrier in ("board", "upright") else "y"
            lo, hi = (z0, z1) if axis == "z" else (y0, y1)
            beyond = [("left", left - x0), ("right", x1 - right),
                      ("bottom" if axis == "z" else "front", low - lo), ("top" if axis == "z" else "back", hi - high)]
            for side, by in beyond:
                if by > 0.01:
                    report.misfits.append("off the %s: %s reaches %.1f mm beyond its %s edge"
                                          % (carrier, name, by, side))

    def screws(self, facts, report):
        anchors = dict(facts["anchors"])
        repeated = dict(facts.get("repeated", []))      # parts built again outside the model
        used = {}
        stacks = {}
        report.screws_checked = len(facts["screws"])
        for name, (diameter, length, pitch), clamped, into, holds in facts["screws"]:
            kind = _screw_kind(self.machine, diameter, pitch)
            named = made.screw_name(kind, diameter, length)
            used[named] = used.get(named, 0) + repeated.get(holds, 1)
            engaged = length - clamped
            threads = engaged / pitch
            wood = kind == "wood"
            inside = anchors[into] - engaged
            what = "%s (%s into the %s): %s" % (name, holds, into, named)
            if threads < made.MIN_THREADS:
                report.screws.append("screw: %s through %g mm leaves %.1f mm in the %s: %.1f turns of thread, "
                                     "at least %d hold" % (what, clamped, engaged, into, threads, made.MIN_THREADS))
            elif inside < (made.BACK_MARGIN_MM if wood else 0):
                report.screws.append("screw: %s through %g mm goes %.1f mm into a %g mm %s: its tip %s" % (
                    what, clamped, engaged, anchors[into], into, "comes %.1f mm out of the back" % -inside
                    if inside < 0 else "stops %.1f mm short of the back (at least %d)" % (inside, made.BACK_MARGIN_MM)))
            stacks.setdefault((named, into), []).append((engaged, threads, inside))
        report.figures.append("screws: " + "; ".join(
            "%d %s into the %s, %s mm in (%s turns of thread), tips %s mm short of its far face" % (
                len(found), named, into, _span(f[0] for f in found), _span(f[1] for f in found),
                _span(f[2] for f in found)) for (named, into), found in stacks.items()))
        self.screw_count(used, report)

    def screw_count(self, used, report):
        """Each screw the assembly uses against the parts list's row of its name."""
        bom = Path(self.pinmap.path).parent / "bom.csv"
        if not bom.exists():
            return
        rows = dict((row["part"], row["quantity"]) for row in read_bom(bom))
        for name, count in used.items():
            if rows.get(name) != count:
                report.screws.append("screw: the assembly uses %d %s, %s lists %s" % (
                    count, name, bom.name, rows.get(name, "none")))

    def flight(self, facts, report):
        detached, corner, (left, right), mouth_z, bore_x, marble, g = facts["flight"]
        landed = []
        for v0, (x, _, z), (vx, _, vz) in detached:
            t = (vz + math.sqrt(vz * vz + 2 * g * (z - (mouth_z + marble / 2)))) / g
            landed.append(x + vx * t)
        speeds = [d[0] for d in detached]
        report.figures.append("marble: leaves the lip at %d-%d mm/s, falls %.0f mm and lands %.1f-%.1f mm beyond "
                              "it, %+.1f to %+.1f mm from the bore's centre, in a %.0f mm funnel (room for %.1f "
                              "mm either side)" % (speeds[0], speeds[-1], corner[2] - mouth_z, landed[0] - corner[0],
                                                  landed[-1] - corner[0], landed[0] - bore_x, landed[-1] - bore_x,
                                                  right - left, (right - left - marble) / 2))
        for v, at in zip(speeds, landed):
            if at - marble / 2 < left - 0.01 or at + marble / 2 > right + 0.01:
                report.misfits.append("marble: at %d mm/s it lands %+.1f mm from the bore's centre, not whole inside "
                                      "the %.0f mm funnel" % (v, at - bore_x, right - left))

    def drop(self, facts, report):
        """How hard the marble meets the tray, and that the hood's roof is over it."""
        (v0, (_, _, z), _), landing_z, roof_z = facts["drop"]
        marble, g = facts["flight"][5], facts["flight"][6]
        fall = z - marble / 2 - landing_z
        report.figures.append("tray: the marble falls %.0f mm from the lip and lands on the ramp at %.1f m/s, under "
                              "the hood's roof %.0f mm above it, which a bounce meets"
                              % (fall, math.sqrt(v0 * v0 + 2 * g * fall) / 1000, roof_z - landing_z))
        if roof_z - landing_z > 2 * marble:
            report.misfits.append("tray: the hood's roof is %.0f mm above the ramp: a marble bounces more than a "
                                  "marble's height before it meets it" % (roof_z - landing_z))

    def lift(self, facts, report):
        what, reach, need = facts["lift"]
        report.figures.append("lift: %s rises %.1f mm above the rail's floor; the marble needs %.1f (+%d)"
                              % (what, reach, need, made.LIFT_MARGIN_MM))
        if reach < need + made.LIFT_MARGIN_MM:
            report.misfits.append("lift: %s rises %.1f mm above the rail's floor, but the lowest marble needs "
                                  "%.1f mm and %d to spare to go over the lip" % (what, reach, need,
                                                                                made.LIFT_MARGIN_MM))


def _span(values):
    """"4.6" or "4.6-8.0": the least and the most of some figures."""
    values = sorted(values)
    low, high = "%.1f" % values[0], "%.1f" % values[-1]
    return low if low == high else "%s-%s" % (low, high)


def _screw_kind(machine, diameter, pitch):
    """wood, machine or self-tapping: as the build's screw of that diameter and pitch."""
    for kind, d, length, p in made.SCREWS[machine].values():
        if (d, p) == (diameter, pitch):
            return kind
    return "wood" if pitch >= 1 else "machine"


def _bounds(shape):
    """[(least x, most x), (y...), (z...)] of a Manifold or an STL."""
    if isinstance(shape, Path):
        mesh = Mesh.read(shape)
        axes = list(zip(*(corner for triangle in mesh.triangles for corner in triangle)))
        return [(min(map(float, axis)), max(map(float, axis))) for axis in axes]
    box = shape.bounding_box()
    return [(box[k], box[k + 3]) for k in range(3)]


def _overlap(a, b):
    return all(min(a[k][1], b[k][1]) - max(a[k][0], b[k][0]) > 0.01 for k in range(3))


def _manifold(stl):
    """`stl` as a manifold3d Manifold (corners with the same text are one vertex), or None."""
    try:
        import manifold3d
        import numpy
    except ImportError:
        return None
    corners = re.findall(r"vertex\s+(\S+)\s+(\S+)\s+(\S+)", Path(stl).read_text(encoding="ascii"))
    points, corner = numpy.unique(numpy.array(corners, dtype=numpy.float64), axis=0, return_inverse=True)
    mesh = manifold3d.Mesh(vert_properties=points.astype(numpy.float32),
                           tri_verts=corner.reshape(-1, 3).astype(numpy.uint32))
    solid = manifold3d.Manifold(mesh)
    return solid if solid.status() == manifold3d.Error.NoError else None
