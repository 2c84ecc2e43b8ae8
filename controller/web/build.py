"""`controller web build`: the web page as a static folder that needs no
server-side code and loads nothing from outside itself.

What goes in: web/'s page (index.html, page.js, page.css, bridge.py), the
unchanged `controller/core/*.py` (the page writes them into MicroPython's
file system, so visitors run, and may read, the very code of the replicas),
MicroPython's WebAssembly port (`micropython.mjs`, `micropython.wasm`) and
MQTT.js's browser module (`mqtt/mqtt.esm.js`, which the page loads only to
follow an exhibit through the museum's broker), from the npm packages pinned
in web/package-lock.json, each with its licence. They are fetched once with
`npm ci` into web/node_modules/; the build needs no network after that.
"""

import json
import shutil
import subprocess
from pathlib import Path

import controller

ROOT = Path(controller.__file__).resolve().parent.parent
WEB = ROOT / "web"
CORE = ROOT / "controller" / "core"
PACKAGE = "@micropython/micropython-webassembly-pyscript"
PAGE_FILES = ("index.html", "page.js", "page.css", "bridge.py")
RUNTIME_FILES = ("micropython.mjs", "micropython.wasm", "package.json")
MQTT = "mqtt"
MQTT_FILES = (("dist/mqtt.esm.js", "mqtt.esm.js"), ("LICENSE.md", "LICENSE"), ("package.json", "package.json"))
DEFAULT_OUT = Path("build") / "web"


class WebError(RuntimeError):
    """A web command that cannot go on; the message is one line saying why."""


def pinned_version(web=WEB, package=PACKAGE):
    """The version of `package` (by default the port) that web/package.json pins."""
    return json.loads((web / "package.json").read_text())["dependencies"][package]


def runtime_dir(web=WEB):
    return web / "node_modules" / PACKAGE


def mqtt_dir(web=WEB):
    return web / "node_modules" / MQTT


def runtime_ready(web=WEB):
    """True when the pinned versions of the port and of MQTT.js are in web/node_modules."""
    for folder, package, needed in ((runtime_dir(web), PACKAGE, "micropython.wasm"),
                                    (mqtt_dir(web), MQTT, "dist/mqtt.esm.js")):
        installed = folder / "package.json"
        if not installed.is_file() or not (folder / needed).is_file():
            return False
        if json.loads(installed.read_text()).get("version") != pinned_version(web, package):
            return False
    return True


def fetch_runtime(web=WEB):
    """`npm ci` in web/ when the pinned port or MQTT.js is missing (the only download, once)."""
    if runtime_ready(web):
        return
    npm = shutil.which("npm")
    if npm is None:
        raise WebError("npm is missing: it fetches MicroPython's WebAssembly port and MQTT.js once "
                       "(Debian: apt-get install npm)")
    done = subprocess.run([npm, "ci", "--ignore-scripts", "--no-audit", "--no-fund"], cwd=web,
                          capture_output=True, text=True)
    if done.returncode != 0 or not runtime_ready(web):
        lines = (done.stderr or done.stdout).strip().splitlines() or ["no output"]
        raise WebError("npm ci in %s failed: %s" % (web, lines[-1]))


def core_files():
    """The core's modules, by name, as the page's file system holds them."""
    return sorted(path.name for path in CORE.glob("*.py"))


def build(out=DEFAULT_OUT, fetch=True):
    """Write the page's folder to `out` (new, empty, or an earlier build,
    which is replaced; never anything else); its path."""
    if not (WEB / "index.html").is_file():
        raise WebError("the page's files are missing (%s): build from a checkout of the repository" % WEB)
    if fetch:
        fetch_runtime()
    elif not runtime_ready():
        raise WebError("MicroPython's WebAssembly port %s %s or MQTT.js %s is not in %s: run controller web "
                       "build once with npm installed" % (PACKAGE, pinned_version(), pinned_version(package=MQTT),
                                                          WEB / "node_modules"))
    out = Path(out)
    try:
        write_page(out)
    except OSError as error:
        raise WebError("--out: cannot write the page in %s: %s" % (out, error.strerror or error))
    return out


def write_page(out):
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
    (out / "controller" / "core").mkdir(parents=True)
    for name in PAGE_FILES:
        shutil.copyfile(WEB / name, out / name)
    for name in RUNTIME_FILES:
        shutil.copyfile(runtime_dir() / name, out / "micropython" / name)
    shutil.copyfile(WEB / "MICROPYTHON-LICENSE", out / "micropython" / "LICENSE")
    for source, name in MQTT_FILES:
        shutil.copyfile(mqtt_dir() / source, out / "mqtt" / name)
    shutil.copyfile(ROOT / "LICENSE", out / "LICENSE")
    shutil.copyfile(ROOT / "controller" / "__init__.py", out / "controller" / "__init__.py")
    python = ["bridge.py", "controller/__init__.py"]
    for name in core_files():
        shutil.copyfile(CORE / name, out / "controller" / "core" / name)
        python.append("controller/core/" + name)
    # The page writes these into MicroPython's file system before it imports the bridge.
    (out / "files.json").write_text(json.dumps({"python": python, "micropython": pinned_version()}, indent=1))
