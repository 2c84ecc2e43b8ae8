// Dr. Nim: the cradle of the push solenoid that releases the marbles. The solenoid stands
// in it, plunger up, under the round hole in rail_lower.scad's floor; a pulse pushes the
// plunger up through the hole and lifts the lowest marble over the lip. Screw the cradle to the
// backboard so that the plunger at rest sits just below the rail's floor, and hold the
// solenoid in with a cable tie through the two side slots.
// print: standing on its floor, back plate upright; no supports
// bounding box: 41.4 x 23.2 x 21.0 mm
// count: 1 (or gate_servo_mount.scad and gate_servo_arm.scad instead)
// mates with: the solenoid (JF-0530B, solenoid_body), rail_lower.scad, the backboard (2 x M3)
include <params.scad>

module gate_solenoid() {
    inner = [solenoid_body[1] + 2 * clearance, solenoid_body[2] + 2 * clearance];
    height = 0.7 * solenoid_body[0];
    back = path_from_board - inner[1] / 2;        // puts the plunger under the marbles' path
    outer = [inner[0] + 2 * wall, back + inner[1] + wall];
    ears = 10;                                     // the back plate's screw ears, each side
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
        for (x = [ears / 2, outer[0] + 1.5 * ears])
            translate([x, wall / 2, height / 2]) teardrop_y(screw_hole, wall + 1);
    }
}

gate_solenoid();
