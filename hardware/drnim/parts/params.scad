// SPDX-License-Identifier: CERN-OHL-P-2.0
// Dr. Nim's shared parameters: every part in this folder includes this file, so one
// change here, or `openscad -D marble=19 -o rail_lower.stl rail_lower.scad`, reaches
// every part. Dimensions in millimetres. What the software depends on too (the marble,
// the break-beam pair, the backboard, the release and its angles, the screws) comes from
// the pin map, through the generated build.scad.
include <../../common.scad>
include <build.scad>

marble_count = 15;      // marbles the rail holds
marble_play = 1.5;      // room on each side of a rolling marble (glass marbles vary by +-0.5 mm)

// The release gate lifts the lowest marble over a lip at the rail's end; either a push
// solenoid or a servo arm does the lifting.
lip = 0.2 * marble;     // height of the lip that holds the queue of marbles

// Servo models: case length, width, height; the tabs' span, thickness, height of their
// underside above the case's bottom; the tab screws' spacing; the shaft's distance from
// the case's end. SG90 figures from TowerPro's drawing; an MG90S has the same case.
servo_model = "SG90";
servo_models = [
    ["SG90",  [22.5, 12.2, 22.7], 32.2, 2.5, 15.9, 27.8, 5.9],
    ["MG90S", [22.8, 12.2, 22.7], 32.5, 2.5, 15.9, 28.0, 6.0],
];
// (the assert is in the assignment, so it stops the render before anything uses the row)
servo_row = let(row = servo_models[search([servo_model], servo_models)[0]])
    assert(row != undef, str("servo_model must be one of SG90, MG90S, not ", servo_model)) row;
servo_body = servo_row[1];
servo_tab_span = servo_row[2];
servo_tab_thickness = servo_row[3];
servo_tab_height = servo_row[4];
servo_screw_spacing = servo_row[5];
servo_shaft_offset = servo_row[6];
// The single-arm horn that comes with the servo: hub diameter, tip width, length from the
// shaft to the tip's centre, thickness of the arm.
horn_hub = 7.0;
horn_tip = 4.0;
horn_length = 14.0;
horn_thickness = 1.6;

// The push-pull solenoid (JF-0530B): its frame's length (along the plunger), width and
// depth; the plunger's diameter at its push end, the end it leaves when the coil is
// energised (the other, with the spring, is pulled in), and how far it stands out of the
// frame at rest. Measure yours: makers' frames differ by a millimetre or two.
solenoid_body = [30, 16, 14];
solenoid_plunger = 6.5;
solenoid_push_rest = 4;

// The IR break-beam pair named in the pin map (build.scad): each half's housing.
beam_row = let(row = beam_models[search([beam_model], beam_models)[0]])
    assert(row != undef, str("beam_model must be 2167 or 2168, not ", beam_model)) row;
beam_body = beam_row[1];

// Derived sizes, used by more than one part
channel = marble + 2 * marble_play;      // the rail's inner width
rail_floor = 4;                          // the rail's floor: carries the alignment pins
rail_back = 4;                           // the rail's back wall, screwed to the backboard
rail_front = 0.55 * marble;              // the front wall's height above the floor
rail_back_height = rail_floor + marble + 10;   // room above the marbles for the screw heads
rail_width = rail_back + channel + wall;
rail_length = (marble_count + 1) * marble + 2 * wall;   // 15 marbles and room for one to roll
pin = [6, 4, 3];                          // the alignment pins: length, width, height
assert(rail_length / 2 + pin[0] <= 220,
       str("marble = ", marble, " makes each rail half ", rail_length / 2 + pin[0], " mm long: more than a 220 mm bed"));

// The rail's cross-section run `length` along x: floor, a tall back wall with screw holes
// above the marbles' heads, and a low front wall. Lies on its floor, channel open upwards.
module rail_channel(length, screws = 2) {
    difference() {
        union() {
            cube([length, rail_width, rail_floor]);
            cube([length, rail_back, rail_back_height]);
            translate([0, rail_width - wall, 0]) cube([length, wall, rail_floor + rail_front]);
        }
        for (i = [1 : screws])
            translate([length * (i - 0.5) / screws, rail_back / 2, rail_floor + marble + 5])
                teardrop_y(screw_hole, rail_back + 1);
    }
}

// The servo arm's peg and the floor slot it rises through (gate_peg, gate_slot) are in
// build.scad: the pin map's check refuses angles whose arc the slot cannot take.

// Where the marbles fall: the centre of the rail's channel, measured from the backboard.
path_from_board = rail_back + channel / 2;

// The break-beam holder (beam_holder.scad): the bore, the funnel's mouth along the rail,
// the body's length and height, the back plate and tab.
beam_bore = marble + 2 * marble_play;
beam_pocket = [beam_body[0] + 2 * clearance, beam_body[1] + 2 * clearance, beam_body[2] + 2 * clearance];
beam_length = beam_bore + 2 * (wall + beam_pocket[0]);      // the pockets open at the ends
beam_mouth = 44;                      // the funnel's mouth along the rail
beam_funnel = 12;                     // the funnel's height
beam_height = beam_pocket[2] + 2 * wall + beam_funnel;
beam_depth = path_from_board + beam_bore / 2 + wall;
beam_back = 4;                        // the back plate, and the tab below the body
beam_tab = 12;                        // how far the tab reaches below the body
beam_tunnel = 8;                      // the tunnel to each screw's head, through the body under the funnel
beam_screws = [for (side = [-1, 1]) [beam_length / 2 + side * (beam_length / 2 - 8), beam_back / 2, -beam_tab / 2]];

// The tray (tray.scad): inside, the walls' height, the hood's depth
// from the back and the hole in its roof, the ramp under the hole.
tray_inner = [5 * (marble + 1), 3.4 * (marble + 1)];
tray_outer = [tray_inner[0] + 2 * wall, tray_inner[1] + 2 * wall];
tray_height = 1.5 * marble + wall;
tray_hood = 0.55 * tray_inner[1];
tray_roof = tray_height + marble / 2;          // the hood's roof stands above the walls
tray_hole = marble + 2 * marble_play + 6;      // the roof's hole: the bore and room either side
tray_hole_x = tray_outer[0] - wall - tray_hole / 2 - 3;   // near the right-hand end, under the holder
tray_ramp = 15;                                 // degrees: the ramp under the hole falls forward
tray_back = tray_roof + wall + 12;              // the back wall, with its two screws above the roof
tray_screws = [for (x = [tray_outer[0] / 4, 3 * tray_outer[0] / 4]) [x, wall / 2, tray_back - 6]];

// The control panel (panel.scad), in its own frame (x along it, y up it): its plate, the
// rim behind it, where its buttons, toggles, lamps and screws go, and the window the
// backboard needs behind it for the bodies of the buttons and toggles (inside the bosses).
panel_size = [170, 70];
panel_rim_depth = 10;
panel_buttons = [[25, 25], [145, 25]];        // new game, trigger
panel_toggles = [[65, 25], [105, 25]];        // turn switch, equalizer
panel_lamps = [for (i = [0 : 4]) [85 + (i - 2) * 25, 55]];
panel_screws = [for (x = [wall + 6, panel_size[0] - wall - 6], y = [wall + 6, panel_size[1] - wall - 6]) [x, y]];
panel_window = [[13, 13], [157, 62]];         // corners, in the panel's frame

// The LED bezels (led_bezel.scad): between the two LEDs' centres, the plate's thickness.
bezel_span = 2.4 * marble;
bezel_thickness = 3;

// The solenoid's cradle (gate_solenoid.scad): the pocket, its height, the cradle's outside,
// its ears; the pocket's centre from the cradle's corner.
cradle_inner = [solenoid_body[1] + 2 * clearance, solenoid_body[2] + 2 * clearance];
cradle_height = 0.7 * solenoid_body[0];
cradle_back = path_from_board - cradle_inner[1] / 2;
cradle_outer = [cradle_inner[0] + 2 * wall, cradle_back + cradle_inner[1] + wall];
cradle_ears = 10;
cradle_screws = [for (x = [cradle_ears / 2, cradle_outer[0] + 1.5 * cradle_ears]) [x, cradle_height / 2]];

// The servo gate's bracket (gate_servo_mount.scad): the tabs' underside from the board, its
// width, height and ears; the arm (gate_servo_arm.scad): its thickness.
mount_standoff = servo_tab_height + 2;
mount_width = servo_tab_span + 4;
mount_height = servo_body[1] + 10;
mount_window_z = mount_height - 2 - clearance - servo_body[1] / 2;   // the window's centre: 2 mm under the top
mount_ears = 10;
mount_screws = [for (x = [mount_ears / 2, mount_width + 1.5 * mount_ears]) [x, mount_height / 2]];
arm_thickness = 3;

// The electronics box: a full-size breadboard beside the Pi, `gap` round each.
breadboard = [165.1, 54.6];
gap = 3;
enclosure_height = 40;
enclosure_inner = [breadboard[0] + 2 * gap, breadboard[1] + pi_board[1] + 3 * gap + 8];
// The Pi in the box's back-left corner, turned 180 degrees: its header faces the breadboard,
// its USB-C edge the far wall, its USB and Ethernet the left-hand wall.
pi_corner = [wall + gap, wall + enclosure_inner[1] - gap - pi_board[1]];
pi_turn = 180;
// the floor's four screws: behind the breadboard's stops, and in the back corners
enclosure_floor_screws = [for (x = [12, enclosure_inner[0] + 2 * wall - 12],
                               y = [wall + gap + breadboard[1] + 4, enclosure_inner[1] + 2 * wall - 12]) [x, y]];
