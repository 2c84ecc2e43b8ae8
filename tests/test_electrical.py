"""The electrical rule check of the pin maps: each pin's current, the
header's total, the LEDs' brightness, the solenoid's level, the Nimatron's
lamps behind their ULN2803s; and the wiring tables that show the figures."""

import pytest

from conftest import ROOT
from controller.hardware.pinmap import PinMapError, current_table, default_pinmap_path, load_pinmap, wiring_table
from controller.hardware.pinmap.electrical import header_ma, lamp_ma, pin_ma
from test_pinmap import drnim_text, expect_error, line_of, nimatron_text


def test_the_shipped_drnim_map_keeps_every_pin_and_the_header_in_bounds():
    pinmap = load_pinmap(default_pinmap_path("drnim"))
    for spec in pinmap.outputs.values():
        if spec.kind in ("led", "led_pair"):
            assert 3.0 <= pin_ma(spec) <= 3.4, spec.role
    assert pin_ma(pinmap.outputs["buzzer"]) == pytest.approx(2.6)
    # 5 LED pairs (one side lit each) + 5 status LEDs + the buzzer's base
    assert header_ma(pinmap.outputs) == pytest.approx(35.7, abs=0.05)
    assert 2 * 5 * 3.33 + 5 * 3.33 + 2.6 > 50, "an LED pair counted twice would not fit: it counts once"


def test_the_shipped_nimatron_lamps_get_about_13_ma_off_the_header():
    pinmap = load_pinmap(default_pinmap_path("nimatron"))
    assert lamp_ma(pinmap.outputs["lamps"].options) == pytest.approx(13.0, abs=0.05)
    assert pin_ma(pinmap.outputs["lamps"]) == 0
    assert header_ma(pinmap.outputs) < 20


@pytest.mark.parametrize("machine", ("drnim", "nimatron"))
def test_the_wiring_tables_show_each_leds_current(machine):
    pinmap = load_pinmap(default_pinmap_path(machine))
    doc = (ROOT / "hardware" / machine / "wiring.md").read_text(encoding="utf-8")
    table = wiring_table(pinmap)
    for spec in pinmap.outputs.values():
        if spec.kind in ("led", "led_pair"):
            assert "%s → %s LED → GND; %.1f mA" % ("%d Ω" % spec.options["resistor"], spec.options["colour"],
                                                  pin_ma(spec)) in table, spec.role
    assert "energised when low" not in table
    assert "all together" in current_table(pinmap) and current_table(pinmap) in doc


def test_the_sensor_is_documented_with_its_external_pull_up_and_filter():
    table = wiring_table(load_pinmap(default_pinmap_path("drnim")))
    sensor = next(line for line in table.splitlines() if line.startswith("| `marble_sensor`"))
    assert "external 10 kΩ pull-up to 3.3 V and 100 nF to GND" in sensor and "pulses under 2 ms ignored" in sensor
    trigger = next(line for line in table.splitlines() if line.startswith("| `trigger`"))
    assert "1 kΩ in series" in trigger


def test_a_blue_led_through_a_red_leds_resistor_is_too_dim(tmp_path):
    text = drnim_text(outputs__turn='kind = "led_pair"\nleft = 11\nright = 12\ncolour = "blue"\nresistor = 330')
    expect_error(tmp_path, text, line_of(text, "resistor = 330", after="[outputs.turn]"), "outputs.turn.resistor",
                 "blue LED (3.0 V) through 330 Ω from 3.3 V gets 0.9 mA, too dim (at least 2 mA): use at most 150 Ω")


def test_a_blue_led_through_68_ohms_is_fine(tmp_path):
    path = tmp_path / "pinmap.toml"
    path.write_text(drnim_text(outputs__lamp_fault='kind = "led"\npin = 26\ncolour = "blue"\nresistor = 68'))
    assert pin_ma(load_pinmap(path).outputs["lamp_fault"]) == pytest.approx(4.4, abs=0.05)


def test_a_pin_above_16_ma(tmp_path):
    text = drnim_text(outputs__lamp_fault='kind = "led"\npin = 26\ncolour = "red"\nresistor = 68')
    expect_error(tmp_path, text, line_of(text, "resistor = 68"), "outputs.lamp_fault.resistor",
                 "red LED (2.0 V) through 68 Ω from 3.3 V draws 19.1 mA, more than a GPIO pin's 8 mA: use at least "
                 "163 Ω")


def test_a_pin_above_its_8_ma_default_drive_strength(tmp_path):
    """A red LED through 150 Ω takes 8.7 mA: more than the 8 mA a Pi's pin is set to drive (the 16 mA the
    check allowed is the most it can be set to, which gpiozero never does), so its level sags and the LED
    is dimmer than reckoned; the check names the resistor that keeps it in bounds."""
    text = drnim_text(outputs__lamp_fault='kind = "led"\npin = 26\ncolour = "red"\nresistor = 150')
    expect_error(tmp_path, text, line_of(text, "resistor = 150"), "outputs.lamp_fault.resistor",
                 "red LED (2.0 V) through 150 Ω from 3.3 V draws 8.7 mA, more than a GPIO pin's 8 mA: use at least "
                 "163 Ω")


def test_the_header_total_names_the_output_that_goes_over_50_ma(tmp_path):
    bright = 'colour = "red"\nresistor = 180'    # 7.2 mA a pin: fine alone
    text = drnim_text(**dict(("outputs__" + role, 'kind = "led_pair"\nleft = %d\nright = %d\n%s' % (left, right, bright))
                             for role, left, right in (("flip_flop_1", 17, 27), ("flip_flop_2", 22, 23),
                                                       ("flip_flop_3", 24, 25), ("equalizer", 9, 10),
                                                       ("turn", 11, 12))))
    expect_error(tmp_path, text, line_of(text, "resistor = 390", after="[outputs.lamp_fault]"),
                 "outputs.lamp_fault.resistor", "this output takes the header's total to 52.8 mA, more than the Pi's "
                                                "50 mA for all pins together")


def test_a_forward_voltage_instead_of_a_colour(tmp_path):
    path = tmp_path / "pinmap.toml"
    path.write_text(drnim_text(outputs__lamp_fault='kind = "led"\npin = 26\nvf = 2.9\nresistor = 100'))
    spec = load_pinmap(path).outputs["lamp_fault"]
    assert pin_ma(spec) == pytest.approx(4.0) and "4.0 mA" in wiring_table(load_pinmap(path))


@pytest.mark.parametrize("body,needle,key,problem", [
    ('kind = "led"\npin = 26\nresistor = 390', "[outputs.lamp_fault]", "outputs.lamp_fault.colour",
     "missing (the LED's colour: red, orange, amber"),
    ('kind = "led"\npin = 26\ncolour = "purple"\nresistor = 390', "purple", "outputs.lamp_fault.colour",
     "'purple' is not one of red, orange"),
    ('kind = "led"\npin = 26\ncolour = "red"', "[outputs.lamp_fault]", "outputs.lamp_fault.resistor",
     "missing (the LED's series resistor, in ohms)"),
    ('kind = "led"\npin = 26\nvf = 7\nresistor = 390', "vf = 7", "outputs.lamp_fault.vf",
     "must be a number of volts from 1.5 to 3.6, not 7"),
    ('kind = "led"\npin = 26\ncolour = "red"\nresistor = "390"', 'resistor = "390"', "outputs.lamp_fault.resistor",
     "must be a number of ohms from 1 to 1000000, not '390'"),
])
def test_bad_led_settings(tmp_path, body, needle, key, problem):
    text = drnim_text(outputs__lamp_fault=body)
    expect_error(tmp_path, text, line_of(text, needle), key, problem)


def test_an_early_pin_map_without_its_leds_colours_and_resistors_names_every_led_at_once(tmp_path):
    """An early Dr. Nim's map names no LED's colour nor resistor: refused one key at a time, its builder ran the
    check (on a Pi, install.sh, with its wheel and pip) 21 times to mend it (the museum technician's upgrade
    walkthrough). The first refusal says that its resistor is missing too, and which LEDs lack the same."""
    path = tmp_path / "pinmap.toml"
    path.write_text((ROOT / "tests" / "upgrade" / "drnim-pinmap-9d2598b.toml").read_text())
    with pytest.raises(PinMapError) as refused:
        load_pinmap(path)
    said = str(refused.value)
    assert "outputs.flip_flop_1.colour: missing (the LED's colour: " in said
    assert said.endswith("as is its resistor (in ohms); so do outputs.flip_flop_2, outputs.flip_flop_3, "
                         "outputs.equalizer and 6 more"), said
    text = path.read_text()
    for colourless in ("[outputs.flip_flop_1]", "[outputs.flip_flop_2]"):   # a colour given: its resistor, the others'
        text = text.replace(colourless + "\n", colourless + '\ncolour = "red"\n', 1)
    path.write_text(text)
    with pytest.raises(PinMapError) as refused:
        load_pinmap(path)
    assert str(refused.value).endswith("outputs.flip_flop_1.resistor: missing (the LED's series resistor, in ohms); "
                                       "so do outputs.flip_flop_2, outputs.flip_flop_3, outputs.equalizer and 6 "
                                       "more"), refused.value


def test_a_buzzer_base_resistor_too_large_to_switch_the_buzzer(tmp_path):
    """100 kΩ gave the base 26 µA, where the buzzer's 30 mA take 0.86 mA at a PN2222A's least gain: a silent
    buzzer, and the check said ok."""
    text = drnim_text(outputs__buzzer='kind = "buzzer"\npin = 21\nbase_resistor = 100000')
    expect_error(tmp_path, text, line_of(text, "base_resistor = 100000"), "outputs.buzzer.base_resistor",
                 "100 kΩ to the transistor's base gives it 0.03 mA, too little to switch the buzzer's 30 mA")


def test_a_buzzer_base_resistor_too_small(tmp_path):
    text = drnim_text(outputs__buzzer='kind = "buzzer"\npin = 21\nbase_resistor = 100')
    expect_error(tmp_path, text, line_of(text, "base_resistor = 100"), "outputs.buzzer.base_resistor",
                 "100 Ω to the transistor's base draws 26.0 mA, more than a GPIO pin's 8 mA")


def test_a_solenoid_must_be_active_high(tmp_path):
    text = drnim_text(outputs__release='kind = "solenoid"\npin = 18\nactive = "low"')
    message = expect_error(tmp_path, text, line_of(text, 'active = "low"', after="[outputs.release]"),
                           "outputs.release.active",
                           "with \"low\" the coil would be energised whenever the game is idle; use active = \"high\"")
    assert message.count("\n") == 0


@pytest.mark.parametrize("ohms,rows,problem", [
    (47, 3, "draws 27.7 mA, more than an LED's 20 mA: use at least 65 Ω"),
    (1000, 4, "gets 1.3 mA, too dim (at least 2 mA): use at most 650 Ω"),
])
def test_the_nimatron_lamp_resistor(tmp_path, ohms, rows, problem):
    text = nimatron_text(rows=rows).replace("lamp_resistor = 100", "lamp_resistor = %d" % ohms)
    expect_error(tmp_path, text, line_of(text, "lamp_resistor"), "outputs.lamps.lamp_resistor", problem)


def test_lamps_that_draw_more_than_the_ribbons_ptc_holds_warm_are_warned_of(tmp_path, capsys):
    """The 75 Ω shipped before: at a lamp's 15 mA the ULN2803 drops 0.7 V, not its datasheet's 0.9 V at
    100 mA, and the 56 lamps lit drew 0.97 A through an MF-R110 that holds about 0.88 A at 50 °C, where the
    check said 0.82 A. A warning (config check's, the service's journal, the pin map's command), not a
    refusal: the PTC protects the wire, and a build of them plays on. Another layout's PTCs are sized by
    its builder (bom.layout_warning), and are not checked."""
    from controller.cli import main
    from controller.hardware.pinmap.check import ribbon_warnings
    path = tmp_path / "pinmap.toml"
    path.write_text(nimatron_text().replace("lamp_resistor = 100", "lamp_resistor = 75"))
    line = "%s:%d: outputs.lamps.lamp_resistor: the 56 lamps lit draw 0.97 A through the ribbon's MF-R110, more " \
        "than the 0.88 A it holds at 50 °C (1.1 A at 23 °C): the lamps would go dark in play in a warm console; " \
        "use at least 83 Ω, or keep it cool" % (path, line_of(path.read_text(), "lamp_resistor"))
    assert ribbon_warnings(load_pinmap(path)) == [line]
    config = tmp_path / "config.toml"
    config.write_text('[service]\nmachine = "nimatron"\npinmap = "%s"\nstate_dir = "%s"\n' % (path, tmp_path))
    assert main(["config", "check", str(config)]) == 0
    assert "warning: %s\n" % line in capsys.readouterr().out
    path.write_text(nimatron_text().replace("lamp_resistor = 100", "lamp_resistor = 83"))
    assert ribbon_warnings(load_pinmap(path)) == []
    path.write_text(nimatron_text(rows=5, registers=10).replace("lamp_resistor = 100", "lamp_resistor = 75"))
    assert ribbon_warnings(load_pinmap(path)) == []


def test_the_old_150_ohm_lamp_resistor_gave_only_9_ma(tmp_path):
    path = tmp_path / "pinmap.toml"
    path.write_text(nimatron_text().replace("lamp_resistor = 100", "lamp_resistor = 150"))
    assert lamp_ma(load_pinmap(path).outputs["lamps"].options) == pytest.approx(8.7, abs=0.05)


@pytest.mark.parametrize("value,problem", [
    ("9", "must be a whole number of milliseconds from 0 to 8, not 9"),
    ("1.5", "not 1.5"),
    ("-1", "not -1"),
])
def test_a_bad_min_pulse(tmp_path, value, problem):
    text = drnim_text(inputs__marble_sensor='pin = 8\npull = "none"\nactive = "low"\nmin_pulse_ms = %s' % value)
    expect_error(tmp_path, text, line_of(text, "min_pulse_ms"), "inputs.marble_sensor.min_pulse_ms", problem)


def test_errors_are_value_errors():
    assert issubclass(PinMapError, ValueError)


def test_the_example_in_the_hardware_readme_is_what_the_loader_says(tmp_path):
    readme = (ROOT / "hardware" / "README.md").read_text(encoding="utf-8")
    example = next(line for line in readme.splitlines() if "outputs.turn.resistor" in line)
    text = default_pinmap_path("drnim").read_text()
    turn = text.index("[outputs.turn]")
    path = tmp_path / "pinmap.toml"
    path.write_text(text[:turn] + text[turn:].replace('colour = "red"', 'colour = "blue"', 1))
    with pytest.raises(PinMapError) as caught:
        load_pinmap(path)
    assert str(caught.value) == example.replace("hardware/drnim/pinmap.toml", str(path), 1)


def test_a_pico_pin_is_held_to_its_4_ma_default_drive(tmp_path):
    """A red LED through 220 Ω (5.9 mA) is fine on a Pi's pin (8 mA) and too much for an RP2040's
    at its default drive strength (4 mA): the [pico] check names the role and the resistor to use."""
    from controller.hardware.pinmap.pico import load_pico
    text = (ROOT / "hardware" / "drnim" / "pinmap.toml").read_text()
    fault = text.index("[outputs.lamp_fault]")
    text = text[:fault] + text[fault:].replace("resistor = 390", "resistor = 220", 1)
    path = tmp_path / "pinmap.toml"
    path.write_text(text)
    assert pin_ma(load_pinmap(path).outputs["lamp_fault"]) == pytest.approx(5.9, abs=0.05)
    with pytest.raises(PinMapError) as caught:
        load_pico(path)
    assert str(caught.value) == "%s:%d: pico.lamp_fault: red LED (2.0 V) through 220 Ω (outputs.lamp_fault) draws " \
        "5.9 mA, more than a Pico pin's 4 mA at its default drive strength (the Pi's 8 mA does not hold here): use " \
        "at least 325 Ω" % (path, text.splitlines().index("lamp_fault = 22") + 1)


@pytest.mark.parametrize("option, value, problem", [
    ("ptc_trip_a", 1.0, "a PTC that trips at 1.00 A never cuts a coil held on (a shorted MOSFET, a hang): it draws "
                        "0.85 A (5 V across the coil's 4.5 Ω and the PTC's own 1.36 Ω)"),
    ("ptc_hold_a", 0.2, "a PTC that holds 0.20 A trips in play: the coil's 60 ms pulses, one a 900 ms pace, take "
                        "0.29 A (RMS)"),
    ("cutoff_c", 70, "70 °C, but the coil's cradle, printed in PLA (cradle_material), bears about 50 °C at most in "
                     "continuous use: use a thermal switch that opens at 50 °C or below, or print the cradle in PETG "
                     "(60 °C) or ASA (85 °C) and set cradle_material"),
])
def test_the_coil_needs_a_hardware_limit_on_its_on_time(tmp_path, option, value, problem):
    text = drnim_text(outputs__release='kind = "solenoid"\npin = 18\n%s = %s' % (option, value))
    expect_error(tmp_path, text, line_of(text, "%s = %s" % (option, value)), "outputs.release." + option, problem)


@pytest.mark.parametrize("material, switch_c", [("PETG", 60), ("ASA", 85)])
def test_a_cradle_printed_for_a_warm_gallery_takes_a_hotter_thermal_switch(tmp_path, material, switch_c):
    """Found with hardware/README.md's Materials for a public gallery: in a 45 °C vitrine the 50 °C switch
    opens before the first pulse, so a museum prints the cradle in PETG or ASA and fits a hotter switch,
    which the loader refused whatever the cradle was printed in. Each material's limit is its figure in
    continuous use in that section's table; above it the refusal names the option."""
    release = 'kind = "solenoid"\npin = 18\ncradle_material = "%s"\ncutoff_c = %d' % (material, switch_c)
    path = tmp_path / "pinmap.toml"
    path.write_text(drnim_text(outputs__release=release))
    assert load_pinmap(path).outputs["release"].options["cutoff_c"] == switch_c
    assert "a %d °C thermal switch, for a cradle printed in %s" % (switch_c, material) in wiring_table(
        load_pinmap(path))
    text = drnim_text(outputs__release=release.replace("cutoff_c = %d" % switch_c, "cutoff_c = %d" % (switch_c + 5)))
    expect_error(tmp_path, text, line_of(text, "cutoff_c = "), "outputs.release.cutoff_c",
                 "%d °C, but the coil's cradle, printed in %s (cradle_material), bears about %d °C at most in "
                 "continuous use: use a thermal switch that opens at %d °C or below" % (
                     switch_c + 5, material, switch_c, switch_c))
    readme = (ROOT / "hardware" / "README.md").read_text(encoding="utf-8")
    assert "| in continuous use up to about | 50 °C | 60 °C | 85 °C |" in readme


def test_a_cradle_material_the_loader_does_not_know_is_refused_on_its_line(tmp_path):
    text = drnim_text(outputs__release='kind = "solenoid"\npin = 18\ncradle_material = "petg"')
    expect_error(tmp_path, text, line_of(text, "cradle_material"), "outputs.release.cradle_material",
                 "'petg' is not one of PLA, PETG, ASA (what the solenoid's cradle, gate_solenoid, is printed in)")
    text = drnim_text(outputs__release='kind = "servo"\npin = 18\ncradle_material = "PETG"')
    expect_error(tmp_path, text, line_of(text, "cradle_material"), "outputs.release.cradle_material",
                 "unknown key for kind 'servo'")


def test_the_shipped_coil_is_guarded_by_a_ptc_and_a_thermal_switch():
    from controller.hardware.pinmap.electrical import coil_amps, coil_rms_amps, held_amps, trip_seconds
    spec = load_pinmap(default_pinmap_path("drnim")).outputs["release"]
    assert coil_amps(spec.options) == pytest.approx(1.11, abs=0.01)
    assert coil_rms_amps(spec.options) <= spec.options["ptc_hold_a"] < spec.options["ptc_trip_a"]
    assert spec.options["cutoff_c"] <= 50
    bom = (ROOT / "hardware" / "drnim" / "bom.csv").read_text(encoding="utf-8")
    assert "Bourns MF-R030 (0.30 A hold; 0.60 A trip)" in bom and "KSD9700 50 °C normally closed" in bom
    # the datasheet's 3.0 s at 1.5 A, 0.76-1.36 Ω new and 2.10 Ω at most an hour after a trip
    assert held_amps(spec.options) == pytest.approx(0.85, abs=0.005)
    assert trip_seconds(spec.options) == pytest.approx(11.7, abs=0.1)
    assert trip_seconds(spec.options, 3.0 * 0.30 * 5 / 3.0) == pytest.approx(3.0)
    assert trip_seconds(dict(spec.options, ptc_ohms=2.10)) < 20
    table = wiring_table(load_pinmap(default_pinmap_path("drnim")))
    assert "the coil (1.11 A alone, 0.85 A with the PTC's 1.36 Ω) through a 0.30 A PTC (trips at 0.60 A: within " \
           "12 s of a coil held on) and a 50 °C thermal switch, for a cradle printed in PLA" in table


def test_a_coil_held_on_is_reckoned_through_the_ptcs_own_resistance(tmp_path):
    """The MF-R030's 0.76-1.36 Ω is a good part of the 4.5 Ω coil's at 5 V: a coil held on draws 0.85 A through
    it, 1.4 times its trip current, not the 1.11 A (nearly twice) the wiring said; and a PTC of 3 Ω, its trip
    current still 0.60 A, would let the coil's 0.67 A cook it for half a minute."""
    path = tmp_path / "pinmap.toml"
    path.write_text(drnim_text(outputs__release='kind = "solenoid"\npin = 18\nptc_ohms = 2.1'))
    options = load_pinmap(path).outputs["release"].options
    from controller.hardware.pinmap.electrical import held_amps, trip_seconds
    assert held_amps(options) == pytest.approx(0.76, abs=0.005) and 16 < trip_seconds(options) < 18
    text = drnim_text(outputs__release='kind = "solenoid"\npin = 18\nptc_ohms = 3.0')
    expect_error(tmp_path, text, line_of(text, "[outputs.release]"), "outputs.release.ptc_trip_a",
                 "a PTC that trips at 0.60 A holds for 29 s a coil held on (a shorted MOSFET, a hang): it draws 0.67 A "
                 "(5 V across the coil's 4.5 Ω and the PTC's own 3 Ω), and a PTC that trips within 3 s at 5 times its "
                 "0.30 A hold current takes up to 29 s at that; use one that trips at 0.55 A or less, so the coil is "
                 "cut within 20 s")


@pytest.mark.parametrize("pulse, problem", [(60, None), (65, None), (200, (
    "pico.release_pulse_ms: 200 ms, but the coil's pulses, one a 900 ms pace, then take 0.524 A (RMS), more than the "
    "0.30 A its PTC holds (outputs.release.ptc_hold_a): it would trip within a few marbles, and the release stay dead "
    "until the 5 V is unplugged; use at most 65 ms"))])
def test_a_pico_pulse_that_would_trip_the_coils_ptc_in_play_is_refused(tmp_path, pulse, problem):
    """The board plays at Dr. Nim's 900 ms pace: 200 ms pulses of the 1.11 A coil average 0.52 A (RMS), and the
    MF-R030 that guards it holds 0.30 A, so it tripped a few marbles into a game and the release went dead until
    someone unplugged the 5 V. The build refuses such a pulse (the 500 ms cap alone let it through)."""
    from controller.hardware.pinmap.pico import load_pico
    text = (ROOT / "hardware" / "drnim" / "pinmap.toml").read_text()
    text = text.replace("release_pulse_ms = 60 ", "release_pulse_ms = %d " % pulse, 1)
    path = tmp_path / "pinmap.toml"
    path.write_text(text)
    if problem is None:
        assert load_pico(path, "drnim")[2]["open_ms"] == pulse
        return
    with pytest.raises(PinMapError) as caught:
        load_pico(path, "drnim")
    assert str(caught.value) == "%s:%d: %s" % (path, line_of(text, "release_pulse_ms = %d" % pulse), problem)
