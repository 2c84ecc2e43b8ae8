// Dr. Nim: the electronics box behind the board: a Raspberry Pi on four standoffs and a
// full-size breadboard (with the T-Cobbler) beside it, header towards the breadboard. The
// Pi's ports show through notches in the far and the left-hand wall; the barrel socket and
// the fuse holder sit in the right-hand wall; the harness to the board leaves through the
// notch in the near wall.
// enclosure_lid.scad closes it.
// print: standing on its floor, open upwards; no supports
// bounding box: 175.9 x 132.4 x 40.0 mm
// count: 1
// mates with: Raspberry Pi 4/5 (4 x M2.5 x 6), breadboard 165 x 55 mm, panel barrel socket, panel fuse holder, enclosure_lid.scad
include <params.scad>


module enclosure_base() {
    outer = [enclosure_inner[0] + 2 * wall, enclosure_inner[1] + 2 * wall];
    // the Pi in the back-left corner, turned so that its header faces the breadboard
    pi_corner = [wall + gap, wall + enclosure_inner[1] - gap - pi_board[1]];
    port_floor = wall + pi_standoff;
    difference() {
        open_box([outer[0], outer[1], enclosure_height]);
        // USB-C, HDMI and audio along the Pi's long edge, through the far wall
        translate([pi_corner[0] + 18, outer[1] - wall - 1, port_floor]) cube([64, wall + 2, enclosure_height]);
        // USB and Ethernet at the Pi's short edge, through the left-hand wall
        translate([-1, pi_corner[1] + 1, port_floor]) cube([wall + 2, pi_board[1] - 2, enclosure_height]);
        // the barrel socket and the fuse holder, right-hand wall
        translate([outer[0] - wall / 2, outer[1] - 30, 20]) teardrop_x(barrel_hole, wall + 2);
        translate([outer[0] - wall / 2, outer[1] - 60, 20]) teardrop_x(fuse_hole, wall + 2);
        // the harness to the board: a notch in the near wall
        translate([outer[0] / 2 - 20, -1, enclosure_height - 15]) cube([40, wall + 2, 16]);
        // four holes in the floor to screw the box down
        for (x = [12, outer[0] - 12], y = [12, outer[1] - 12]) translate([x, y, -1]) cylinder(d = screw_hole, h = wall + 2);
    }
    translate([pi_corner[0], pi_corner[1], wall]) pi_standoffs();
    // two stops keep the breadboard from sliding into the Pi
    for (x = [wall + gap + 20, wall + gap + breadboard[0] - 30])
        translate([x, wall + gap + breadboard[1] + 1, wall - 0.01]) cube([10, 2, 6]);
}

enclosure_base();
