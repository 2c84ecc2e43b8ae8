// Dr. Nim, assembled: the printed parts placed on the plywood backboard as they are
// mounted, with the marbles, the buttons and the solenoid sketched in. Not a part: it
// draws assembly.png (see README.md) and shows where each part goes.
include <params.scad>
use <rail_upper.scad>
use <rail_lower.scad>
use <gate_solenoid.scad>
use <beam_holder.scad>
use <flipper.scad>
use <tray.scad>
use <panel.scad>
use <enclosure_base.scad>
use <enclosure_lid.scad>

board = [320, 6, 330];
slope = atan(1 / 12);
rail_start = [20, 0, 290];
half = rail_length / 2;
rail_end = rail_start + [rail_length * cos(slope), 0, -rail_length * sin(slope)];
fall_x = rail_end[0] + marble / 2;

// In use the board stands upright: x to the right, z up, the parts in front of it (y < 0
// here, towards the viewer). A part drawn lying on its floor, back against y = 0, turns
// by mounted() so that its back is against the board.
module mounted(position) {
    translate(position) mirror([0, 1, 0]) children();
}

color("BurlyWood") cube(board);

// the rail, falling towards the gate at the right
mounted(rail_start) rotate([0, slope, 0]) {
    color("Red") rail_upper();
    color("Red") translate([half, 0, 0]) rail_lower();
    // twelve marbles still waiting, their lowest against the lip
    for (i = [0 : 11])
        color("LightSkyBlue")
            translate([rail_length - wall - marble / 2 - i * marble, path_from_board, rail_floor + marble / 2]) sphere(d = marble);
}

// the solenoid's cradle under the gate, its plunger up through the rail's floor
gate_x = rail_start[0] + (rail_length - wall - marble / 2 - 0.3 * marble) * cos(slope);
mounted([gate_x - 10 - (solenoid_body[1] + 2 * clearance + 2 * wall) / 2, 0, rail_end[2] - 0.7 * solenoid_body[0] - 12]) {
    color("DimGray") gate_solenoid();
}
color("Silver")
    translate([gate_x, -path_from_board, rail_end[2] - 0.7 * solenoid_body[0] - 10])
        translate([-solenoid_body[1] / 2, -solenoid_body[2] / 2, 0]) cube([solenoid_body[1], solenoid_body[2], solenoid_body[0]]);

// the break-beam holder under the rail's end, one marble falling through it
mounted([fall_x - 42.9, 0, 190]) color("DarkSlateGray") beam_holder();
color("LightSkyBlue") translate([fall_x, -path_from_board, 215]) sphere(d = marble);

// the three flip-flops (one on top, two below), the equalizer and the turn switch
for (flip = [[150, 265, -30], [110, 225, 210], [190, 225, -30], [150, 180, 210], [150, 140, -30]])
    translate([flip[0], -22, flip[1]]) rotate([90, 0, 0]) rotate(flip[2]) color("White") flipper();

// the tray at the foot, under the falling marbles, with three marbles in it
mounted([fall_x - 70, 0, 70]) {
    color("Red") tray();
    for (i = [0 : 2]) color("LightSkyBlue") translate([20 + i * 17, 25, wall + marble / 2]) sphere(d = marble);
}

// the control panel in the lower left: buttons red, toggles silver, lamps in their colours
// (the face towards the viewer, the rim against the board)
translate([15, -10, 10]) rotate([90, 0, 0]) mirror([0, 0, 1]) {
    color("DimGray") panel();
    for (x = [25, 145]) color("Red") translate([x, 25, -8]) cylinder(d = 16, h = 8);
    for (x = [65, 105]) color("Silver") translate([x, 25, -12]) cylinder(d = 4, h = 12);
    for (lamp = [[0, "YellowGreen"], [1, "Orange"], [2, "YellowGreen"], [3, "DarkOrange"], [4, "Red"]])
        color(lamp[1]) translate([35 + lamp[0] * 25, 55, 0]) sphere(d = 5);
}

// the electronics box behind the board, lid on
translate([70, 40, 0]) {
    color("SteelBlue") enclosure_base();
    color("LightSteelBlue") translate([0, enclosure_inner[1] + 2 * wall, enclosure_height + wall]) rotate([180, 0, 0]) enclosure_lid();
}
