// SPDX-License-Identifier: CERN-OHL-P-2.0
// Dr. Nim: the servo gate's arm. It fits over the servo's single-arm horn (glue it, or use
// the horn's small screws), level and pointing at the gate with the servo at 0 degrees; the
// peg at its end points back towards the board and, when the servo turns to `open_angle`,
// rises through rail_lower.scad's floor slot and lifts the lowest marble over the lip. At
// `closed_angle` the peg rests 1 mm below the floor.
// print: flat, horn pocket and peg upwards; no supports
// bounding box: 70.3 x 11.8 x 22.2 mm
// count: 1 (with gate_servo_mount.scad)
// mates with: the SG90's single-arm horn; rail_lower.scad's front slot
include <params.scad>

// The arm's reach from the shaft to the peg is build.scad's gate_arm: through the pin map's
// 5 to 16 degrees the peg rises 11.3 mm and moves 2.1 mm along the rail.
arm_reach = gate_arm;

module gate_servo_arm() {
    // the peg reaches from the arm (in front of the horn) back to the marbles' path
    peg_length = servo_tab_height + 2 + wall + (servo_body[2] - servo_tab_height) + 4 + horn_thickness
                 - path_from_board;
    difference() {
        union() {
            hull() {
                cylinder(d = horn_hub + 2 * wall, h = arm_thickness);
                translate([arm_reach, 0, 0]) cylinder(d = gate_peg + 2 * wall, h = arm_thickness);
            }
            translate([arm_reach - gate_peg / 2, -gate_peg / 2, arm_thickness - 0.01]) cube([gate_peg, gate_peg, peg_length]);
        }
        // the horn's pocket, and a hole to reach the horn's screw
        translate([0, 0, arm_thickness - horn_thickness - 0.2])
            hull() {
                cylinder(d = horn_hub + 2 * clearance, h = horn_thickness + 1);
                translate([horn_length, 0, 0]) cylinder(d = horn_tip + 2 * clearance, h = horn_thickness + 1);
            }
        translate([0, 0, -1]) cylinder(d = 5, h = arm_thickness + 2);
    }
}

gate_servo_arm();
