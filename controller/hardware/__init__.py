"""The Raspberry Pi hardware layer: pin maps, gpiozero devices and boards."""
