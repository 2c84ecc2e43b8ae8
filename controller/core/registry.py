"""The machines a replica can run: the one list of them.

Every shell reads it (the pin map loader, the configuration, the scripts, the
command line, the simulator, the firmware), and a machine's module is
imported only when it is asked for, so a board loads only its own machine.
Adding a machine is two modules in this folder (a subclass of
`exhibit.Exhibit` that declares its roles, settings and state, and its
`<name>_state.py`, what its saved game may hold: DEVELOPERS.md, "Adding a
machine") and one line here: (its name, which is also its module's, and its
class).
"""

MACHINES = (
    ("drnim", "DrNim"),
    ("nimatron", "Nimatron"),
)

NAMES = tuple(name for name, _ in MACHINES)


class UnknownMachine(ValueError):
    """A machine name that is not in the registry."""


def machine_class(name):
    """The class of the machine called `name`, its module imported now."""
    for module, cls in MACHINES:
        if module == name:
            return getattr(__import__(module, globals(), None, (cls,), 1), cls)
    raise UnknownMachine("unknown machine %r (known: %s)" % (name, ", ".join(NAMES)))
