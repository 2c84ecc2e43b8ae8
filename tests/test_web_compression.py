"""`controller web serve` sends the page's larger files gzipped to a browser that takes it: a class of 30
on a school's Wi-Fi loads about 320 KB a pupil instead of 857 KB (bench/bench_class.py). What a pupil's
browser would notice: the same bytes once unpacked, a copy it keeps asked about and answered 304, a file
built again sent afresh, and nothing gzipped to a client that did not ask for it."""

import gzip
import http.client
import os
import time

from test_web import served

# A page's script as large as the port's own files are: several KB that gzip well.
SCRIPT = ("function machine(n) { return n % 4; }\n" * 400).encode()


def fetch(port, path, **headers):
    """(status, headers as a dict of lower-case names, body) of one GET."""
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    try:
        connection.request("GET", path, headers=headers)
        answer = connection.getresponse()
        return answer.status, dict((name.lower(), value) for name, value in answer.getheaders()), answer.read()
    finally:
        connection.close()


def test_a_browser_that_takes_gzip_gets_the_larger_files_gzipped_and_the_same_bytes(tmp_path):
    (tmp_path / "page.js").write_bytes(SCRIPT)
    (tmp_path / "port.wasm").write_bytes(bytes(range(256)) * 40)
    (tmp_path / "small.css").write_bytes(b"body { margin: 0; }\n")
    (tmp_path / "picture.png").write_bytes(b"\x89PNG" + bytes(4000))
    with served(tmp_path, quiet=True) as (server, _):
        port = server.server_address[1]
        status, headers, body = fetch(port, "/page.js", **{"Accept-Encoding": "gzip, deflate, br"})
        assert status == 200 and headers["content-encoding"] == "gzip" and headers["vary"] == "Accept-Encoding"
        assert int(headers["content-length"]) == len(body) < len(SCRIPT) / 10
        assert gzip.decompress(body) == SCRIPT
        assert headers["content-type"] == "text/javascript"
        status, headers, body = fetch(port, "/port.wasm", **{"Accept-Encoding": "gzip"})
        assert headers["content-type"] == "application/wasm" and gzip.decompress(body) == bytes(range(256)) * 40

        for path, asked in (("/page.js", {}), ("/page.js", {"Accept-Encoding": "gzip;q=0, identity"}),
                            ("/small.css", {"Accept-Encoding": "gzip"}), ("/picture.png", {"Accept-Encoding": "gzip"})):
            status, headers, body = fetch(port, path, **asked)
            assert status == 200 and "content-encoding" not in headers, (path, asked, headers)
            assert body == (tmp_path / path[1:]).read_bytes()
        assert fetch(port, "/page.js")[1]["vary"] == "Accept-Encoding", "a cache keeps the two apart"


def test_a_kept_copy_is_answered_304_and_a_file_built_again_is_sent_afresh(tmp_path):
    script = tmp_path / "page.js"
    script.write_bytes(SCRIPT)
    with served(tmp_path, quiet=True) as (server, _):
        port = server.server_address[1]
        status, headers, body = fetch(port, "/page.js", **{"Accept-Encoding": "gzip"})
        assert fetch(port, "/page.js", **{"Accept-Encoding": "gzip", "If-Modified-Since": headers["last-modified"]})[0] \
            == 304
        script.write_bytes(SCRIPT.replace(b"% 4", b"% 5"))
        later = time.time() + 5
        os.utime(script, (later, later))
        status, headers, body = fetch(port, "/page.js", **{"Accept-Encoding": "gzip"})
        assert status == 200 and gzip.decompress(body) == SCRIPT.replace(b"% 4", b"% 5")
