// SPDX-License-Identifier: CERN-OHL-P-2.0
// Dr. Nim: the marble rail's upper half, where the queue of marbles starts. The rail is
// longer than a 220 mm bed, so it is printed in two halves that key together with two
// pins (this half) in two slots (rail_lower.scad); glue the joint and screw both halves to
// the backboard with a fall of about 1 in 12 towards the gate.
// print: lying on its floor, channel open upwards, pins on the bed; no supports
// bounding box: 136.4 x 25.4 x 30.0 mm
// count: 1
// mates with: rail_lower.scad; the backboard (2 x board_screw)
include <params.scad>

module rail_upper() {
    half = rail_length / 2;
    rail_channel(half);
    // the upper end is closed, so a marble cannot roll out backwards
    cube([wall, rail_width, rail_floor + rail_front]);
    // the pins stick out of the joint face at floor level, one under each wall
    for (y = [rail_back / 2 - pin[1] / 2 + 1, rail_width - wall / 2 - pin[1] / 2 - 1])
        translate([half - 0.01, y, 0]) cube([pin[0] + 0.01, pin[1], pin[2]]);
}

rail_upper();
