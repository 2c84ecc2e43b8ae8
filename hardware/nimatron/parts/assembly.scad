// The Nimatron, assembled: the console (base and top) with its buttons, and the lamp panel
// on a plywood upright behind it, a game in progress lit. Not a part: it draws
// assembly.png (see README.md) and shows where each part goes.
include <params.scad>
use <lamp_panel.scad>
use <console_base.scad>
use <console_top.scad>

outer = [console_inner[0] + 2 * wall, console_inner[1] + 2 * wall];
panel_size = [(lamps_per_row - 1) * lamp_pitch + 2 * lamp_margin, (rows - 1) * lamp_pitch + 2 * lamp_margin];
lit = [1, 3, 5, 7];     // the lamps still lit in rows 1-4 (top to bottom)

color("DimGray") console_base();
// the top, turned face up onto the base, its lip inside the walls
color("Gray") translate([0, outer[1], console_height + panel_thickness]) rotate([180, 0, 0]) console_top();
for (i = [0 : 3]) color("Red") translate([25 + i * 28, 35, console_height + panel_thickness]) cylinder(d = 16, h = 7);
color("Gold") translate([outer[0] - 60, 35, console_height + panel_thickness]) cylinder(d = 16, h = 7);
color("Black") translate([outer[0] - 25, 35, console_height + panel_thickness]) cylinder(d = 16, h = 7);
for (lamp = [[0, "YellowGreen"], [1, "Orange"], [2, "Yellow"], [3, "Red"]])
    color(lamp[1]) translate([outer[0] / 2 + (lamp[0] - 1.5) * 30, 80, console_height + panel_thickness]) sphere(d = 5);

// the upright at the console's back, and the lamp panel standing in front of it
upright = [panel_size[0] + 20, 6, panel_size[1] + 30];
translate([(outer[0] - upright[0]) / 2, outer[1], 0]) {
    color("BurlyWood") cube(upright);
    translate([10, 0, console_height + 10]) rotate([90, 0, 0]) {
        color("Black") lamp_panel();
        for (row = [0 : rows - 1], column = [0 : lamps_per_row - 1])
            color(column < lit[row] ? "Gold" : "DimGray")
                translate([lamp_margin + column * lamp_pitch, lamp_margin + (rows - 1 - row) * lamp_pitch, lamp_panel_thickness])
                    sphere(d = 5);
    }
}
