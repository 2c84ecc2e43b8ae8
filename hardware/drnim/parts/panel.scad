// SPDX-License-Identifier: CERN-OHL-P-2.0
// Dr. Nim: the control panel under the tray: the trigger (lower right, as on the 1966 toy),
// the new-game button (left), the turn switch and the equalizer switch (toggles, middle)
// and the five status lamps along the top (your turn, Dr. Nim's turn, you win, Dr. Nim
// wins, fault). A rim behind the plate stiffens it; four screws through its bosses hold it.
// The buttons' and toggles' bodies reach 18-22 mm behind the plate: they pass through the
// window cut in the backboard behind the panel (parts/README.md gives its size).
// print: face down, rim upwards; no supports
// bounding box: 170.0 x 70.0 x 10.0 mm
// count: 1
// mates with: 2 push buttons 16 mm (R13-507), 2 toggles (MTS-102), 5 LEDs 5 mm; the backboard
include <params.scad>


// The plate with its holes, in 2D: extruded rather than drilled, so openscad renders the
// panel in a second or two.
module panel_plate() {
    difference() {
        square(panel_size);
        // new game (left) and the trigger (right)
        for (at = panel_buttons) translate(at) hole_circle(button_hole);
        // turn switch and equalizer switch
        for (at = panel_toggles) translate(at) hole_circle(toggle_hole);
        // the five status lamps
        for (at = panel_lamps) translate(at) hole_circle(led_hole);
        for (screw = panel_screws) translate(screw) hole_circle(screw_hole);
    }
}

// The rim round the edge, and bosses round the screws so that their heads bear on more
// than the thin plate.
module panel_rim() {
    difference() {
        square(panel_size);
        translate([wall, wall]) square([panel_size[0] - 2 * wall, panel_size[1] - 2 * wall]);
    }
    for (screw = panel_screws)
        translate(screw)
            difference() {
                circle(d = 8);
                hole_circle(screw_hole);
            }
}

module panel() {
    linear_extrude(height = panel_thickness) panel_plate();
    translate([0, 0, panel_thickness]) linear_extrude(height = panel_rim_depth - panel_thickness) panel_rim();
}

panel();
