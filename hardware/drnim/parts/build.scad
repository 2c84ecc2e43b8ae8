// SPDX-License-Identifier: CERN-OHL-P-2.0
// Generated from ../pinmap.toml by `python -m controller.hardware.pinmap --write-docs`: edit
// the pin map's [build] table (or its [outputs.release]), not this file. params.scad
// includes it, so every part is drawn for the build the service runs; the sensors'
// housings are each half's length along the beam, width across it and height.

marble = 16;                    // mm, the marbles' diameter
beam_model = "2167";            // Adafruit 2167 (3 mm LEDs)
beam_models = [["2167", [15, 7, 6]], ["2168", [20, 10, 8]]];
board = [320, 340, 9];          // the backboard: width, height, thickness
release_kind = "solenoid";
gate_closed_angle = 5;          // degrees: the servo gate's (a solenoid build: the defaults)
gate_open_angle = 16;
gate_arm = 60;                  // from the servo's shaft to the peg
gate_peg = 4;                   // the peg's square section
gate_slot = 7.5;                // the rail floor's slot the peg rises through
rest_gap = 1;                   // the peg or plunger at rest, below what it lifts
solenoid_stroke = 10;           // the JF-0530B's
board_screw = [3, 10, 1.35];    // Wood screws 3.0 x 10 (diameter, length, pitch)
panel_screw = [3, 16, 1.35];    // Wood screws 3.0 x 16 (diameter, length, pitch)
bracket_screw = [3, 10, 1.35];  // Wood screws 3.0 x 10 (diameter, length, pitch)
floor_screw = [3, 10, 1.35];    // Wood screws 3.0 x 10 (diameter, length, pitch)
pi_screw = [2.5, 6, 0.45];      // Self-tapping screws M2.5 x 6 (diameter, length, pitch)
