"""Dr. Nim Controller: plays the historic Nim machines on a Raspberry Pi, a
microcontroller or a laptop.

Kept free of imports so that MicroPython can import `controller.core` through it.
"""

__version__ = "0.1.0"
