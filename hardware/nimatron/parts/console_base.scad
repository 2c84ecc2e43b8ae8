// SPDX-License-Identifier: CERN-OHL-P-2.0
// The Nimatron: the player's console box, holding the Raspberry Pi and the console's
// stripboard (the buttons' filters, the status lamps' resistors, the buzzer's transistor).
// The Pi's USB-C, HDMI and audio show through a notch in the back wall; the barrel socket
// and the fuse holder sit in the left-hand wall, above the stripboard and far from the Pi's
// ports; the six-way ribbon to the lamp boards leaves through the notch at the top of the
// back wall. Four screws hold the floor to the base. console_top.scad closes it.
// print: standing on its floor, open upwards; no supports
// bounding box: 193.8 x 105.8 x 45.0 mm
// count: 1
// mates with: Raspberry Pi 4/5 (4 x M2.5 x 6), stripboard 64 x 95 mm (4 x M3 x 6), barrel socket, fuse holder, console_top.scad; the base (4 x floor_screw)
include <params.scad>

module console_base() {
    outer = [console_inner[0] + 2 * wall, console_inner[1] + 2 * wall];
    board = [wall + console_gap, wall + console_gap];
    port_floor = wall + pi_standoff;
    // the USB-C plug's body is centred on its port: the notch's floor goes below it
    plug_floor = port_floor + pi_pcb + pi_ports[0][2][2] / 2 - usb_c_plug[1] / 2 - 1;
    difference() {
        open_box([outer[0], outer[1], console_height]);
        // USB-C, HDMI and audio along the Pi's long edge, through the back wall
        translate([pi_corner[0] + 3, outer[1] - wall - 1, plug_floor]) cube([79, wall + 2, console_height]);
        // the barrel socket and the fuse holder in the left-hand wall
        translate([wall / 2, console_barrel[0], console_barrel[1]]) teardrop_x(barrel_hole, wall + 2);
        translate([wall / 2, console_fuse[0], console_fuse[1]]) teardrop_x(fuse_hole, wall + 2);
        // the 6-way ribbon to the spectators' display: a notch in the back wall's top
        translate([40, outer[1] - wall - 1, console_height - 8]) cube([20, wall + 2, 9]);
        for (at = console_floor_screws) translate([at[0], at[1], -1]) hole(screw_hole, wall + 2);
    }
    // the Pi, long edge front to back (its holes turned with it)
    pi_frame([pi_corner[0], pi_corner[1], wall], pi_turn) pi_standoffs();
    // the stripboard on four posts, pilot holes for its M3 screws; drill its corners 3 mm
    for (x = [4, stripboard[0] - 4], y = [4, stripboard[1] - 4])
        translate([board[0] + x, board[1] + y, wall - 0.01])
            difference() {
                cylinder(d = 7, h = pi_standoff + 0.01);
                hole(strip_pilot, pi_standoff + 1);
            }
}

console_base();
