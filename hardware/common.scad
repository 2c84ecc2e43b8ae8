// SPDX-License-Identifier: CERN-OHL-P-2.0
// What both machines' printed parts share: print settings, the bought parts they fit
// (buttons, toggles, LEDs, sockets, the Raspberry Pi) and a few shapes that print
// without supports. Each machine's parts/params.scad includes this file, and every
// value here can be changed from the command line, e.g. `openscad -D wall=3 ...`.

// Printing
wall = 2.4;            // wall thickness, mm: six 0.4 mm lines, stiff enough for a public exhibit
clearance = 0.3;       // gap on each side where a bought part fits into a printed one, mm
$fa = 6;               // facet angle and size: round enough to look round,
$fs = 0.8;             // coarse enough that openscad renders each part in seconds
// Holes print smaller than drawn: the printer's outline of a hole shrinks inwards. PLA on a
// 0.4 mm nozzle takes 0.1-0.2 mm off a hole's diameter, so every hole a bought part goes into
// or a screw cuts into is drawn this much wider (hole(), hole_circle()), measured across its
// flats, not its corners: the hole sizes below are the sizes a hole must print at. Print a
// test plate of holes and change this for your printer (0.1 for a well-tuned one, 0.3 for a
// printer whose holes come out a lot small).
hole_allowance = 0.2;

// Bought parts named in the parts lists (bom.csv)
button_hole = 16.2;    // 16 mm momentary push button (R13-507): its M16 thread
toggle_hole = 6.4;     // SPDT toggle (MTS-102): its M6 bushing
led_hole = 5.2;        // 5 mm LED, pushed in from behind
led_rim = 6.0;         // the 5 mm LED's collar, which stops it in its hole
panel_thickness = 3;   // panel plates: the button's and toggle's nuts need at most 5 mm
barrel_hole = 11.2;    // panel barrel socket 2.1 x 5.5 mm (M11 thread)
fuse_hole = 12.5;      // panel fuse holder 5 x 20 mm (M12 thread)
screw_hole = 3.4;      // M3 wood or machine screws into the backboard or the box
pi_pilot = 2.2;        // the Pi's M2.5 thread-forming screws into the standoffs (2.1-2.2 mm in plastic)
pi_board = [85, 56];   // Raspberry Pi 4 / 5 (a 3 B+ has the same size and holes)
pi_holes = [58, 49];   // the Pi's M2.5 mounting holes, centre to centre
pi_hole_inset = 3.5;   // from the board's edges to the first holes' centres
pi_standoff = 6;       // how far the Pi stands off the floor, mm (room for its solder joints)
pi_pcb = 1.4;          // the Pi's board
// The Pi 4's ports, in its own frame: x along the long edge from the SD card's end (0) to
// the USB and Ethernet end (85), y from the USB-C edge (0) to the header's edge (56).
// [name, [x, y] of the port's mouth centre, [width, depth, height] of its body, which way it
// opens ("-y" or "+x")]. A Pi 5 has the same holes and edges, its ports within a millimetre.
pi_ports = [
    ["usb-c", [11.2, -1.2], [9.0, 7.5, 3.3], "-y"],
    ["hdmi0", [26.0, -1.2], [7.5, 7.5, 3.0], "-y"],
    ["hdmi1", [39.5, -1.2], [7.5, 7.5, 3.0], "-y"],
    ["audio", [53.5, -2.5], [7.0, 15.0, 6.0], "-y"],
    ["usb2", [87.0, 9.0], [17.5, 15.0, 16.0], "+x"],
    ["usb3", [87.0, 27.0], [17.5, 15.0, 16.0], "+x"],
    ["ethernet", [87.5, 45.75], [21.0, 16.0, 13.5], "+x"],
];
pi_header = [[32.5, 52.5], [51.0, 5.0, 8.5]];   // the 40-pin header: centre, size
// A USB-C plug's overmould (the Pi's supply lead): width, height, length out of the port.
usb_c_plug = [12.5, 8.0, 30];
// The T-Cobbler's 40-way ribbon plug on the header: length, width, height above the board.
ribbon_plug = [56.0, 9.0, 18.0];

// A round hole's sides: enough that it looks round; its flats, not its corners, are what it
// prints at. A multiple of 8, so that a teardrop's point meets a corner at 45 degrees.
function hole_sides(d) = 8 * ceil(max(16, PI * d / 0.6) / 8);
// The diameter across its corners of a hole that prints at `d`: its flats hole_allowance wider.
function hole_corners(d) = (d + hole_allowance) / cos(180 / hole_sides(d));

// A round hole of diameter `d` as it must print, in 2D: a polygon whose flats are
// hole_allowance wider than `d` (its corners further out), so the printed hole is `d`.
module hole_circle(d) {
    circle(d = hole_corners(d), $fn = hole_sides(d));
}

// The same, `h` long along z from z = 0.
module hole(d, h) {
    linear_extrude(height = h) hole_circle(d);
}

// A round hole along y through a vertical wall, with a 45-degree point on top, so its
// roof prints without support (d as for hole_circle).
module teardrop_y(d, length) {
    rotate([90, 0, 0])
        linear_extrude(height = length, center = true)
            union() {
                hole_circle(d);
                rotate(45) square(hole_corners(d) / 2);
            }
}

// The same along x.
module teardrop_x(d, length) {
    rotate([0, 0, 90]) teardrop_y(d, length);
}

// A box open at the top, standing on its floor: outer size `size`, walls `wall` thick.
module open_box(size, floor_thickness = wall) {
    difference() {
        cube(size);
        translate([wall, wall, floor_thickness])
            cube([size[0] - 2 * wall, size[1] - 2 * wall, size[2]]);
    }
}

// Four standoffs for a Raspberry Pi, with pilot holes for M2.5 thread-forming screws, in the Pi's
// own frame (its corner at the origin; see pi_ports). Their feet overlap the floor below
// them by 0.01 mm so they fuse. Place them with pi_frame(), as the Pi itself is placed.
module pi_standoffs(height = pi_standoff) {
    for (x = [pi_hole_inset, pi_hole_inset + pi_holes[0]],
         y = [pi_hole_inset, pi_hole_inset + pi_holes[1]])
        translate([x, y, -0.01])
            difference() {
                cylinder(d = 6, h = height + 0.01);
                hole(pi_pilot, height + 1);
            }
}

// The lid of an open_box whose inside is `inner` (x, y): a plate the box's outer size and
// `plate` thick, with a lip (a ring one wall thick) that fits inside the box's walls.
// Drawn top face down, lip upwards, as it prints.
module box_lid(inner, plate, lip_height = 4) {
    lip = [inner[0] - 2 * clearance, inner[1] - 2 * clearance];
    cube([inner[0] + 2 * wall, inner[1] + 2 * wall, plate]);
    translate([wall + clearance, wall + clearance, plate - 0.01])
        difference() {
            cube([lip[0], lip[1], lip_height + 0.01]);
            translate([wall, wall, -1]) cube([lip[0] - 2 * wall, lip[1] - 2 * wall, lip_height + 2]);
        }
}

// Whether `name` is in `names`; whether `text` starts with `prefix`.
function listed(name, names) = len([for (n = names) if (n == name) n]) > 0;
function starts(text, prefix) = len(text) >= len(prefix) && len([for (i = [0 : len(prefix) - 1]) if (text[i] != prefix[i]) i]) == 0;

// The Pi's frame, for a Pi whose board corner lies at `corner` (its bottom face at z = 0),
// turned by `turn` degrees about z (0 or 180; 90 or 270 put its long edge along y): the
// standoffs, the board and the plugs are all placed by this, so they cannot disagree.
module pi_frame(corner, turn) {
    size = turn % 180 == 0 ? pi_board : [pi_board[1], pi_board[0]];
    translate(corner) translate([size[0] / 2, size[1] / 2, 0]) rotate(turn)
        translate([-pi_board[0] / 2, -pi_board[1] / 2, 0]) children();
}

// The Pi as a keep-out, in its frame: the board with its four holes (the screws pass), its
// ports and header, the solder tails under it (clear of the 6 mm pads round the holes), and a
// plug in each port it uses (`plugs`: names from pi_ports, and "ribbon" for the header's).
// `grow` widens every face (0.3 for a clearance test).
module pi_keepout(plugs = [], grow = 0) {
    difference() {
        translate([-grow, -grow, -grow]) cube([pi_board[0] + 2 * grow, pi_board[1] + 2 * grow, pi_pcb + 2 * grow]);
        for (x = [pi_hole_inset, pi_hole_inset + pi_holes[0]], y = [pi_hole_inset, pi_hole_inset + pi_holes[1]])
            translate([x, y, -1]) cylinder(d = 2.7, h = pi_pcb + 2);
    }
    difference() {
        translate([1, 1, -2]) cube([pi_board[0] - 2, pi_board[1] - 2, 2]);
        for (x = [pi_hole_inset, pi_hole_inset + pi_holes[0]], y = [pi_hole_inset, pi_hole_inset + pi_holes[1]])
            translate([x, y, -3]) cylinder(d = 6.2, h = 4);
    }
    for (port = pi_ports) {
        body = port[2];
        at = port[1];
        translate([at[0], at[1], pi_pcb])
            if (port[3] == "-y") translate([-body[0] / 2 - grow, -grow, -grow]) cube(body + [2, 0, 1] * grow);
            else translate([-body[0] - grow, -body[1] / 2 - grow, -grow]) cube(body + [1, 2, 1] * grow);
        if (listed(port[0], plugs))
            translate([at[0], at[1], pi_pcb + body[2] / 2])
                if (port[3] == "-y") translate([-usb_c_plug[0] / 2, -usb_c_plug[2], -usb_c_plug[1] / 2]) cube([usb_c_plug[0], usb_c_plug[2], usb_c_plug[1]]);
                else translate([0, -usb_c_plug[0] / 2, -usb_c_plug[1] / 2]) cube([usb_c_plug[2], usb_c_plug[0], usb_c_plug[1]]);
    }
    // the header, and the ribbon's plug on its pins above the header's 2.5 mm base
    translate([pi_header[0][0] - pi_header[1][0] / 2, pi_header[0][1] - pi_header[1][1] / 2, pi_pcb]) cube(pi_header[1]);
    if (listed("ribbon", plugs)) pi_ribbon();
}

// The T-Cobbler's ribbon plug on the Pi's header, in the Pi's frame.
module pi_ribbon() {
    translate([pi_header[0][0] - ribbon_plug[0] / 2, pi_header[0][1] - ribbon_plug[1] / 2, pi_pcb + 2.5]) cube(ribbon_plug);
}
