// Dr. Nim: the bezel of an indicator's LED pair (the default build, `kind = "led_pair"`):
// a flipper-shaped plate with an LED at each end, the lit one showing which way the
// flip-flop, the equalizer or the turn switch points. The LEDs push in from behind
// through the backboard; two M3 screws hold the bezel.
// print: flat, face down; no supports
// bounding box: 52.4 x 14.0 x 3.0 mm
// count: 5 (three flip-flops, the equalizer, the turn indicator)
// mates with: two 5 mm LEDs (led_hole); the backboard (2 x M3)
include <params.scad>

bezel_span = 2.4 * marble;     // between the two LEDs' centres
bezel_thickness = 3;

module led_bezel() {
    difference() {
        hull()
            for (x = [0, bezel_span]) translate([x, 0, 0]) cylinder(d = 14, h = bezel_thickness);
        for (x = [0, bezel_span]) translate([x, 0, -1]) cylinder(d = led_hole, h = bezel_thickness + 2);
        for (x = [bezel_span / 2 - 7, bezel_span / 2 + 7])
            translate([x, 0, -1]) cylinder(d = screw_hole, h = bezel_thickness + 2);
    }
}

led_bezel();
