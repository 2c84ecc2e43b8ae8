// What both machines' printed parts share: print settings, the bought parts they fit
// (buttons, toggles, LEDs, sockets, the Raspberry Pi) and a few shapes that print
// without supports. Each machine's parts/params.scad includes this file, and every
// value here can be changed from the command line, e.g. `openscad -D wall=3 ...`.

// Printing
wall = 2.4;            // wall thickness, mm: six 0.4 mm lines, stiff enough for a public exhibit
clearance = 0.3;       // gap on each side where a bought part fits into a printed one, mm
$fa = 6;               // facet angle and size: round enough to look round,
$fs = 0.8;             // coarse enough that openscad renders each part in seconds

// Bought parts named in the parts lists (bom.csv)
button_hole = 16.2;    // 16 mm momentary push button (R13-507): its M16 thread
toggle_hole = 6.4;     // SPDT toggle (MTS-102): its M6 bushing
led_hole = 5.2;        // 5 mm LED, pushed in from behind
led_rim = 6.0;         // the 5 mm LED's collar, which stops it in its hole
panel_thickness = 3;   // panel plates: the button's and toggle's nuts need at most 5 mm
barrel_hole = 11.2;    // panel barrel socket 2.1 x 5.5 mm (M11 thread)
fuse_hole = 12.5;      // panel fuse holder 5 x 20 mm (M12 thread)
screw_hole = 3.4;      // M3 wood or machine screws into the backboard or the box
pi_board = [85, 56];   // Raspberry Pi 4 / 5 (a 3 B+ has the same size and holes)
pi_holes = [58, 49];   // the Pi's M2.5 mounting holes, centre to centre
pi_hole_inset = 3.5;   // from the board's edges to the first holes' centres
pi_standoff = 6;       // how far the Pi stands off the floor, mm (room for its solder joints)

// A round hole along y through a vertical wall, with a 45-degree point on top, so its
// roof prints without support.
module teardrop_y(d, length) {
    rotate([90, 0, 0])
        linear_extrude(height = length, center = true)
            union() {
                circle(d = d);
                rotate(45) square(d / 2);
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

// Four standoffs for a Raspberry Pi, with holes for M2.5 self-tapping screws; the board's
// corner at the origin. Their feet overlap the floor below them by 0.01 mm so they fuse.
module pi_standoffs(height = pi_standoff) {
    for (x = [pi_hole_inset, pi_hole_inset + pi_holes[0]],
         y = [pi_hole_inset, pi_hole_inset + pi_holes[1]])
        translate([x, y, -0.01])
            difference() {
                cylinder(d = 6, h = height + 0.01);
                cylinder(d = 2.2, h = height + 1);
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
