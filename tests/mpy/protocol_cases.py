"""Read host lines with the core's protocol and print, one line each, what a
board makes of them: the checked request, or the error line it sends back (with
the request's id, where the line had one).
Runs unchanged under CPython and MicroPython; the tests compare the outputs
byte for byte (the encoder sorts keys, so both runtimes write the same text).
Usage: protocol_cases.py FILE [--builtin-json]   (one host line a line; MODE CLOCK on
the first; --builtin-json: read them with the runtime's json module, as a board does)
"""

import sys

from controller.core.drnim import DrNim
from controller.core.jsontext import encode
from controller.core.protocol import ProtocolError, checked, decode, machine_event

with open(sys.argv[1], "rb") as f:
    lines = f.read().split(b"\n")
mode, clock = lines[0].decode().split()
parse = None
if sys.argv[2:] == ["--builtin-json"]:
    import json
    parse = json.loads
machine = DrNim()
for line in lines[1:]:
    ident = None
    try:
        message = decode(line, parse=parse)
        ident = message.get("id")
        checked(message, mode, clock)
        if message["kind"] == "inject":
            message["event"] = machine_event(machine, message["event"])
        print(encode(message))
    except ProtocolError as error:
        refusal = {"kind": "error", "error": str(error)}
        if ident is not None:
            refusal["id"] = ident       # as a board answers: the host knows which request it refused
        print(encode(refusal))
