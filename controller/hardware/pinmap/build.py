"""The build: the sizes that the software and the printed parts both depend on, written once.

A pin map's `[build]` table holds what a builder chooses (Dr. Nim's marbles, break-beam
pair and backboard; the Nimatron's upright); the release's servo angles are in
`[outputs.release]`; the screws and the gate's fixed sizes are here. `python -m
controller.hardware.pinmap --write-docs` writes all of them into `parts/build.scad`, which
every printed part includes, so a part is drawn for the build the service runs, and
`controller hardware check` (controller/hardware/assembly.py) proves the assembly made of
them. `gate_problem` refuses release angles the servo gate cannot take.
"""

import math

# Adafruit's IR break-beam pairs: one half's housing, length (along the beam) x width x
# height, mm. Measure yours: makers' housings differ by a few tenths.
SENSORS = {
    "2167": {"name": "Adafruit 2167 (3 mm LEDs)", "body": (15.0, 7.0, 6.0)},
    "2168": {"name": "Adafruit 2168 (5 mm LEDs)", "body": (20.0, 10.0, 8.0)},
}
MARBLE_RANGE = (12, 20)          # mm: the rail, tray and holder are drawn for 5/8 inch, give or take
BOARD_RANGE = ((150, 600), (150, 600), (6, 18))   # a backboard or upright: width, height, thickness

# The servo gate (gate_servo_arm.scad in rail_lower.scad's floor slot): the arm from the
# shaft to the peg, the peg's square section and the slot it rises through. At 0 degrees
# the arm is level, pointing at the gate; a rising angle lifts the peg. The arm is long and
# starts a little above level so that the servo sits below the rail: through 5 to 16
# degrees its peg rises 11.3 mm, and its 4 mm section, turning with the arm, sweeps 6.7 mm
# of the slot's 7.5 along the rail.
GATE_ARM_MM = 60
GATE_PEG_MM = 4
GATE_SLOT_MM = 7.5
# Its angles at rest and open, unless its pin map says otherwise: the slot is drawn for these.
GATE_ANGLES = {"closed_angle": 5, "open_angle": 16}
CLEARANCE_MM = 0.3               # common.scad's clearance: a printed part's gap round a bought one
RAIL_FLOOR_MM = 4
REST_GAP_MM = 1                  # the peg or plunger at rest, below what it lifts
LIFT_MARGIN_MM = 1               # above the least lift that tips the marble over the lip
# The push solenoid's stroke (JF-0530B: 10 mm). Its push end, the end the plunger leaves
# when the coil is energised, points up.
SOLENOID_STROKE_MM = 10


def lip_mm(marble):
    """The lip at the rail's end that holds the queue: a fifth of the marble."""
    return 0.2 * marble


def touch_mm(marble):
    """How high above the rail's floor the plunger or peg meets the lowest marble: it comes up
    under the marble's rear half, 0.3 marble behind its centre."""
    r = marble / 2
    return r - math.sqrt(r * r - (0.3 * marble) ** 2)


def plunger_travel_mm(marble):
    """What the solenoid's plunger must travel from rest (its tip REST_GAP_MM under the floor's
    top, in the floor's hole) to tip the lowest marble over the lip, with LIFT_MARGIN_MM."""
    return REST_GAP_MM + touch_mm(marble) + lip_mm(marble) + LIFT_MARGIN_MM


def gate_lift_mm(marble):
    """What the servo gate's peg must rise: from REST_GAP_MM under the rail's floor, through
    it, to tip the lowest marble over the lip, with LIFT_MARGIN_MM."""
    return REST_GAP_MM + RAIL_FLOOR_MM + touch_mm(marble) + lip_mm(marble) + LIFT_MARGIN_MM


def gate_room_mm():
    """How much of the slot, along the rail, the peg may sweep."""
    return GATE_SLOT_MM - 2 * CLEARANCE_MM


def gate_sweep(closed, open_):
    """(the peg's rise, the length of rail it sweeps), mm, for the arm turning from `closed` to
    `open_` degrees: its square section, turned with the arm, reaches further either side."""
    def reach(angle):
        a = math.radians(angle)
        return GATE_PEG_MM / 2 * (abs(math.cos(a)) + abs(math.sin(a)))
    ends = [closed, open_] + ([0] if min(closed, open_) <= 0 <= max(closed, open_) else [])
    far = max(GATE_ARM_MM * math.cos(math.radians(a)) + reach(a) for a in ends)
    near = min(GATE_ARM_MM * math.cos(math.radians(a)) - reach(a) for a in (closed, open_))
    return (GATE_ARM_MM * (math.sin(math.radians(open_)) - math.sin(math.radians(closed))), far - near)


def gate_problem(pinmap):
    """(the key at fault, why) when the pin map's servo gate cannot work the printed gate, else None."""
    spec = pinmap.outputs.get("release")
    if spec is None or spec.kind != "servo":
        return None
    closed, open_ = spec.options["closed_angle"], spec.options["open_angle"]
    rise, span = gate_sweep(closed, open_)
    need = gate_lift_mm(pinmap.build["marble_mm"])
    sweep = "from %s° to %s°" % (_number(closed), _number(open_))
    if rise < need:
        return (spec.key + ".open_angle", "%s the %d mm arm lifts the peg %.1f mm, but it must rise %.1f mm "
                "(through the rail's floor and the marble over the lip): turn it through more, %s"
                % (sweep, GATE_ARM_MM, rise, need, gate_hint(closed, open_, need)))
    if span > gate_room_mm():
        return (spec.key + ".open_angle", "%s the %d mm arm's peg sweeps %.1f mm along the rail, but its slot "
                "leaves it %.1f mm: it jams (a shorter sweep nearer level, %s)"
                % (sweep, GATE_ARM_MM, span, gate_room_mm(), gate_hint(closed, open_, need)))
    return None


def gate_hint(closed, open_, need):
    """Whole-degree angles the printed gate takes for a peg that must rise `need` mm, the nearest to the
    ones given, in words: a hint that names angles which fail for this marble sends the user round in
    a loop (it named 5° and 16° whatever the marble, and those fail for a 19 mm one)."""
    fitting = []
    for low in range(-45, 46):
        for high in range(low + 1, 91):
            rise, span = gate_sweep(low, high)
            if rise >= need and span <= gate_room_mm():
                fitting.append((abs(low - closed) + abs(high - open_), low, high))
    if not fitting:
        return "but no angles lift this marble within the slot: the printed gate is for smaller marbles"
    _, low, high = min(fitting)
    return "e.g. closed_angle = %d and open_angle = %d" % (low, high)


# The screws of each build: what they hold -> (kind, diameter mm, length mm, thread pitch mm).
# Wood screws are DIN 7505 chipboard screws (a 3.0 mm one has a 1.35 mm pitch).
SCREWS = {
    "drnim": {
        "board": ("wood", 3.0, 10, 1.35),       # a printed part's 2.4-4 mm flange into the backboard
        "panel": ("wood", 3.0, 16, 1.35),       # the panel's 10 mm bosses into the backboard
        "bracket": ("wood", 3.0, 10, 1.35),     # the stand's angle brackets (2 mm steel) into the plywood
        "floor": ("wood", 3.0, 10, 1.35),       # the electronics box's 2.4 mm floor into the base
        "pi": ("self-tapping", 2.5, 6, 0.45),   # the Pi (1.4 mm) into its printed standoffs
    },
    "nimatron": {
        "upright": ("wood", 3.0, 12, 1.35),     # the 5 mm lamp panel into the upright
        "board_long": ("wood", 3.0, 20, 1.35),  # the lamp board and its 12 mm spacers into the upright
        "board": ("machine", 3.0, 6, 0.5),      # the stripboard (1.6 mm) into the console's posts
        "pi": ("self-tapping", 2.5, 6, 0.45),
        "floor": ("wood", 3.0, 10, 1.35),       # the console's floor and the brackets into the base
    },
}
MIN_THREADS = 3                  # turns of thread that must hold
BACK_MARGIN_MM = 1               # a wood screw's tip stops this far before the back face


def screw_name(kind, diameter, length):
    """"Wood screws 3.0 x 10", the parts list's name of a screw."""
    return "%s screws %s x %d" % (kind.capitalize(), ("%.1f" if kind == "wood" else "M%g") % diameter, length)


def _number(value):
    return "%g" % value


# What a pin map's [build] table holds, with the values of the shipped build: a map without
# the table (an exhibit's copy from before it) gets these.
DEFAULTS = {
    "drnim": {"marble_mm": 16, "sensor": "2167", "board_mm": [320, 340, 9]},
    "nimatron": {"upright_mm": [200, 180, 9]},
}


def read(section, machine, fail):
    """The `[build]` table of a pin map of `machine`, checked and completed from DEFAULTS: a dict,
    or `fail(key, problem)`."""
    keys = tuple(DEFAULTS[machine])
    section = {} if section is None else section
    if not isinstance(section, dict):
        fail("build", "must be a table ([build]) with %s, not %r" % (", ".join(keys), section))
    for key in section:
        if key not in keys:
            fail("build." + key, "unknown key (known: %s)" % ", ".join(keys))
    out = dict(DEFAULTS[machine])
    for key, value in section.items():
        if key == "marble_mm":
            low, high = MARBLE_RANGE
            if isinstance(value, bool) or not isinstance(value, (int, float)) or not low <= value <= high:
                fail("build.marble_mm", "must be a marble's diameter from %d to %d mm, not %r" % (low, high, value))
        elif key == "sensor":
            if value not in SENSORS:
                fail("build.sensor", "%r is not one of %s (Adafruit's break-beam pairs)"
                     % (value, ", ".join('"%s"' % name for name in SENSORS)))
        elif not isinstance(value, list) or len(value) != 3 or not all(
                not isinstance(side, bool) and isinstance(side, (int, float)) and low <= side <= high
                for side, (low, high) in zip(value, BOARD_RANGE)):
            fail("build." + key, "must be [width, height, thickness] in mm (%s), not %r" % (
                ", ".join("%d-%d" % limits for limits in BOARD_RANGE), value))
        out[key] = value
    return out


def build_values(pinmap):
    """{OpenSCAD variable: its value as OpenSCAD text} for the pin map, in build.scad's order:
    its [build] table, the release's kind and angles, the gate's sizes and the screws."""
    build = pinmap.build
    values = {}
    if pinmap.machine == "drnim":
        release = pinmap.outputs["release"]
        angles = dict(GATE_ANGLES)
        angles.update((name, value) for name, value in release.options.items() if name.endswith("_angle"))
        values["marble"] = _number(build["marble_mm"])
        values["beam_model"] = '"%s"' % build["sensor"]
        values["beam_models"] = "[%s]" % ", ".join('["%s", [%s]]' % (name, ", ".join(map(_number, sensor["body"])))
                                                   for name, sensor in SENSORS.items())
        values["board"] = "[%s]" % ", ".join(map(_number, build["board_mm"]))
        values["release_kind"] = '"%s"' % release.kind
        values["gate_closed_angle"] = _number(angles["closed_angle"])
        values["gate_open_angle"] = _number(angles["open_angle"])
        values["gate_arm"] = _number(GATE_ARM_MM)
        values["gate_peg"] = _number(GATE_PEG_MM)
        values["gate_slot"] = _number(GATE_SLOT_MM)
        values["rest_gap"] = _number(REST_GAP_MM)
        values["solenoid_stroke"] = _number(SOLENOID_STROKE_MM)
    else:
        values["rows"] = str(pinmap.rows)
        values["lamps_per_row"] = str(pinmap.lamps_per_row)
        values["upright"] = "[%s]" % ", ".join(map(_number, build["upright_mm"]))
    for name, (kind, diameter, length, pitch) in SCREWS[pinmap.machine].items():
        values[name + "_screw"] = "[%s, %d, %s]" % (_number(diameter), length, _number(pitch))
    return values


COMMENTS = {
    "marble": "mm, the marbles' diameter",
    "board": "the backboard: width, height, thickness",
    "upright": "the plywood upright: width, height, thickness",
    "gate_closed_angle": "degrees: the servo gate's (a solenoid build: the defaults)",
    "gate_arm": "from the servo's shaft to the peg",
    "gate_peg": "the peg's square section",
    "gate_slot": "the rail floor's slot the peg rises through",
    "rest_gap": "the peg or plunger at rest, below what it lifts",
    "solenoid_stroke": "the JF-0530B's",
}


def build_scad(pinmap):
    """The text of `parts/build.scad` for the pin map (build_values, with comments)."""
    lines = ["// SPDX-License-Identifier: CERN-OHL-P-2.0",
             "// Generated from ../pinmap.toml by `python -m controller.hardware.pinmap --write-docs`: edit",
             "// the pin map's [build] table (or its [outputs.release]), not this file. params.scad",
             "// includes it, so every part is drawn for the build the service runs; the sensors'",
             "// housings are each half's length along the beam, width across it and height.", ""]
    for name, value in build_values(pinmap).items():
        comment = COMMENTS.get(name, "")
        if name == "beam_model":
            comment = SENSORS[pinmap.build["sensor"]]["name"]
        if name.endswith("_screw"):
            kind, diameter, length, pitch = SCREWS[pinmap.machine][name[:-len("_screw")]]
            comment = "%s (diameter, length, pitch)" % screw_name(kind, diameter, length)
        code = "%s = %s;" % (name, value)
        lines.append(("%-32s// %s" % (code, comment)) if comment else code)
    return "\n".join(lines) + "\n"
