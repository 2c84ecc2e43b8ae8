// Dr. Nim: the electronics box's lid, with ventilation slots over the Pi. Its lip fits
// inside enclosure_base.scad's walls.
// print: top face down, lip upwards; no supports
// bounding box: 175.9 x 132.4 x 6.4 mm
// count: 1
// mates with: enclosure_base.scad
include <params.scad>

lip_height = 4;

module enclosure_lid() {
    inner = enclosure_inner;
    outer = [inner[0] + 2 * wall, inner[1] + 2 * wall];
    difference() {
        union() {
            cube([outer[0], outer[1], wall]);
            translate([wall + clearance, wall + clearance, wall - 0.01])
                open_box([inner[0] - 2 * clearance, inner[1] - 2 * clearance, lip_height + 0.01]);
        }
        for (i = [0 : 7]) translate([15 + i * 10, outer[1] - 60, -1]) cube([4, 45, wall + 2]);
    }
}

enclosure_lid();
