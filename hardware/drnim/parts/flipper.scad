// Dr. Nim: a white flipper on a servo horn, for the three flip-flops, the equalizer and
// (optionally) the turn indicator, as on the 1966 toy's white plastic levers. The servo
// (`kind = "servo"` in pinmap.toml) swings it between `left_angle` and `right_angle`. Print
// it in white; led_bezel.scad is the part for the LED-pair build instead.
// print: flat, face down, horn pocket upwards; no supports
// bounding box: 58.2 x 14.0 x 3.0 mm
// count: 4 (5 with the turn indicator as a servo)
// mates with: the SG90's single-arm horn (horn_hub, horn_tip, horn_length)
include <params.scad>

flipper_length = 3 * marble;   // the lever's reach, from the shaft to the tip
flipper_thickness = 3;

module flipper() {
    difference() {
        hull() {
            cylinder(d = 2 * horn_hub, h = flipper_thickness);
            translate([flipper_length, 0, 0]) cylinder(d = 0.4 * marble, h = flipper_thickness);
        }
        translate([0, 0, flipper_thickness - horn_thickness - 0.2])
            hull() {
                cylinder(d = horn_hub + 2 * clearance, h = horn_thickness + 1);
                translate([horn_length, 0, 0]) cylinder(d = horn_tip + 2 * clearance, h = horn_thickness + 1);
            }
        translate([0, 0, -1]) cylinder(d = 5, h = flipper_thickness + 2);
    }
}

flipper();
