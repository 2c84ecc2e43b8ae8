// SPDX-License-Identifier: CERN-OHL-P-2.0
// The Nimatron: the lamp panel, four rows of seven lamps. Each 5 mm warm-white LED stands on
// the lamp board behind the upright, through the upright's window, its collar against the
// panel's back face and its dome through the panel. One panel sits on the console's
// upright, a second on the spectators' display (the parts list has both sets of LEDs and
// both lamp boards); paint the face black, or print it in black, for the lit lamps to stand
// out.
// print: flat, either face down; no supports
// bounding box: 161.2 x 92.6 x 5.0 mm
// count: 2 (the console's and the spectators' display's)
// mates with: 28 LEDs 5 mm (led_hole) on the lamp board; the upright (4 x upright_screw)
include <params.scad>

// The panel's outline with the lamps' holes and the corner screw holes.
module lamp_layer(size) {
    difference() {
        square(size);
        for (column = [0 : lamps_per_row - 1], row = [0 : rows - 1])
            translate([lamp_margin + column * lamp_pitch, lamp_margin + row * lamp_pitch]) hole_circle(led_hole);
        for (x = [lamp_margin / 2, size[0] - lamp_margin / 2], y = [lamp_margin / 2, size[1] - lamp_margin / 2])
            translate([x, y]) hole_circle(screw_hole);
    }
}

// One extrusion, no 3D boolean: openscad's CGAL renders a plate with 28 holes in a second,
// where cups round the lamps took minutes.
module lamp_panel() {
    size = lamp_panel_size;
    linear_extrude(height = lamp_panel_thickness) lamp_layer(size);
}

lamp_panel();
