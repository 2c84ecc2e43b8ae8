"""Encodes and decodes lines holding every printable ASCII character between
two `qstr_info()` reports: the test reads both and expects the same count of
interned strings. On a board each newly interned string is kept for good, and
the one that fills the interned-string table makes MicroPython allocate a
bigger one (7 KiB on the unix port) in the middle of a game. Both ways a line
is read: the core's reader (the host's), and the built-in json a board reads
and writes with."""

import json
import micropython

from controller.core.jsontext import encode
from controller.core.protocol import ProtocolError, decode

TEXT = "".join(chr(code) for code in range(32, 127)) + "\t\n\u00e9\U0001F600"
LINES = [
    {"kind": "state", "id": TEXT, "list": [TEXT, 12, -3, True, None], TEXT: 0},
    '{"kind":"x","y":"\\u00e9\\u0800\\u07ff\\ud83d\\ude00\\u0001\\/\\b\\f\\n\\r\\t\\"\\\\"}',
    '{"kind": "x", "n": [0, -12, 7], "t": {"u": false}} ',
    '{"kind":"x","y":"a\\qb"}', '{"kind":"x","y":1.5e3}', '{"kind":"x","y":"\\uZZZZ"}', "{'kind':1}",
    '{"kind":"x","y":"\\ud800"}', '{"kind":"x"} !', '{"kind":"x","y":01}', '[' * 9 + ']' * 9, '{"k":tru}',
]

micropython.qstr_info()
for parse, write in ((None, encode), (json.loads, json.dumps)):
    for line in LINES:
        try:
            decode(write(line) if isinstance(line, dict) else line, parse=parse)
        except ProtocolError:
            pass
micropython.qstr_info()
