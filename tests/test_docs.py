"""The documents a user reads (README.md, DEVELOPERS.md, docs/, firmware/'s and hardware/'s pages) and
the command's own --help, as a newcomer copies from them: every link into the repository reaches a
file, and its #anchor a heading there; every `controller` command names subcommands and options the
command has, spelled as it spells them; every subcommand is in at least one document; and a command
for the Pi (in a document, in the shipped configuration's comments, in install.sh's messages) calls
the controller where systemd/install.sh puts it, since nothing puts `controller` on the Pi's PATH.
(The hardware guides' own rules are in test_hardware_docs.py.)"""

import argparse
import re
import shlex

from conftest import ROOT
from controller.cli import build_parser, build_simulate_parser

DOCS = ([ROOT / "README.md", ROOT / "DEVELOPERS.md"] + sorted((ROOT / "docs").glob("*.md"))
        + sorted((ROOT / "firmware").glob("*.md")) + sorted((ROOT / "hardware").rglob("*.md")))
ON_THE_PI = "/opt/drnim-controller/venv/bin/controller"
PI_FOLDERS = ("/etc/drnim-controller", "/var/lib/drnim-controller", "/run/drnim-controller")
PARSER, SIMULATE_PARSER = build_parser(), build_simulate_parser()


def named(doc):
    return str(doc.relative_to(ROOT))


def fenced(text):
    """(info string, body) of each fenced block, and the text outside them."""
    blocks, prose, info, body = [], [], None, []
    for line in text.splitlines():
        if line.strip().startswith("```"):
            if info is None:
                info, body = line.strip()[3:], []
            else:
                blocks.append((info, "\n".join(body)))
                info = None
        elif info is None:
            prose.append(line)
        else:
            body.append(line)
    return blocks, "\n".join(prose)


def commands(line):
    """The commands of a shell line (split at && ; | &), each as its words, comments left out."""
    lexer = shlex.shlex(line, posix=True, punctuation_chars=True)
    lexer.whitespace_split = True
    out, current = [], []
    for word in lexer:
        if word and set(word) <= set("&;|"):
            out.append(current)
            current = []
        else:
            current.append(word)
    return [words for words in out + [current] if words]


def controller_call(words):
    """(the word that calls the controller, its arguments, whether sudo runs it), or None."""
    at, sudo = 0, False
    while at < len(words) and ("=" in words[at] and not words[at].startswith("-")):
        at += 1                                              # TZ=Europe/Paris controller ...
    if at < len(words) and words[at] == "sudo":
        at, sudo = at + 1, True
        while at < len(words) and words[at].startswith("-"):
            at += 2 if words[at] == "-u" else 1
    if at < len(words) and (words[at] == "controller" or words[at].endswith("/controller")):
        return words[at], words[at + 1:], sudo
    return None


def calls():
    """(document, line, the word that calls the controller, its arguments, sudo) of every command of
    every ```sh block and every inline code span that is a command."""
    for doc in DOCS:
        blocks, prose = fenced(doc.read_text(encoding="utf-8"))
        lines = [line for info, body in blocks if info == "sh" for line in body.splitlines()]
        lines += [span for span in re.findall(r"`([^`]+)`", prose.replace("\n", " "))
                  if re.match(r"(sudo |\w+=\S+ )*\S*\bcontroller\b", span)]
        for line in lines:
            for words in commands(line):
                call = controller_call(words)
                if call:
                    yield (doc, line.strip()) + call


def subparsers(parser):
    found = [action for action in parser._actions if isinstance(action, argparse._SubParsersAction)]
    return found[0].choices if found else None


def walk(arguments, strict=True):
    """(the subcommands named, the parser they lead to, the arguments left); an unknown subcommand is a
    ValueError when `strict`, else None (a sentence that goes on after the word controller)."""
    if arguments[:1] == ["--simulate"]:
        return ("--simulate",), SIMULATE_PARSER, arguments[1:]
    parser, path, rest = PARSER, (), list(arguments)
    while rest and not rest[0].startswith("-") and subparsers(parser) is not None:
        if rest[0] not in subparsers(parser):
            if strict:
                raise ValueError("'controller %s' has no subcommand %r" % (" ".join(path), rest[0]))
            return None
        parser = subparsers(parser)[rest[0]]
        path += (rest.pop(0),)
    return path, parser, rest


def unknown_options(parser, rest):
    known = {option for action in parser._actions for option in action.option_strings}
    given = [word.lstrip("[").split("=")[0].rstrip("].,)") for word in rest if word.lstrip("[").startswith("--")]
    return [option for option in given if option not in known]


def leaves(parser, path=()):
    """Every command the --help tree has, as the words that name it."""
    below = subparsers(parser)
    if below is None:
        return [path]
    return [leaf for name, sub in below.items() for leaf in leaves(sub, path + (name,))]


def helps(parser, path=()):
    """(the command's words, its --help text) for every parser of the tree."""
    yield path, parser.format_help()
    for name, sub in (subparsers(parser) or {}).items():
        yield from helps(sub, path + (name,))


def anchors(doc):
    """The #anchors GitHub makes of a Markdown file's headings (a repeated one gets -1, -2, ...)."""
    if doc.suffix != ".md":
        return set()
    _, prose = fenced(doc.read_text(encoding="utf-8"))
    made, seen = set(re.findall(r"<a (?:id|name)=\"([^\"]+)\"", prose)), {}
    for heading in re.findall(r"^#{1,6}\s+(.+?)\s*#*$", prose, re.M):
        slug = re.sub(r"[^\w\- ]", "", heading.lower()).replace(" ", "-")
        made.add(slug if slug not in seen else "%s-%d" % (slug, seen[slug] + 1))
        seen[slug] = seen.get(slug, -1) + 1
    return made


def test_every_link_reaches_a_file_and_its_anchor_a_heading():
    broken = []
    for doc in DOCS:
        _, prose = fenced(doc.read_text(encoding="utf-8"))
        targets = (re.findall(r"\]\(([^)\s]+)\)", prose)
                   + re.findall(r"<(?:img|a) [^>]*(?:src|href)=\"([^\"]+)\"", prose))
        for target in targets:
            if re.match(r"[a-z][a-z0-9+.-]*:", target):
                continue                                    # https:, mailto:
            path, _, anchor = target.partition("#")
            there = (doc.parent / path).resolve() if path else doc
            if not there.exists():
                broken.append("%s: %s: no such file" % (named(doc), target))
            elif anchor and anchor not in anchors(there):
                broken.append("%s: %s: no heading there makes #%s" % (named(doc), target, anchor))
    assert broken == []


def test_the_anchors_are_those_github_makes(tmp_path):
    doc = tmp_path / "page.md"
    doc.write_text("# The page\n\n## Its part\n\n## Its part\n")
    assert anchors(doc) == {"the-page", "its-part", "its-part-1"}


def test_every_command_names_subcommands_and_options_the_controller_has():
    wrong = []
    for doc, line, called, arguments, sudo in calls():
        try:
            path, parser, rest = walk(arguments)
        except ValueError as error:
            wrong.append("%s: %s: %s" % (named(doc), line, error))
            continue
        wrong += ["%s: %s: 'controller %s' has no %s" % (named(doc), line, " ".join(path), option)
                  for option in unknown_options(parser, rest)]
    assert wrong == []


def test_every_subcommand_is_in_a_document():
    said = {found[0] for *_, arguments, sudo in calls() for found in [walk(arguments, strict=False)] if found}
    tree = leaves(PARSER) + [("--simulate",)]
    assert [" ".join(leaf) for leaf in tree if leaf not in said] == []


def test_every_command_the_help_names_is_one_the_controller_has():
    wrong = []
    for path, text in list(helps(PARSER)) + [(("--simulate",), SIMULATE_PARSER.format_help())]:
        for mention in re.findall(r"\bcontroller((?: [a-z][a-z-]*| --[a-z-]+)+)", " ".join(text.split())):
            found = walk(mention.split(), strict=False)
            if found and unknown_options(found[1], found[2]):
                wrong.append("controller %s --help: controller%s" % (" ".join(path), mention))
    assert wrong == []


def test_a_command_on_the_pi_calls_the_controller_where_install_sh_puts_it():
    install = (ROOT / "systemd" / "install.sh").read_text(encoding="utf-8")
    assert all(line in install for line in ("readonly NAME=drnim-controller", "readonly PREFIX=/opt/$NAME",
                                            "readonly VENV=$PREFIX/venv"))
    bare = ["%s: %s" % (named(doc), line) for doc, line, called, arguments, sudo in calls()
            if called == "controller" and (sudo or any(word.startswith(PI_FOLDERS) for word in arguments))]
    assert bare == []


def test_the_pis_own_files_call_the_controller_where_install_sh_puts_it():
    """The shipped configuration becomes /etc/drnim-controller/config.toml, read on the Pi: its header
    said `controller config check`, which a technician typed there and the shell did not find."""
    subcommands = "|".join(re.escape(name) for name in subparsers(PARSER))
    bare = []
    for path in sorted((ROOT / "systemd").iterdir()):
        text = re.sub(r"`[^`\n]*`", "", path.read_text(encoding="utf-8"))      # `controller stats`: a name
        for found in re.finditer(r"(\S*controller) (?:%s)\b" % subcommands, text):
            word = found.group(1)
            if not word.endswith((ON_THE_PI, "$VENV/bin/controller", "-controller")):
                bare.append("%s:%d: %s" % (path.name, text.count("\n", 0, found.start()) + 1, found.group(0)))
    assert bare == []
