"""Saved games for the tests and the fuzz script: valid ones, played on the
core machines, the places in one where damage can go, and what must hold of
any game that plays (checked apart from the machines' own save check)."""

import json

DRNIM_EVENTS = [("press", "trigger"), ("marble",), ("press", "trigger"), ("marble",), ("switch", "turn", "machine")]
NIMATRON_EVENTS = [("press", "row2"), ("press", "row2"), ("press", "handover")]


def played_save(machine_class, events):
    """A valid saved game: a machine with the default settings after some events."""
    machine = machine_class()
    now = 0
    machine.handle(("power",), now)
    for event in events:
        now += 400
        machine.handle(event, now)
        if machine.next_deadline() is not None and machine.next_deadline() <= now + 300:
            now = machine.next_deadline()
            machine.handle(("tick",), now)
    return json.loads(json.dumps(machine.to_dict()))


def places(value, path=()):
    """Every place in a decoded save: (path, value)."""
    yield path, value
    if isinstance(value, dict):
        for key in value:
            yield from places(value[key], path + (key,))
    elif isinstance(value, list):
        for i, item in enumerate(value):
            yield from places(item, path + (i,))


def possible(machine):
    """What must hold of any game that plays, checked apart from the save check."""
    state = machine.state
    if machine.NAME == "drnim":
        assert state["loaded"] == machine.config["marbles"] and 0 <= machine.rail <= state["loaded"]
        assert sum(count for _, count in state["turns"]) + state["turn_taken"] <= state["taken"]
    else:
        assert len(state["rows"]) == machine.config["rows"]
        assert all(0 <= n <= machine.config["lamps"] for n in state["rows"])
    machine.check_state(state)
