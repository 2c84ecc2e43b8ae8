"""The Nimatron's lamp rows on a chain of 74HC595 shift registers."""

from micropython import const

from drivers import Level, Output

# How often the chain is written again. The spectators' chips have their own 3.3 V, from the lamps' supply:
# plugged in after the board, they wake with random lamps, which stayed lit until a row changed.
_REWRITE_MS = const(2000)


class LampRows(Output):
    """The Nimatron's rows on a chain of 74HC595s: the console's lamps row by
    row from output 0, the spectators' display the same from `spectators`.

    The chips wake with random outputs. With a fourth pin, wired to their OE
    (active low, a 10 kohm pull-up holding it high until the board drives it),
    the chain is cleared first and only then are its outputs switched on, so
    no lamp flashes at power-up."""

    def __init__(self, kind, pins, active_high, options):
        self.data, self.clock, self.latch = Level(pins[0], True), Level(pins[1], True), Level(pins[2], True)
        registers, rows, self.per_row, self.spectators = options
        self.bits = bytearray(registers)
        self.lit = bytearray(rows)
        if len(pins) > 3:
            enable = Level(pins[3], False)
            self.write()
            enable.set(True)

    def carry_out(self, now, row, lit):
        self.lit[row - 1] = lit
        self.write()
        self.due_at = now + _REWRITE_MS

    def due(self, now):
        if self.due_at is not None and now >= self.due_at:
            self.due_at = now + _REWRITE_MS
            self.write()

    def write(self):
        bits = self.bits
        for i in range(len(bits)):
            bits[i] = 0
        for row in range(len(self.lit)):
            for lamp in range(self.lit[row]):
                for at in (row * self.per_row + lamp, self.spectators + row * self.per_row + lamp):
                    bits[at >> 3] |= 1 << (at & 7)
        for i in range(8 * len(bits) - 1, -1, -1):    # the last output first
            self.data.set(bits[i >> 3] >> (i & 7) & 1)
            self.clock.set(True)
            self.clock.set(False)
        self.data.set(False)
        self.latch.set(True)
        self.latch.set(False)

    def off(self):
        self.due_at = None
        for i in range(len(self.lit)):
            self.lit[i] = 0
        self.write()
