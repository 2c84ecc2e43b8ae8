// SPDX-License-Identifier: CERN-OHL-P-2.0
// Dr. Nim: the tray at the foot of the board that catches the fallen marbles, room for all
// fifteen. A marble comes out of the beam holder at about 1.5 m/s and would bounce out of
// an open dish, so the back of the tray is a hood: the marble drops through the hole in its
// roof onto a ramp, any bounce meets the roof, and the ramp rolls it forward to the open
// front, where a visitor takes it. The tall back wall screws to the backboard.
// print: standing on its floor, open upwards; no supports
// bounding box: 89.8 x 62.6 x 48.8 mm
// count: 1
// mates with: the backboard (2 x board_screw); 15 marbles
include <params.scad>

module tray() {
    difference() {
        union() {
            open_box([tray_outer[0], tray_outer[1], tray_height]);
            cube([tray_outer[0], wall, tray_back]);
            // the hood: side walls up to the roof, and the roof over the back of the tray
            for (x = [0, tray_outer[0] - wall]) translate([x, 0, 0]) cube([wall, wall + tray_hood, tray_roof + wall]);
            translate([0, 0, tray_roof]) cube([tray_outer[0], wall + tray_hood, wall]);
            // the ramp under the hole: a wedge falling towards the front
            translate([wall, wall, wall - 0.01])
                rotate([90, 0, 90])
                    linear_extrude(height = tray_inner[0])
                        polygon([[0, 0], [tray_hood, 0], [0, tray_hood * tan(tray_ramp)]]);
        }
        translate([tray_hole_x, path_from_board, tray_roof - 1]) cylinder(d = tray_hole, h = wall + 2);
        for (screw = tray_screws) translate(screw) teardrop_y(screw_hole, wall + 2);
    }
}

tray();
