// The Nimatron's shared parameters: every part in this folder includes this file, so one
// change here, or `openscad -D lamp_pitch=25.4 -o lamp_panel.stl lamp_panel.scad`, reaches
// every part. Dimensions in millimetres.
include <../../common.scad>

rows = 4;
lamps_per_row = 7;
lamp_pitch = 22.86;     // between lamps, a multiple of 0.1 inch so that the LEDs can stand
                        // straight on a stripboard behind the panel
lamp_panel_thickness = 5;
lamp_margin = 12;       // from the outer lamps' centres to the panel's frame

// The console: the Pi and the console's stripboard (U1-U4 and the lamp wiring) side by
// side, the Pi turned so that its long edge runs front to back.
stripboard = [127, 95];
console_gap = 3;
console_height = 45;
console_inner = [stripboard[0] + pi_board[1] + 3 * console_gap, max(stripboard[1], pi_board[0]) + 2 * console_gap];
