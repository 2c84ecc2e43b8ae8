// Dr. Nim's shared parameters: every part in this folder includes this file, so one
// change here, or `openscad -D marble=19 -o rail_lower.stl rail_lower.scad`, reaches
// every part. Dimensions in millimetres.
include <../../common.scad>

marble = 16;            // marble diameter: 5/8 inch, as on the 1966 toy
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
servo_row = servo_models[search([servo_model], servo_models)[0]];
assert(servo_row != undef, str("servo_model must be one of SG90, MG90S, not ", servo_model));
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

// The push solenoid (JF-0530B): its frame's length (along the plunger), width and depth,
// and the plunger's diameter. Measure yours: makers' frames differ by a millimetre or two.
solenoid_body = [30, 16, 14];
solenoid_plunger = 6.5;

// The IR break-beam halves (Adafruit 2167 or 2168): each half's housing, length (along the
// beam) x width x height. 2168's published size; the 3 mm pair 2167 is smaller: set yours.
beam_body = [20, 10, 8];

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

// The servo arm's peg (its square section) and the floor slot it rises through, wide
// enough for the peg's sideways travel on its arc.
gate_peg = 4;
gate_slot = gate_peg + 3;

// Where the marbles fall: the centre of the rail's channel, measured from the backboard.
path_from_board = rail_back + channel / 2;

// The electronics box: a full-size breadboard beside the Pi, `gap` round each.
breadboard = [165.1, 54.6];
gap = 3;
enclosure_height = 40;
enclosure_inner = [breadboard[0] + 2 * gap, breadboard[1] + pi_board[1] + 3 * gap + 8];
