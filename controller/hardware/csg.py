"""OpenSCAD's CSG text (what `openscad -o x.csg` writes) made into a solid by Manifold, each
round primitive cut into the very facets OpenSCAD 2021.01 gives it, so that the solid is the one
openscad's own render makes, to the rounding of floating point: the assembly's solids without
CGAL's render, which makes a check take about twenty times as long (bench/bench_assembly.py).

Only the nodes the parts use are known: cube, sphere, cylinder, circle, square, polygon,
multmatrix, linear_extrude without twist or scale, union, difference, intersection, hull,
group, color, render. Anything else raises Unknown, and the caller has openscad render that
solid instead.
"""

import json
import math
import re

GRID_FINE = 0.00000095367431640625      # OpenSCAD's: a radius below it gets 3 fragments
GROUPS = ("group", "union", "color", "render")


class Unknown(ValueError):
    """A node this module does not make: openscad must render the solid."""


def solid(text):
    """The manifold3d Manifold that a solid's CSG text describes (Unknown: not one to make here)."""
    import manifold3d
    made = _make(_parse(text), manifold3d)
    if made is None:
        return manifold3d.Manifold()
    if not isinstance(made, manifold3d.Manifold):
        raise Unknown("a flat shape where a solid was expected")
    if made.status() != manifold3d.Error.NoError:
        raise Unknown("Manifold says %s" % made.status())
    return made


def fragments(r, fn, fs, fa):
    """How many sides OpenSCAD gives a circle of radius r (Calc::get_fragments_from_r)."""
    if r < GRID_FINE or math.isinf(fn) or math.isnan(fn):
        return 3
    if fn > 0:
        return int(fn) if fn >= 3 else 3
    return int(math.ceil(max(min(360.0 / fa, r * 2 * math.pi / fs), 5)))


def sin_degrees(x):
    """sin of x degrees, exact where OpenSCAD's is (0, 30 and 90 degrees and their kin)."""
    x = math.fmod(x, 360.0)
    if x < 0:
        x += 360.0
    oppose = x >= 180.0
    if oppose:
        x -= 180.0
    if x > 90.0:
        x = 180.0 - x
    if x == 0.0:
        value = 0.0
    elif x == 30.0:
        value = 0.5
    elif x == 90.0:
        value = 1.0
    else:
        value = math.sin(math.radians(x))
    return -value if oppose else value


def cos_degrees(x):
    return sin_degrees(x + 90.0)


def circle(r, sides):
    """OpenSCAD's circle: `sides` corners, the first on the x axis (generate_circle)."""
    return [(r * cos_degrees(360.0 * i / sides), r * sin_degrees(360.0 * i / sides)) for i in range(sides)]


def _sides(args, r):
    return fragments(r, args.get("$fn", 0), args.get("$fs", 2), args.get("$fa", 12))


# --- the text ---------------------------------------------------------------------------------

def _parse(text):
    """The CSG text as a tree: (name, arguments, children), the top a group of every node."""
    top = ("group", {}, [])
    stack = [top]
    for line in text.splitlines():
        line = line.strip()
        if not line:
            continue
        if line == "}":
            stack.pop()
            continue
        found = re.match(r"^(\w+)\((.*)\)\s*([;{])$", line)
        if not found:
            raise Unknown("a line not understood: %s" % line[:60])
        node = (found.group(1), _arguments(found.group(2)), [])
        stack[-1][2].append(node)
        if found.group(3) == "{":
            stack.append(node)
    return top


def _arguments(text):
    """`a = 1, b = [2, 3]` as {"a": 1, "b": [2, 3]}; a value with no name goes under 0."""
    arguments = {}
    for part in _split(text):
        named = re.match(r"^\s*(\$?\w+)\s*=\s*(.*)$", part, re.S)
        key, value = (named.group(1), named.group(2)) if named else (0, part)
        arguments[key] = json.loads(re.sub(r"\bundef\b", "null", value))
    return arguments


def _split(text):
    """`text` cut at the commas outside brackets and quotes."""
    parts, depth, quoted, start = [], 0, False, 0
    for at, char in enumerate(text):
        if char == '"' and (at == 0 or text[at - 1] != "\\"):
            quoted = not quoted
        elif not quoted and char in "[(":
            depth += 1
        elif not quoted and char in "])":
            depth -= 1
        elif not quoted and char == "," and depth == 0:
            parts.append(text[start:at])
            start = at + 1
    if text[start:].strip():
        parts.append(text[start:])
    return parts


# --- the shapes -------------------------------------------------------------------------------

def _make(node, m):
    """A Manifold (solid), a CrossSection (flat) or None (nothing) for a node."""
    name, args, children = node
    if name == "cube":
        size = args.get("size", 1)
        size = [size] * 3 if isinstance(size, (int, float)) else size
        if min(size) <= 0:
            return None
        return m.Manifold.cube(size, bool(args.get("center")))
    if name == "sphere":
        r = args.get("r", 1)
        if r <= 0:
            return None
        sides = _sides(args, r)
        rings = (sides + 1) // 2
        points = []
        for i in range(rings):
            phi = 180.0 * (i + 0.5) / rings
            z = r * cos_degrees(phi)
            points += [(x, y, z) for x, y in circle(r * sin_degrees(phi), sides)]
        return m.Manifold.hull_points(points)
    if name == "cylinder":
        h, r1, r2 = args.get("h", 1), args.get("r1", 1), args.get("r2", 1)
        if h <= 0 or r1 < 0 or r2 < 0 or (r1 <= 0 and r2 <= 0):
            return None
        sides = _sides(args, max(r1, r2))
        z1 = -h / 2 if args.get("center") else 0.0
        points = [(x, y, z1) for x, y in (circle(r1, sides) if r1 > 0 else [(0.0, 0.0)])]
        points += [(x, y, z1 + h) for x, y in (circle(r2, sides) if r2 > 0 else [(0.0, 0.0)])]
        return m.Manifold.hull_points(points)
    if name == "circle":
        r = args.get("r", 1)
        return m.CrossSection([circle(r, _sides(args, r))]) if r > 0 else None
    if name == "square":
        size = args.get("size", 1)
        size = [size] * 2 if isinstance(size, (int, float)) else size
        return m.CrossSection.square(size, bool(args.get("center"))) if min(size) > 0 else None
    if name == "polygon":
        points = args["points"]
        outlines = [[points[i] for i in path] for path in args["paths"]] if args.get("paths") else [points]
        return m.CrossSection(outlines, m.FillRule.EvenOdd)
    shapes = [_make(child, m) for child in children]
    made = [shape for shape in shapes if shape is not None]
    if name in GROUPS:
        return _combine(made, m.OpType.Add, m)
    if name == "difference":
        return None if not shapes or shapes[0] is None else _combine(made, m.OpType.Subtract, m)
    if name == "intersection":
        return _combine(made, m.OpType.Intersect, m) if made and len(made) == len(shapes) else None
    if name == "hull":
        if not made:
            return None
        return type(made[0]).batch_hull(made)
    if name == "multmatrix":
        shape = _combine(made, m.OpType.Add, m)
        matrix = args[0]
        if shape is None:
            return None
        if isinstance(shape, m.CrossSection):
            return shape.transform([[matrix[0][0], matrix[0][1], matrix[0][3]],
                                    [matrix[1][0], matrix[1][1], matrix[1][3]]])
        return shape.transform([row[:4] for row in matrix[:3]])
    if name == "linear_extrude":
        if args.get("twist", 0) != 0 or list(args.get("scale", [1, 1])) != [1, 1]:
            raise Unknown("linear_extrude with a twist or a scale")
        flat = _combine(made, m.OpType.Add, m)
        height = args.get("height", 100)
        if flat is None or height <= 0:
            return None
        body = m.Manifold.extrude(flat, height)
        return body.translate((0, 0, -height / 2)) if args.get("center") else body
    raise Unknown("%s() is not made here" % name)


def _combine(shapes, operation, m):
    if not shapes:
        return None
    kinds = set(type(shape) for shape in shapes)
    if len(kinds) > 1:
        raise Unknown("flat and solid shapes together")
    if len(shapes) == 1:
        return shapes[0]
    return type(shapes[0]).batch_boolean(shapes, operation)
