// The Nimatron: the console's top, the player's controls: a button for each row of lamps
// (left to right, rows 1-4), the hand-over button that gives the Nimatron its turn and the
// new-game button, and the four status lamps (your turn, the Nimatron's turn, Nim Champ,
// the Nimatron wins) above them. Its lip fits inside console_base.scad's walls.
// print: top face down, lip upwards; no supports
// bounding box: 196.8 x 105.8 x 7.0 mm
// count: 1
// mates with: 6 push buttons 16 mm (R13-507), 4 LEDs 5 mm; console_base.scad
include <params.scad>

lip_height = 4;

module console_top() {
    outer = [console_inner[0] + 2 * wall, console_inner[1] + 2 * wall];
    difference() {
        union() {
            cube([outer[0], outer[1], panel_thickness]);
            translate([wall + clearance, wall + clearance, panel_thickness - 0.01])
                difference() {
                    cube([console_inner[0] - 2 * clearance, console_inner[1] - 2 * clearance, lip_height + 0.01]);
                    translate([wall, wall, -1])
                        cube([console_inner[0] - 2 * clearance - 2 * wall, console_inner[1] - 2 * clearance - 2 * wall, lip_height + 2]);
                }
        }
        // the four row buttons, then a space, the hand-over and the new-game buttons
        for (i = [0 : 3]) translate([25 + i * 28, 35, -1]) cylinder(d = button_hole, h = panel_thickness + 2);
        for (x = [outer[0] - 60, outer[0] - 25]) translate([x, 35, -1]) cylinder(d = button_hole, h = panel_thickness + 2);
        for (i = [0 : 3]) translate([outer[0] / 2 + (i - 1.5) * 30, 80, -1]) cylinder(d = led_hole, h = panel_thickness + 2);
    }
}

console_top();
