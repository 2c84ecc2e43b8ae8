"""`controller web build`: the web page as a static folder that needs no
server-side code and loads nothing from outside itself.

What goes in: web/'s page (index.html, check.js, page.js, page.css, bridge.py), its
catalogs (language/LL.json, each made from the same .po as the Python
shells' .mo, and language/messages.json, the English of the core's message
ids: controller/language/; check.js's few texts in index.html), the
unchanged `controller/core/*.py` (the page writes them into MicroPython's
file system, so visitors run, and may read, the very code of the replicas),
MicroPython's WebAssembly port (`micropython.mjs`, `micropython.wasm`) and
MQTT.js's browser module (`mqtt/mqtt.esm.js`, which the page loads only to
follow an exhibit through the museum's broker), from the npm packages pinned
in web/package-lock.json, each with its licence.

The page's files come from the installed package (controller/shipped), so an
installed wheel builds the page from any folder. The npm packages are fetched
once with `npm ci`: into the user's cache (`$XDG_CACHE_HOME/drnim-controller/web`,
by default ~/.cache/...), never into the installed package; a checkout where
`npm ci` ran in web/ (as `make test` does) uses web/node_modules/ instead.
The build needs no network after that.
"""

import json
import shutil
import subprocess
from pathlib import Path

from controller import shipped
from controller.cache import cache_folder
from controller.core.registry import NAMES
from controller.language import CODES, LANGUAGES, LOCALE
from controller.language.messages import MESSAGES

WEB = shipped.web()
CORE = shipped.package_folder("controller.core")
PACKAGE = "@micropython/micropython-webassembly-pyscript"
# The page's files copied as they are; index.html is written with check.js's texts (check_languages).
PAGE_FILES = ("check.js", "page.js", "page.css", "bridge.py")
RUNTIME_FILES = ("micropython.mjs", "micropython.wasm", "package.json")
MQTT = "mqtt"
MQTT_FILES = (("dist/mqtt.esm.js", "mqtt.esm.js"), ("LICENSE.md", "LICENSE"), ("package.json", "package.json"))
DEFAULT_OUT = Path("build") / "web"
# check.js's texts: their context in the catalogs, and where index.html holds them (English alone until built).
CHECK_CONTEXT = "browser check"
CHECK_LANGUAGES = '<script type="application/json" id="check-languages">%s</script>'
ENGLISH_ONLY = '{"offered": ["en"], "catalogs": {}}'


class WebError(RuntimeError):
    """A web command that cannot go on; the message is one line saying why."""


def pinned_version(package=PACKAGE):
    """The version of `package` (by default the port) that web/package.json pins."""
    return json.loads((WEB / "package.json").read_text(encoding="utf-8"))["dependencies"][package]


def cache():
    """Where `npm ci` fetches the port for this user: a folder of the user's cache."""
    return cache_folder("web")


def ready_in(folder):
    """True when the pinned versions of the port and of MQTT.js are in folder/node_modules."""
    for package, needed in ((PACKAGE, "micropython.wasm"), (MQTT, "dist/mqtt.esm.js")):
        installed = folder / "node_modules" / package
        if not (installed / "package.json").is_file() or not (installed / needed).is_file():
            return False
        said = json.loads((installed / "package.json").read_text(encoding="utf-8"))
        if said.get("version") != pinned_version(package):
            return False
    return True


def modules():
    """The npm packages' folder: web/node_modules/ where npm ci ran in a checkout, else the user's cache."""
    return (WEB if ready_in(WEB) else cache()) / "node_modules"


def runtime_dir():
    return modules() / PACKAGE


def mqtt_dir():
    return modules() / MQTT


def runtime_ready():
    """True when the pinned port and MQTT.js are at hand, in web/ or the user's cache."""
    return ready_in(WEB) or ready_in(cache())


def fetch_runtime(say=lambda text: None):
    """`npm ci` into the user's cache when the pinned port or MQTT.js is not at hand (the only download, once);
    `say` is told first, as the download takes a while with nothing else on the screen."""
    if runtime_ready():
        return
    npm = shutil.which("npm")
    if npm is None:
        raise WebError("npm is missing: it fetches MicroPython's WebAssembly port and MQTT.js once "
                       "(Debian: apt-get install npm)")
    folder = cache()
    try:
        folder.mkdir(parents=True, exist_ok=True)
        for name in ("package.json", "package-lock.json"):
            shutil.copyfile(WEB / name, folder / name)
    except OSError as error:
        raise WebError("cannot fetch MicroPython's WebAssembly port into %s: %s" % (folder, error.strerror or error))
    say("Fetching MicroPython's WebAssembly port and MQTT.js with npm, once, into %s...\n" % folder)
    # --omit=dev: not the tests' tools (axe-core), only what the page carries
    done = subprocess.run([npm, "ci", "--omit=dev", "--ignore-scripts", "--no-audit", "--no-fund"], cwd=folder,
                          capture_output=True, encoding="utf-8", errors="replace")
    if done.returncode != 0 or not ready_in(folder):
        lines = (done.stderr or done.stdout).strip().splitlines() or ["no output"]
        raise WebError("npm ci in %s failed: %s" % (folder, lines[-1]))


def core_files():
    """The core's modules, by name, as the page's file system holds them."""
    return sorted(path.name for path in CORE.glob("*.py"))


def build(out=DEFAULT_OUT, fetch=True, languages=CODES, say=lambda text: None):
    """Write the page's folder to `out` (new, empty, or an earlier build,
    which is replaced; never anything else); its path. `languages`: those a
    visitor may choose (the page's language buttons), the museum's first
    language first; every catalog goes in, so `?lang=` may name any."""
    if fetch:
        fetch_runtime(say)
    elif not runtime_ready():
        raise WebError("MicroPython's WebAssembly port %s %s or MQTT.js %s is not in %s: run controller web "
                       "build once with npm installed" % (PACKAGE, pinned_version(), pinned_version(MQTT),
                                                          cache() / "node_modules"))
    out = Path(out)
    try:
        write_page(out, languages)
    except OSError as error:
        raise WebError("--out: cannot write the page in %s: %s" % (out, error.strerror or error))
    return out


def check_languages(languages):
    """What check.js needs to speak the visitor's language, as index.html holds it: the languages offered
    (the museum's first first) and each catalog's direction and check.js's texts. check.js speaks where
    page.js cannot even be read, so it fetches nothing."""
    catalogs = {}
    for code in CODES:
        catalog = json.loads((LOCALE / code / "page.json").read_text(encoding="utf-8"))
        texts = dict((key, forms) for key, forms in catalog["texts"].items()
                     if key.startswith(CHECK_CONTEXT + "\x04"))
        catalogs[code] = {"dir": catalog["dir"], "texts": texts}
    return json.dumps({"offered": list(languages), "catalogs": catalogs}, sort_keys=True).replace("</", "<\\/")


def write_page(out, languages=CODES):
    """The page's files into `out` (OSError is the caller's)."""
    if out.exists():
        if out.is_dir() and not any(out.iterdir()):
            out.rmdir()
        elif (out / "files.json").is_file() and (out / "index.html").is_file():
            shutil.rmtree(out)      # an earlier build: replaced whole
        else:
            raise WebError("%s is there and is not a built page: name a new or empty folder" % out)
    (out / "micropython").mkdir(parents=True)
    (out / "mqtt").mkdir()
    (out / "language").mkdir()
    for code in CODES:
        shutil.copyfile(LOCALE / code / "page.json", out / "language" / (code + ".json"))
    ids = dict((message, list(MESSAGES[message])) for message in MESSAGES)
    (out / "language" / "messages.json").write_text(json.dumps(ids, ensure_ascii=False, sort_keys=True, indent=0),
                                                     encoding="utf-8")
    (out / "controller" / "core").mkdir(parents=True)
    for name in PAGE_FILES:
        shutil.copyfile(WEB / name, out / name)
    page = (WEB / "index.html").read_text(encoding="utf-8")
    (out / "index.html").write_text(page.replace(CHECK_LANGUAGES % ENGLISH_ONLY,
                                                 CHECK_LANGUAGES % check_languages(languages)), encoding="utf-8")
    for name in RUNTIME_FILES:
        shutil.copyfile(runtime_dir() / name, out / "micropython" / name)
    shutil.copyfile(WEB / "MICROPYTHON-LICENSE", out / "micropython" / "LICENSE")
    for source, name in MQTT_FILES:
        shutil.copyfile(mqtt_dir() / source, out / "mqtt" / name)
    shutil.copyfile(shipped.licence(), out / "LICENSE")
    shutil.copyfile(shipped.package_folder() / "__init__.py", out / "controller" / "__init__.py")
    python = ["bridge.py", "controller/__init__.py"]
    for name in core_files():
        shutil.copyfile(CORE / name, out / "controller" / "core" / name)
        python.append("controller/core/" + name)
    # The page writes these into MicroPython's file system before it imports the bridge: their
    # text is in files.json, one request where a module each took 40 (the files stay, to be read).
    # Each language's name in itself is there too, for its button (the page fetches one catalog), and the
    # machines' names, whose buttons the page draws with the languages', before MicroPython is up. Each
    # language's direction comes with its name: a button reads right to left in Hebrew on an English page.
    sources = dict((path, (out / path).read_text(encoding="utf-8")) for path in python)
    directions = dict((code, json.loads((out / "language" / (code + ".json")).read_text(encoding="utf-8"))["dir"])
                      for code in languages)
    (out / "files.json").write_text(json.dumps({"python": sources, "micropython": pinned_version(),
                                                "machines": list(NAMES), "languages": list(languages),
                                                "names": dict((code, LANGUAGES[code]) for code in languages),
                                                "directions": directions}, indent=1), encoding="utf-8")
