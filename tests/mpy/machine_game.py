"""Complete games through the machines, not only the rules: a visitor who
takes one marble (or one lamp) a turn against Dr. Nim or the Nimatron, with
the marbles falling 300 ms after each release. Runs under CPython and
MicroPython; the benchmarks time it and find the smallest heap it needs.
Usage: machine_game.py MACHINE  (each imports only its own machine)
"""

import sys


class Player:
    def __init__(self, machine):
        self.machine = machine
        self.now = 0
        self.events = 0

    def send(self, event, after):
        self.now += after
        self.events += 1
        return self.machine.handle(event, self.now)

    def wait_for(self, busy):
        """Let the machine work (ticks, falling marbles) while busy() holds."""
        while busy():
            if self.machine.state.get("in_flight"):
                self.send(("marble",), 300)
            else:
                self.send(("tick",), self.machine.next_deadline() - self.now)


def drnim_game():
    from controller.core.drnim import DrNim
    player = Player(DrNim({"equalizer": False}))
    machine = player.machine
    player.send(("power",), 0)
    while machine.state["mode"] == "play":
        player.send(("press", "trigger"), 500)
        player.send(("release", "trigger"), 100)
        player.send(("marble",), 200)
        if machine.state["mode"] != "play":
            break
        player.send(("switch", "turn", "machine"), 200)
        player.send(("press", "trigger"), 200)
        player.wait_for(lambda: machine.state["running"])
    return player, machine.state["winner"], machine.state["turns"]


def nimatron_game():
    from controller.core.nimatron import Nimatron
    player = Player(Nimatron({"opening": "first"}))
    machine = player.machine
    player.send(("power",), 0)
    while machine.state["mode"] == "play":
        rows = machine.state["rows"]
        row = 0
        while not rows[row]:
            row += 1
        player.send(("press", "row%d" % (row + 1)), 500)
        player.send(("release", "row%d" % (row + 1)), 100)
        if machine.state["mode"] != "play":
            break
        player.send(("press", "handover"), 500)
        player.wait_for(lambda: machine.state["turn"] == "machine" and machine.state["mode"] == "play")
    return player, machine.state["winner"], machine.state["turns"]


if __name__ == "__main__":
    game = {"drnim": drnim_game, "nimatron": nimatron_game}[sys.argv[1]]    # a new machine needs its game here
    player, winner, turns = game()
    print(sys.argv[1], "winner", winner, "events", player.events, "turns", len(turns))
