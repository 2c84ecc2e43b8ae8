// SPDX-License-Identifier: CERN-OHL-P-2.0
// Dr. Nim: the electronics box behind the board: a Raspberry Pi on four standoffs and a
// full-size breadboard (with the T-Cobbler) beside it, the Pi turned so that its header
// faces the breadboard. Its USB-C, HDMI and audio ports show through the notch in the far
// wall (the USB-C plug's 8 mm body clears the notch's floor), its USB and Ethernet through
// the left-hand wall; the barrel socket and the fuse holder sit in the right-hand wall; the
// harness to the board leaves through the notch in the near wall. Four screws hold the
// floor to the base behind the backboard.
// enclosure_lid.scad closes it.
// print: standing on its floor, open upwards; no supports
// bounding box: 175.9 x 132.4 x 40.0 mm
// count: 1
// mates with: Raspberry Pi 4/5 (4 x M2.5 x 6), breadboard 165 x 55 mm, panel barrel socket, panel fuse holder, enclosure_lid.scad
include <params.scad>


module enclosure_base() {
    outer = [enclosure_inner[0] + 2 * wall, enclosure_inner[1] + 2 * wall];
    port_floor = wall + pi_standoff;
    // the USB-C plug's body is centred on its port: the notch's floor goes below it
    plug_floor = port_floor + pi_pcb + pi_ports[0][2][2] / 2 - usb_c_plug[1] / 2 - 1;
    difference() {
        open_box([outer[0], outer[1], enclosure_height]);
        // USB-C, HDMI and audio along the Pi's long edge, through the far wall
        translate([pi_corner[0] + 3, outer[1] - wall - 1, plug_floor]) cube([79, wall + 2, enclosure_height]);
        // USB and Ethernet at the Pi's short edge, through the left-hand wall
        translate([-1, pi_corner[1] + 1, port_floor]) cube([wall + 2, pi_board[1] - 2, enclosure_height]);
        // the barrel socket and the fuse holder, right-hand wall
        translate([outer[0] - wall / 2, outer[1] - 30, 20]) teardrop_x(barrel_hole, wall + 2);
        translate([outer[0] - wall / 2, outer[1] - 60, 20]) teardrop_x(fuse_hole, wall + 2);
        // the harness to the board: a notch in the near wall
        translate([outer[0] / 2 - 20, -1, enclosure_height - 15]) cube([40, wall + 2, 16]);
        // four holes in the floor to screw the box down
        for (at = enclosure_floor_screws) translate([at[0], at[1], -1]) hole(screw_hole, wall + 2);
    }
    pi_frame([pi_corner[0], pi_corner[1], wall], pi_turn) pi_standoffs();
    // two stops keep the breadboard from sliding into the Pi
    for (x = [wall + gap + 20, wall + gap + breadboard[0] - 30])
        translate([x, wall + gap + breadboard[1] + 1, wall - 0.01]) cube([10, 2, 6]);
}

enclosure_base();
