"""The core's own random numbers.

CPython's and MicroPython's `random` modules give different sequences for the
same seed, and a replica must replay a game exactly from its seed on the Pi,
on the microcontroller and in the simulator. So the core carries its own small
generator (Marsaglia's xorshift32), computed in integer arithmetic only, and
never uses floats: a board's single-precision float would round differently.
"""

from .basics import seeded_state

_MASK = 0xFFFFFFFF


class Random:
    """A seedable xorshift32 generator whose whole state is one integer."""

    def __init__(self, seed=1):
        self.seed(seed)

    def seed(self, seed):
        self.state = seeded_state(seed)

    def next32(self):
        """The next 32-bit unsigned integer."""
        x = self.state
        x ^= (x << 13) & _MASK
        x ^= x >> 17
        x ^= (x << 5) & _MASK
        self.state = x
        return x

    def below(self, n):
        """A uniform integer in 0..n-1 (n >= 1), without modulo bias."""
        if n < 1:
            raise ValueError("below(%d): n must be at least 1" % n)
        if n == 1:
            return 0
        if n > _MASK:
            # Big ranges (heaps up to 2**63) are drawn 32 bits at a time.
            high = self.below((n >> 32) + 1)
            value = (high << 32) | self.next32()
            return value if value < n else self.below(n)
        limit = (_MASK + 1) - ((_MASK + 1) % n)
        while True:
            x = self.next32()
            if x < limit:
                return x % n

    def between(self, low, high):
        """A uniform integer in low..high, both included."""
        return low + self.below(high - low + 1)

    def chance(self, parts, whole):
        """True with probability parts/whole."""
        return self.below(whole) < parts

    def choice(self, items):
        """A uniformly chosen element of a non-empty sequence."""
        return items[self.below(len(items))]

    def get_state(self):
        return self.state

    def set_state(self, state):
        self.state = state & _MASK or 0x6D2B79F5
