// SPDX-License-Identifier: CERN-OHL-P-2.0
// The Nimatron's shared parameters: every part in this folder includes this file, so one
// change here, or `openscad -D lamp_pitch=25.4 -o lamp_panel.stl lamp_panel.scad`, reaches
// every part. Dimensions in millimetres. The rows, the lamps in a row, the upright and the
// screws come from the pin map, through the generated build.scad.
include <../../common.scad>
include <build.scad>

lamp_pitch = 22.86;     // between lamps, a multiple of 0.1 inch so that the LEDs can stand
                        // straight on a stripboard behind the panel
lamp_panel_thickness = 5;
lamp_margin = 12;       // from the outer lamps' centres to the panel's frame

// The lamp panel's size and the lamp board behind it: a 160 x 100 mm (Eurocard) stripboard
// that carries the 28 LEDs, standing at the panel's pitch, their resistors and the display's
// 74HC595s and ULN2803s, on 12 mm spacers behind the upright.
lamp_panel_size = [(lamps_per_row - 1) * lamp_pitch + 2 * lamp_margin, (rows - 1) * lamp_pitch + 2 * lamp_margin];
lamp_board = [160, 100];
lamp_board_gap = 12;

// The console: the console's stripboard (the buttons' filters, the status lamps' resistors,
// the buzzer's transistor) in the front-left corner, under the buttons, and the Pi at the
// back on the right, turned so that no button stands over it: its header faces the
// buttons, its USB-C edge the back wall (the upright stands far enough behind for the plug).
stripboard = [95, 64];
strip_pilot = 2.5;      // the stripboard's M3 screws cut their thread in its posts (2.5-2.7 mm in plastic)
console_gap = 3;
console_height = 45;
console_inner = [stripboard[0] + pi_board[0] + 3 * console_gap, 101];
pi_corner = [wall + console_inner[0] - console_gap - pi_board[0], wall + console_inner[1] - console_gap - pi_board[1]];
pi_turn = 180;
// the barrel socket and the fuse holder in the left-hand wall, behind the buttons, above
// the stripboard's parts and far from the Pi's ports: [y, z] of each
console_barrel = [60, 33];
console_fuse = [85, 33];
// the console top's six buttons (rows 1-4, hand-over, new game) and four status lamps, [x, y]
// seen from above (the top itself is drawn face down)
console_buttons = concat([for (i = [0 : 3]) [25 + i * 28, 30]], [[console_inner[0] + 2 * wall - 60, 30], [console_inner[0] + 2 * wall - 25, 30]]);
console_lamps = [for (i = [0 : 3]) [(console_inner[0] + 2 * wall) / 2 + (i - 1.5) * 30, 80]];
console_floor_screws = let(right = console_inner[0] + 2 * wall - 12, back = console_inner[1] + 2 * wall - 12)
    [[60, 12], [12, back], [right, 12], [right - 30, back]];     // clear of the posts and standoffs
