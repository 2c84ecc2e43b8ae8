"""A board that keeps resetting soon after it starts (app.CrashGuard): it
plays no more, and waits for the host, or for staff.

Its pins stay as every reset leaves them, inputs, which the wiring makes
safe (the release's MOSFET held off by its pull-down, the lamp chain's
outputs by OE's pull-up). The LED blinks fast, the hello line and a fault
line say why, and every host line but `new_game` is answered with the same
reason: `new_game` sets the saved game aside (it may be what the board
cannot resume), forgets the resets and starts the board afresh, with the
line's settings kept as a playing board keeps a new_game's (runner.py,
ask_new_game), or the board's kept ones. So does the machine's New game button held down for HOLD_MS, as staff
do: a museum without a computer at hand is not left with a dark exhibit, nor
one that plays the default game in place of the museum's.
"""

import json
import machine
import select
import time

import flash
from drivers import BoardLed, input_pin
from runner import Lines, wiring_problem

from controller.core import protocol

BLINK_MS = 100
HOLD_MS = 3000      # New game held this long: staff, not a visitor's passing press
HELD = ("the board reset %d times in a row, each soon after it started: it holds every output safe; "
        "hold New game down for 3 s, or send new_game, to set the saved game aside and start afresh")


def new_game_button(config):
    """The New game button's pin and the level it reads pressed (None, None: there is none)."""
    for role, number, pull, high, _, _ in config.INPUTS:
        if role == "new_game":
            return input_pin(number, pull), 1 if high else 0
    return None, None


def hold(config, stream, write, guard, path):
    reason = HELD % guard.count

    def send(message):
        write(json.dumps(message))
        write("\n")

    def afresh():
        flash.set_aside(path)
        flash.take(guard.path)

    def take(raw, length):
        ident = None
        started = False
        try:
            if raw is None:
                raise protocol.ProtocolError("line too long: %d bytes" % length)
            message = protocol.decode(raw, parse=json.loads)
            ident = message.get("id")
            protocol.checked(message, config.MODE)
            if message["kind"] == "new_game":
                if "settings" in message:       # refused as a playing board refuses them, and nothing started
                    from controller.core.registry import machine_class
                    problem = wiring_problem(config, machine_class(config.MACHINE)(message["settings"]))
                    if problem:
                        raise ValueError("new_game: %s, and a board is played as it is wired" % problem)
                    flash.write(path[:-5] + "-settings.json", json.dumps(message["settings"]))
                afresh()
                started = True
                answer = {"kind": "ok", "asked": "new_game"}
            else:
                answer = {"kind": "error", "error": reason}
        except Exception as error:      # a line refused, a flash too full, a heap too small: said, and held on
            answer = {"kind": "error", "error": str(error)}
        if ident is not None:
            answer["id"] = ident
        send(answer)
        if started:
            time.sleep_ms(100)
            machine.reset()

    send(protocol.hello(config.MACHINE, config.MODE, protocol.REAL_CLOCK, resumed="held"))
    send({"kind": "fault", "fault": "resets", "text": reason, "at": 0})
    led = BoardLed()
    lines = Lines(take)
    poller = select.poll()
    poller.register(stream, select.POLLIN)
    byte = bytearray(1)
    button, pressed = new_game_button(config)
    pressed_at = None
    while True:
        for _ in poller.ipoll(BLINK_MS):
            if not stream.readinto(byte):
                raise SystemExit()
            lines.byte(byte[0])
        if led.pin is not None:
            led.light(not led.lit)
        if button is not None and button.value() == pressed:
            now = time.ticks_ms()
            if pressed_at is None:
                pressed_at = now
            elif time.ticks_diff(now, pressed_at) >= HOLD_MS:
                afresh()
                machine.reset()
        else:
            pressed_at = None
