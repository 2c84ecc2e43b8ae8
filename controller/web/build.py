"""`controller web build`: the web page as a static folder that needs no
server-side code and loads nothing from outside itself.

What goes in: web/'s page (index.html, page.js, page.css, bridge.py), the
unchanged `controller/core/*.py` (the page writes them into MicroPython's
file system, so visitors run, and may read, the very code of the replicas),
and MicroPython's WebAssembly port (`micropython.mjs`, `micropython.wasm`)
from the npm package pinned in web/package-lock.json, with its licence. The
port is fetched once with `npm ci` into web/node_modules/; the build needs
no network after that.
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
DEFAULT_OUT = Path("build") / "web"


class WebError(RuntimeError):
    """A web command that cannot go on; the message is one line saying why."""


def pinned_version(web=WEB):
    """The port's version that web/package.json pins."""
    return json.loads((web / "package.json").read_text())["dependencies"][PACKAGE]


def runtime_dir(web=WEB):
    return web / "node_modules" / PACKAGE


def runtime_ready(web=WEB):
    """True when the pinned version of the port is in web/node_modules."""
    installed = runtime_dir(web) / "package.json"
    if not installed.is_file() or not (runtime_dir(web) / "micropython.wasm").is_file():
        return False
    return json.loads(installed.read_text()).get("version") == pinned_version(web)


def fetch_runtime(web=WEB):
    """`npm ci` in web/ when the pinned port is missing (the only download, once)."""
    if runtime_ready(web):
        return
    npm = shutil.which("npm")
    if npm is None:
        raise WebError("npm is missing: it fetches MicroPython's WebAssembly port once "
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
        raise WebError("MicroPython's WebAssembly port %s %s is not in %s: run controller web build once "
                       "with npm installed" % (PACKAGE, pinned_version(), WEB / "node_modules"))
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
    (out / "controller" / "core").mkdir(parents=True)
    for name in PAGE_FILES:
        shutil.copyfile(WEB / name, out / name)
    for name in RUNTIME_FILES:
        shutil.copyfile(runtime_dir() / name, out / "micropython" / name)
    shutil.copyfile(WEB / "MICROPYTHON-LICENSE", out / "micropython" / "LICENSE")
    shutil.copyfile(ROOT / "LICENSE", out / "LICENSE")
    shutil.copyfile(ROOT / "controller" / "__init__.py", out / "controller" / "__init__.py")
    python = ["bridge.py", "controller/__init__.py"]
    for name in core_files():
        shutil.copyfile(CORE / name, out / "controller" / "core" / name)
        python.append("controller/core/" + name)
    # The page writes these into MicroPython's file system before it imports the bridge.
    (out / "files.json").write_text(json.dumps({"python": python, "micropython": pinned_version()}, indent=1))
