"""The printed parts under hardware/<machine>/parts/: what each part's header says about it,
rendering it with openscad, and reading the STL that comes out.

A part is a .scad file whose header states how to print it, in lines like

    // print: lying on its floor, channel open upwards; no supports
    // bounding box: 136.4 x 25.4 x 30.0 mm
    // count: 1 (or a note after the number)
    // mates with: rail_lower.scad; the backboard (2 x 3.0 x 16 wood screws)

The tests render every part and hold it to its header; bench/parts.py slices them. The STL
reader is a short one for openscad's ASCII output, so that checking a part needs no mesh
library: openscad writes a shared corner with the same digits in every triangle that has it,
so corners can be matched by their text.
"""

import re
import subprocess
from pathlib import Path

from controller import shipped

BED = (220, 220, 250)   # a common FDM printer's build volume, mm
SHELF_MM = 5            # a flat overhang held on one side prints without supports this far out
HEADER = re.compile(r"^// (print|bounding box|count|mates with): (.*)$", re.MULTILINE)
BOX = re.compile(r"^(\d+(?:\.\d+)?) x (\d+(?:\.\d+)?) x (\d+(?:\.\d+)?) mm$")


class PartError(ValueError):
    """A part that cannot be read, rendered or printed as its header says."""


class Part:
    """One printable part: its source and what its header states."""

    def __init__(self, path):
        self.path = Path(path)
        fields = dict(HEADER.findall(self.path.read_text(encoding="utf-8")))
        missing = [key for key in ("print", "bounding box", "count") if key not in fields]
        if missing:
            raise PartError(f"{self.path}: the header has no '// {missing[0]}:' line")
        box = BOX.match(fields["bounding box"])
        if box is None:
            raise PartError(f"{self.path}: bounding box {fields['bounding box']!r} is not 'X x Y x Z mm'")
        self.machine = self.path.parent.parent.name
        self.name = self.path.stem
        self.orientation = fields["print"]
        self.box = tuple(float(side) for side in box.groups())
        count = re.match(r"\d+", fields["count"])
        if count is None:
            raise PartError(f"{self.path}: count {fields['count']!r} does not start with a number")
        self.count = int(count.group())
        self.mates_with = fields.get("mates with", "")

    def __repr__(self):
        return f"Part({self.machine}/{self.name})"


def parts(machine):
    """The printable parts of one machine (the .scad files with a header; not params.scad or
    the assembly, which only hold shared values and place the parts)."""
    folder = shipped.hardware() / machine / "parts"
    return [Part(path) for path in sorted(folder.glob("*.scad"))
            if "// bounding box:" in path.read_text(encoding="utf-8")]


def render(openscad, source, stl, defines=()):
    """Render `source` to an ASCII STL with openscad, `defines` as NAME=VALUE overrides.
    Raises PartError with openscad's own first error line when it fails."""
    command = [openscad, "-o", str(stl)]
    for define in defines:
        command += ["-D", define]
    result = subprocess.run(command + [str(source)], capture_output=True, encoding="utf-8", errors="replace",
                            timeout=300)
    errors = [line for line in result.stderr.splitlines() if line.startswith(("ERROR", "WARNING"))]
    if result.returncode != 0 or errors or not Path(stl).exists():
        reason = errors[0] if errors else f"openscad exited with {result.returncode}"
        raise PartError(f"{source}: {reason}")
    return Mesh.read(stl)


class Mesh:
    """The triangles of an STL, each three corners given as (x, y, z) text triples."""

    def __init__(self, triangles):
        self.triangles = triangles

    @classmethod
    def read(cls, path):
        text = Path(path).read_text(encoding="ascii")
        if not text.startswith("solid"):
            raise PartError(f"{path}: not an ASCII STL")
        corners = re.findall(r"vertex\s+(\S+)\s+(\S+)\s+(\S+)", text)
        if not corners or len(corners) % 3:
            raise PartError(f"{path}: {len(corners)} corners do not make whole triangles")
        return cls([tuple(corners[i:i + 3]) for i in range(0, len(corners), 3)])

    def edge_faults(self):
        """Edges not shared by exactly two triangles running them in opposite directions:
        none for a closed, consistently oriented surface."""
        directed = {}
        for a, b, c in self.triangles:
            for edge in ((a, b), (b, c), (c, a)):
                directed[edge] = directed.get(edge, 0) + 1
        return sum(1 for (a, b), n in directed.items() if n != 1 or directed.get((b, a)) != 1)

    def bodies(self):
        """How many separate pieces the surface makes: triangles that share a corner are one
        piece. A part printed as one body gives 1."""
        parent = {}

        def root(corner):
            while parent.setdefault(corner, corner) != corner:
                parent[corner] = parent[parent[corner]]
                corner = parent[corner]
            return corner

        for a, b, c in self.triangles:
            parent[root(b)] = root(a)
            parent[root(c)] = root(a)
        return len({root(corner) for corner in parent})

    def steep_overhangs(self):
        """Faces off the bed that face downwards at more than about 49 degrees from the
        vertical, but are not flat: a printer cannot lay plastic on nothing there without
        supports. (Flat ceilings are bridges, which it spans from wall to wall; 45-degree
        faces, like a teardrop hole's roof, print as they are; the 4 degrees more leave room
        for a round hole's facets.)"""
        bed = min(float(corner[2]) for triangle in self.triangles for corner in triangle)
        steep = 0
        for triangle in self.triangles:
            a, b, c = (tuple(map(float, corner)) for corner in triangle)
            u = [b[i] - a[i] for i in range(3)]
            v = [c[i] - a[i] for i in range(3)]
            normal = (u[1] * v[2] - u[2] * v[1], u[2] * v[0] - u[0] * v[2], u[0] * v[1] - u[1] * v[0])
            length = sum(n * n for n in normal) ** 0.5
            if length and min(a[2], b[2], c[2]) > bed + 0.01 and -0.999 < normal[2] / length < -0.75:
                steep += 1
        return steep

    def cantilevers(self):
        """Flat ceilings off the bed that are neither bridges nor short shelves: under a bridge
        the printer finds the part's own plastic on both sides along x or along y, at the
        height just below it, and spans the gap; a shelf with plastic on one side only is
        laid out from that wall, and prints without supports only within SHELF_MM of it.
        The count of ceiling triangles (by a point inside each) that need supports."""
        triangles = [tuple(tuple(map(float, corner)) for corner in triangle) for triangle in self.triangles]
        bed = min(corner[2] for triangle in triangles for corner in triangle)
        hanging = 0
        for a, b, c in triangles:
            u = [b[i] - a[i] for i in range(3)]
            v = [c[i] - a[i] for i in range(3)]
            normal = (u[1] * v[2] - u[2] * v[1], u[2] * v[0] - u[0] * v[2], u[0] * v[1] - u[1] * v[0])
            length = sum(n * n for n in normal) ** 0.5
            if not length or normal[2] / length > -0.999 or a[2] <= bed + 0.01:
                continue
            # a point inside the triangle, and the height a little under it (off the round
            # numbers a corner or an edge sits on, so that a ray meets faces, not edges)
            point = [(a[i] + b[i] + c[i]) / 3 + 0.0123 * (i + 1) * 0.1 for i in range(2)]
            height = a[2] - 0.0517
            sides = [self._solid_either_side(triangles, point, height, axis) for axis in (0, 1)]
            walls = [gap for side in sides for gap in side if gap is not None]
            bridged = any(None not in side for side in sides)
            if not bridged and not (walls and min(walls) <= SHELF_MM):
                hanging += 1
        return hanging

    @staticmethod
    def _solid_either_side(triangles, point, height, axis):
        """How far the nearest plastic is from `point` along `axis` at `height`, on the near
        side and on the far side (None for no plastic on that side): where the line along that
        axis crosses the surface (the point itself is in the air under a ceiling)."""
        across = 1 - axis
        crossings = []
        for triangle in triangles:
            zs = [corner[2] for corner in triangle]
            if min(zs) > height or max(zs) < height:
                continue
            # the triangle's edge-crossings of the plane z = height give a segment; where it
            # meets the line (across = point[across]) is the crossing
            ends = []
            for p, q in ((triangle[0], triangle[1]), (triangle[1], triangle[2]), (triangle[2], triangle[0])):
                if (p[2] - height) * (q[2] - height) < 0:
                    t = (height - p[2]) / (q[2] - p[2])
                    ends.append((p[0] + t * (q[0] - p[0]), p[1] + t * (q[1] - p[1])))
            if len(ends) != 2:
                continue
            (x0, y0), (x1, y1) = ends
            s0, s1 = (x0, y0)[across] - point[across], (x1, y1)[across] - point[across]
            if s0 * s1 < 0:
                t = s0 / (s0 - s1)
                crossings.append((x0, y0)[axis] + t * ((x1, y1)[axis] - (x0, y0)[axis]))
        near = [point[axis] - at for at in crossings if at < point[axis]]
        far = [at - point[axis] for at in crossings if at >= point[axis]]
        return (min(near) if near else None), (min(far) if far else None)

    def extent(self):
        """The size of the bounding box: x, y, z in mm."""
        axes = list(zip(*(corner for triangle in self.triangles for corner in triangle)))
        return tuple(max(map(float, axis)) - min(map(float, axis)) for axis in axes)

    def volume(self):
        """The enclosed volume in mm³ (the sum of signed tetrahedra to the origin)."""
        total = 0.0
        for a, b, c in self.triangles:
            (ax, ay, az), (bx, by, bz), (cx, cy, cz) = (tuple(map(float, p)) for p in (a, b, c))
            total += ax * (by * cz - bz * cy) - ay * (bx * cz - bz * cx) + az * (bx * cy - by * cx)
        return total / 6
