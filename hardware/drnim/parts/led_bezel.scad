// SPDX-License-Identifier: CERN-OHL-P-2.0
// Dr. Nim: the bezel of an indicator's LED pair (the default build, `kind = "led_pair"`):
// a flipper-shaped plate with an LED at each end, the lit one showing which way the
// flip-flop, the equalizer or the turn switch points. The LEDs push in from behind
// through the backboard, their collars in a 6.5 mm counterbore 5 mm deep in the board's
// back, so that their domes come through the bezel; two screws hold the bezel.
// print: flat, face down; no supports
// bounding box: 52.4 x 14.0 x 3.0 mm
// count: 5 (three flip-flops, the equalizer, the turn indicator)
// mates with: two 5 mm LEDs (led_hole); the backboard (2 x board_screw)
include <params.scad>


module led_bezel() {
    difference() {
        hull()
            for (x = [0, bezel_span]) translate([x, 0, 0]) cylinder(d = 14, h = bezel_thickness);
        for (x = [0, bezel_span]) translate([x, 0, -1]) hole(led_hole, bezel_thickness + 2);
        for (x = [bezel_span / 2 - 7, bezel_span / 2 + 7])
            translate([x, 0, -1]) hole(screw_hole, bezel_thickness + 2);
    }
}

led_bezel();
