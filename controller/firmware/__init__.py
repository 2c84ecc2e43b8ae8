"""The host's side of the Pico firmware: `controller firmware build | deploy | monitor | test`.

The board's side is firmware/ (MicroPython); the line protocol both sides
speak is the core's (controller/core/protocol.py). Here:

    tools.py     finding mpy-cross, mpremote and micropython; FirmwareError
    build.py     the core and firmware/ compiled with mpy-cross, with the board's pin config
    deploy.py    a build copied onto a board with mpremote
    link.py      the serial link: JSON lines over pyserial, reconnected when the port comes back
    emulator.py  the real firmware under the unix `micropython` on a pseudo-terminal
    monitor.py   live state and events; the games seen go into the service's statistics
    board_test.py  scenario scripts played on a board through the protocol
"""
