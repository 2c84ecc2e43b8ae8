// Dr. Nim: the tray at the foot of the board that catches the fallen marbles, room for all
// fifteen in three rows. Its tall back wall screws to the backboard below the beam holder.
// print: standing on its floor, open upwards; no supports
// bounding box: 89.8 x 55.8 x 26.4 mm
// count: 1
// mates with: the backboard (2 x M3); 15 marbles
include <params.scad>

module tray() {
    inner = [5 * (marble + 1), 3 * (marble + 1)];
    outer = [inner[0] + 2 * wall, inner[1] + 2 * wall];
    height = 0.75 * marble + wall;
    back_height = height + 12;
    difference() {
        union() {
            open_box([outer[0], outer[1], height]);
            cube([outer[0], wall, back_height]);
        }
        for (x = [outer[0] / 4, 3 * outer[0] / 4])
            translate([x, wall / 2, height + 6]) teardrop_y(screw_hole, wall + 2);
    }
}

tray();
