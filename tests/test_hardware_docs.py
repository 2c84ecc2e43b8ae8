"""The commands the hardware guides (hardware/**/*.md) give, as a reader copies them: the parts
folders' blocks run one after the other from the repository's top folder, each file they name
where the shell then is, and what they render left out of git; a checkout's Python and controller
are the virtualenv's, in a block or in a sentence; a command on the Pi calls the controller where systemd/install.sh puts it
(nothing puts it on the PATH there); the number of prints each parts README gives is what the
parts' headers count; the line a guide says the pin-map check prints is the one it prints; and the
electrical safety summary's figures are the parts lists' and the pin-map check's."""

import io
import re
import shlex
import subprocess
from pathlib import Path

import pytest

from conftest import ROOT
from controller.core.registry import NAMES as MACHINES
from controller.hardware.printed import parts

DOCS = sorted((ROOT / "hardware").rglob("*.md"))
ON_THE_PI = "/opt/drnim-controller/venv/bin/controller"


def blocks(doc):
    """The shell commands of each ```sh block of a Markdown file, one list per block."""
    found = re.findall(r"^```sh\n(.*?)^```$", doc.read_text(encoding="utf-8"), re.M | re.S)
    return [[line for line in block.splitlines() if line.strip()] for block in found]


def commands(line):
    """The commands of one shell line (split at &&), each as its words, comments left out."""
    words = shlex.split(line, comments=True)
    out, current = [], []
    for word in words:
        if word == "&&":
            out.append(current)
            current = []
        else:
            current.append(word)
    return out + [current] if current else out


def ignored(path):
    """Whether git leaves `path` out of a commit; in an unpacked sdist, which is no repository, no commit
    lists it either."""
    if not (ROOT / ".git").exists():
        return True
    return subprocess.run(["git", "check-ignore", "--no-index", "-q", str(path)], cwd=ROOT).returncode == 0


@pytest.mark.parametrize("machine", MACHINES)
def test_the_parts_readmes_commands_run_in_order_from_the_top_folder(machine):
    here, before = ROOT, ROOT
    for block in blocks(ROOT / "hardware" / machine / "parts" / "README.md"):
        for line in block:
            for words in commands(line):
                if words[0] == "cd":
                    here, before = (before, here) if words[1:] == ["-"] else (here / words[1], here)
                    assert here.is_dir(), line
                    continue
                for at, word in enumerate(words):
                    if word.endswith((".scad", ".py")) and not word.startswith("-"):
                        assert (here / word).is_file(), "%s: %s is not in %s" % (line, word, here)
                    if word == "-o" and words[at + 1].endswith(".stl"):
                        made = here / words[at + 1]
                        assert ignored(made.relative_to(ROOT)), "%s: git would list %s" % (line, made)
    assert here == ROOT, "the last block leaves the shell in %s" % here


def test_a_checkouts_python_is_the_virtualenvs():
    bare = ["%s: %s" % (doc.relative_to(ROOT), line) for doc in DOCS
            for line in doc.read_text(encoding="utf-8").splitlines() if re.search(r"(^|[\s`(])python -m ", line)]
    assert bare == []


def test_a_checkouts_controller_is_the_virtualenvs():
    bare = ["%s: %s" % (doc.relative_to(ROOT), line) for doc in DOCS for block in blocks(doc)
            for line in block for words in commands(line) if words[0] == "controller"]
    assert bare == []


def spans(doc):
    """The inline code of a Markdown file outside its fenced blocks, a span broken over two lines joined."""
    text = re.sub(r"^```.*?^```$", "", doc.read_text(encoding="utf-8"), flags=re.M | re.S)
    return re.findall(r"`([^`]+)`", text.replace("\n", " "))


def test_a_command_a_sentence_gives_with_its_options_calls_the_virtualenvs_controller():
    bare = ["%s: %s" % (doc.relative_to(ROOT), span) for doc in DOCS for span in spans(doc)
            if span.split()[0] == "controller" and any(word.lstrip("[").startswith("--") for word in span.split())]
    assert bare == []


def test_a_command_on_the_pi_calls_the_controller_where_install_sh_puts_it():
    install = (ROOT / "systemd" / "install.sh").read_text(encoding="utf-8")
    assert "/opt/drnim-controller/venv " in install and "$VENV/bin/controller" in install
    bare = []
    for doc in DOCS:
        for block in blocks(doc):
            for line in block:
                for words in commands(line):
                    on_the_pi = words[0] == "sudo" or any(word.startswith(("/etc/drnim-controller",
                                                                           "/var/lib/drnim-controller"))
                                                          for word in words)
                    if on_the_pi and any(Path(word).name == "controller" and word != ON_THE_PI for word in words):
                        bare.append("%s: %s" % (Path(doc).relative_to(ROOT), line))
    assert bare == []


# Each build a parts README counts the prints of, and the parts it leaves out.
BUILDS = {"drnim": {"the shipped build": {"gate_servo_mount", "gate_servo_arm"}, "the servo build": {"gate_solenoid"}},
          "nimatron": {"the console and two lamp panels": set()}}


@pytest.mark.parametrize("machine", MACHINES)
def test_the_parts_readme_counts_the_prints_the_headers_count(machine):
    readme = (ROOT / "hardware" / machine / "parts" / "README.md").read_text(encoding="utf-8")
    for build, left_out in BUILDS[machine].items():
        said = re.search(build + r"[^.;]*? (?:is|are) (\d+) prints", readme.replace("\n", " "))
        assert said, "%s/parts/README.md does not say how many prints %s is" % (machine, build)
        counted = sum(part.count for part in parts(machine) if part.name not in left_out)
        assert int(said.group(1)) == counted, "%s: %s prints, the headers count %d" % (build, said.group(1), counted)


def test_the_guides_never_advise_a_release_pulse_that_trips_the_coils_ptc():
    """The troubleshooting row for a weak release said to lengthen release_pulse_ms 'a little (at most 500)':
    above 65 ms, one a 900 ms pace, the shipped coil's pulses average more than its MF-R030 holds (0.30 A),
    so it tripped mid-game and the release stayed dead until the 5 V was unplugged."""
    from controller.hardware.pinmap import default_pinmap_path, load_pinmap
    from controller.hardware.pinmap.electrical import longest_pulse_ms
    longest = longest_pulse_ms(load_pinmap(default_pinmap_path("drnim")).outputs["release"].options)
    assert longest == 65
    said = {}
    for doc in DOCS:
        for limit in re.findall(r"release_pulse_ms[^|]{0,120}?at most (\d+)", doc.read_text(encoding="utf-8")):
            said.setdefault(int(limit), []).append(doc.relative_to(ROOT).as_posix())
    assert set(said) == {longest}, said


def test_the_servo_arm_goes_on_after_its_brackets_screws():
    """The arm hangs level in front of the servo bracket's right-hand screw (its lower edge at the
    screw's middle, controller hardware check's drawing): fitted at step 7, as the guide said,
    it left that screw out of a screwdriver's reach at step 9, where the bracket is screwed on."""
    guide = (ROOT / "hardware" / "drnim" / "README.md").read_text(encoding="utf-8")
    steps = dict(re.findall(r"^## (\d+)\. (.*?)(?=^## )", guide, re.M | re.S))
    assert "Fit the arm" not in steps["7"] and "fit the arm" not in steps["7"]
    mounting = steps["9"]
    assert mounting.index("screw its bracket on first") < mounting.index("fit the arm on the horn")


@pytest.mark.parametrize("machine", MACHINES)
def test_the_guide_quotes_what_the_pin_map_check_prints(machine):
    """Step 2's check quotes the line the pin-map command prints for the installed map ('ok, Dr. Nim,
    22 pins used'): a pin added to or taken from the shipped map changes that count, and nothing held
    the guide to it. A count that is not the map's is named in one line with the guide and both counts."""
    from controller.hardware.pinmap import default_pinmap_path, load_pinmap
    from controller.hardware.pinmap.command import main
    out = io.StringIO()
    assert main([machine], out=out) == 0
    printed = out.getvalue().split(": ", 1)[1].strip()
    path = default_pinmap_path(machine)
    used = len(load_pinmap(path).pins())
    name = "hardware/%s/README.md" % machine
    guide = (ROOT / name).read_text(encoding="utf-8")
    sections = re.split(r"^## (.*)$", guide, flags=re.M)      # [before, heading, text, heading, text, ...]
    quoted = [(re.sub(r"^(\d+)\. .*", r"step \1", heading), line)
              for heading, text in zip(sections[1::2], sections[2::2])
              for line in re.findall(r"the last command prints `([^`]+)`", text.replace("\n", " "))]
    assert quoted, "%s quotes no line of the pin-map check: is the test reading it?" % name
    for where, line in quoted:
        count = re.search(r"(\d+) pins used", line)
        said = int(count.group(1)) if count else "no number of"
        assert said == used, "%s: %s says %s pins used, %s uses %d" % (
            name, where, said, path.relative_to(ROOT).as_posix(), used)
        assert printed.startswith(line), "%s: %s quotes `%s`, the pin-map check prints `%s`" % (
            name, where, line, printed)


def test_the_electrical_safety_summary_gives_the_parts_lists_and_the_checks_figures():
    """The page an inspector signs an exhibit off by (hardware/README.md, Electrical safety summary): every
    current, rating and time in it is the parts lists' or the pin-map check's, so a coil, a PTC, a lamp's
    resistor or the number of lamps changed there and not here is named, with the figure it should say."""
    import csv
    import math
    from controller.hardware.pinmap import load_default
    from controller.hardware.pinmap.electrical import (GAME_PULSE_MS, LAMP_MAX_MA, LAMP_SUPPLY_VOLTS, coil_amps,
                                                       coil_rms_amps, header_ma, held_amps, lamp_ma, trip_seconds)
    readme = (ROOT / "hardware" / "README.md").read_text(encoding="utf-8")
    summary = re.search(r"^## Electrical safety summary\n(.*?)^## ", readme, re.M | re.S).group(1).replace("\n", " ")

    def bom(machine):
        with open(ROOT / "hardware" / machine / "bom.csv", newline="", encoding="utf-8") as f:
            return dict((row["part"], row) for row in csv.DictReader(f))

    def ma(row, pattern):
        return int(re.search(pattern, row["note"]).group(1)) / 1000

    drnim, nimatron = bom("drnim"), bom("nimatron")
    release = load_default("drnim").outputs["release"].options
    lamps = load_default("nimatron").outputs["lamps"].options
    buzzer = ma(drnim["Active buzzer 5 V"], r"(\d+) mA at most from 5 V")
    assert buzzer == ma(nimatron["Active buzzer 5 V"], r"(\d+) mA at most from 5 V")
    emitter = ma(drnim["IR break-beam sensor pair 3 mm"], r"the emitter draws about (\d+) mA from 5 V")
    volts, amps = re.search(r"\((\d+) V (\d+) A\)", drnim["5 V plug-in power supply with barrel plug"]
                            ["example part number"]).groups()
    count = int(nimatron["LED 5 mm warm-white"]["quantity"])
    lamp_a = count * lamp_ma(lamps) / 1000
    wanted = [
        "supply %s A, fuse 2 A" % amps, "GST25A05-P1J, %s V %s A" % (volts, amps), "T2A",
        "%.2f A during a %d ms release (the coil %.2f A, the buzzer %.2f A, the emitter %.2f A); %.2f A between"
        % (coil_amps(release) + buzzer + emitter, GAME_PULSE_MS, coil_amps(release), buzzer, emitter, buzzer + emitter),
        "| %.1f mA | %.1f mA |" % (header_ma(load_default("drnim").outputs),
                                   header_ma(load_default("nimatron").outputs)),
        drnim["Resettable fuse for the coil (PTC)"]["example part number"],
        "whose pulses average %.2f A at most; and a %d °C thermal switch"
        % (coil_rms_amps(release), release["cutoff_c"]),
        "draws %.2f A through its PTC, which cuts it within %d s (%d s after a trip)"
        % (held_amps(release), math.ceil(trip_seconds(release)), math.ceil(trip_seconds(dict(release, ptc_ohms=2.10)))),
        "the %d lamps" % count, "%.2f A (every lamp lit %.2f A, the buzzer %.2f A)" % (lamp_a + buzzer, lamp_a, buzzer),
        "%s in the ribbon's +5 V to both lamp boards (%.2f A)"
        % (nimatron["Resettable fuse for the ribbon to the console's lamp board (PTC)"]["example part number"], lamp_a),
        "%s on to the spectators' (%.2f A)"
        % (nimatron["Resettable fuse for the ribbon to the spectators' lamp board (PTC)"]["example part number"],
           lamp_a / 2),
        "takes its %.1f mA, under an LED's %d mA" % (lamp_ma(lamps), LAMP_MAX_MA),
        "the Nimatron's %d lamps give off %d W" % (count, round(lamp_a * LAMP_SUPPLY_VOLTS)),
    ]
    assert [text for text in wanted if text not in summary] == []


def test_the_lamp_boards_check_lights_the_rows_the_pin_map_wires(tmp_path):
    """Step 5's check of the console's lamps wrote out the shipped chain (registers=8, rows=4, lamps_per_row=7):
    a builder with a longer row lit the wrong lamps with it (found by the Nimatron builder's review). It is
    written from the pin map by --write-docs, as the tables are."""
    from controller.hardware.pinmap import load_pinmap, render_wiring_doc
    text = (ROOT / "hardware" / "nimatron" / "pinmap.toml").read_text(encoding="utf-8")
    assert "lamps_per_row = 7 " in text
    path = tmp_path / "pinmap.toml"
    path.write_text(text.replace("lamps_per_row = 7 ", "lamps_per_row = 8 ", 1), encoding="utf-8")
    guide = render_wiring_doc((ROOT / "hardware" / "nimatron" / "README.md").read_text(encoding="utf-8"),
                              load_pinmap(path))
    assert "registers=8, rows=4, lamps_per_row=8); p.show_row(1, 8);" in guide
    assert "lights the 8 lamps of row 1 and nothing else; try rows 2-4 (`show_row(2, 8)` ...)." in guide
