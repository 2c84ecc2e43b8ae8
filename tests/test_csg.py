"""The assembly's solids made by Manifold from openscad's CSG text (controller/hardware/csg.py)
are openscad's own: the same volume and the same bounds as Debian's openscad renders from the
same text, for each kind of node the parts use and for a real part of each machine; a node it
does not know is left to openscad."""

import shutil
import subprocess
from pathlib import Path

import pytest

from controller.hardware import csg
from controller.hardware.assembly import Assembly
from controller.hardware.pinmap import load_default
from controller.hardware.printed import Mesh

OPENSCAD = shutil.which("openscad")
pytestmark = [pytest.mark.skipif(OPENSCAD is None, reason="openscad is missing (apt-get install openscad)")]
manifold3d = pytest.importorskip("manifold3d", reason="manifold3d is missing (pip install -e '.[hardware]')")

SHAPES = [
    "sphere(r = 5, $fa = 6, $fs = 0.8);",
    "sphere(r = 0.3, $fn = 20);",
    "cylinder(h = 10, r1 = 3, r2 = 5, $fa = 6, $fs = 0.8);",
    "cylinder(h = 10, r = 3, center = true, $fn = 16);",
    "cylinder(h = 4, r1 = 2, r2 = 0, $fn = 7);",
    "cube([3, 4, 5], center = true);",
    "difference() { cube(10); translate([5, 5, -1]) cylinder(h = 12, r = 2, $fn = 20); }",
    "difference() { cube(10); translate([0, 0, 5]) cube(10); }",
    "intersection() { cube(10); translate([5, 5, 5]) sphere(r = 6, $fn = 20); }",
    "hull() { cylinder(h = 2, r = 3, $fn = 16); translate([10, 0, 0]) sphere(r = 2, $fa = 6, $fs = 0.8); }",
    "rotate([30, 40, 50]) linear_extrude(height = 5, center = true) difference() { circle(r = 6, $fa = 6, "
    "$fs = 0.8); square([3, 3], center = true); polygon([[0, 0], [4, 0], [0, 4]]); }",
    "linear_extrude(height = 3) hull() { circle(r = 2, $fn = 20); translate([8, 0]) square(2); }",
    "color(\"red\") union() { cube(4); translate([2, 2, 2]) cube(4); }",
]


def openscad(tmp_path, source):
    """(the CSG text openscad writes of the .scad file `source`, the STL it renders of that text)."""
    subprocess.run([OPENSCAD, "-o", str(tmp_path / "shape.csg"), str(source)], check=True, capture_output=True)
    subprocess.run([OPENSCAD, "-o", str(tmp_path / "shape.stl"), str(tmp_path / "shape.csg")], check=True,
                   capture_output=True)
    return (tmp_path / "shape.csg").read_text(), tmp_path / "shape.stl"


def same_solid(made, stl):
    mesh = Mesh.read(stl)
    assert made.volume() == pytest.approx(mesh.volume(), rel=1e-6, abs=0.005)     # openscad writes 6 digits
    box = made.bounding_box()
    corners = [[float(value) for value in corner] for triangle in mesh.triangles for corner in triangle]
    for axis in range(3):
        assert box[axis] == pytest.approx(min(c[axis] for c in corners), abs=1e-4)
        assert box[axis + 3] == pytest.approx(max(c[axis] for c in corners), abs=1e-4)


@pytest.mark.parametrize("source", SHAPES)
def test_each_kind_of_node_makes_the_solid_openscad_renders(tmp_path, source):
    (tmp_path / "shape.scad").write_text(source)
    text, stl = openscad(tmp_path, tmp_path / "shape.scad")
    same_solid(csg.solid(text), stl)


@pytest.mark.parametrize("machine, part", [("drnim", "beam_holder"), ("nimatron", "lamp_panel")])
def test_a_real_part_is_the_solid_openscad_renders(tmp_path, machine, part):
    source = Path(__file__).resolve().parent.parent / "hardware" / machine / "parts" / (part + ".scad")
    text, stl = openscad(tmp_path, source)
    same_solid(csg.solid(text), stl)


def test_a_node_it_does_not_know_is_left_to_openscad(tmp_path):
    text = "rotate_extrude($fn = 24) { multmatrix([[1, 0, 0, 5], [0, 1, 0, 0], [0, 0, 1, 0], [0, 0, 0, 1]]) " \
           "{ square(size = [2, 2], center = false); } }"
    with pytest.raises(csg.Unknown, match="rotate_extrude"):
        csg.solid(text)
    assembly = Assembly(load_default("drnim"), OPENSCAD, tmp_path / "renders")
    shapes = assembly.shapes({"ring": text, "block": "cube(size = [100, 100, 1], center = true);"})
    assert isinstance(shapes["block"], manifold3d.Manifold)
    assert isinstance(shapes["ring"], manifold3d.Manifold)      # openscad's STL, read by Manifold
    assert len(list((tmp_path / "renders").glob("*.stl"))) == 1       # the ring's, not the block's
    volumes = assembly.intersections([("ring", "block")], shapes, {}, tmp_path)
    assert volumes[("ring", "block")] > 0
