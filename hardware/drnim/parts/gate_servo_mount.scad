// SPDX-License-Identifier: CERN-OHL-P-2.0
// Dr. Nim: the bracket of the SG90 servo that releases the marbles, instead of the solenoid.
// The servo hangs in the window by its tabs, shaft pointing away from the backboard, below
// rail_lower.scad, 60 mm uphill of its floor slot (the window near the bracket's top, so the
// bracket clears the rail); gate_servo_arm.scad on its horn swings up through the slot and
// lifts the lowest marble over the lip.
// print: standing, as mounted (the window upright); no supports
// bounding box: 56.2 x 20.3 x 22.2 mm
// count: 1 (or gate_solenoid.scad instead)
// mates with: the SG90 (servo_model) and its two tab screws, the backboard (2 x board_screw)
include <params.scad>

module gate_servo_mount() {
    // The tabs' underside sits this far from the board, so that the case clears the board
    // and the arm's peg reaches back to the marbles' path.
    standoff = mount_standoff;
    width = mount_width;
    height = mount_height;
    ears = mount_ears;
    difference() {
        union() {
            translate([ears, standoff, 0]) cube([width, wall, height]);          // the window plate
            for (x = [ears, ears + width - wall]) translate([x, 0, 0]) cube([wall, standoff + wall, height]);
            cube([width + 2 * ears, wall, height]);                                // against the board
        }
        translate([ears + width / 2, standoff + wall / 2, mount_window_z])
            cube([servo_body[0] + 2 * clearance, wall + 2, servo_body[1] + 2 * clearance], center = true);
        for (side = [-1, 1])
            translate([ears + width / 2 + side * servo_screw_spacing / 2, standoff + wall / 2, mount_window_z])
                teardrop_y(2.0, wall + 2);
        // the case between the side walls and the board
        translate([ears + wall, wall, -1]) cube([width - 2 * wall, standoff - wall, height + 2]);
        for (screw = mount_screws)
            translate([screw[0], wall / 2, screw[1]]) teardrop_y(screw_hole, wall + 1);
    }
}

gate_servo_mount();
