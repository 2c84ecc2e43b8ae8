// SPDX-License-Identifier: CERN-OHL-P-2.0
// Dr. Nim: the electronics box's lid, with ventilation slots that come over the Pi when
// the lid is turned face up onto enclosure_base.scad; its lip fits inside the box's walls.
// print: top face down, lip upwards; no supports
// bounding box: 175.9 x 132.4 x 6.4 mm
// count: 1
// mates with: enclosure_base.scad
include <params.scad>

module enclosure_lid() {
    difference() {
        box_lid(enclosure_inner, wall);
        for (i = [0 : 7]) translate([15 + i * 10, 15, -1]) cube([4, 45, wall + 2]);
    }
}

enclosure_lid();
