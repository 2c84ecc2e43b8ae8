"""The pseudo-locales. qps (Chromium's en-XA): every text of the catalogs' template made accented and 40 %
longer, between ⟦ and ⟧, its placeholders kept. A shell that shows it shows in plain English only what did
not come through the catalogs, and a layout that holds it holds a language that takes more room.

qpb (Chromium's ar-XB, Android's too): every text of the template in English written right to left, each
word forced to run right to left (between RLO and PDF, with a right-to-left mark either side), its
placeholders kept as they are, so that a number put in reads as a number; its catalog says "dir": "rtl".
A page that shows it is the page a visitor reading Arabic, Hebrew or Persian gets, with no translation."""

import gettext
import json
import re
import sys

from controller.language import Language, LOCALE, DOMAIN

CODE = "qps"
ACCENTED = str.maketrans("AaCcEeIiNnOoUuYy", "ÅåÇçÉéÎîÑñÖöÛûÝý")
PLACEHOLDER = re.compile(r"(%(?:\(\w+\))?-?\d*[ds%])")
# What may stay as it is in a pseudo-locale screen: names, and the one key every keyboard names so.
ALLOWED = {"MicroPython", "IR"}


def pseudo(text):
    """`text` accented and about 40 % longer, between ⟦ and ⟧; placeholders and line breaks kept."""
    parts = PLACEHOLDER.split(text)
    shown = "".join(part if PLACEHOLDER.fullmatch(part) else part.translate(ACCENTED) for part in parts)
    letters = sum(1 for char in text if char.isalpha())
    return "⟦" + shown + "·" * max(1, (4 * letters + 9) // 10) + "⟧"


RIGHT_TO_LEFT = "qpb"
RLM, RLO, PDF = "\u200f", "\u202e", "\u202c"


def pseudo_right_to_left(text):
    """`text` with each word forced right to left (RLM RLO word PDF RLM, as Android's ar-XB); placeholders,
    digits (a year in the English: Arabic and Hebrew write numbers left to right too) and the spaces and
    line breaks between words kept."""
    parts = PLACEHOLDER.split(text)
    return "".join(part if PLACEHOLDER.fullmatch(part) else
                   re.sub(r"[^\s\d]+", lambda word: RLM + RLO + word.group() + PDF + RLM, part) for part in parts)


def template():
    """The template's messages: (context, English, English plural or None)."""
    from babel.messages.pofile import read_po
    with open(LOCALE / (DOMAIN + ".pot"), "rb") as f:
        catalog = read_po(f)
    for message in catalog:
        if message.id:
            ids = message.id if isinstance(message.id, tuple) else (message.id, None)
            yield message.context, ids[0], ids[1]


class Pseudo(gettext.NullTranslations):
    """gettext's translations with every text of the template in the pseudo-locale (`made`: pseudo, or
    pseudo_right_to_left), and nothing else."""

    def __init__(self, made=None):
        super().__init__()
        made = made or pseudo
        self.texts = {}
        for context, singular, plural in template():
            self.texts[(context, singular)] = (made(singular), made(plural or singular))

    def pgettext(self, context, message):
        return self.texts.get((context, message), (message,))[0]

    def npgettext(self, context, singular, plural, n):
        forms = self.texts.get((context, singular))
        return forms[0 if n == 1 else 1] if forms else (singular if n == 1 else plural)

    def gettext(self, message):
        return self.pgettext(None, message)

    def ngettext(self, singular, plural, n):
        return self.npgettext(None, singular, plural, n)


def pseudo_language():
    return Language(CODE, Pseudo())


def right_to_left_language():
    """The right-to-left pseudo-locale as a shell's Language (qpb)."""
    return Language(RIGHT_TO_LEFT, Pseudo(pseudo_right_to_left), "rtl")


def page_catalog():
    """The pseudo-locale as the page's catalog (language/qps.json)."""
    texts = {}
    for context, singular, plural in template():
        key = singular if context is None else context + "\x04" + singular
        texts[key] = [pseudo(singular)] + ([pseudo(plural)] if plural else [])
    return json.dumps({"code": CODE, "name": "Pseudo", "plural": "(n != 1)", "group": ",", "dir": "ltr",
                       "texts": texts})


def right_to_left_page_catalog():
    """The right-to-left pseudo-locale as the page's catalog (language/qpb.json)."""
    texts = {}
    for context, singular, plural in template():
        key = singular if context is None else context + "\x04" + singular
        texts[key] = [pseudo_right_to_left(singular)] + ([pseudo_right_to_left(plural)] if plural else [])
    return json.dumps({"code": RIGHT_TO_LEFT, "name": pseudo_right_to_left("Pseudo"), "plural": "(n != 1)",
                       "group": ",", "dir": "rtl", "texts": texts})


def english_left(text):
    """The words of `text` that did not come through the catalogs: any run of two or more Latin letters
    outside ⟦ ⟧ (which nest: a text put into another), but the names that stay as they are."""
    previous = None
    while previous != text:
        previous = text
        text = re.sub(r"⟦[^⟦⟧]*⟧", " ", text)
    return sorted(set(word for word in re.findall(r"[A-Za-z]{2,}", text) if word not in ALLOWED))


def main(argv):
    """Both pseudo-locales into a built page's folder (controller web build's), to see them at ?lang=qps and
    ?lang=qpb: python tests/pseudo_locale.py build/web"""
    from pathlib import Path
    folder = Path(argv[0] if argv else "build/web") / "language"
    if not folder.is_dir():
        print("%s is not a built page's: run controller web build first" % folder.parent, file=sys.stderr)
        return 1
    (folder / (CODE + ".json")).write_text(page_catalog(), encoding="utf-8")
    (folder / (RIGHT_TO_LEFT + ".json")).write_text(right_to_left_page_catalog(), encoding="utf-8")
    print("wrote %s and %s: open the page with ?lang=%s or ?lang=%s" % (
        folder / (CODE + ".json"), folder / (RIGHT_TO_LEFT + ".json"), CODE, RIGHT_TO_LEFT))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
