// SPDX-License-Identifier: CERN-OHL-P-2.0
// Generated from ../pinmap.toml by `python -m controller.hardware.pinmap --write-docs`: edit
// the pin map's [build] table (or its [outputs.release]), not this file. params.scad
// includes it, so every part is drawn for the build the service runs; the sensors'
// housings are each half's length along the beam, width across it and height.

rows = 4;
lamps_per_row = 7;
upright = [200, 180, 9];        // the plywood upright: width, height, thickness
upright_screw = [3, 12, 1.35];  // Wood screws 3.0 x 12 (diameter, length, pitch)
board_long_screw = [3, 20, 1.35];// Wood screws 3.0 x 20 (diameter, length, pitch)
board_screw = [3, 6, 0.5];      // Machine screws M3 x 6 (diameter, length, pitch)
pi_screw = [2.5, 6, 0.45];      // Self-tapping screws M2.5 x 6 (diameter, length, pitch)
floor_screw = [3, 10, 1.35];    // Wood screws 3.0 x 10 (diameter, length, pitch)
