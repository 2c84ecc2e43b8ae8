// SPDX-License-Identifier: CERN-OHL-P-2.0
// Dr. Nim: the cradle of the push-pull solenoid that releases the marbles. The solenoid
// stands in it with its push end up (the end the plunger comes out of when the coil is
// energised: try it on the 5 V with nothing fitted), under the round hole in rail_lower.scad's
// floor; a pulse pushes the plunger up through the hole and lifts the lowest marble over the
// lip. Screw the cradle to the backboard so that the plunger's tip at rest sits 1 mm below
// the floor's top, in its hole: the marble then needs about 6 mm of the 10 mm stroke.
// Hold the solenoid in with a cable tie through the two side slots; the thermal switch
// (the parts list) goes between the coil and the cable tie.
// print: standing on its floor, back plate upright; no supports
// bounding box: 41.4 x 23.2 x 21.0 mm
// count: 1 (or gate_servo_mount.scad and gate_servo_arm.scad instead)
// mates with: the solenoid (JF-0530B, solenoid_body), rail_lower.scad, the backboard (2 x board_screw)
include <params.scad>

module gate_solenoid() {
    inner = cradle_inner;
    height = cradle_height;
    back = cradle_back;                            // puts the plunger under the marbles' path
    outer = cradle_outer;
    ears = cradle_ears;                            // the back plate's screw ears, each side
    difference() {
        union() {
            translate([ears, 0, 0]) open_box([outer[0], outer[1], height]);
            translate([ears, 0, 0]) cube([outer[0], back, height]);
            cube([outer[0] + 2 * ears, wall, height]);
        }
        // the solenoid's pocket, in front of the block that sets it under the marbles' path
        translate([ears + wall, back, wall]) cube([inner[0], inner[1], height]);
        // the plunger's far end moves too: a hole in the floor
        translate([ears + outer[0] / 2, back + inner[1] / 2, -1]) cylinder(d = solenoid_plunger + 2, h = wall + 2);
        // the cable tie's slots through both side walls
        translate([-1, back + 2, height - 6]) cube([outer[0] + 2 * ears + 2, 4.5, 2.5]);
        for (screw = cradle_screws)
            translate([screw[0], wall / 2, screw[1]]) teardrop_y(screw_hole, wall + 1);
    }
}

gate_solenoid();
