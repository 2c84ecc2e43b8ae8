// SPDX-License-Identifier: CERN-OHL-P-2.0
// Dr. Nim: the marble rail's lower half, with the release gate. The lowest marble rests
// against a lip at the open end. The release lifts it over the lip: a push solenoid
// (gate_solenoid.scad) through the round hole in the floor, or the servo arm's peg
// (gate_servo_arm.scad) through the slot from the front. The marble falls into
// beam_holder.scad and the next one rolls on against the lip. Two slots at the joint take
// rail_upper.scad's pins.
// print: lying on its floor, channel open upwards; no supports
// bounding box: 130.4 x 25.4 x 30.0 mm
// count: 1
// mates with: rail_upper.scad; gate_solenoid.scad or gate_servo_arm.scad; beam_holder.scad
include <params.scad>

module rail_lower() {
    half = rail_length / 2;
    marble_x = half - wall - marble / 2;   // the lowest marble's centre, resting on the lip
    difference() {
        union() {
            rail_channel(half);
            translate([half - wall, rail_back - 0.01, 0]) cube([wall, channel + 0.02, rail_floor + lip]);
        }
        // the alignment slots for the upper half's pins, a little larger than the pins
        for (y = [rail_back / 2 - pin[1] / 2 + 1, rail_width - wall / 2 - pin[1] / 2 - 1])
            translate([-0.01, y - clearance, -0.01])
                cube([pin[0] + 0.5, pin[1] + 2 * clearance, pin[2] + clearance + 0.01]);
        // the solenoid's plunger comes up through a hole under the lowest marble's rear half,
        // so the marble tips forwards; the servo arm's peg comes in through a slot from the
        // front, narrow enough for a marble to roll over it
        translate([marble_x - 0.3 * marble, path_from_board, -1]) cylinder(d = solenoid_plunger + 2, h = rail_floor + 2);
        translate([marble_x - 0.3 * marble - gate_slot / 2, path_from_board, -1])
            cube([gate_slot, rail_width, rail_floor + rail_front + 2]);
    }
}

rail_lower();
