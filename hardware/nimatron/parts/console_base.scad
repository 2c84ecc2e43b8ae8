// The Nimatron: the player's console box, holding the Raspberry Pi and the console's
// stripboard (the first four 74HC595s, their ULN2803s and the lamp wiring). The Pi's ports
// show through a notch in the right-hand wall; the barrel socket, the fuse holder and the
// ribbon to the spectators' display pass through the back wall. console_top.scad closes it.
// print: standing on its floor, open upwards; no supports
// bounding box: 196.8 x 105.8 x 45.0 mm
// count: 1
// mates with: Raspberry Pi 4/5 (4 x M2.5 x 6), stripboard 95 x 127 mm (4 x M3 x 6), barrel socket, fuse holder, console_top.scad
include <params.scad>

module console_base() {
    outer = [console_inner[0] + 2 * wall, console_inner[1] + 2 * wall];
    board = [wall + console_gap, wall + console_gap];
    pi_corner = [outer[0] - wall - console_gap - pi_board[1], wall + console_gap];
    port_floor = wall + pi_standoff;
    difference() {
        open_box([outer[0], outer[1], console_height]);
        // USB and Ethernet at the Pi's short edge, through the right-hand wall
        translate([outer[0] - wall - 1, pi_corner[1] + 1, port_floor]) cube([wall + 2, pi_board[1] - 2, console_height]);
        // the barrel socket and the fuse holder in the back wall, behind the Pi
        translate([pi_corner[0] + 15, outer[1] - wall / 2, 22]) teardrop_y(barrel_hole, wall + 2);
        translate([pi_corner[0] + 40, outer[1] - wall / 2, 22]) teardrop_y(fuse_hole, wall + 2);
        // the 6-way ribbon to the spectators' display: a notch in the back wall's top
        translate([40, outer[1] - wall - 1, console_height - 8]) cube([20, wall + 2, 9]);
        for (x = [12, outer[0] - 12], y = [12, outer[1] - 12]) translate([x, y, -1]) cylinder(d = screw_hole, h = wall + 2);
    }
    // the Pi, long edge front to back (its holes turned with it)
    translate([pi_corner[0] + pi_board[1], pi_corner[1], wall]) rotate(90) pi_standoffs();
    // the stripboard on four posts; drill its corners 3 mm
    for (x = [4, stripboard[0] - 4], y = [4, stripboard[1] - 4])
        translate([board[0] + x, board[1] + y, wall - 0.01])
            difference() {
                cylinder(d = 7, h = pi_standoff + 0.01);
                cylinder(d = 2.5, h = pi_standoff + 1);
            }
}

console_base();
