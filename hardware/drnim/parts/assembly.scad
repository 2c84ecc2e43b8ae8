// SPDX-License-Identifier: CERN-OHL-P-2.0
// Dr. Nim, assembled: every printed part where it is mounted, every bought part as the
// room it takes, every screw. The one description of the assembly:
//   openscad assembly.scad                    the picture (assembly.png, see README.md)
//   -D 'mode="solid"' -D 'solid="NAME"'       one solid alone, for `controller hardware check`
//   -D 'mode="facts"'                         its solids, screws, fits, the marble's flight
//                                             and the gate's lift, echoed for the check
// The backboard stands upright on the base: x to the right, z up, the board's front face at
// y = 0, the parts in front of it (y < 0), the electronics box behind it on the base.
include <params.scad>
include <../../bought.scad>
use <rail_upper.scad>
use <rail_lower.scad>
use <gate_solenoid.scad>
use <gate_servo_mount.scad>
use <gate_servo_arm.scad>
use <beam_holder.scad>
use <led_bezel.scad>
use <tray.scad>
use <panel.scad>
use <enclosure_base.scad>
use <enclosure_lid.scad>

mode = "picture";
solid = "";

g = 9810;                        // mm/s²
exit_speeds = [100, 250];        // mm/s: how fast a marble leaves the lip (measured on the replica)
fit_min = 0.05;                  // a bought part grown by this still fits its pocket or hole as printed...
fit_max = 0.6;                   // ...and grown by this no longer does, as drawn: it is held
fit_in = fit_min + hole_allowance / 2;   // the room it takes in the drawing, where holes are hole_allowance wider
driver_reach = 60;               // a screwdriver's way out from a screw's head, mm
board_led_hole = 5.5;            // drilled through the backboard for each indicator LED (its bezel holds it)
base = [board[0], 305, 9];       // the plywood base the board stands on (x, y from y = -80, thickness)
base_front = -80;

// --- where everything goes ------------------------------------------------------------------

slope = atan(1 / 12);
rail_start = [4, 0, board[1] - 40];
function rail_point(p) = rail_start + [p[0] * cos(slope) + p[2] * sin(slope), -p[1], -p[0] * sin(slope) + p[2] * cos(slope)];
lift_x = rail_length - wall - marble / 2 - 0.3 * marble;        // the plunger or peg, along the rail
lift_world = rail_point([lift_x, path_from_board, rail_floor]);
floor_top = lift_world[2];
floor_bottom = floor_top - rail_floor / cos(slope);

// the solenoid: its plunger's tip at rest 1 mm under the floor's top, in the floor's hole
tip_rest = floor_top - rest_gap;
frame_top = tip_rest - solenoid_push_rest;
frame_bottom = frame_top - solenoid_body[0];
pull_end = 6;                                   // the plunger's spring end below the frame
cradle_at = [lift_world[0] - (cradle_ears + cradle_outer[0] / 2), 0, frame_bottom - wall];

// the servo gate: the peg's travel along the rail centred on its slot, its top 1 mm under
// the floor at the closed angle
function peg_reach(a) = gate_peg / 2 * (abs(cos(a)) + abs(sin(a)));
ends = concat([gate_closed_angle, gate_open_angle], gate_closed_angle * gate_open_angle <= 0 ? [0] : []);
peg_far = max([for (a = ends) gate_arm * cos(a) + peg_reach(a)]);
peg_near = min([for (a = [gate_closed_angle, gate_open_angle]) gate_arm * cos(a) - peg_reach(a)]);
peg_half = peg_reach(gate_closed_angle);
shaft = [lift_world[0] - (peg_far + peg_near) / 2, 0,
         floor_bottom - rest_gap - peg_half - gate_arm * sin(gate_closed_angle)];
case_shift = servo_body[0] / 2 - servo_shaft_offset;            // the case's centre from the shaft
plate_front = mount_standoff + wall;                             // the tabs rest on it
case_top = plate_front + servo_body[2] - servo_tab_height;
arm_face = case_top + 4 + horn_thickness;                        // the arm's face against the horn
mount_at = [shaft[0] + case_shift - (mount_ears + mount_width / 2), 0, shaft[2] - mount_window_z];
gate_bottom = release_kind == "servo" ? min(mount_at[2], shaft[2] - gate_arm * sin(-gate_closed_angle) - 8)
                                      : min(cradle_at[2], frame_bottom - pull_end);

// the marble's flight from the lip into the holder's funnel. It rolls over the lip's outer
// corner at its exit speed v0 and leaves it where gravity no longer holds it there (cos θ =
// (2 + v0²/gr) / 3, its spin left out), then falls freely: [v0, centre, velocity] there.
exit_corner = rail_point([rail_length, path_from_board, rail_floor + lip]);
function rail_vector(a, b) = [a * cos(slope) + b * sin(slope), 0, -a * sin(slope) + b * cos(slope)];
function detach(v0) = let(r = marble / 2, c = min(1, (2 + v0 * v0 / (g * r)) / 3), th = acos(c),
                          v1 = sqrt(v0 * v0 + 2 * g * r * (1 - c)))
    [v0, exit_corner + rail_vector(r * sin(th), r * cos(th)), rail_vector(v1 * cos(th), -v1 * sin(th))];
mouth_z = gate_bottom - 3;
function fall_time(d, z) = let(vz = d[2][2]) (vz + sqrt(vz * vz + 2 * g * (d[1][2] - z))) / g;
function landing(v0) = let(d = detach(v0)) d[1][0] + d[2][0] * fall_time(d, mouth_z + marble / 2);
bore_x = (landing(exit_speeds[0]) + landing(exit_speeds[1])) / 2;
holder_at = [bore_x - beam_length / 2, 0, mouth_z - beam_height];

// the tray under the holder, its roof's hole under the bore; where the marble lands on its
// ramp (under the hole) and the hood's roof above it
tray_at = [bore_x - tray_hole_x, 0, holder_at[2] - beam_tab - 2 - tray_back];
landing_z = tray_at[2] + wall + (tray_hood - (path_from_board - wall)) * tan(tray_ramp);
roof_z = tray_at[2] + tray_roof;

// the indicators' LED bezels: [x, z] of each bezel's middle; the panel's corner
bezels = [[140, 255], [100, 215], [180, 215], [140, 175], [140, 135]];
panel_at = [15, 0, 10];
panel_face = -panel_rim_depth;
function panel_point(p) = [panel_at[0] + p[0], 0, panel_at[2] + p[1]];

// the electronics box behind the board, on the base; the supply beside it
box_at = [70, board[2] + 21, 0];
box_outer = [enclosure_inner[0] + 2 * wall, enclosure_inner[1] + 2 * wall];
supply_at = [190, box_at[1] + box_outer[1] + 8, 0];
brackets = [12, board[0] - 12];

module mounted(position) {
    translate(position) mirror([0, 1, 0]) children();
}

// --- the solids -----------------------------------------------------------------------------

module backboard() {
    difference() {
        cube([board[0], board[2], board[1]]);
        w = panel_window;
        translate([panel_at[0] + w[0][0], -1, panel_at[2] + w[0][1]]) cube([w[1][0] - w[0][0], board[2] + 2, w[1][1] - w[0][1]]);
        for (b = bezels, side = [-1, 1]) translate([b[0] + side * bezel_span / 2, 0, b[1]]) {
            rotate([-90, 0, 0]) translate([0, 0, -1]) cylinder(d = board_led_hole / cos(180 / fitted), h = board[2] + 2, $fn = fitted);
            translate([0, board[2] - 5, 0]) rotate([-90, 0, 0]) cylinder(d = 6.5, h = 6);
        }
    }
}

module placed(name) {
    if (name == "backboard") backboard();
    else if (name == "base") translate([0, base_front, -base[2]]) cube(base);
    else if (name == "bracket-left") translate([brackets[0], board[2], 0]) angle_bracket();
    else if (name == "bracket-right") translate([brackets[1], board[2], 0]) angle_bracket();
    else if (name == "rail_upper") mounted(rail_start) rotate([0, slope, 0]) rail_upper();
    else if (name == "rail_lower") mounted(rail_start) rotate([0, slope, 0]) translate([rail_length / 2, 0, 0]) rail_lower();
    else if (name == "gate_solenoid") mounted(cradle_at) gate_solenoid();
    else if (name == "solenoid") solenoid_keepout(fit_in);
    else if (name == "fit-max:solenoid") solenoid_keepout(fit_max, frame_only = true);
    else if (name == "solenoid-stroke") translate([lift_world[0], -path_from_board, tip_rest]) cylinder(d = solenoid_plunger, h = solenoid_stroke);
    else if (name == "gate_servo_mount") mounted(mount_at) gate_servo_mount();
    else if (name == "servo") sg90_keepout(fit_in);
    else if (name == "fit-max:servo") sg90_keepout(fit_max, case_only = true);
    else if (name == "gate_servo_arm") arm_at(gate_closed_angle);
    else if (starts(name, "peg-sweep-")) let(i = ord(name[10]) - ord("1"), step = (gate_open_angle - gate_closed_angle) / peg_steps)
        hull() for (a = [gate_closed_angle + i * step, gate_closed_angle + (i + 1) * step]) peg_at(a);
    else if (name == "gate_servo_arm-open") arm_at(gate_open_angle);
    else if (name == "beam_holder") mounted(holder_at) beam_holder();
    else if (name == "beam-emitter") beam_half(-1, fit_in);
    else if (name == "beam-receiver") beam_half(1, fit_in);
    else if (name == "fit-max:beam-emitter") beam_half(-1, fit_max);
    else if (name == "fit-max:beam-receiver") beam_half(1, fit_max);
    else if (starts(name, "marble-flight-")) flight(ord(name[14]) - ord("1"));
    else if (name == "marble-rail") mounted(rail_start) rotate([0, slope, 0]) rail_path();
    else if (name == "marble-drop") translate([bore_x, -path_from_board, tray_at[2] + tray_roof - 2]) cylinder(d = marble, h = mouth_z - tray_at[2] - tray_roof + 2);
    else if (name == "tray") mounted(tray_at) tray();
    else if (name == "panel") translate([panel_at[0], panel_face, panel_at[2]]) rotate([90, 0, 0]) mirror([0, 0, 1]) panel();
    else if (name == "panel-parts") {
        for (at = panel_buttons) panel_part(at) push_button(panel_thickness, fit_in);
        for (at = panel_toggles) panel_part(at) toggle(panel_thickness, fit_in);
        for (at = panel_lamps) translate(panel_point(at) + [0, panel_face + panel_thickness + 1, 0]) rotate([90, 0, 0]) led5(fit_in);
    }
    else if (name == "fit-max:button-trigger") panel_part(panel_buttons[1]) push_button(panel_thickness, fit_max);
    else if (name == "fit-max:toggle-turn") panel_part(panel_toggles[0]) toggle(panel_thickness, fit_max);
    else if (name == "fit-max:lamp") translate(panel_point(panel_lamps[0]) + [0, panel_face + panel_thickness + 1, 0]) rotate([90, 0, 0]) led5(fit_max);
    else if (starts(name, "led_bezel-"))
        let(b = bezels[ord(name[10]) - ord("1")]) translate([b[0] - bezel_span / 2, 0, b[1]]) rotate([90, 0, 0]) led_bezel();
    else if (name == "bezel-leds") for (b = bezels, side = [-1, 1]) bezel_led(b, side, fit_in);
    else if (name == "fit-max:bezel-led") bezel_led(bezels[0], -1, fit_max);
    else if (name == "enclosure_base") translate(box_at) enclosure_base();
    else if (name == "enclosure_lid") translate(box_at) translate([0, enclosure_inner[1] + 2 * wall, enclosure_height + wall]) rotate([180, 0, 0]) enclosure_lid();
    else if (name == "pi") translate(box_at) pi_frame([pi_corner[0], pi_corner[1], wall + pi_standoff], pi_turn) pi_keepout(["usb-c"]);
    else if (name == "pi-ribbon") translate(box_at) pi_frame([pi_corner[0], pi_corner[1], wall + pi_standoff], pi_turn) pi_ribbon();
    else if (name == "breadboard") translate(box_at + [wall + gap, wall + gap, wall]) circuit_board(breadboard, 9.5, 15, 0.5, tails = 0);
    else if (name == "barrel-socket") translate(box_at + [box_outer[0], box_outer[1] - 30, 20]) rotate([0, 90, 0]) barrel_socket(wall, fit_in);
    else if (name == "fuse-holder") translate(box_at + [box_outer[0], box_outer[1] - 60, 20]) rotate([0, 90, 0]) fuse_holder(wall, fit_in);
    else if (name == "fit-max:barrel-socket") translate(box_at + [box_outer[0], box_outer[1] - 30, 20]) rotate([0, 90, 0]) barrel_socket(wall, fit_max);
    else if (name == "fit-max:fuse-holder") translate(box_at + [box_outer[0], box_outer[1] - 60, 20]) rotate([0, 90, 0]) fuse_holder(wall, fit_max);
    else if (name == "supply") translate(supply_at) supply();
    else if (starts(name, "screws:")) {
        for (s = screws) if (str("screws:", s[7]) == name) translate(s[4]) rotate(s[5]) screw(s[1][0], s[1][1], s[6]);
    }
    else placed_check(name, screws, pilots);
}

module solenoid_keepout(grow, frame_only = false) {
    translate([lift_world[0], -path_from_board, 0]) {
        translate([-solenoid_body[1] / 2 - grow, -solenoid_body[2] / 2 - grow, frame_bottom])
            cube([solenoid_body[1] + 2 * grow, solenoid_body[2] + 2 * grow, solenoid_body[0]]);
        if (!frame_only) {
            translate([0, 0, frame_top]) cylinder(d = solenoid_plunger, h = solenoid_push_rest);
            translate([0, 0, frame_bottom - pull_end]) cylinder(d = solenoid_plunger, h = pull_end + 0.01);
        }
    }
}

module sg90_keepout(grow, case_only = false) {
    centre = shaft[0] + case_shift;
    translate([centre - servo_body[0] / 2 - grow, -case_top - grow, shaft[2] - servo_body[1] / 2 - grow])
        cube([servo_body[0] + 2 * grow, case_top - (plate_front - servo_tab_height) + 2 * grow, servo_body[1] + 2 * grow]);
    if (!case_only) {
        translate([centre - servo_tab_span / 2, -plate_front - servo_tab_thickness, shaft[2] - servo_body[1] / 2])
            cube([servo_tab_span, servo_tab_thickness, servo_body[1]]);
        translate([shaft[0], -case_top, shaft[2]]) rotate([90, 0, 0]) cylinder(d = servo_body[1] - 0.4, h = 4);
    }
}

module arm_at(angle) {
    translate([shaft[0], -arm_face - arm_thickness, shaft[2]]) rotate([0, -angle, 0]) rotate([-90, 0, 0]) gate_servo_arm();
}

// The arm's peg at `angle` (its square section, from the arm's face to its end): its sweep
// from the closed to the open angle is drawn as peg_steps hulls, within 0.05 mm of the arc.
peg_steps = 3;
module peg_at(angle) {
    translate([shaft[0], -arm_face, shaft[2]]) rotate([0, -angle, 0])
        translate([gate_arm - gate_peg / 2, 0, -gate_peg / 2]) cube([gate_peg, arm_face - path_from_board, gate_peg]);
}

// One half of the break-beam pair, lying on its pocket's floor and pushed against its inner
// wall (its LED at the slot): `grow` widens it across the beam and upwards, where the pocket
// must hold it.
module beam_half(side, grow) {
    translate([bore_x + side * (beam_bore / 2 + wall + beam_body[0] / 2), -path_from_board,
               holder_at[2] + wall + (beam_body[2] + grow) / 2])
        cube(beam_body + [0, 2, 1] * grow, center = true);
}

module panel_part(at) {
    translate(panel_point(at) + [0, panel_face, 0]) rotate([90, 0, 0]) children();
}

module bezel_led(b, side, grow) {
    translate([b[0] + side * bezel_span / 2, board[2] - 5 + 1, b[1]]) rotate([90, 0, 0]) led5(grow);
}

// A marble's way down the rail, in the rail's frame: from the closed upper end to its rest
// against the lip, 0.1 mm over the floor (the queue rolls on it, past the joint, the gate's
// hole and slot, and under the screws' heads).
module rail_path() {
    hull() for (x = [wall + marble / 2 + 0.1, rail_length - wall - marble / 2 - 0.1])
        translate([x, path_from_board, rail_floor + marble / 2 + 0.1]) sphere(d = marble, $fn = 20);
}

// The marble's flight at every exit speed between the slowest and the fastest, from just after
// it leaves the lip's corner until its middle is in the funnel's mouth: it must meet nothing on
// the way, the funnel's rim least of all (a 20-sided marble, a little smaller than the real one), in
// flight_pieces pieces.
flight_pieces = 4;
module flight(piece) {
    function at(d, t) = d[1] + d[2] * t - [0, 0, g * t * t / 2];
    hull() for (i = [piece, piece + 1], v = exit_speeds)
        let(d = detach(v), t_end = fall_time(d, mouth_z))
            translate(at(d, 0.02 + (t_end - 0.02) * i / flight_pieces)) sphere(d = marble, $fn = 20);
}

// --- the screws: [name, [diameter, length, pitch], clamped mm, into (a solid), position of
// the head's face, rotation (the shank along -z before it), head height, what it holds] -------

function board_screw_at(name, x, z, clamped, what) = [name, board_screw, clamped, "backboard", [x, -clamped, z], [90, 0, 0], 2.5, what];
screws = concat(
    [for (i = [0 : 3]) let(half = floor(i / 2), x = rail_length / 2 * (half + ((i % 2) + 0.5) / 2),
                           p = rail_point([x, rail_back, rail_floor + marble + 5]))
        [str("screw-rail-", i + 1), board_screw, rail_back, "backboard", [p[0], -rail_back, p[2]], [90, 0, 0], 2.5, i < 2 ? "rail_upper" : "rail_lower"]],
    release_kind == "solenoid"
        ? [for (i = [0 : 1]) board_screw_at(str("screw-cradle-", i + 1), cradle_at[0] + cradle_screws[i][0], cradle_at[2] + cradle_screws[i][1], wall, "gate_solenoid")]
        : [for (i = [0 : 1]) board_screw_at(str("screw-mount-", i + 1), mount_at[0] + mount_screws[i][0], mount_at[2] + mount_screws[i][1], wall, "gate_servo_mount")],
    [for (i = [0 : 1]) board_screw_at(str("screw-holder-", i + 1), holder_at[0] + beam_screws[i][0], holder_at[2] + beam_screws[i][2], beam_back, "beam_holder")],
    [for (i = [0 : 1]) board_screw_at(str("screw-tray-", i + 1), tray_at[0] + tray_screws[i][0], tray_at[2] + tray_screws[i][2], wall, "tray")],
    [for (i = [0 : 3]) let(p = panel_point(panel_screws[i]))
        [str("screw-panel-", i + 1), panel_screw, panel_rim_depth, "backboard", [p[0], panel_face, p[2]], [90, 0, 0], 2.5, "panel"]],
    [for (i = [0 : 9]) let(b = bezels[floor(i / 2)])
        board_screw_at(str("screw-bezel-", i + 1), b[0] + (i % 2 == 0 ? -7 : 7), b[1], bezel_thickness, str("led_bezel-", floor(i / 2) + 1))],
    [for (i = [0 : 7]) let(h = bracket_holes[i % 2], x = brackets[floor(i / 4)] + h[0], k = floor(i / 2) % 2)
        k == 0 ? [str("screw-bracket-", i + 1), bracket_screw, bracket[2], "backboard", [x, board[2] + bracket[2], h[1]], [-90, 0, 0], 2.5, ["bracket-left", "bracket-right"][floor(i / 4)]]
               : [str("screw-bracket-", i + 1), bracket_screw, bracket[2], "base", [x, board[2] + h[1], bracket[2]], [0, 0, 0], 2.5, ["bracket-left", "bracket-right"][floor(i / 4)]]],
    [for (i = [0 : 3]) let(x = enclosure_floor_screws[i][0], y = enclosure_floor_screws[i][1])
        [str("screw-floor-", i + 1), floor_screw, wall, "base", box_at + [x, y, wall], [0, 0, 0], 2.5, "enclosure_base"]],
    [for (i = [0 : 3]) let(corner = [pi_hole_inset + pi_holes[0] * (i % 2), pi_hole_inset + pi_holes[1] * floor(i / 2)],
                           turned = [pi_board[0] - corner[0], pi_board[1] - corner[1]])
        [str("screw-pi-", i + 1), pi_screw, pi_pcb, "enclosure_base", box_at + [pi_corner[0] + turned[0], pi_corner[1] + turned[1], wall + pi_standoff + pi_pcb], [0, 0, 0], 1.7, "pi"]]
);

// the screws drawn together, one solid for each part they hold
screw_groups = [for (i = [0 : len(screws) - 1]) if (len([for (j = [0 : i - 1]) if (j < i && screws[j][7] == screws[i][7]) j]) == 0) screws[i][7]];

// --- the build ------------------------------------------------------------------------------

// [name, kind ("board", "printed", "bought", "screw", "path": a marble's or a plunger's
// way, which nothing may cross), what it stands on ("board", "base", or "" for none)]
gate = release_kind == "solenoid"
    ? [["gate_solenoid", "printed", "board"], ["solenoid", "bought", ""], ["solenoid-stroke", "path", ""]]
    : concat([["gate_servo_mount", "printed", "board"], ["servo", "bought", ""], ["gate_servo_arm", "printed", ""],
              ["gate_servo_arm-open", "path", ""]], [for (i = [1 : peg_steps]) [str("peg-sweep-", i), "path", ""]]);
solids = concat(
    [["backboard", "board", ""], ["base", "board", ""], ["bracket-left", "bought", "base"], ["bracket-right", "bought", "base"],
     ["rail_upper", "printed", "board"], ["rail_lower", "printed", "board"]],
    gate,
    [["beam_holder", "printed", "board"], ["beam-emitter", "bought", ""], ["beam-receiver", "bought", ""],
    ["marble-rail", "path", ""], ["marble-drop", "path", ""], ["tray", "printed", "board"],
     ["panel", "printed", "board"], ["panel-parts", "bought", ""]],
    [for (i = [1 : 5]) [str("led_bezel-", i), "printed", "board"]],
    [for (i = [1 : flight_pieces]) [str("marble-flight-", i), "path", ""]],
    [["bezel-leds", "bought", ""], ["enclosure_base", "printed", "base"], ["enclosure_lid", "printed", "base"],
     ["pi", "bought", ""], ["pi-ribbon", "bought", ""], ["breadboard", "bought", ""], ["barrel-socket", "bought", ""], ["fuse-holder", "bought", ""],
     ["supply", "bought", "base"]],
    [for (holds = screw_groups) [str("screws:", holds), "screw", ""]]
);
// Pairs meant to overlap: a screw and what it bites into; a part and what is glued or
// pressed into it is not among them (those must clear).
joins = concat([for (s = screws) [str("screws:", s[7]), s[3]]], [["pi", "pi-ribbon"]],
               release_kind == "servo" ? concat([["gate_servo_arm", "gate_servo_arm-open"]],
                                                [for (i = [1 : peg_steps]) [str("peg-sweep-", i), "gate_servo_arm"]]) : []);
// [the part grown by fit_max, the part that must then hold it, what fits, its gap a side as drawn]
fits = concat(
    release_kind == "solenoid" ? [["fit-max:solenoid", "gate_solenoid", "the solenoid in its cradle", clearance]]
                               : [["fit-max:servo", "gate_servo_mount", "the SG90 in its bracket's window", clearance]],
    [["fit-max:beam-emitter", "beam_holder", "the break-beam emitter in its pocket", clearance],
     ["fit-max:beam-receiver", "beam_holder", "the break-beam receiver in its pocket", clearance],
     ["fit-max:button-trigger", "panel", "a push button in the panel", (button_hole - 16) / 2],
     ["fit-max:toggle-turn", "panel", "a toggle in the panel", (toggle_hole - 6) / 2],
     ["fit-max:lamp", "panel", "a status lamp in the panel", (led_hole - 5) / 2],
     ["fit-max:bezel-led", "led_bezel-1", "an indicator LED in its bezel", (led_hole - 5) / 2],
     ["fit-max:barrel-socket", "enclosure_base", "the barrel socket in the box's wall", (barrel_hole - 11) / 2],
     ["fit-max:fuse-holder", "enclosure_base", "the fuse holder in the box's wall", (fuse_hole - 12) / 2]]);
// [the pin of the least pilot hole the screw takes, the pin of the largest, the part, what
// screw, its least and largest pilot as printed (mm)]: the least must clear the hole, the
// largest grown by fit_min a side must meet it (the screw then cuts its thread, and holds)
pilots = [["pilot-least:pi", "pilot-most:pi", "enclosure_base", "the Pi's M2.5 thread-forming screws in their standoffs", 2.1, 2.2]];
// What goes on last, over every screw it covers: no screwdriver's way is asked of it.
last = ["enclosure_lid"];
lift = release_kind == "solenoid"
    ? ["the solenoid's plunger", tip_rest + solenoid_stroke - floor_top, lip + (marble / 2 - sqrt(pow(marble / 2, 2) - pow(0.3 * marble, 2)))]
    : ["the servo gate's peg", floor_bottom - rest_gap + gate_arm * (sin(gate_open_angle) - sin(gate_closed_angle)) - floor_top,
       lip + (marble / 2 - sqrt(pow(marble / 2, 2) - pow(0.3 * marble, 2)))];

if (mode == "facts")
    echo(facts = [["solids", solids], ["joins", joins], ["fits", fits], ["fit", [fit_min, fit_max, hole_allowance]],
                  ["pilots", pilots], ["last", last],
                  ["screws", [for (s = screws) [s[0], s[1], s[2], s[3], s[7]]]],
                  ["anchors", [["backboard", board[2]], ["base", base[2]], ["enclosure_base", pi_standoff]]],
                  ["board", [0, board[0], 0, board[1]]], ["base", [0, base[0], base_front, base_front + base[1]]],
                  ["flight", [[for (v = exit_speeds) detach(v)], exit_corner, [bore_x - beam_mouth / 2, bore_x + beam_mouth / 2], mouth_z, bore_x, marble, g]],
                  ["drop", [detach(exit_speeds[1]), landing_z, roof_z]],
                  ["lift", lift], ["release", release_kind], ["gate", [gate_closed_angle, gate_open_angle]]]);
else if (mode == "solid") placed(solid);
else if (mode == "none") { }
else {
    // the picture: the parts in their colours, the marbles, a marble in flight
    color("BurlyWood") placed("backboard");
    color("Tan") { placed("base"); }
    for (s = solids) if (s[1] == "printed") color(s[0] == "tray" || starts(s[0], "rail") ? "Red" : "DimGray") placed(s[0]);
    for (s = solids) if (s[1] == "bought" && s[0] != "panel-parts" && s[0] != "bezel-leds") color("Silver") placed(s[0]);
    for (at = panel_buttons) color("Red") panel_part(at) push_button(panel_thickness);
    for (at = panel_toggles) color("Silver") panel_part(at) toggle(panel_thickness);
    for (i = [0 : len(panel_lamps) - 1])
        color(["YellowGreen", "Orange", "YellowGreen", "DarkOrange", "Red"][i])
            translate(panel_point(panel_lamps[i]) + [0, panel_face + panel_thickness + 1, 0]) rotate([90, 0, 0]) led5();
    for (b = bezels) color("Red") bezel_led(b, -1, 0);
    for (b = bezels) color("DarkRed") bezel_led(b, 1, 0);
    mounted(rail_start) rotate([0, slope, 0])
        for (i = [0 : 11]) color("LightSkyBlue")
            translate([rail_length - wall - marble / 2 - i * marble, path_from_board, rail_floor + marble / 2]) sphere(d = marble);
    color("LightSkyBlue") let(d = detach(exit_speeds[1])) translate(d[1] + d[2] * 0.05 - [0, 0, g * 0.05 * 0.05 / 2]) sphere(d = marble);
}
