"""The drawn wiring (hardware/<machine>/wiring-*.svg) matches its pin map,
and shows every pin it uses by both of its numbers."""

import functools
import re
import shutil

import pytest

from conftest import ROOT, cairo_missing
from controller.core.registry import NAMES
from controller.hardware.pinmap import HEADER, load_pinmap, main
from controller.hardware.pinmap.pico import PICO_HEADER, load_pico

pytest.importorskip("schemdraw", reason="schemdraw (the test extras) draws the wiring")
from controller.hardware.pinmap.drawing import FILES, draw, drawings  # noqa: E402

MACHINES = NAMES


def texts(svg):
    """The words of an SVG drawing, one string per text element."""
    return [re.sub(r"<[^>]+>", "", text) for text in re.findall(r"<text[^>]*>(.*?)</text>", svg, re.S)]


@functools.lru_cache(maxsize=None)
def shipped_pi_words(machine):
    """The words of the Pi drawing of `machine`'s shipped pin map, drawn once for the tests that read it (a
    drawing takes about 0.4 s)."""
    return tuple(texts(draw(load_pinmap(ROOT / "hardware" / machine / "pinmap.toml"), "pi")))


@pytest.mark.parametrize("machine", MACHINES)
def test_the_committed_drawings_match_their_pin_map(machine):
    made = drawings(ROOT / "hardware" / machine / "pinmap.toml")
    assert sorted(made) == sorted(FILES.values())
    for name, svg in made.items():
        committed = (ROOT / "hardware" / machine / name).read_text(encoding="utf-8")
        assert committed == svg, "hardware/%s/%s is stale: run python -m controller.hardware.pinmap --write-docs" % (
            machine, name)


@pytest.mark.parametrize("machine", MACHINES)
def test_the_pi_drawing_names_every_pin_by_its_bcm_and_header_numbers(machine):
    pinmap = load_pinmap(ROOT / "hardware" / machine / "pinmap.toml")
    words = shipped_pi_words(machine)
    for bcm in pinmap.pins():
        assert "GPIO %d" % bcm in words and str(HEADER[bcm]) in words
    for spec in pinmap.inputs.values():
        assert any(word.startswith(spec.role + ": ") for word in words)


def test_the_pico_drawing_names_every_pin_by_its_gp_and_board_numbers():
    pinmap, pins, _ = load_pico(ROOT / "hardware" / "drnim" / "pinmap.toml")
    words = texts(draw(pinmap, "pico", pins))
    for role in pins.values():
        for gp in role.values():
            assert "GP%d" % gp in words and str(PICO_HEADER[gp]) in words


def test_the_drawings_show_the_parts_a_builder_must_not_leave_out():
    dr_nim = " ".join(shipped_pi_words("drnim"))
    for part in ("IRF3708PbF", "1N4007", "100 Ω", "10 kΩ pull-up", "100 nF", "SG90", "470 µF", "1N4148", "T2A fuse",
                 "390 Ω", "330 Ω", "PTC 0.30 A (trips 0.60 A)", "thermal switch 50 °C, on the coil"):
        assert part in dr_nim
    assert shipped_pi_words("drnim").count("100 nF") == 5, "the sensor's, and one on each of the four panel inputs' wires"
    nimatron = " ".join(shipped_pi_words("nimatron"))
    for part in ("74HC595", "ULN2803A", "OE", "SRCLR", "100 Ω", "QH'"):
        assert part in nimatron


def test_moving_a_wire_in_the_pin_map_redraws_the_drawing(tmp_path):
    for name in ("pinmap.toml", "wiring.md"):
        shutil.copy(ROOT / "hardware" / "drnim" / name, tmp_path / name)
    path = tmp_path / "pinmap.toml"
    path.write_text(path.read_text().replace("pin = 4                           # header pin 7",
                                             "pin = 3                           # header pin 5"))
    assert main(["--write-docs", str(path)]) == 0
    words = texts((tmp_path / "wiring-pi.svg").read_text(encoding="utf-8"))
    assert "GPIO 3" in words and "GPIO 4" not in words
    assert (tmp_path / "wiring-pico.svg").exists()
    committed = (ROOT / "hardware" / "drnim" / "wiring-pi.svg").read_text(encoding="utf-8")
    assert (tmp_path / "wiring-pi.svg").read_text(encoding="utf-8") != committed


def test_a_servo_release_and_a_servo_flipper_are_drawn_as_built(tmp_path):
    text = (ROOT / "hardware" / "drnim" / "pinmap.toml").read_text()
    text = text.replace('kind = "solenoid"                 # or "servo" (a servo gate), see below\npin = 18'
                        '                          # header pin 12; a servo gate works here too (any pin: lgpio times its '
                        'pulses)\n'
                        'active = "high"', 'kind = "servo"\npin = 18')
    text = text.replace('kind = "led_pair"\nleft = 11                         # header pin 23\n'
                        'right = 12                        # header pin 32\nactive = "high"\ncolour = "red"\n'
                        'resistor = 390', 'kind = "servo"\npin = 12')
    text = text[:text.index("[pico]")]
    path = tmp_path / "pinmap.toml"
    path.write_text(text)
    pinmap = load_pinmap(path)
    assert pinmap.outputs["release"].kind == "servo" and pinmap.outputs["turn"].kind == "servo"
    made = drawings(path)
    assert sorted(made) == ["wiring-pi.svg"], "no [pico] section, no Pico drawing"
    words = texts(made["wiring-pi.svg"])
    assert "SG90 servo gate" in words and "or: SG90 servo gate" not in words
    assert "SG90 servo flipper" in words and "GPIO 11" not in words
    assert "IRF3708PbF" in words and "PTC 0.30 A (trips 0.60 A)" in words, \
        "the solenoid stays drawn, dashed, as the other way, with its guards"


def test_write_docs_names_a_bad_pico_section_in_one_line(tmp_path):
    import io
    from controller.hardware.pinmap import main
    for name in ("pinmap.toml", "wiring.md", "README.md", "bom.csv"):
        (tmp_path / name).write_text((ROOT / "hardware" / "nimatron" / name).read_text(encoding="utf-8"),
                                     encoding="utf-8")
    path = tmp_path / "pinmap.toml"
    path.write_text(path.read_text(encoding="utf-8").replace("row1 = 2\n", "row1 = 99\n", 1), encoding="utf-8")
    out = io.StringIO()
    assert main(["--write-docs", str(path)], out=out) == 1
    assert "pico.row1: 99 is not a GP pin of the Pico" in out.getvalue()


def test_installed_apart_write_docs_by_a_machines_name_writes_the_checkouts_map_or_nothing(tmp_path, monkeypatch):
    """Installed with pipx, `--write-docs drnim` wrote into the installed package's copy of the hardware (the
    next upgrade throws it away, and the builder's checkout keeps its old tables): by a machine's name it
    writes the map of the checkout the current folder is in, and outside one nothing, saying what to give."""
    import io
    from controller import shipped
    monkeypatch.setattr(shipped, "in_checkout", lambda: False)
    monkeypatch.chdir(tmp_path)
    out = io.StringIO()
    assert main(["--write-docs", "drnim"], out=out) == 1
    assert out.getvalue() == (
        "drnim: nothing written: --write-docs writes beside a checkout's pin map, and these are the installed "
        "package's files; run it in your checkout, or give its map's path (hardware/drnim/pinmap.toml)\n")
    top = tmp_path / "checkout"
    shutil.copytree(ROOT / "hardware", top / "hardware", ignore=shutil.ignore_patterns("*.pdf", "*.png", "*.stl"))
    path = top / "hardware" / "drnim" / "pinmap.toml"
    path.write_text(path.read_text().replace("pin = 4                           # header pin 7",
                                             "pin = 3                           # header pin 5"))
    monkeypatch.chdir(top / "hardware" / "drnim")
    out = io.StringIO()
    assert main(["--write-docs", "drnim"], out=out) == 0
    assert out.getvalue().startswith("%s: ok, Dr. Nim" % path)
    assert "GPIO 3" in texts((path.parent / "wiring-pi.svg").read_text(encoding="utf-8"))


def test_the_pulls_are_drawn_as_the_pin_map_wires_them(tmp_path):
    """A button with no internal pull gets its 10 kΩ drawn, towards the level it is not active at,
    and its far end at the level it is active at; a sensor on an internal pull gets no resistor."""
    text = (ROOT / "hardware" / "drnim" / "pinmap.toml").read_text(encoding="utf-8")
    shipped = shipped_pi_words("drnim")
    path = tmp_path / "pinmap.toml"
    path.write_text(text.replace('pull = "up"\nactive = "low"                    # pressed = the button connects '
                                 'the pin to GND', 'pull = "none"\nactive = "high"', 1)
                    .replace('pull = "none"                     # an external 10 kohm', 'pull = "up" # no external', 1),
                    encoding="utf-8")
    words = texts(draw(load_pinmap(path), "pi"))
    assert words.count("10 kΩ pull-down") == shipped.count("10 kΩ pull-down") + 1
    assert words.count("10 kΩ pull-up") == shipped.count("10 kΩ pull-up") - 1
    assert words.count("3.3 V") == shipped.count("3.3 V")      # the button's end gained it, the sensor's pull lost it


@pytest.mark.parametrize("name", sorted("%s/%s" % (machine, FILES[board]) for machine in MACHINES
                                        for board in ("pi", "pico")))
def test_every_line_of_words_ends_inside_its_drawing(name):
    """The notes at the foot of each drawing ran past its right edge, cut off in every viewer
    ("... a toggle's bushing is grounded by a lug" was lost). Measured in the font a viewer draws
    "sans" in (DejaVu Sans, through cairo, as the visitor cards are)."""
    if cairo_missing():
        pytest.skip(cairo_missing())
    from controller.cards import Measure
    measure = Measure()
    svg = (ROOT / "hardware" / name).read_text(encoding="utf-8")
    left, _, width, _ = map(float, re.search(r'viewBox="([^"]+)"', svg).group(1).split())
    beyond = []
    for x, size, words in re.findall(r'<text x="([^"]+)"[^>]*font-size="([^"]+)"[^>]*text-anchor="start">(.*?)</text>',
                                     svg, re.S):
        for line in re.findall(r"<tspan[^>]*>(.*?)</tspan>", words, re.S):
            if float(x) + measure(line, float(size)) > left + width:
                beyond.append(line)
    assert beyond == []
