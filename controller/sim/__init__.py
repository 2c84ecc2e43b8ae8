"""The bench simulator: `controller --simulate`, the real service on mock pins
with a model of the physical machine, drawn in the terminal and scriptable."""
