// SPDX-License-Identifier: CERN-OHL-P-2.0
// The Nimatron: the console's top, the player's controls: a button for each row of lamps
// (left to right, rows 1-4), the hand-over button that gives the Nimatron its turn and the
// new-game button, and the four status lamps (your turn, the Nimatron's turn, Nim Champ,
// the Nimatron wins) behind them. Its lip fits inside console_base.scad's walls.
// print: top face down, lip upwards; no supports
// bounding box: 193.8 x 105.8 x 7.0 mm
// count: 1
// mates with: 6 push buttons 16 mm (R13-507), 4 LEDs 5 mm; console_base.scad
include <params.scad>

module console_top() {
    outer = [console_inner[0] + 2 * wall, console_inner[1] + 2 * wall];
    difference() {
        box_lid(console_inner, panel_thickness);
        // drawn face down: the front edge, nearest the player, is at y = outer[1] here.
        // The four row buttons, then a space, the hand-over and the new-game buttons
        for (b = console_buttons) translate([b[0], outer[1] - b[1], -1]) hole(button_hole, panel_thickness + 2);
        for (l = console_lamps) translate([l[0], outer[1] - l[1], -1]) hole(led_hole, panel_thickness + 2);
    }
}

console_top();
