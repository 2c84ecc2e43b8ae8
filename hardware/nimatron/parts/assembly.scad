// SPDX-License-Identifier: CERN-OHL-P-2.0
// The Nimatron, assembled: the console (base and top) with the Pi, its stripboard, its
// buttons and lamps; the upright behind it, with the lamp panel on its face and the lamp
// board behind it; both on the base. The one description of the assembly:
//   openscad assembly.scad                    the picture (assembly.png, see README.md)
//   -D 'mode="solid"' -D 'solid="NAME"'       one solid alone, for `controller hardware check`
//   -D 'mode="facts"'                         its solids, screws and fits, for the check
// x to the right, y away from the player, z up; the console's corner at the origin. The
// spectators' display is the same lamp panel and lamp board on a face of your own.
include <params.scad>
include <../../bought.scad>
use <lamp_panel.scad>
use <console_base.scad>
use <console_top.scad>

mode = "picture";
solid = "";
fit_min = 0.05;                  // as for Dr. Nim's assembly.scad
fit_max = 0.6;
fit_in = fit_min + hole_allowance / 2;
driver_reach = 60;

outer = [console_inner[0] + 2 * wall, console_inner[1] + 2 * wall];
base = [outer[0] + 20, 220, 9];
base_at = [-10, -20, -9];
upright_at = [(outer[0] - upright[0]) / 2, outer[1] + 40, 0];     // room for the Pi's USB-C plug
panel_at = [outer[0] / 2 - lamp_panel_size[0] / 2, upright_at[1], console_height + 12];   // its lower left corner, back face
grid_centre = [panel_at[0] + lamp_panel_size[0] / 2, panel_at[2] + lamp_panel_size[1] / 2];
window = [(lamps_per_row - 1) * lamp_pitch + 9, (rows - 1) * lamp_pitch + 9];
board_front = upright_at[1] + upright[2] + lamp_board_gap;
board_holes = [for (sx = [-1, 1], sz = [-1, 1]) [grid_centre[0] + sx * (lamp_board[0] / 2 - 4), grid_centre[1] + sz * (lamp_board[1] / 2 - 4)]];
brackets = [upright_at[0] + 10, upright_at[0] + upright[0] - 10];
supply_at = [50, board_front + 12, 0];
top_z = console_height + panel_thickness;
buttons = console_buttons;
lamps = console_lamps;
function lamp_xz(column, row) = [panel_at[0] + lamp_margin + column * lamp_pitch, panel_at[2] + lamp_margin + row * lamp_pitch];

module placed(name) {
    if (name == "base") translate(base_at) cube(base);
    else if (name == "upright") translate(upright_at) difference() {
        cube([upright[0], upright[2], upright[1]]);
        translate([grid_centre[0] - upright_at[0] - window[0] / 2, -1, grid_centre[1] - window[1] / 2]) cube([window[0], upright[2] + 2, window[1]]);
    }
    else if (name == "bracket-left") translate([brackets[0], upright_at[1] + upright[2], 0]) angle_bracket();
    else if (name == "bracket-right") translate([brackets[1], upright_at[1] + upright[2], 0]) angle_bracket();
    else if (name == "console_base") console_base();
    else if (name == "console_top") translate([0, outer[1], top_z]) rotate([180, 0, 0]) console_top();
    else if (name == "pi") pi_frame([pi_corner[0], pi_corner[1], wall + pi_standoff], pi_turn) pi_keepout(["usb-c"]);
    else if (name == "pi-ribbon") pi_frame([pi_corner[0], pi_corner[1], wall + pi_standoff], pi_turn) pi_ribbon();
    else if (name == "console-board") translate([wall + console_gap, wall + console_gap, wall + pi_standoff]) difference() {
        circuit_board(stripboard, 1.6, 10, 8);
        for (x = [4, stripboard[0] - 4], y = [4, stripboard[1] - 4]) translate([x, y, -5]) cylinder(d = 3.2, h = 20);
    }
    else if (name == "barrel-socket") translate([0, console_barrel[0], console_barrel[1]]) rotate([0, -90, 0]) barrel_socket(wall, fit_in);
    else if (name == "fuse-holder") translate([0, console_fuse[0], console_fuse[1]]) rotate([0, -90, 0]) fuse_holder(wall, fit_in);
    else if (name == "fit-max:barrel-socket") translate([0, console_barrel[0], console_barrel[1]]) rotate([0, -90, 0]) barrel_socket(wall, fit_max);
    else if (name == "fit-max:fuse-holder") translate([0, console_fuse[0], console_fuse[1]]) rotate([0, -90, 0]) fuse_holder(wall, fit_max);
    else if (name == "buttons") for (b = buttons) translate([b[0], b[1], top_z]) push_button(panel_thickness, fit_in);
    else if (name == "fit-max:button") translate([buttons[0][0], buttons[0][1], top_z]) push_button(panel_thickness, fit_max);
    else if (name == "status-lamps") for (l = lamps) translate([l[0], l[1], top_z - panel_thickness - 1]) led5(fit_in);
    else if (name == "fit-max:status-lamp") translate([lamps[0][0], lamps[0][1], top_z - panel_thickness - 1]) led5(fit_max);
    else if (name == "lamp_panel") translate([panel_at[0], panel_at[1], panel_at[2]]) rotate([90, 0, 0]) lamp_panel();
    else if (name == "lamp-leds") for (at = lamp_corners) lamp_led(at[0], at[1], fit_in);
    else if (name == "fit-max:lamp-led") lamp_led(0, 0, fit_max);
    else if (name == "lamp-board") translate([grid_centre[0] - lamp_board[0] / 2, board_front + 1.6, grid_centre[1] - lamp_board[1] / 2])
        rotate([90, 0, 0]) difference() {
            circuit_board(lamp_board, 1.6, 10, 8);
            for (h = board_holes) translate([h[0] - grid_centre[0] + lamp_board[0] / 2, h[1] - grid_centre[1] + lamp_board[1] / 2, -5]) cylinder(d = 3.2, h = 20);
        }
    else if (name == "spacers") for (h = board_holes) translate([h[0], upright_at[1] + upright[2], h[1]]) rotate([-90, 0, 0])
        difference() { cylinder(d = 6, h = lamp_board_gap); translate([0, 0, -1]) cylinder(d = 3.3, h = lamp_board_gap + 2); }
    else if (name == "supply") translate(supply_at) supply();
    else if (starts(name, "screws:")) {
        for (s = screws) if (str("screws:", s[7]) == name) translate(s[4]) rotate(s[5]) screw(s[1][0], s[1][1], s[6]);
    }
    else placed_check(name, screws, pilots);
}

// The lamps' LEDs the check places: the grid's four corners and one in its middle (the rest
// stand on the same pitch, in the same panel, window and board).
lamp_corners = [[0, 0], [lamps_per_row - 1, 0], [0, rows - 1], [lamps_per_row - 1, rows - 1], [floor(lamps_per_row / 2), floor(rows / 2)]];

// A lamp's LED: its collar against the panel's back face, its dome through the panel.
module lamp_led(column, row, grow) {
    at = lamp_xz(column, row);
    translate([at[0], panel_at[1] + 1, at[1]]) rotate([90, 0, 0]) led5(grow);
}

// [name, [diameter, length, pitch], clamped mm, into, head's face, rotation, head, what it holds]
panel_holes = [for (x = [lamp_margin / 2, lamp_panel_size[0] - lamp_margin / 2], z = [lamp_margin / 2, lamp_panel_size[1] - lamp_margin / 2]) [x, z]];
screws = concat(
    [for (i = [0 : 3]) [str("screw-panel-", i + 1), upright_screw, lamp_panel_thickness, "upright",
                         [panel_at[0] + panel_holes[i][0], panel_at[1] - lamp_panel_thickness, panel_at[2] + panel_holes[i][1]], [90, 0, 0], 2.5, "lamp_panel"]],
    [for (i = [0 : 3]) [str("screw-board-", i + 1), board_long_screw, 1.6 + lamp_board_gap, "upright",
                         [board_holes[i][0], board_front + 1.6, board_holes[i][1]], [-90, 0, 0], 2.5, "lamp-board"]],
    [for (i = [0 : 3]) let(x = [4, stripboard[0] - 4][i % 2], y = [4, stripboard[1] - 4][floor(i / 2)])
        [str("screw-strip-", i + 1), board_screw, 1.6, "console_base", [wall + console_gap + x, wall + console_gap + y, wall + pi_standoff + 1.6], [0, 0, 0], 2.5, "console-board"]],
    [for (i = [0 : 3]) let(corner = [pi_hole_inset + pi_holes[0] * (i % 2), pi_hole_inset + pi_holes[1] * floor(i / 2)])
        [str("screw-pi-", i + 1), pi_screw, pi_pcb, "console_base", [pi_corner[0] + pi_board[0] - corner[0], pi_corner[1] + pi_board[1] - corner[1], wall + pi_standoff + pi_pcb], [0, 0, 0], 1.7, "pi"]],
    [for (i = [0 : 3]) [str("screw-floor-", i + 1), floor_screw, wall, "base", [console_floor_screws[i][0], console_floor_screws[i][1], wall], [0, 0, 0], 2.5, "console_base"]],
    [for (i = [0 : 7]) let(h = bracket_holes[i % 2], x = brackets[floor(i / 4)] + h[0], k = floor(i / 2) % 2)
        k == 0 ? [str("screw-bracket-", i + 1), floor_screw, bracket[2], "upright", [x, upright_at[1] + upright[2] + bracket[2], h[1]], [-90, 0, 0], 2.5, "bracket"]
               : [str("screw-bracket-", i + 1), floor_screw, bracket[2], "base", [x, upright_at[1] + upright[2] + h[1], bracket[2]], [0, 0, 0], 2.5, "bracket"]]
);
screw_groups = [for (i = [0 : len(screws) - 1]) if (len([for (j = [0 : max(0, i - 1)]) if (j < i && screws[j][7] == screws[i][7]) j]) == 0) screws[i][7]];

solids = concat(
    [["base", "board", ""], ["upright", "board", ""], ["bracket-left", "bought", "base"], ["bracket-right", "bought", "base"],
     ["console_base", "printed", "base"], ["console_top", "printed", "base"], ["pi", "bought", ""], ["pi-ribbon", "bought", ""],
     ["console-board", "bought", ""], ["barrel-socket", "bought", ""], ["fuse-holder", "bought", ""],
     ["buttons", "bought", ""], ["status-lamps", "bought", ""], ["lamp_panel", "printed", "upright"],
     ["lamp-leds", "bought", ""], ["lamp-board", "bought", ""], ["spacers", "bought", ""], ["supply", "bought", "base"]],
    [for (holds = screw_groups) [str("screws:", holds), "screw", ""]]
);
joins = concat([for (s = screws) [str("screws:", s[7]), s[3]]], [["screws:lamp-board", "spacers"], ["pi", "pi-ribbon"]]);
fits = [["fit-max:barrel-socket", "console_base", "the barrel socket in the console's wall", (barrel_hole - 11) / 2],
        ["fit-max:fuse-holder", "console_base", "the fuse holder in the console's wall", (fuse_hole - 12) / 2],
        ["fit-max:button", "console_top", "a push button in the console's top", (button_hole - 16) / 2],
        ["fit-max:status-lamp", "console_top", "a status lamp in the console's top", (led_hole - 5) / 2],
        ["fit-max:lamp-led", "lamp_panel", "a lamp's LED in the lamp panel", (led_hole - 5) / 2]];
// as for Dr. Nim's assembly.scad
pilots = [["pilot-least:pi", "pilot-most:pi", "console_base", "the Pi's M2.5 thread-forming screws in their standoffs", 2.1, 2.2],
          ["pilot-least:console-board", "pilot-most:console-board", "console_base", "the stripboard's M3 screws in their posts", 2.5, 2.7]];
last = ["console_top", "buttons", "status-lamps"];

if (mode == "facts")
    echo(facts = [["solids", solids], ["joins", joins], ["fits", fits], ["fit", [fit_min, fit_max, hole_allowance]],
                  ["pilots", pilots], ["last", last],
                  ["screws", [for (s = screws) [s[0], s[1], s[2], s[3], s[7]]]],
                  ["repeated", [["lamp_panel", 2], ["lamp-board", 2]]],   // the spectators' display has its own
                  ["anchors", [["upright", upright[2]], ["base", base[2]], ["console_base", pi_standoff]]],
                  ["upright", [upright_at[0], upright_at[0] + upright[0], 0, upright[1]]],
                  ["base", [base_at[0], base_at[0] + base[0], base_at[1], base_at[1] + base[1]]]]);
else if (mode == "solid") placed(solid);
else if (mode == "none") { }
else {
    // the picture: a game in progress lit (the lamps still lit in rows 1-4, top to bottom)
    lit = [1, 3, 5, 7];
    color("Tan") placed("base");
    color("BurlyWood") placed("upright");
    color("DimGray") placed("console_base");
    color("Gray") placed("console_top");
    color("Black") placed("lamp_panel");
    color("DarkGreen") placed("lamp-board");
    for (i = [0 : len(buttons) - 1]) color(i < 4 ? "Red" : i == 4 ? "Gold" : "Black") translate([buttons[i][0], buttons[i][1], top_z]) push_button(panel_thickness);
    for (i = [0 : 3]) color(["YellowGreen", "Orange", "Yellow", "Red"][i]) translate([lamps[i][0], lamps[i][1], top_z - panel_thickness - 1]) led5();
    for (c = [0 : lamps_per_row - 1], r = [0 : rows - 1]) color(c < lit[rows - 1 - r] ? "Gold" : "DimGray") lamp_led(c, r, 0);
    color("Silver") { placed("bracket-left"); placed("bracket-right"); placed("supply"); }
}
