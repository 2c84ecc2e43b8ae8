// SPDX-License-Identifier: CERN-OHL-P-2.0
// Dr. Nim: the break-beam holder under the rail's open end. A marble leaves the lip at
// 0.1-0.25 m/s and lands anywhere along 15 mm or so (controller hardware check works it
// out): the funnel on top, long along the rail, takes all of them into the bore, where
// the marble breaks the beam on its way to the tray. The two halves of the IR pair (the
// pin map's sensor) slide into their pockets from the ends, LEDs facing the bore through
// the slots, wires out at the ends (a drop of hot glue holds each). Two screws through the
// tab at the back, below the body, hold it to the backboard; the body reaches down to the
// tab's foot (it would hang over nothing there, printed upright), with a tunnel in front of
// each screw for its head and the screwdriver.
// print: standing upright, funnel upwards; no supports
// bounding box: 55.0 x 25.4 x 35.4 mm
// count: 1
// mates with: the IR break-beam pair (Adafruit 2167 or 2168, as the pin map's [build] says); the backboard (2 x board_screw)
include <params.scad>

module beam_holder() {
    centre = [beam_length / 2, path_from_board];
    beam_z = wall + beam_pocket[2] / 2;
    difference() {
        union() {
            cube([beam_length, beam_depth, beam_height]);
            translate([0, 0, -beam_tab]) cube([beam_length, beam_depth, beam_tab + 0.01]);
        }
        translate([centre[0], centre[1], -beam_tab - 1]) cylinder(d = beam_bore, h = beam_tab + beam_height + 2);
        // the funnel: long along the rail, as wide as the bore across it
        translate([centre[0], centre[1], beam_height - beam_funnel])
            hull() {
                cylinder(d = beam_bore, h = 0.01);
                for (side = [-1, 1])
                    translate([side * (beam_mouth - beam_bore) / 2, 0, beam_funnel]) cylinder(d = beam_bore, h = 0.01);
            }
        for (side = [-1, 1]) {
            // the pocket, open at the holder's end, and the slot the beam shines through
            translate([centre[0] + side * (beam_bore / 2 + wall + beam_pocket[0] / 2 + wall / 2 + 1) - (beam_pocket[0] + wall + 2) / 2,
                       centre[1] - beam_pocket[1] / 2, wall])
                cube([beam_pocket[0] + wall + 2, beam_pocket[1], beam_pocket[2]]);
            translate([centre[0] + side * (beam_bore / 2 + wall / 2) - wall, centre[1] - 2, wall + beam_pocket[2] / 2 - 2])
                cube([2 * wall, 4, 4]);
        }
        for (screw = beam_screws) {
            translate(screw) teardrop_y(screw_hole, beam_back + 2);
            translate([screw[0], (beam_back + beam_depth + 1) / 2, screw[2]]) teardrop_y(beam_tunnel, beam_depth - beam_back + 1);
        }
    }
}

beam_holder();
