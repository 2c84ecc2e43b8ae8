"""The visitor's language: every text a visitor reads, from gettext catalogs.

The catalogs are in locale/: the template drnim.pot (the English, extracted
by Babel from the shells' own texts and from messages.py, the English of the
core's message ids), and for each language its .po (the translator's), its
.mo (compiled, what Python's own `gettext` reads, so a Raspberry Pi needs no
Babel) and page.json (the same catalog for the web page). All are made by
`python -m controller.language.catalogs` (a translator's or a developer's
step: it needs Babel, which `make test` installs).

A shell holds a `Language` and asks it for its texts: `_("...")` for its own
(`_n` with a plural, `_p` with a context), `message(id, values)` for what the
machine says, `line(line)` for a line of the working. Numbers are written as
the language writes them (`number`), and the number that a noun follows picks
the plural form the language's rule gives.

Where the language comes from: `[exhibit] language` in the service's
configuration (the exhibit's; its first is the museum's first language),
`--lang` on the commands a visitor sees, and on a terminal `LANG` (and the
other variables gettext reads) by default.
"""

import gettext
import json
import os
import re
from collections import Counter
from pathlib import Path

from controller.language.messages import MESSAGES

# Every language of the catalogs, each named in itself; English, the catalogs' source, first.
# A new one is named here and in GROUPS (DEVELOPERS.md, "A new language").
LANGUAGES = {"en": "English", "de": "Deutsch", "fr": "Français", "es": "Español", "nl": "Nederlands"}
CODES = tuple(LANGUAGES)
DOMAIN = "drnim"
LOCALE = Path(__file__).resolve().parent / "locale"
# How each language groups the digits of a large number (CLDR's, as Babel gives them: tests/test_language.py).
GROUPS = {"en": ",", "de": ".", "fr": "\u202f", "es": ".", "nl": "."}

PLACEHOLDER = re.compile(r"%(?:\((\w+)\)(-?\d*)([ds])|%)")
# A text's placeholders: %(name)d or %(name)s with any width (%(marbles)2d), or a bare %d or %s, which nothing fills.
HOLE = re.compile(r"%(?:\(\w+\))?-?\d*[ds]")


def placeholders(text):
    """The placeholders of `text`, each as often as it is there (%% is a percent sign, not one)."""
    return Counter(HOLE.findall(text.replace("%%", "")))


class UnknownLanguage(ValueError):
    """A language the catalogs do not have."""


def check_code(code):
    """`code` (such as de, or de_DE.UTF-8, as LANG writes it) as one of CODES; UnknownLanguage when none."""
    short = str(code).split(".")[0].split("@")[0].replace("-", "_").split("_")[0].lower()
    if short not in LANGUAGES:
        raise UnknownLanguage("%r is not a language of this controller (%s)" % (code, ", ".join(CODES)))
    return short


def from_environment(environ=None):
    """The terminal's language, read as gettext reads it (LANGUAGE, LC_ALL, LC_MESSAGES, LANG), the first
    of those that names a language of the catalogs; English when none does."""
    environ = os.environ if environ is None else environ
    for name in ("LANGUAGE", "LC_ALL", "LC_MESSAGES", "LANG"):
        for code in environ.get(name, "").split(":"):
            if code and code not in ("C", "POSIX"):
                try:
                    return check_code(code)
                except UnknownLanguage:
                    continue
    return "en"


def language(code="en"):
    """The Language called `code` (UnknownLanguage when there is none)."""
    code = check_code(code)
    if code == "en":
        return Language("en", gettext.NullTranslations())
    path = LOCALE / code / "LC_MESSAGES" / (DOMAIN + ".mo")
    if not path.exists():
        raise UnknownLanguage("%r has no compiled catalog (controller/language/locale/%s): make it with "
                              ".venv/bin/python -m controller.language.catalogs" % (code, path.relative_to(LOCALE)))
    with open(path, "rb") as catalog:
        return Language(code, CheckedTranslations(catalog), direction(code))


class CheckedTranslations(gettext.GNUTranslations):
    """A compiled catalog whose translations are used only where their placeholders are the English's
    (those of its plural, for a text with one), as `make catalogs` writes the .mo. One compiled by another
    tool (Poedit on save, pybabel compile) may hold a translation that names another placeholder
    (%(binario)d for %(rail)d): the simulator stopped on it with a KeyError. The English is used there."""

    def gettext(self, message):
        return fitting(super().gettext(message), message, message)

    def ngettext(self, msgid1, msgid2, n):
        return fitting(super().ngettext(msgid1, msgid2, n), msgid2, msgid1 if n == 1 else msgid2, n == 1)

    def pgettext(self, context, message):
        return fitting(super().pgettext(context, message), message, message)

    def npgettext(self, context, msgid1, msgid2, n):
        return fitting(super().npgettext(context, msgid1, msgid2, n), msgid2, msgid1 if n == 1 else msgid2,
                       n == 1)


def fitting(text, english, instead, one=False):
    """`text`, a translation, when its placeholders are those of `english`, or, for the number 1 (`one`), all
    but the count ("Została jedna."); else `instead`, the English."""
    found, wanted = placeholders(text), placeholders(english)
    return text if text == instead or found == wanted or one and leaves_out_the_count(found, wanted) else instead


def leaves_out_the_count(found, english):
    """Whether a translation's placeholders `found` are the English's but for the count, which a form for the
    number 1 alone may leave out: told apart only where the English has no other (%(left)d is left.), so that
    no form drops a row's number or a name."""
    return not found and sum(english.values()) == 1


def direction(code):
    """"rtl" when the language is written right to left (Arabic, Hebrew, Persian), else "ltr": as its page.json
    says, which make catalogs writes from Babel's knowledge (a Raspberry Pi has no Babel)."""
    path = LOCALE / code / "page.json"
    if not path.exists():
        return "ltr"
    with open(path, encoding="utf-8") as catalog:
        return json.load(catalog).get("dir", "ltr")


class Language:
    """The texts of one language: `translations` is a gettext translations object (its catalog); `direction`
    is "rtl" for a language written right to left."""

    def __init__(self, code, translations, direction="ltr"):
        self.code = code
        self.translations = translations
        self.direction = direction

    @property
    def name(self):
        return LANGUAGES.get(self.code, self.code)

    def _(self, text):
        return self.translations.gettext(text)

    def _n(self, singular, plural, count):
        return self.translations.ngettext(singular, plural, count)

    def _p(self, context, text):
        return self.translations.pgettext(context, text)

    def number(self, value):
        """A whole number as the language writes it: its digits grouped in threes with the language's
        separator (1,234 in English, 1.234 in German)."""
        digits = str(abs(value))
        group = GROUPS.get(self.code, ",")
        if len(digits) > 3:
            parts = []
            while len(digits) > 3:
                parts.insert(0, digits[-3:])
                digits = digits[:-3]
            digits = group.join([digits] + parts)
        return ("-" if value < 0 else "") + digits

    def format(self, text, values):
        """`text` with its %(name)d and %(name)s filled from `values`, numbers as the language writes them."""
        def fill(match):
            name, width, kind = match.groups()
            if name is None:
                return "%"
            value = values[name]
            shown = self.number(value) if kind == "d" and isinstance(value, int) else str(value)
            if width:
                size = int(width)
                shown = shown.ljust(-size) if size < 0 else shown.rjust(size)
            return shown
        return PLACEHOLDER.sub(fill, text)

    def message(self, message, values=None):
        """What the machine says: the message id `message` with its values, in this language. An id this
        controller does not know (a newer board's) is shown as it came, with its values."""
        values = values or {}
        known = MESSAGES.get(message)
        if known is None:
            return " ".join([message] + ["%s=%s" % (key, values[key]) for key in sorted(values)])
        singular, plural, count = known
        if plural is None:
            text = self.translations.pgettext(message, singular)
        else:
            text = self.translations.npgettext(message, singular, plural, values.get(count, 0))
        try:
            return self.format(text, values)
        except (KeyError, ValueError):
            return self.format(singular if plural is None or values.get(count) == 1 else plural, values)

    def line(self, line):
        """A line of the working, (style, id, values), as text."""
        return self.message(line[1], line[2])
