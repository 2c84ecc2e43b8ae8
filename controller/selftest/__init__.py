"""`controller selftest` and `controller calibrate`: bringing a replica's board up.

The self-test walks a technician through the wiring, stage by stage, on the
real board through the service's own hardware layer (controller/hardware/
boards.py): every lamp and indicator in turn, every button and switch echoed
as it is pressed (raw edges against debounced presses), the release pulsed
and each marble's fall to the sensor timed, the Nimatron's lamp chain walked.
The calibration releases marbles, times them, and writes the release timeout
and the pace it derives into the configuration.

    bench.py      the board under test, its clock and what the technician types
    inputs.py     every input's debouncer, with its raw edges and presses counted
    simulated.py  the same bench on mock pins, with a simulated visitor, marbles and eyes
    stages.py     the self-test's stages
    release.py    one marble released and timed to the sensor
    report.py     the results, printed and saved next to the statistics
    guard.py      refusing to run while the service holds the pins
    calibrate.py  the release timeout and the pace, derived and written
    tomledit.py   a setting changed in a TOML text, the rest of the text kept
    command.py    the two subcommands' arguments
"""

# The self-test's stages, in order: here, so that the command line names them (--skip) without
# loading the self-test, its board and gpiozero.
STAGE_NAMES = ("lamps", "indicators", "lamp_chain", "inputs", "release")
