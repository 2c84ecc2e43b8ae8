"""What the museum's documents tell staff about every visitor at the machine itself (a slow player,
a colour-blind, low-vision or deaf visitor, a wheelchair user, one who reads another language),
checked against the code, which is what the visitor meets: a default said in a document is the
default the controller runs."""

import re
import tomllib

import pytest

from conftest import ROOT
from controller.cards import STEP_SIZES
from controller.core.registry import NAMES, machine_class
from controller.hardware.pinmap import generated_section, load_default, render_wiring_doc
from controller.hardware.pinmap import labels
from controller.hardware.pinmap.labels import LabelError, label_table
from controller.language import CODES, LOCALE, language
from controller.language.lamps import lamp_names

SHIPPED_CONFIG = ROOT / "systemd" / "config.toml"


@pytest.mark.parametrize("name", NAMES)
def test_the_shipped_configuration_shows_each_setting_with_the_default_it_runs(name):
    """systemd/config.toml says "Every setting is shown with its default": a museum reads its idle time
    there, and what it reads is what the machine does when the line is deleted."""
    shown = tomllib.loads(SHIPPED_CONFIG.read_text())[name]
    settings = machine_class(name).SETTINGS
    assert sorted(shown) == sorted(settings), "systemd/config.toml's [%s] lists its settings" % name
    for key, setting in settings.items():
        assert shown[key] == setting.default, "systemd/config.toml's %s.%s is %r, the default %r" % (
            name, key, shown[key], setting.default)


def test_the_readme_says_how_long_a_visitor_may_think_as_the_machines_have_it():
    """A slow visitor's game is never ended: the README and the shipped configuration say after how long
    the machine falls into its attract pattern, and how far a museum may lengthen that, in the machines'
    own figures."""
    readme = (ROOT / "README.md").read_text()
    said = re.search(r"\*\*At the machine itself\*\*.*?after (\d+) minutes without a press in a game "
                     r"\(`idle_ms = (\d+)`.*?up to a day \((\d+)\)", readme, re.S)
    assert said, "README.md's 'At the machine itself' says the idle time, its setting and its longest"
    minutes, default, longest = (int(group) for group in said.groups())
    config = [line for line in SHIPPED_CONFIG.read_text().splitlines() if line.startswith("idle_ms =")]
    assert len(config) == len(NAMES)
    for name in NAMES:
        idle = machine_class(name).SETTINGS["idle_ms"]
        assert (minutes * 60000, default, longest) == (idle.default, idle.default, idle.high), name
        for line in config:
            assert [int(n) * 60000 for n in re.findall(r"(\d+) minutes", line)] == [idle.default], line


@pytest.mark.parametrize("name", NAMES)
def test_each_assembly_guide_names_its_status_lamps_in_their_order_in_every_language(name):
    """The lamps' colours do not tell them apart for a red-green colour-blind visitor, and nothing on the
    machine says what a lamp means: the guide says in which hole each goes and gives its name for the
    label beside it, in each language of the catalogs (--write-docs refills the table)."""
    guide = (ROOT / "hardware" / name / "README.md").read_text(encoding="utf-8")
    pinmap = load_default(name)
    assert generated_section(guide, "labels") == label_table(pinmap), \
        "run: .venv/bin/python -m controller.hardware.pinmap --write-docs"
    rows = [line.split(" | ") for line in label_table(pinmap).splitlines()[2:]]
    assert [row[1] for row in rows] == ["`lamp_%s`" % lamp for lamp in machine_class(name).LAMPS]


def test_every_lamp_name_is_translated_in_every_catalog():
    """A name the catalogs do not translate would come out English in a German row of the table."""
    from babel.messages.pofile import read_po
    for code in CODES[1:]:
        with open(LOCALE / code / "LC_MESSAGES" / "drnim.po", "rb") as po:
            catalog = read_po(po)
        for machine, names in lamp_names(language("en")).items():
            for text in names.values():
                message = catalog.get(text)
                assert message is not None and message.string and not message.fuzzy, (code, machine, text)


def test_a_status_lamp_without_a_name_is_said_in_one_line(monkeypatch):
    monkeypatch.setattr(labels, "lamp_names",
                        lambda t: {"drnim": {lamp: "x" for lamp in ("your_turn", "drnim_turn", "you_win")}})
    with pytest.raises(LabelError) as error:
        render_wiring_doc("<!-- labels:begin -->\n<!-- labels:end -->\n", load_default("drnim"))
    assert str(error.value) == "drnim's lamps drnim_wins, fault have no name for their labels: add them to " \
                               "lamp_names() in controller/language/lamps.py"


def test_the_large_print_card_is_as_large_as_the_cards_steps_make_it():
    """hardware/README.md gives the steps' type size on the A6 card and on A4 at 200 %, for a visitor with
    low vision: a smaller step size in cards.py (a language that needs the room) would make it a promise
    the card no longer keeps."""
    text = (ROOT / "hardware" / "README.md").read_text(encoding="utf-8")
    said = re.search(r"\*\*Large print\.\*\* On the A6 card the steps of \"How to play\" are set at ([\d.]+) to "
                     r"([\d.]+) pt.*?on A4 at 200 % is a large-print card, its steps at ([\d.]+) to ([\d.]+) pt",
                     text, re.S)
    assert said, "hardware/README.md's 'Large print' gives the steps' sizes on the A6 card and on A4"
    point = 25.4 / 72
    smallest, largest = min(STEP_SIZES) / point, max(STEP_SIZES) / point
    assert [float(size) for size in said.groups()] == [round(size, 1) for size in
                                                       (smallest, largest, 2 * smallest, 2 * largest)]
    assert 2 * smallest >= 12, "the large-print card's steps are 12 pt at least, as the RNIB asks"


def test_what_the_guide_says_of_presses_and_lamps_is_what_the_controller_does():
    """hardware/README.md's 'Every visitor at the machine' gives the times a press is judged by and how
    fast the lamps blink, for an access officer: each figure is the controller's own."""
    from controller.hardware.boards import BLINK_S
    from controller.hardware.pinmap.check import DEFAULT_DEBOUNCE_MS, MIN_PULSE_MAX_MS
    from controller.service.config import SERVICE_SETTINGS
    text = (ROOT / "hardware" / "README.md").read_text(encoding="utf-8")
    section = text.split("## Every visitor at the machine\n", 1)[1].split("\n## ", 1)[0]

    def said(pattern):
        found = re.search(pattern, section)
        assert found, "hardware/README.md's 'Every visitor at the machine' says %r" % pattern
        return float(found.group(1))

    assert said(r"`stuck_after_s` \((\d+) s\)") == SERVICE_SETTINGS["stuck_after_s"].default
    assert said(r"`debounce_ms` \((\d+) ms\)") == DEFAULT_DEBOUNCE_MS
    assert said(r"`min_pulse_ms` \(at most (\d+) ms\)") == MIN_PULSE_MAX_MS
    assert said(r"blinks at ([\d.]+) Hz") == 1 / (2 * BLINK_S) < 3
    firmware = (ROOT / "firmware" / "drivers.py").read_text()
    assert re.search(r"^BLINK_MS = (\d+)$", firmware, re.M).group(1) == str(round(1000 * BLINK_S)), \
        "a Pico blinks its lamps as the Pi does"
    for name in NAMES:
        cls = machine_class(name)
        assert len(cls.LAMPS) * cls.SETTINGS["attract_step_ms"].default >= 1000, \
            "%s's attract pattern lights each lamp less than once a second" % name
        for role in cls().buttons():
            assert load_default(name).inputs[role].debounce_ms == DEFAULT_DEBOUNCE_MS, (name, role)


def core_cues():
    """Every sound cue the machines' core can give, read from its source: ``("sound", CUE)``,
    ``self.tell(out, MESSAGE, CUE)``, a machine's WIN_CUE and the loser's cue beside it."""
    cues = set()
    for path in (ROOT / "controller" / "core").glob("*.py"):
        source = path.read_text(encoding="utf-8")
        cues.update(re.findall(r'\("sound", "(\w+)"\)', source))
        cues.update(re.findall(r'self\.tell\(out, [^,()]+(?:\([^)]*\))?, "(\w+)"', source))
        cues.update(re.findall(r'WIN_CUE = "(\w+)"', source))
        cues.update(re.findall(r'self\.WIN_CUE if [^\n]* else "(\w+)"', source))
    return cues


def sound_table():
    """hardware/README.md's table of beeps: (beeps, cue, when, seen) for each row."""
    text = (ROOT / "hardware" / "README.md").read_text(encoding="utf-8")
    section = text.split("## Every visitor at the machine\n", 1)[1].split("\n## ", 1)[0]
    rows = [line.strip().strip("|").split(" | ") for line in section.splitlines() if line.strip().startswith("| ")]
    return [[cell.strip() for cell in row] for row in rows if row[1].strip().startswith("`")]


def shown(out):
    """The commands of one handling that a visitor can see: anything but a beep or a message."""
    return [command for command in out if command[0] not in ("sound", "message")]


def test_every_beep_the_machines_give_has_its_row_saying_what_a_deaf_visitor_sees():
    """A deaf or hard-of-hearing visitor misses every beep: the access officer reads in hardware/README.md, for
    each cue the core can give, what shows at the same moment, with the beeps the buzzer plays for it on a Pi
    and on a Pico. The rows that say **nothing** are the core's own: a refused press, a marble after the game
    and New game in a game not begun change no output."""
    from controller.core.drnim import DrNim
    from controller.core.nimatron import Nimatron
    from controller.hardware.boards import BEEPS
    from test_staff_sheets import firmware_beeps
    rows = sound_table()
    listed = set(row[1].strip("`") for row in rows)
    assert listed == core_cues(), "hardware/README.md's table of beeps lists every cue of controller/core/"
    counts = {"1 short": 1, "1 long": 1}
    for beeps, cue, _, _ in rows:
        for table in (BEEPS, firmware_beeps()):
            assert table[cue.strip("`")][-1] == counts.get(beeps, int(beeps.split()[0])), (cue, beeps)
    unseen = set(row[1].strip("`") for row in rows if "**nothing**" in row[3])
    assert unseen == {"new_game", "fault", "refuse"}

    drnim = DrNim({"marbles": 4})
    drnim.handle(("power",), 0)
    assert shown(drnim.handle(("press", "new_game"), 1)) == []
    for _ in range(3):
        drnim.handle(("press", "trigger"), 10)
        drnim.handle(("marble",), 20)
    fourth = drnim.handle(("press", "trigger"), 30)
    assert ("sound", "refuse") in fourth and shown(fourth) == []
    drnim.handle(("switch", "turn", "left"), 40)
    drnim.handle(("press", "trigger"), 50)
    drnim.handle(("marble",), 60)
    assert drnim.winner is not None
    late = drnim.handle(("marble",), 70)
    assert ("sound", "fault") in late and shown(late) == []
    nimatron = Nimatron({"openings": [[1, 3, 5, 6]]})
    nimatron.handle(("power",), 0)
    nimatron.handle(("press", "row1"), 1)
    second_row = nimatron.handle(("press", "row2"), 10)
    assert ("sound", "refuse") in second_row and shown(second_row) == []


def test_the_guide_gives_the_size_the_smallest_label_prints_at_on_the_large_print_card():
    """The large-print card (A6 on A4 at 200 %) is large print for its steps only: a drawing's label shrunk to
    fit its place in a longer language prints under the RNIB's 12 pt, and hardware/README.md says how small,
    which is why each card's words come as plain text too."""
    text = (ROOT / "hardware" / "README.md").read_text(encoding="utf-8")
    said = re.search(r"The drawing's labels, shrunk to fit\s+their places in the longer languages, stay smaller "
                     r"there: the smallest prints at ([\d.]+) pt", text)
    assert said, "hardware/README.md's 'Large print' gives the smallest label's size on A4"
    sizes = []
    for path in (ROOT / "hardware").glob("*/visitor-card.*.svg"):
        sizes += [float(size) for size in re.findall(r'<text [^>]*font-size="([\d.]+)"',
                                                      path.read_text(encoding="utf-8"))]
    assert float(said.group(1)) == round(2 * min(sizes) / (25.4 / 72), 1) < 12
    assert "`visitor-card.LL.txt` has its words as plain text" in text
