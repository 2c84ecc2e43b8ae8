"""Pin maps: which GPIO pin of the Raspberry Pi does what, read from TOML.

One file per machine, `hardware/<machine>/pinmap.toml`, is the single source
of truth for the service, the wiring tables in `hardware/<machine>/wiring.md`
and the self-test. The package holds:

    model.py      what a loaded map holds (InputSpec, OutputSpec, PinMap) and the header
    positions.py  where each key of the TOML text is, for error messages
    check.py      load_pinmap(): read and check a map, one-line errors; check_gate(): the servo
                  gate's angles against the printed gate (config check, firmware build)
    electrical.py the electrical rule check: each pin's current, the header's total
    parts.py      the parts a map calls for (LEDs by colour, resistors by value, chips)
    docs.py       the generated tables of wiring.md (and of the assembly guide's README.md)
    labels.py     the status lamps' names in every language, the assembly guide's table for their labels
    bom.py        the parts lists (bom.csv) priced: the assembly guide's table and total
    drawing.py    the drawn wiring, wiring-pi.svg and wiring-pico.svg (schemdraw, imported when drawing)
    command.py    python -m controller.hardware.pinmap [--write-docs] [MACHINE | PATH ...]
"""

from controller.hardware.pinmap.check import KINDS, PinMapError, load_default, load_pinmap
from controller.hardware.pinmap.docs import (current_table, generated_section, header_table, lamp_outputs,
                                             lamp_table, render_wiring_doc, wiring_rows, wiring_table)
from controller.hardware.pinmap.model import (HEADER, HEADER_PINS, SPECIAL, InputSpec, OutputSpec, PinMap,
                                              default_pinmap_path, display_registers, input_roles, output_roles)
from controller.hardware.pinmap.positions import key_lines, line_of
from controller.hardware.pinmap.command import main

__all__ = ["HEADER", "HEADER_PINS", "KINDS", "SPECIAL", "InputSpec", "OutputSpec", "PinMap", "PinMapError",
           "current_table", "default_pinmap_path", "display_registers", "generated_section", "header_table",
           "input_roles", "key_lines", "lamp_outputs", "lamp_table", "line_of", "load_default", "load_pinmap",
           "main", "output_roles", "render_wiring_doc", "wiring_rows", "wiring_table"]
