"""The catalogs (controller/language): every language complete, every placeholder
the English's, the committed files what Babel makes of the sources, numbers and
plurals as each language writes them, and the language chosen where the visitor is."""

import re

import pytest

from conftest import ROOT, typed
from controller.cli import main
from controller.language import CODES, GROUPS, LANGUAGES, LOCALE, UnknownLanguage, from_environment, language
from controller.language.messages import MESSAGES

babel = pytest.importorskip("babel", reason="Babel (the test extra) reads and makes the catalogs")

KNOWN = ", ".join(CODES)     # the languages an error names: every one of the catalogs, a new one too


def test_the_committed_catalogs_are_what_babel_makes_of_the_sources():
    """A text changed or added in a shell, or a translation, without `make catalogs` fails here."""
    from controller.language.catalogs import current, files
    stale = [str(path.relative_to(ROOT)) for path, data in files(*current()).items()
             if not path.exists() or path.read_bytes() != data]
    assert stale == [], "run: .venv/bin/python -m controller.language.catalogs"


def test_every_language_is_complete_and_its_placeholders_are_the_englishs():
    """What `make catalogs` lists: each catalog headed by its translator's note (and read, the language's plural
    rule its), every text translated, none fuzzy, each with its English's placeholders, and nothing else that
    Babel's checks find."""
    from controller.language.catalogs import current, problems
    unfinished, mistakes = problems(current()[1])
    assert unfinished == [], "\n".join(["still to translate (make catalogs lists them):"] + unfinished)
    assert mistakes == [], "\n".join(["mistakes (make catalogs names them):"] + mistakes)


def ids_in(texts):
    """The message ids and the working's ids that the core's sources `texts` say."""
    found = set()
    for text in texts:
        found.update(re.findall(r'tell\(out, "(\w+)"', text))
        found.update(re.findall(r'"((?:w|new)_\w+)"', text))
        found.update(re.findall(r'(?:WIN|LOSE)_MESSAGE = "(\w+)"', text))
        found.update(re.findall(r"\"(extra_(?:you|drnim))\"", text))
    found.discard("new_game")       # the button, not a message
    return found


def core_ids():
    """Every message id the core's machines say and every id of their working, read from the sources."""
    return ids_in((ROOT / "controller" / "core" / name).read_text()
                  for name in ("exhibit.py", "drnim.py", "nimatron.py", "working.py"))


def test_every_id_the_core_says_has_its_english_and_no_english_is_left_unsaid():
    ids = core_ids()
    assert len(ids) > 60
    assert sorted(ids - set(MESSAGES)) == []
    suffixed = {"w_handed_misplay", "w_if_handed_misplay"}    # the working adds "_misplay" to w_handed, w_if_handed
    assert sorted(set(MESSAGES) - ids - suffixed) == []


# How each language says the Nimatron's hand-over button and its verb ("hand over", "handed over").
HAND_OVER = {"en": r"\bhand(ed|ing)? over\b", "de": r"\babg(eg)?[ei]b|\bgib(st)?\b[^.:]*\bab\b",
             "fr": r"\bla main\b|\bmain passée", "es": r"\bp[aá]s\w* el turno|\bturno pasado",
             "nl": r"\bdoor ?ge|\bbeurt door|\bgeef\b[^.:]*\bdoor\b"}


@pytest.mark.parametrize("code", CODES)
def test_no_text_of_dr_nim_sends_the_visitor_to_a_hand_over_button(code):
    """Dr. Nim has no hand-over button (the Nimatron has): the visitor moves the turn switch to Dr. Nim and
    presses the trigger, so what Dr. Nim says and its working name those, in every language."""
    import inspect
    from controller.core.working import explain_drnim
    assert code in HAND_OVER, "a new language: add to HAND_OVER how %s says the Nimatron's hand over" % code
    ids = ids_in([(ROOT / "controller" / "core" / "drnim.py").read_text(), inspect.getsource(explain_drnim)])
    ids |= {"w_handed_misplay", "w_if_handed_misplay"}
    assert {"take_first", "wait_marble", "w_handed", "w_if_handed"} <= ids
    t = language(code)
    said = [t.message(name, dict.fromkeys(re.findall(r"%\((\w+)\)", MESSAGES[name][0]), 2)) for name in sorted(ids)]
    assert [text for text in said if re.search(HAND_OVER[code], text, re.IGNORECASE)] == []
    assert re.search(HAND_OVER[code], t.message("w_hand_wins"), re.IGNORECASE), "the Nimatron's working still hands over"


@pytest.mark.parametrize("code", CODES)
def test_numbers_are_written_as_babel_writes_them(code):
    from babel.numbers import format_decimal
    t = language(code)
    for number in (0, 7, 999, 1000, 1234, 15000, 123456, 1234567, 2 ** 63):
        assert t.number(number) == format_decimal(number, locale=code), number
    assert t.number(1234) != "1234" and GROUPS[code] in t.number(1234)


@pytest.mark.parametrize("code, one, many", [
    ("en", "New game: 1 marble, whoever takes the last one loses.",
     "New game: 12 marbles, whoever takes the last one loses."),
    ("de", "Neues Spiel: 1 Murmel, wer die letzte nimmt, verliert.",
     "Neues Spiel: 12 Murmeln, wer die letzte nimmt, verliert."),
    ("fr", "Nouvelle partie\u00a0: 1 bille, qui prend la dernière perd.",
     "Nouvelle partie\u00a0: 12 billes, qui prend la dernière perd."),
    ("es", "Nueva partida: 1 canica; quien se lleve la última, pierde.",
     "Nueva partida: 12 canicas; quien se lleve la última, pierde."),
    ("nl", "Nieuw spel: 1 knikker, wie de laatste pakt, verliest.",
     "Nieuw spel: 12 knikkers, wie de laatste pakt, verliest."),
])
def test_a_message_id_is_said_with_its_numbers_and_plural_in_each_language(code, one, many):
    t = language(code)
    assert t.message("new_loses", {"marbles": 1}) == one
    assert t.message("new_loses", {"marbles": 12}) == many


def test_french_takes_the_singular_for_zero_and_english_the_plural():
    """Each language's own plural rule (gettext's Plural-Forms): French counts 0 as one, English as many."""
    assert language("fr").message("w_n", {"n": 0}) == "n = 0 bille sur le rail"
    assert language("en").message("w_n", {"n": 0}) == "n = 0 marbles on the rail"


def test_an_id_no_catalog_knows_is_shown_as_it_came():
    assert language("de").message("from_a_newer_board", {"row": 2}) == "from_a_newer_board row=2"


@pytest.mark.parametrize("environ, code", [
    ({"LANG": "de_DE.UTF-8"}, "de"), ({"LANG": "C.UTF-8"}, "en"), ({}, "en"),
    ({"LANG": "fr_FR.UTF-8", "LC_ALL": "nl_NL.UTF-8"}, "nl"), ({"LANGUAGE": "pt:es", "LANG": "de_DE"}, "es"),
    ({"LANG": "ja_JP.UTF-8"}, "en"),
])
def test_a_terminal_reads_its_language_from_lang(environ, code):
    assert from_environment(environ) == code


def test_an_unknown_language_is_one_line():
    with pytest.raises(UnknownLanguage, match=r"^'pt' is not a language of this controller \(%s\)$" % KNOWN):
        language("pt")


def test_controller_play_drnim_lang_de_plays_in_german():
    code, text = typed(["play", "drnim", "--lang", "de", "--seed", "1", "--first", "you"],
                      ["5", "2", "3", "3", "3"])
    assert code == 0
    assert text.startswith("Der erstaunliche Dr. Nim (E.S.R. Inc., 1966): nimm 1 bis 3 von einem Haufen; wer das "
                           "letzte Teil nimmt, verliert.\nGib q ein, um aufzuhören.\nDas Spiel von Dr. Nim, ohne den "
                           "Ausgleicher der Maschine: Die Maschine selbst, deren Ausgleicher einen perfekten Spieler "
                           "gewinnen lässt, ob er beginnt oder nicht, ist controller --simulate.\nDu spielst gegen "
                           "perfect; du fängst an. (Startwert 1)\n")
    assert "Wie viele nimmst du? '5' ist hier nicht erlaubt" in text
    assert "Die Maschine (perfect) nimmt 1 von Haufen 1." in text
    assert text.rstrip().endswith("Du gewinnst!")


def test_a_terminals_lang_is_the_default_and_lang_overrides_it(monkeypatch):
    monkeypatch.setenv("LANG", "nl_NL.UTF-8")
    code, text = typed(["play", "drnim", "--seed", "1", "--first", "you"], ["2", "3", "3", "3"])
    assert code == 0 and text.rstrip().endswith("Jij wint!")
    code, text = typed(["play", "drnim", "--lang", "es", "--seed", "1", "--first", "you"], ["2", "3", "3", "3"])
    assert code == 0 and text.rstrip().endswith("¡Ganas tú!")


def test_lang_that_names_no_catalog_is_one_line(capsys):
    assert main(["play", "drnim", "--lang", "klingon"]) == 2
    assert capsys.readouterr().err == ("controller: argument --lang: 'klingon' is not a language of this controller "
                                       "(%s)\n" % KNOWN)


def test_the_mo_files_are_read_by_pythons_own_gettext():
    """A Raspberry Pi reads the catalogs without Babel: the standard library's gettext."""
    import gettext
    with open(LOCALE / "de" / "LC_MESSAGES" / "drnim.mo", "rb") as f:
        catalog = gettext.GNUTranslations(f)
    assert catalog.pgettext("drnim_wins", "Dr. Nim wins.") == "Dr. Nim gewinnt."
    assert catalog.info()["plural-forms"] == "nplurals=2; plural=(n != 1);"


def test_a_catalog_compiled_by_another_tool_never_stops_a_screen_on_a_wrong_placeholder(tmp_path):
    """`make catalogs` leaves out of the .mo a translation whose placeholders are not the English's; a
    translator's Poedit, or pybabel compile, writes it in. The simulator stopped with KeyError: 'binario'
    on the rail's line: the English is shown there instead, and the translations that fit are used."""
    pytest.importorskip("textual", reason="Textual (the sim extra) draws the simulator")
    from babel.messages.catalog import Catalog
    from babel.messages.mofile import write_mo
    from controller.language import CheckedTranslations, Language
    from controller.sim.app import drnim_status
    from controller.sim.engine import Simulation
    rail = "Rail %(rail)d · tray %(tray)d · taken %(taken)d of %(loaded)d"
    catalog = Catalog(locale="it")
    catalog.add(rail, "Binario %(binario)d · vassoio %(tray)d · prese %(taken)d di %(loaded)d")
    catalog.add(("%(count)d marble", "%(count)d marbles"), ("%(count)d biglia", "%(n)d biglie"))
    catalog.add("Dr. Nim wins.", "Vince il Dr. Nim.", context="drnim_wins")
    with open(tmp_path / "drnim.mo", "wb") as mo:
        write_mo(mo, catalog)
    with open(tmp_path / "drnim.mo", "rb") as mo:
        italian = Language("it", CheckedTranslations(mo))
    sim = Simulation("drnim", {})
    try:
        assert str(drnim_status(sim, italian)).startswith("Rail 15 · tray 0 · taken 0 of 15\n")
    finally:
        sim.close()
    assert [italian._n("%(count)d marble", "%(count)d marbles", n) for n in (1, 2)] == \
        ["%(count)d biglia", "%(count)d marbles"]
    assert italian._p("drnim_wins", "Dr. Nim wins.") == "Vince il Dr. Nim."


def test_the_pages_catalog_says_a_language_written_right_to_left_is_so():
    """The page turns its words and controls right to left for Arabic, Hebrew or Persian: a translator adding
    one needs to say nothing, Babel knows it, and the page's catalog carries it."""
    import json
    from controller.language.catalogs import direction
    assert [direction(code) for code in ("ar", "he", "fa", "ur", "en", "de")] == ["rtl"] * 4 + ["ltr"] * 2
    for code in CODES:
        assert json.loads((LOCALE / code / "page.json").read_text(encoding="utf-8"))["dir"] == direction(code), code
        assert language(code).direction == direction(code), code      # the cards' (controller/cards.py)


@pytest.mark.parametrize("text, problem", [
    ('language = "pt"', "exhibit.language: 'pt' is not a language of this controller (%s)" % KNOWN),
    ('language = ["de", "de"]', "exhibit.language: 'de' is named twice"),
    ("language = []", "exhibit.language: name at least one language (%s)" % KNOWN),
    ("language = 7", "exhibit.language: must be a list, not 7"),
    ('tongue = "de"', "exhibit.tongue: unknown setting (known: language, quiet_hours, quiet_sound, sound)"),
])
def test_config_check_names_a_language_it_does_not_have_in_one_line(tmp_path, capsys, text, problem):
    path = tmp_path / "config.toml"
    path.write_text("[exhibit]\n%s\n" % text)
    assert main(["config", "check", str(path)]) == 2
    assert capsys.readouterr().err == "controller: %s:2: %s\n" % (path, problem)


def test_config_check_takes_one_language_or_the_museums_list(tmp_path, capsys):
    path = tmp_path / "config.toml"
    for text, shown in (('language = "de"', "languages de"), ('language = ["nl", "en", "fr"]', "languages nl, en, fr")):
        path.write_text("[exhibit]\n%s\n" % text)
        assert main(["config", "check", str(path)]) == 0
        assert capsys.readouterr().out.rstrip().endswith(shown)


def test_the_service_logs_what_the_machine_says_in_the_museums_first_language(tmp_path, mock_factory):
    from service_rig import Rig
    rig = Rig(tmp_path, languages=["fr", "en"])
    rig.press("trigger")
    rig.settle()
    rig.switch("equalizer_switch", False)
    assert ("message: L’égaliseur se règle avant la première bille\u00a0: l’interrupteur comptera à partir de la "
            "prochaine partie.") in rig.log


def test_the_monitor_says_a_boards_message_in_the_configured_language():
    from controller.firmware.monitor import describe
    line = {"kind": "command", "command": ["message", "row_empty", {"row": 2}], "at": 1500}
    assert describe(line, language("de")) == "     1.500 s    -> message: In Reihe 2 brennt keine Lampe mehr."
    assert describe(line) == "     1.500 s    -> message: Row 2 has no lamps left."
    assert describe({"kind": "command", "command": ["lamp", "fault", "on"], "at": 1500}).endswith("-> lamp fault on")


def test_the_simulator_speaks_the_language_of_its_lang(capsys):
    pytest.importorskip("textual", reason="Textual (the sim extra) draws the simulator")
    from controller.sim.app import drnim_status
    from controller.sim.engine import Simulation
    from controller.cli import build_simulate_parser
    args = build_simulate_parser().parse_args(["--simulate", "--lang", "es"])
    sim = Simulation("drnim", {}, language=args.lang.code)
    try:
        assert str(drnim_status(sim, args.lang)).endswith("Tú primero: disparador (espacio) de 1 a 3 veces. El Dr. "
                                                          "Nim primero: m y luego espacio.")
        sim.tap("trigger")
        sim.settle()
        sim.tap("new_game")
        assert "message: Nueva partida: 15 canicas; quien se lleve la última, pierde." in sim.log
    finally:
        sim.close()
    assert main(["--simulate", "--lang", "xx"]) == 2
    assert "argument --lang: 'xx' is not a language of this controller" in capsys.readouterr().err


def test_the_shipped_configuration_names_every_language_a_museum_may_choose():
    """systemd/config.toml, which a museum edits, lists the languages by hand: a new one is named there too."""
    known = [line for line in (ROOT / "systemd" / "config.toml").read_text().splitlines() if line.startswith("# Known:")]
    assert len(known) == 1
    assert known[0] == "# Known: %s." % ", ".join("%s (%s)" % (code, LANGUAGES[code]) for code in CODES)
