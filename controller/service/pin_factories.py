"""The gpiozero pin factories the service may run on: lgpio (any Pi, the only one on a Pi 5),
rpigpio (older Pis), mock (tests). A module of its own so that the command line's
--pin-factory can name them without loading the configuration's checks and gpiozero."""

PIN_FACTORIES = ("lgpio", "rpigpio", "mock")
