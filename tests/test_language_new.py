"""A volunteer adding a language: each step left out is said in one line that names the step, never a
traceback, and a half-translated catalog lists its texts readably. The catalogs are copied into tmp_path
and a language the controller does not have (Italian, until it does) is added there, never to the committed
ones."""

import shutil
import sys

import pytest

import controller.language as lang
from controller.language import catalogs

numbers = pytest.importorskip("babel.numbers", reason="Babel (the test extra) makes the catalogs")

NEW, NAME = next((code, name) for code, name in (("it", "Italiano"), ("pt", "Português"), ("sv", "Svenska"))
                 if code not in lang.CODES)


@pytest.fixture
def locale(tmp_path, monkeypatch):
    """A copy of the catalogs that the catalogs' maker and `language()` read instead of the committed ones."""
    copy = tmp_path / "locale"
    shutil.copytree(lang.LOCALE, copy)
    for module in (lang, catalogs):
        monkeypatch.setattr(module, "LOCALE", copy)
    return copy


def name_new(monkeypatch, group=True):
    """The line of controller/language/__init__.py that names NEW, and its digits' separator when `group`, as
    the catalogs' maker and `language()` read them."""
    names, codes = dict(lang.LANGUAGES, **{NEW: NAME}), lang.CODES + (NEW,)
    groups = dict(lang.GROUPS, **{NEW: numbers.get_group_symbol(NEW)}) if group else lang.GROUPS
    for module in (lang, catalogs):
        monkeypatch.setattr(module, "LANGUAGES", names)
        monkeypatch.setattr(module, "CODES", codes)
        monkeypatch.setattr(module, "GROUPS", groups)


def init_new(locale):
    """What `pybabel init -l NEW` makes of the template: its texts, none translated, and its note."""
    from babel.messages.pofile import read_po, write_po
    with open(locale / "drnim.pot", "rb") as f:
        catalog = read_po(f, locale=NEW)
    path = locale / NEW / "LC_MESSAGES" / "drnim.po"
    path.parent.mkdir(parents=True)
    with open(path, "wb") as f:
        write_po(f, catalog)


def made(locale, capsys):
    """main()'s exit status, what it said, and whether it left the copied catalogs as they were."""
    before = {path: path.read_bytes() for path in locale.rglob("*") if path.is_file()}
    status = catalogs.main([])
    after = {path: path.read_bytes() for path in locale.rglob("*") if path.is_file()}
    out = capsys.readouterr()
    return status, out.out + out.err, before == after


def test_a_language_named_without_its_po_says_the_pybabel_init_that_makes_it(locale, monkeypatch, capsys):
    name_new(monkeypatch)
    status, said, untouched = made(locale, capsys)
    assert status == 1 and untouched
    assert said == ("%s: no catalog controller/language/locale/%s/LC_MESSAGES/drnim.po: make it with "
                    ".venv/bin/pybabel init -D drnim -i controller/language/locale/drnim.pot "
                    "-d controller/language/locale -l %s\n" % (NEW, NEW, NEW))


@pytest.mark.parametrize("code, written", [(NEW, '"."'), ("pl", '"\\u00a0"')])
def test_a_language_without_its_digits_separator_says_babels(locale, monkeypatch, capsys, code, written):
    """Polish's is a no-break space: written as it is, it looked like a plain space, which a translator
    copied from the terminal; accepted, the page wrote 1 000 where Polish writes 1\u00a0000."""
    monkeypatch.setattr(sys.modules[__name__], "NEW", code)
    name_new(monkeypatch, group=False)
    init_new(locale)
    status, said, untouched = made(locale, capsys)
    assert status == 1 and untouched
    assert said == ("%s: no digits' separator: add \"%s\": %s (Babel's) to GROUPS in "
                    "controller/language/__init__.py\n" % (code, code, written))


def test_a_po_that_languages_does_not_name_is_not_left_out_without_a_word(locale, capsys):
    init_new(locale)
    status, said, untouched = made(locale, capsys)
    assert status == 1 and untouched
    assert said == ("%s: controller/language/locale/%s/LC_MESSAGES/drnim.po is not made: name the language in "
                    "LANGUAGES in controller/language/__init__.py, with its name in itself\n" % (NEW, NEW))


def test_a_half_translated_language_is_made_and_lists_its_texts_readably(locale, monkeypatch, capsys):
    name_new(monkeypatch)
    init_new(locale)
    status, said, _ = made(locale, capsys)
    assert status == 0 and (locale / NEW / "LC_MESSAGES" / "drnim.mo").exists()
    assert "\x04" not in said
    assert ("%s: untranslated: new_loses | New game: %%(marbles)d marble, whoever takes the last one loses.\n"
            % NEW) in said
    assert "%s: untranslated: NEW\\nGAME\n" % NEW in said       # the card's button, in two lines in the .po
    assert [line for line in said.splitlines() if not line.startswith((NEW + ": untranslated: ", "wrote "))] == [
        NOTE_UNWRITTEN]


def test_a_plural_form_left_empty_is_named_as_that_form(locale, monkeypatch, capsys):
    """Its singular translated and its plural form left empty, a text was listed as "untranslated" among
    some three hundred others, and the visitor read Italian for one marble and English for fifteen."""
    from babel.messages.pofile import read_po, write_po
    name_new(monkeypatch)
    init_new(locale)
    path = locale / NEW / "LC_MESSAGES" / "drnim.po"
    with open(path, "rb") as f:
        catalog = read_po(f, locale=NEW)
    plural, = [message for message in catalog if message.context == "new_loses"]
    plural.string = ("Nuova partita: %(marbles)d biglia, chi prende l'ultima perde.", "")
    with open(path, "wb") as f:
        write_po(f, catalog)
    status, said, _ = made(locale, capsys)
    assert status == 0
    assert ("%s: untranslated plural form msgstr[1]: new_loses | New game: %%(marbles)d marble, whoever takes the "
            "last one loses.\n" % NEW) in said


NOTE_UNWRITTEN = ("%s: the note at the head of controller/language/locale/%s/LC_MESSAGES/drnim.po is not yet its "
                  "translator's: write yours in its place (DEVELOPERS.md, \"A new language\", step 1)" % (NEW, NEW))


def test_the_note_pybabel_init_copies_explains_the_machines_words_until_the_translator_writes_theirs(
        locale, monkeypatch, capsys):
    """pybabel init headed a new catalog with Babel's own comment (FIRST AUTHOR <EMAIL@ADDRESS>), which the catalog
    test took for a translator's note, and nothing told a translator what a flip-flop or the equalizer is."""
    name_new(monkeypatch)
    init_new(locale)
    path = locale / NEW / "LC_MESSAGES" / "drnim.po"
    head, body = path.read_text().split('msgid ""', 1)
    template = (locale / "drnim.pot").read_text().split('msgid ""', 1)[0]
    assert head.count("\n") == template.count("\n"), "pybabel init broke the note's lines"
    for word in ("marble", "flip-flops", "equalizer", "turn switch", "%(marbles)d", "msgstr[1]", "Plural-Forms"):
        assert word in head
    assert NOTE_UNWRITTEN in made(locale, capsys)[1]
    path.write_text("# Traduzione italiana del Dr. Nim Controller: si dà del tu al visitatore.\n" + 'msgid ""' + body)
    assert NOTE_UNWRITTEN not in made(locale, capsys)[1]


def test_a_language_whose_catalog_is_not_compiled_is_one_line(locale, monkeypatch):
    monkeypatch.setattr(lang, "LANGUAGES", dict(lang.LANGUAGES, **{NEW: NAME}))
    with pytest.raises(lang.UnknownLanguage, match=r"^'%s' has no compiled catalog "
                       r"\(controller/language/locale/%s/LC_MESSAGES/drnim.mo\): make it with "
                       r"\.venv/bin/python -m controller\.language\.catalogs$" % (NEW, NEW)):
        lang.language(NEW)


def translate(locale, texts):
    """The new language's .po with `texts` (English or (context, English) -> its translation) translated."""
    from babel.messages.pofile import read_po, write_po
    path = locale / NEW / "LC_MESSAGES" / "drnim.po"
    with open(path, "rb") as f:
        catalog = read_po(f, locale=NEW)
    for english, translation in texts.items():
        context, english = english if isinstance(english, tuple) else (None, english)
        catalog.get(english, context).string = translation
    with open(path, "wb") as f:
        write_po(f, catalog)


def test_a_placeholder_not_the_englishs_is_named_and_the_visitor_reads_the_english(locale, monkeypatch, capsys):
    """A translator's slip in a placeholder stopped the simulator with a KeyError at its first screen; now
    `make catalogs` names it and fails, and the compiled catalogs show the English there meanwhile."""
    import json
    name_new(monkeypatch)
    init_new(locale)
    translate(locale, {"rail %(marbles)2d": "binario %(bilie)2d",
                       ("row_empty", "Row %(row)d has no lamps left."): "La fila non ha più lampade.",
                       ("new_loses", "New game: %(marbles)d marble, whoever takes the last one loses."): (
                           "Nuova partita: %(marbles)d biglia, chi prende l'ultima perde.",
                           "Nuova partita: %(marbles)s biglie, chi prende l'ultima perde.")})
    status, said, _ = made(locale, capsys)
    assert status == 1
    assert [line for line in said.splitlines()
            if not line.startswith((NEW + ": untranslated: ", "wrote ")) and line != NOTE_UNWRITTEN] == [
        "%s: new_loses | New game: %%(marbles)d marble, whoever takes the last one loses.: msgstr[1] lacks "
        "%%(marbles)d and has %%(marbles)s, which the English has not (left out until mended: the English is shown)"
        % NEW,
        "%s: row_empty | Row %%(row)d has no lamps left.: msgstr lacks %%(row)d (left out until mended: the English "
        "is shown)" % NEW,
        "%s: rail %%(marbles)2d: msgstr lacks %%(marbles)2d and has %%(bilie)2d, which the English has not (left "
        "out until mended: the English is shown)" % NEW]
    t = lang.language(NEW)
    assert t.format(t._("rail %(marbles)2d"), {"marbles": 3}) == "rail  3"
    assert t.message("new_loses", {"marbles": 2}) == "New game: 2 marbles, whoever takes the last one loses."
    texts = json.loads((locale / NEW / "page.json").read_text())["texts"]
    assert "rail %(marbles)2d" not in texts and "row_empty\x04Row %(row)d has no lamps left." not in texts


@pytest.mark.parametrize("old, new, line, said", [
    ('msgid "New game"\nmsgstr ""', 'msgid "New game"\nmsgstr "Premi "Nuova partita""',
     'msgstr "Premi "Nuova partita""',
     'not a keyword and its text in double quotes (a " inside one is written \\"): msgstr "Premi "Nuova partita""'),
    ('msgid "New game"\nmsgstr ""', 'msgid "New game"\nmsgstr "Nuova partita', 'msgstr "Nuova partita',
     'not a keyword and its text in double quotes (a " inside one is written \\"): msgstr "Nuova partita'),
    ('msgstr[1] ""', 'msgstr[1] ""\nmsgstr[2] ""', 'msgstr[2] ""',
     "msgstr[2]: the language has 2 plural forms, msgstr[0] to msgstr[1]"),
    ("plural=(n != 1)", "plural=(n = 1)", None,
     'its Plural-Forms is "nplurals=2; plural=(n = 1);", not the language\'s: put back "nplurals=2; '
     'plural=(n != 1);" (Babel\'s)'),
], ids=["a quote inside", "a quote missing", "a third plural form", "a plural rule changed"])
def test_a_po_that_babel_would_misread_is_named_at_its_line_and_nothing_is_written(locale, monkeypatch, capsys,
                                                                                  old, new, line, said):
    """Babel read past these with a warning naming no file, or none: a text lost its last letter (a missing
    quote), a form was dropped, and a plural rule gettext cannot read stopped every screen in the language."""
    name_new(monkeypatch)
    init_new(locale)
    path = locale / NEW / "LC_MESSAGES" / "drnim.po"
    text = path.read_text()
    assert old in text
    text = text.replace(old, new, 1)
    path.write_text(text)
    where = ": " if line is None else " line %d: " % (text.splitlines().index(line) + 1)
    status, told, untouched = made(locale, capsys)
    assert status == 1 and untouched
    assert told == "%s: controller/language/locale/%s/LC_MESSAGES/drnim.po%s%s\n" % (NEW, NEW, where, said)


def test_a_key_in_brackets_translated_is_named_and_the_visitor_reads_the_english(locale, monkeypatch, capsys):
    """Found by a translator: "hand over (h)" written "przekaż ruch (p)" passed every check, and the visitor
    pressed p, which on Dr. Nim moves the turn switch. A key in brackets is the simulator's in every language."""
    name_new(monkeypatch)
    init_new(locale)
    translate(locale, {"New game (n).": "Nuova partita (p).",
                       "Your turn: press a row's button (1-%(rows)d) once per lamp, then hand over (h).":
                           "Tocca a te: premi il pulsante di una fila (1-%(rows)d) per ogni lampada, poi passa (h)."})
    status, said, _ = made(locale, capsys)
    assert status == 1
    assert [line for line in said.splitlines()
            if not line.startswith((NEW + ": untranslated: ", "wrote ")) and line != NOTE_UNWRITTEN] == [
        "%s: New game (n).: msgstr has not the keys (n) as the English writes them (the simulator's keys, in "
        "every language) (left out until mended: the English is shown)" % NEW]
    assert lang.language(NEW)._("New game (n).") == "New game (n)."


@pytest.mark.parametrize("code, said", [("pl", None), ("ru", "msgstr[0] lacks %(left)d")])
def test_a_form_for_the_number_one_alone_may_leave_the_number_out(locale, monkeypatch, capsys, code, said):
    """Found by a translator: Polish writes "Została jedna." for one left, its first plural form being for
    1 alone; it was refused for lacking %(left)d, and all three forms were shown in English. Russian's first
    form is for 21 and 31 too, where "one" would be wrong: refused there, as before."""
    monkeypatch.setattr(sys.modules[__name__], "NEW", code)
    name_new(monkeypatch)
    init_new(locale)
    translate(locale, {"%(left)d is left.": ("Została jedna.", "Zostały %(left)d.", "Zostało %(left)d.")})
    status, lines, _ = made(locale, capsys)
    mistakes = [line for line in lines.splitlines() if "%(left)d is left." in line and "untranslated" not in line]
    if said is None:
        assert status == 0 and mistakes == []
        t = lang.language(code)
        assert [t.format(t._n("%(left)d is left.", "%(left)d are left.", n), {"left": n}) for n in (1, 2, 5)] == [
            "Została jedna.", "Zostały 2.", "Zostało 5."]
    else:
        assert status == 1 and mistakes == [
            "%s: %%(left)d is left.: %s (left out until mended: the English is shown)" % (code, said)]


def test_a_placeholder_or_a_words_plural_in_brackets_is_no_key(locale, monkeypatch, capsys):
    """Found reviewing the keys' check: it took the (n) of %(n)d for a key, so a Polish form for one that
    leaves out the count was refused for lacking the key (n), and a word written with its plural in brackets,
    as German writes Murmel(n), for a key the English has not."""
    monkeypatch.setattr(sys.modules[__name__], "NEW", "pl")
    name_new(monkeypatch)
    init_new(locale)
    translate(locale, {("w_n", "n = %(n)d marble on the rail"): ("na szynie jedna kulka", "n = %(n)d kulki na szynie",
                                                                 "n = %(n)d kulek na szynie"),
                       "New game": "Nowa gra (kulka(i) z powrotem)"})
    status, said, _ = made(locale, capsys)
    assert status == 0 and [line for line in said.splitlines() if "msgstr" in line] == [], said


def test_a_form_for_one_may_leave_out_the_count_but_no_other_placeholder(locale, monkeypatch, capsys):
    """A form for one may leave out the count alone: where the English has another placeholder (the row), it
    is refused as before, since the visitor would not be told which row."""
    monkeypatch.setattr(sys.modules[__name__], "NEW", "pl")
    name_new(monkeypatch)
    init_new(locale)
    english = "The Nimatron put out %(count)d lamp in row %(row)d."
    translate(locale, {english: ("Nimatron zgasił jedną lampę.",
                                 "Nimatron zgasił %(count)d lampy w rzędzie %(row)d.",
                                 "Nimatron zgasił %(count)d lamp w rzędzie %(row)d.")})
    status, said, _ = made(locale, capsys)
    assert status == 1 and [line for line in said.splitlines() if "msgstr" in line] == [
        "pl: %s: msgstr[0] lacks %%(count)d %%(row)d (left out until mended: the English is shown)" % english]
