"""Make the catalogs (Babel): after changing a visitor's text, or translating.

    .venv/bin/python -m controller.language.catalogs          (or: make catalogs)

1. extracts every text of SOURCES into the template locale/drnim.pot: the
   shells' `_()`, `_n()` and `_p()` (Python and the page's JavaScript) and
   messages.py's `said()` and `said_n()` (the core's message ids, each the
   context of its English);
2. brings each language's locale/LL/LC_MESSAGES/drnim.po up to date with it
   (a new text comes in untranslated, a changed one marked fuzzy);
3. compiles each into drnim.mo, which Python's own `gettext` reads, and
   into page.json, the web page's copy of the same catalog;
4. lists each text still untranslated or fuzzy, and names each mistake, such
   as a placeholder not the English's: such a translation is left out of
   the .mo and page.json (a visitor reads the English, where a screen would
   have stopped), and the status is 1 until it is mended.

Before any of that it checks that each language is set up (DEVELOPERS.md,
"A new language"): named in LANGUAGES with its GROUPS, with its .po, which it
can read (each text in double quotes, no more plural forms than the language
has, the language's plural rule); it says what is wrong, in one line each,
and writes nothing.

It needs Babel (the test extra); nothing that runs a machine does. The files
come out the same for the same sources (no dates, no line numbers), so
tests/test_language.py can check that the committed ones are up to date.
"""

import copy
import io
import json
import re
import sys
from datetime import datetime, timezone
from pathlib import Path

from controller import shipped
from controller.language import CODES, DOMAIN, GROUPS, LANGUAGES, LOCALE, leaves_out_the_count, placeholders

ROOT = Path(__file__).resolve().parent.parent
# Where a visitor's texts are, and how each is read.
SOURCES = (
    ("python", ROOT / "language" / "messages.py"),
    ("javascript", shipped.web() / "page.js"),
    ("javascript", shipped.web() / "check.js"),
    ("python", ROOT / "sim" / "app.py"),
    ("python", ROOT / "language" / "lamps.py"),
    ("python", ROOT / "terminal.py"),
    ("python", ROOT / "cli.py"),
    ("python", ROOT / "cards.py"),
)
KEYWORDS = {"_": None, "_n": (1, 2), "_p": ((1, "c"), 2), "said": ((1, "c"), 2), "said_n": ((1, "c"), 2, 3)}
COMMENT_TAGS = ("Translators:",)
# One date for every catalog's header, so that the files change only when their texts do.
DATE = datetime(2025, 1, 1, tzinfo=timezone.utc)
PROJECT = "Dr. Nim Controller"
# The catalogs' folder as a volunteer types it, from the top of the checkout.
HOME = "controller/language/locale"
# The template's note, which `pybabel init` copies to the head of a new language's .po, where its translator
# writes one of their own in its place (Babel's getter fills in the words PROJECT and YEAR, so they are not in it).
NOTE = """\
# Translations template: every text a visitor of the Dr. Nim Controller
# reads, on its two machines, its web page, its simulator and its cards.
# To the translator: write your own note in place of this one, in your
# language, as the other catalogs have (how a visitor is addressed, what
# the controls are called, what stays English); until then make catalogs
# lists this catalog as unfinished. The visitors are of every age, at a
# museum's hands-on exhibit; the German, French, Spanish and Dutch .po
# files show how they did it.
# The machines' words, as on the visitor cards (hardware/drnim/ and
# hardware/nimatron/, visitor-card.en.pdf):
# - Dr. Nim: a plastic toy computer (E.S.R. Inc., 1966) that plays Nim
#   with marbles; its name stays.
# - marble: a small glass ball. Fifteen wait on the rail at the top; the
#   gate lets one out each time the visitor presses the trigger; it runs
#   down through the flip-flops into the tray.
# - flip-flops: three white plastic flippers that each falling marble
#   tips to the other side (left or right), the machine's memory; not
#   sandals. Their setting at the start is the opening.
# - equalizer: the flipper below them; set right it is armed and makes
#   Dr. Nim misplay once, so that a visitor can win whoever starts; a
#   marble that tips it leaves it spent.
# - turn switch: the lowest flipper; right is the visitor's turn, left
#   Dr. Nim's. The visitor hands over by moving it to Dr. Nim and
#   pressing the trigger; Dr. Nim's last marble knocks it back.
# - the Nimatron: the electric Nim machine of the 1939-40 New York
#   World's Fair: rows of lamps, a button for each row, HAND OVER and
#   NEW GAME; NIM CHAMP, stamped on its winners' coin, stays.
# - the working: the machine's reasoning beside the game, a proof; keep
#   its letters and formulas.
# Keep every placeholder, such as %(marbles)d, as it is written (in any
# order). A text with a number has a form for each plural form of the
# language, msgstr[0], msgstr[1] and so on, which the Plural-Forms rule
# in the header chooses (CLDR's, as Babel writes it: leave it as it is);
# in (n != 1), msgstr[0] is for 1 and msgstr[1] for every other number,
# 0 too.
#"""
# Words of NOTE that say it is still the template's, however an editor wraps its lines (and of Babel's own note).
UNWRITTEN = ("To the translator: write your own note in place of this one", "FIRST AUTHOR <EMAIL@ADDRESS>")
# A line of a .po outside its comments: a keyword and its text in double quotes, or more of the text.
PO_LINE = re.compile(r'(?:(?:msgctxt|msgid|msgid_plural|msgstr|msgstr\[(\d+)\]) )?"(?:[^"\\]|\\.)*"')


def template():
    """The template catalog: every text of SOURCES, in English."""
    from babel.messages.catalog import Catalog
    from babel.messages.extract import extract_from_file
    catalog = Catalog(project=PROJECT, version="", creation_date=DATE, revision_date=DATE, charset="utf-8",
                      fuzzy=False, header_comment=NOTE)
    for method, path in SOURCES:
        where = path.name if path.parent.name != "language" else "language/" + path.name
        for line, text, comments, context in extract_from_file(method, str(path), keywords=KEYWORDS,
                                                               comment_tags=COMMENT_TAGS, strip_comment_tags=True):
            catalog.add(text, locations=[(where, line)], auto_comments=comments, context=context,
                        flags=("python-format",) if "%" in (text if isinstance(text, str) else text[0]) else ())
    return catalog


def written(catalog):
    """The catalog as .po text: no line numbers, so a moved line changes nothing."""
    from babel.messages.pofile import write_po
    out = io.BytesIO()
    write_po(out, catalog, width=116, include_lineno=False, sort_output=False)
    return out.getvalue()


def po_path(code):
    return LOCALE / code / "LC_MESSAGES" / (DOMAIN + ".po")


def shown(path):
    """A catalog's path as a volunteer types it, from the top of the checkout."""
    return HOME + "/" + path.relative_to(LOCALE).as_posix()


class BrokenCatalog(ValueError):
    """A .po that cannot be read as its translator meant it (Babel would read past it, losing a text)."""


def read(code):
    """Language `code`'s .po; BrokenCatalog, in one line naming the file and the line, when a line is not
    a keyword and its text in double quotes, a translation has more plural forms than the language, or the
    plural rule is not the language's."""
    from babel.messages.plurals import get_plural
    from babel.messages.pofile import PoFileError, read_po
    path = po_path(code)
    plural = get_plural(code)
    data = path.read_bytes()
    try:
        lines = data.decode("utf-8").splitlines()
    except UnicodeDecodeError as error:
        raise BrokenCatalog("%s: %s is not UTF-8 (byte %d): save it as UTF-8" % (code, shown(path), error.start))
    for number, line in enumerate(lines, 1):
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        where = "%s: %s line %d: " % (code, shown(path), number)
        match = PO_LINE.fullmatch(line)
        if not match:
            raise BrokenCatalog(where + "not a keyword and its text in double quotes (a \" inside one is "
                                "written \\\"): " + line)
        if match.group(1) and int(match.group(1)) >= plural.num_plurals:
            raise BrokenCatalog(where + "msgstr[%s]: the language has %d plural forms, msgstr[0] to msgstr[%d]"
                                % (match.group(1), plural.num_plurals, plural.num_plurals - 1))
    try:
        catalog = read_po(io.BytesIO(data), locale=code, domain=DOMAIN, abort_invalid=True)
    except PoFileError as error:
        raise BrokenCatalog("%s: %s line %d: %s" % (code, shown(path), error.lineno + 1,
                                                     str(error).rsplit(" on ", 1)[0]))
    if catalog.plural_forms != plural.plural_forms:
        raise BrokenCatalog("%s: %s: its Plural-Forms is \"%s\", not the language's: put back \"%s\" (Babel's)"
                            % (code, shown(path), catalog.plural_forms, plural.plural_forms))
    return catalog


def updated(code, pot):
    """Language `code`'s catalog brought up to date with the template `pot`."""
    catalog = read(code)
    catalog.update(pot, update_header_comment=False)
    catalog.revision_date = DATE
    catalog.creation_date = DATE
    catalog.fuzzy = False
    return catalog


def compiled(catalog):
    """The .mo bytes of a catalog (its fuzzy entries left out, as gettext would)."""
    from babel.messages.mofile import write_mo
    out = io.BytesIO()
    write_mo(out, catalog, use_fuzzy=False)
    return out.getvalue()


def strings(message):
    """A message's translation: its forms (one, or one per plural form), empty when it has none."""
    if not message.string:
        return []
    return [message.string] if isinstance(message.string, str) else list(message.string)


def missing_forms(forms):
    """What a translation lacks: all of it ("untranslated"), or the plural forms left empty, which a
    visitor then reads in English for those numbers alone."""
    if not any(forms):
        return "untranslated"
    return "untranslated plural form%s %s" % ("s" if forms.count("") > 1 else "", " ".join(
        "msgstr[%d]" % number for number, form in enumerate(forms) if not form))


def key(message):
    """How gettext keys a message: its id, after its context and \\x04 when it has one."""
    msgid = message.id if isinstance(message.id, str) else message.id[0]
    return msgid if message.context is None else message.context + "\x04" + msgid


def named(message):
    """A message as a translator finds it in the .po, on one line: its context, then its English (a line
    break written \\n, as the .po writes it)."""
    return key(message).replace("\x04", " | ").replace("\n", "\\n")


# A key the simulator answers to, written in a text in brackets: "New game (n).", "hand over (h)".
KEY = re.compile(r"(?<![%\w])\(([a-z])\)")      # not a placeholder's %(n)d, nor a word's plural: Murmel(n)


def only_for_one(catalog):
    """The plural forms the catalog's language uses for the number 1 alone (Polish's first, German's; not
    Russian's, which is for 21 too): a translation may leave the number out of them ("Została jedna.")."""
    import gettext
    rule = gettext.c2py(catalog.plural_expr)
    numbers = {}
    for n in range(1000):
        numbers.setdefault(rule(n), set()).add(n)
    return {form for form, those in numbers.items() if those == {1}}


def misplaced(message, for_one=()):
    """What is wrong with the placeholders of a message's translation, as words (None when nothing is): each
    form must have those of the English (its plural's), which are all a shell fills (another stops it), but
    a form for the number 1 alone (`for_one`, only_for_one's) may leave out the count; and its keys in brackets,
    which are the simulator's whatever the language (a visitor told "(p)" for the hand-over presses a key
    that does something else, or nothing)."""
    text = message.id if isinstance(message.id, str) else message.id[-1]
    english, keys = placeholders(text), sorted(KEY.findall(text))
    plural = not isinstance(message.string, str)
    for number, form in enumerate(strings(message)):
        found = placeholders(form) if form else english
        where = "msgstr[%d]" % number if plural else "msgstr"
        if found != english and not (plural and number in for_one and leaves_out_the_count(found, english)):
            lacks, extra = sorted(english - found), sorted(found - english)
            wrong = (["lacks " + " ".join(lacks)] if lacks else []) + \
                (["has %s, which the English has not" % " ".join(extra)] if extra else [])
            return "%s %s" % (where, " and ".join(wrong))
        if form and sorted(KEY.findall(form)) != keys:
            return "%s has not the keys %s as the English writes them (the simulator's keys, in every " \
                "language)" % (where, " ".join("(%s)" % letter for letter in keys))
    return None


def without_misplaced(catalog):
    """A copy of `catalog` with the translations whose placeholders are not the English's taken out, so that
    the .mo and the page show the English there instead of stopping a screen (the .po keeps them, to be
    mended, and `problems` names them)."""
    catalog = copy.deepcopy(catalog)
    for_one = only_for_one(catalog)
    for message in catalog:
        if message.id and misplaced(message, for_one):
            message.string = "" if isinstance(message.string, str) else ("",) * len(message.string)
    return catalog


def direction(code):
    """How the language is written, as HTML's dir says it: "rtl" for Arabic, Hebrew, Persian and the other
    languages CLDR writes right to left (Babel's character order), else "ltr"."""
    from babel import Locale
    return "rtl" if Locale.parse(code).character_order == "right-to-left" else "ltr"


def page_catalog(code, catalog=None):
    """The page's catalog: the plural rule, the digits' separator, the direction of the language's writing
    (the page turns its text and controls with it) and every translated text (its forms)."""
    texts = {}
    plural = "(n != 1)"
    if catalog is not None:
        plural = catalog.plural_expr
        for message in catalog:
            if not message.id or message.fuzzy:
                continue
            forms = strings(message)
            if forms and all(forms):
                texts[key(message)] = forms
    data = {"code": code, "name": LANGUAGES[code], "plural": plural, "group": GROUPS[code], "dir": direction(code),
            "texts": texts}
    return (json.dumps(data, ensure_ascii=False, sort_keys=True, indent=0) + "\n").encode("utf-8")


def current():
    """The template, and each language's catalog brought up to date with it: (pot, {code: catalog}). Made once
    a run: extracting the texts and reading a catalog take most of its time."""
    pot = template()
    return pot, {code: updated(code, pot) for code in CODES[1:]}


def files(pot, catalogs):
    """Every catalog file as it should be, from `current()`: path -> bytes."""
    made = {LOCALE / (DOMAIN + ".pot"): written(pot), LOCALE / "en" / "page.json": page_catalog("en")}
    for code, catalog in catalogs.items():
        made[po_path(code)] = written(catalog)
        catalog = without_misplaced(catalog)
        made[po_path(code).with_suffix(".mo")] = compiled(catalog)
        made[LOCALE / code / "page.json"] = page_catalog(code, catalog)
    return made


def unready():
    """The steps of adding a language left out, as lines: a language of LANGUAGES with no .po or no digits'
    separator in GROUPS, or a .po that LANGUAGES does not name (it would be left out without a word)."""
    from babel.numbers import get_group_symbol
    lines = []
    for code in CODES[1:]:
        if not po_path(code).exists():
            lines.append("%s: no catalog %s: make it with .venv/bin/pybabel init -D %s -i %s/%s.pot -d %s -l %s"
                         % (code, shown(po_path(code)), DOMAIN, HOME, DOMAIN, HOME, code))
        if code not in GROUPS:
            # written as Python writes it, escaped: a no-break space copied from a terminal is a plain one
            lines.append("%s: no digits' separator: add \"%s\": %s (Babel's) to GROUPS in "
                         "controller/language/__init__.py" % (code, code, json.dumps(get_group_symbol(code))))
    for path in sorted(LOCALE.glob("*/LC_MESSAGES/%s.po" % DOMAIN)):
        code = path.parent.parent.name
        if code not in LANGUAGES:
            lines.append("%s: %s is not made: name the language in LANGUAGES in controller/language/__init__.py, "
                         "with its name in itself" % (code, shown(path)))
    return lines


def unreadable():
    """Each .po of LANGUAGES that cannot be read as its translator meant it, as a line (BrokenCatalog's)."""
    lines = []
    for code in CODES[1:]:
        try:
            if po_path(code).exists():
                read(code)
        except BrokenCatalog as error:
            lines.append(str(error))
    return lines


def problems(catalogs):
    """Each language's work still to do (its translator's note, its texts untranslated or fuzzy), and its
    mistakes (placeholders not the English's, and what else Babel's own checks find), as two lists of lines:
    of `catalogs`, `current()`'s."""
    unfinished, mistakes = [], []
    for code, catalog in catalogs.items():
        for_one = only_for_one(catalog)
        note = " ".join(catalog.header_comment.replace("#", " ").split())
        if any(words in note for words in UNWRITTEN):
            unfinished.append("%s: the note at the head of %s is not yet its translator's: write yours in its place "
                              "(DEVELOPERS.md, \"A new language\", step 1)" % (code, shown(po_path(code))))
        for message in catalog:
            if not message.id:
                continue
            forms = strings(message)
            if message.fuzzy or not forms or not all(forms):
                unfinished.append("%s: %s: %s" % (code, "fuzzy" if message.fuzzy else missing_forms(forms),
                                                  named(message)))
            if message.fuzzy:       # not shown, and to be looked at anyway
                continue
            wrong = misplaced(message, for_one)
            if wrong:
                mistakes.append("%s: %s: %s (left out until mended: the English is shown)"
                                % (code, named(message), wrong))
            else:
                mistakes += ["%s: %s: %s" % (code, named(message), error) for error in message.check(catalog)]
    return unfinished, mistakes


def main(argv):
    missing = unready() + unreadable()
    for line in missing:
        print(line, file=sys.stderr)
    if missing:
        return 1
    pot, catalogs = current()
    for path, data in files(pot, catalogs).items():
        path.parent.mkdir(parents=True, exist_ok=True)
        if not path.exists() or path.read_bytes() != data:
            path.write_bytes(data)
            print("wrote %s" % shown(path))
    unfinished, mistakes = problems(catalogs)
    for line in unfinished:
        print(line)
    for line in mistakes:
        print(line, file=sys.stderr)
    return 1 if mistakes else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
