"""`controller web serve`: the built page on localhost, for a try.

A plain static server (the standard library's), bound to 127.0.0.1 only:
the page needs nothing else. A museum's web server serves the same folder.
"""

import functools
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer


class PageHandler(SimpleHTTPRequestHandler):
    """Serves the folder; `.mjs` as JavaScript (browsers refuse a module
    otherwise) and `.wasm` as WebAssembly (streaming compilation wants it)."""

    extensions_map = dict(SimpleHTTPRequestHandler.extensions_map,
                          **{".mjs": "text/javascript", ".js": "text/javascript",
                             ".wasm": "application/wasm", ".py": "text/plain; charset=utf-8"})

    def log_message(self, format, *args):
        """Quiet: a page loads a few dozen files, and the terminal says where to look."""


def make_server(folder, port=8000, host="127.0.0.1"):
    """A server for `folder` on `host`:`port` (0: any free port); serve_forever() runs it."""
    handler = functools.partial(PageHandler, directory=str(folder))
    return ThreadingHTTPServer((host, port), handler)
