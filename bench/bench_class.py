"""A class's load of the web page: `controller web serve` on this computer and
30 pupils' devices opening the page in the same moment. Prints figures; asserts
nothing.

    .venv/bin/python bench/bench_class.py [PUPILS]      (or: make bench)

Each pupil fetches what the page loads, as a browser does: the page, then its
style and script side by side, then MicroPython's port (its .wasm, ~430 KB),
the core's files and the catalogs side by side, each on its own connection
(the server speaks HTTP/1.0), so that 30 pupils make up to 150 connections at
once against the server's 32 threads. Printed: whether every pupil got every
byte, the time each took (median, slowest), and the same again

- when each pupil's browser opens two connections ahead of its requests and
  sends nothing on them (Chromium does), as 30 Chromebooks do;
- beside devices that hold connections without a request (a phone that left
  the Wi-Fi: a half-open connection) or that stop reading halfway through the
  .wasm, and how long the server keeps them;
- when the class loads the page a second time: what the browsers' copies
  (If-Modified-Since, answered 304) save.

The server here is on 127.0.0.1: the figures are the server's own cost, not
the school's Wi-Fi (30 x 0.33 MB gzipped at a Wi-Fi's 50-100 Mbit/s is 1-2 s more;
0.85 MB unpacked was 2-4 s).
"""

import http.client
import socket
import statistics
import sys
import tempfile
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from controller.web.build import build, runtime_ready  # noqa: E402
from controller.web.serve import THREADS, TIMEOUT_S, make_server  # noqa: E402

PUPILS = 30
# What the page loads, in the browser's waves (a wave's files side by side), as Chromium asks for them.
WAVES = (("/",), ("/page.css", "/page.js"),
         ("/micropython/micropython.mjs", "/files.json", "/micropython/micropython.wasm",
          "/language/messages.json", "/language/en.json"))
STALLED = 8           # devices that hold a connection each, in each of the two ways


def fetch(port, path, since=None, packed=True, device="127.0.0.1"):
    """(status, body bytes) of one GET on a connection of its own, as the HTTP/1.0 server wants; gzipped
    where the server sends it so, as every browser asks (`packed`); from the address `device`."""
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=60, source_address=(device, 0))
    headers = {"Accept-Encoding": "gzip, deflate, br"} if packed else {}
    if since:
        headers["If-Modified-Since"] = since
    try:
        connection.request("GET", path, headers=headers)
        response = connection.getresponse()
        return response.status, len(response.read()), response.getheader("Last-Modified")
    finally:
        connection.close()


def pupil(port, sizes, copies=None, device="127.0.0.1"):
    """One device's load of the page, from the address `device`: (seconds, bytes fetched, whether each
    file came whole or as 304)."""
    started = time.monotonic()
    got, whole = 0, True
    with ThreadPoolExecutor(max_workers=max(len(wave) for wave in WAVES)) as pool:
        for wave in WAVES:
            for path, (status, length, modified) in zip(wave, pool.map(
                    lambda path: fetch(port, path, (copies or {}).get(path), device=device), wave)):
                got += length
                whole = whole and (status == 304 if copies else status == 200 and length == sizes[path])
    return time.monotonic() - started, got, whole


def class_load(port, sizes, pupils, copies=None):
    """Every pupil's (seconds, bytes, whole), all starting at once, each from an address of its own (the
    server holds at most half its threads' number of connections for one device)."""
    start = threading.Barrier(pupils)

    def one(number):
        start.wait()
        return pupil(port, sizes, copies, address(number))
    with ThreadPoolExecutor(max_workers=pupils) as pool:
        return list(pool.map(one, range(pupils)))


def report(what, loads):
    times = sorted(seconds for seconds, _, _ in loads)
    whole = sum(1 for _, _, ok in loads if ok)
    print("class: %s: %d of %d pupils got the whole page, in %.2f s median, %.2f s the slowest, %.1f MB in all"
          % (what, whole, len(loads), statistics.median(times), times[-1], sum(b for _, b, _ in loads) / 1e6))


def address(number):
    """The address of device `number` (from 0) on the loopback network: 127.0.0.2 onwards."""
    return "127.0.%d.%d" % divmod(number + 2, 256)


def held(port, how, number):
    """A device (`number`) holding a connection: `ahead` (connected, sends nothing: a browser's connection
    opened ahead of a request, or a half-open one) or `reader` (asks for the .wasm, reads a little, then
    stops reading)."""
    device = socket.create_connection(("127.0.0.1", port), source_address=(address(number), 0))
    if how == "reader":
        device.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
        device.sendall(b"GET /micropython/micropython.wasm HTTP/1.0\r\n\r\n")
        device.recv(1024)
    return device


def let_go_after(server, since):
    """Seconds from `since` until the server holds no connection: every request's thread free, the lobby empty."""
    while server.slots._value < THREADS or server.lobby.waiting or server.lobby.ready:
        time.sleep(0.05)
    return time.monotonic() - since


def main():
    pupils = int(sys.argv[1]) if len(sys.argv) > 1 else PUPILS
    if not runtime_ready():
        print("class: skipped, MicroPython's WebAssembly port is not at hand (controller web build fetches it)")
        return
    try:
        with socket.socket() as probe:
            probe.bind((address(0), 0))
    except OSError:
        print("class: skipped, the loopback has no %s to stand for the pupils' devices (macOS: sudo ifconfig lo0 "
              "alias %s up, one for each)" % (address(0), address(0)))
        return
    with tempfile.TemporaryDirectory() as folder:
        build(folder + "/page", fetch=False)
        server = make_server(folder + "/page", 0, quiet=True)
        threading.Thread(target=server.serve_forever, daemon=True).start()
        port = server.server_address[1]
        sizes = {path: fetch(port, path)[1] for wave in WAVES for path in wave}
        plain = sum(fetch(port, path, packed=False)[1] for wave in WAVES for path in wave)
        print("class: the page loads %d files, %.0f KB, %.0f KB gzipped as a browser gets them"
              % (len(sizes), plain / 1000, sum(sizes.values()) / 1000))
        report("%d pupils at once" % pupils, class_load(port, sizes, pupils))

        ahead = [held(port, "ahead", number // 2) for number in range(2 * pupils)]     # each pupil's two
        report("%d pupils whose browsers each opened 2 connections ahead of their requests (as Chromium does)"
               % pupils, class_load(port, sizes, pupils))
        for device in ahead:
            device.close()
        let_go_after(server, time.monotonic())

        devices = [held(port, how, pupils + number)
                   for number, how in enumerate(["ahead"] * STALLED + ["reader"] * STALLED)]
        opened = time.monotonic()
        report("%d pupils beside %d half-open connections and %d devices that stopped reading the .wasm"
               % (pupils, STALLED, STALLED), class_load(port, sizes, pupils))
        print("class: the server let go of every stalled device %.1f s after they stalled (its timeout: %d s)"
              % (let_go_after(server, opened), TIMEOUT_S))
        for device in devices:
            device.close()

        copies = {path: fetch(port, path)[2] for wave in WAVES for path in wave}
        report("the class's second load, from the browsers' copies (If-Modified-Since)",
               class_load(port, sizes, pupils, copies))
        server.shutdown()
        server.server_close()


if __name__ == "__main__":
    main()
