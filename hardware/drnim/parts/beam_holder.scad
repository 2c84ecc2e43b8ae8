// Dr. Nim: the break-beam holder, a short chute under the rail's open end. Every released
// marble falls through its bore, past the beam, towards the tray. The two halves of the IR
// break-beam pair slide into the pockets from above, LEDs facing the bore, and look at each
// other through the slots; their wires leave upwards.
// print: standing upright, pockets open upwards; no supports
// bounding box: 85.8 x 27.0 x 14.8 mm
// count: 1
// mates with: the IR break-beam pair (Adafruit 2167 or 2168, beam_body); the backboard (2 x M3)
include <params.scad>

module beam_holder() {
    bore = marble + 2 * marble_play;
    pocket = [beam_body[0] + 2 * clearance, beam_body[2] + 2 * clearance];
    ear = 8;
    length = bore + 2 * (pocket[0] + 2 * wall) + 2 * ear;
    depth = 2 * path_from_board;
    height = beam_body[1] + 2 * wall;
    centre = [length / 2, path_from_board];
    difference() {
        cube([length, depth, height]);
        translate([centre[0], centre[1], -1]) cylinder(d = bore, h = height + 2);
        for (side = [-1, 1]) {
            // the pocket, and the slot the beam shines through
            translate([centre[0] + side * (bore / 2 + wall + pocket[0] / 2) - pocket[0] / 2,
                       centre[1] - pocket[1] / 2, wall])
                cube([pocket[0], pocket[1], height]);
            translate([centre[0] + side * (bore / 2 + wall / 2) - wall, centre[1] - 2, wall])
                cube([2 * wall, 4, height]);
            translate([centre[0] + side * (length / 2 - ear / 2), wall, height / 2])
                teardrop_y(screw_hole, 2 * wall + 2);
        }
    }
}

beam_holder();
