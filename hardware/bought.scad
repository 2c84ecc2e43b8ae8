// SPDX-License-Identifier: CERN-OHL-P-2.0
// The bought parts of both machines as keep-out solids: each part's envelope (the room it
// takes, with its solder lugs and wires' ends), not its exact shape. The assemblies place
// them beside the printed parts, and `controller hardware check` proves that no two of
// them meet. Every module draws its part in its own frame (documented at each) and takes
// `grow`, mm added on every side: a fit is tested with the part grown by a little (it must
// still go in) and by a lot (it must then not: the pocket holds it). What goes through a round
// hole is drawn with `fitted` sides, within 0.003 mm of its circle, so that the check judges
// the hole's flats against the part's true size.
fitted = 64;
include <common.scad>

// A screw: its head on the plane z = 0, its shank down along -z for `length`.
module screw(diameter, length, head = 2.5) {
    translate([0, 0, -length]) cylinder(d = diameter, h = length + 0.01);
    cylinder(d = 2 * diameter, h = head);
}

// A 16 mm push button (R13-507) in a plate whose front face is z = 0 (the plate below it):
// its cap in front, its thread through the plate, its body and lugs behind it.
module push_button(plate, grow = 0) {
    cylinder(d = 20, h = 8);
    translate([0, 0, -plate - 0.01]) cylinder(d = 16 + 2 * grow, h = plate + 0.02, $fn = fitted);
    translate([0, 0, -plate - 22]) cylinder(d = 20, h = 22);
}
button_depth = 22;       // behind the plate

// An SPDT toggle (MTS-102) in a plate whose front face is z = 0: its bat and nut in front,
// its 6 mm bushing through the plate, its body and three lugs behind it.
module toggle(plate, grow = 0) {
    cylinder(d = 9, h = 2.5);
    cylinder(d = 3, h = 12);
    translate([0, 0, -plate - 0.01]) cylinder(d = 6 + 2 * grow, h = plate + 0.02, $fn = fitted);
    translate([-6.6, -4, -plate - 18]) cube([13.2, 8, 18]);
}
toggle_depth = 18;

// A 5 mm LED whose collar's back is at z = 0, its dome pointing along +z: the collar, and
// the body and dome (8.6 mm from the collar's back), which go through the hole.
module led5(grow = 0) {
    cylinder(d = 5.8, h = 1, $fn = 16);
    cylinder(d = 5 + 2 * grow, h = 8.6, $fn = fitted);
}

// A panel barrel socket (2.1 x 5.5 mm, M11 thread) in a wall whose outer face is z = 0:
// the plug's body outside, the thread through the wall, the socket and its lugs inside.
module barrel_socket(wall_thickness, grow = 0) {
    cylinder(d = 10, h = 40);
    translate([0, 0, -wall_thickness - 0.01]) cylinder(d = 11 + 2 * grow, h = wall_thickness + 0.02, $fn = fitted);
    translate([0, 0, -wall_thickness - 22]) cylinder(d = 13, h = 22);
}

// A panel fuse holder (5 x 20 mm, M12 thread) in a wall whose outer face is z = 0: its cap
// outside, the thread through the wall, its body and two lugs inside.
module fuse_holder(wall_thickness, grow = 0) {
    cylinder(d = 15, h = 14);
    translate([0, 0, -wall_thickness - 0.01]) cylinder(d = 12 + 2 * grow, h = wall_thickness + 0.02, $fn = fitted);
    translate([0, 0, -wall_thickness - 36]) cylinder(d = 14, h = 36);
}

// A circuit board standing on its underside at z = 0: the board, the parts on it up to
// `parts` high (leaving `margin` clear along each edge) and the solder tails under it.
module circuit_board(size, thickness = 1.6, parts = 15, margin = 3, tails = 2) {
    cube([size[0], size[1], thickness]);
    translate([margin, margin, thickness - 0.01]) cube([size[0] - 2 * margin, size[1] - 2 * margin, parts]);
    if (tails > 0) translate([margin, margin, -tails]) cube([size[0] - 2 * margin, size[1] - 2 * margin, tails + 0.01]);
}

// The plug-in 5 V supply (Mean Well GST25A05-P1J, about 97 x 50 x 32 mm) lying on z = 0.
module supply() {
    cube([97, 50, 32]);
}

// A steel angle bracket, two 40 mm legs 16 mm wide, 2 mm thick: one leg on the plane y = 0
// reaching up (+z), the other on z = 0 reaching back (+y); its corner on the x axis. Each
// leg has two 3.5 mm holes, at bracket_holes ([across, along] the leg from its corner).
bracket = [16, 40, 2];
bracket_holes = [[-4, 28], [4, 34]];
module angle_bracket() {
    difference() {
        translate([-bracket[0] / 2, 0, 0]) {
            cube([bracket[0], bracket[2], bracket[1]]);
            cube([bracket[0], bracket[1], bracket[2]]);
        }
        for (h = bracket_holes) {
            translate([h[0], -1, h[1]]) rotate([-90, 0, 0]) cylinder(d = 3.5, h = bracket[2] + 2);
            translate([h[0], h[1], -1]) cylinder(d = 3.5, h = bracket[2] + 2);
        }
    }
}

// The solids `controller hardware check` adds to an assembly's own (`screws` and `pilots` as
// its assembly.scad lists them): "driver:WHAT", the way a screwdriver takes to the heads of the
// screws that hold WHAT (a rod as wide as a head, driver_reach out along each screw); and the
// pilot pins of `pilots`, one in each hole where such a screw cuts its thread, hole_allowance
// wider than the pilot as printed, as the hole is drawn.
module placed_check(name, screws, pilots) {
    if (starts(name, "driver:"))
        for (s = screws) if (str("driver:", s[7]) == name)
            translate(s[4]) rotate(s[5]) translate([0, 0, s[6]]) cylinder(d = 2 * s[1][0], h = driver_reach);
    for (p = pilots) if (name == p[0] || name == p[1])
        for (s = screws) if (str("pilot-least:", s[7]) == p[0])
            translate(s[4]) rotate(s[5]) translate([0, 0, -s[1][1]])
                cylinder(d = (name == p[0] ? p[4] : p[5] + 2 * fit_min) + hole_allowance, h = s[1][1] - s[2], $fn = fitted);
}
