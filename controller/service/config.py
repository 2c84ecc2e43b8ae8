"""The service's TOML configuration: every setting has a documented default.

    [service]     which machine, the pin map, the GPIO backend, paths, timings
    [drnim]       the Dr. Nim machine's settings (controller/core/drnim.py)
    [nimatron]    the Nimatron's settings (controller/core/nimatron.py)

`systemd/config.toml` is the annotated default. A bad file gets one line
naming the file, the key and the problem.
"""

import os
import tomllib

from controller.core.drnim import DrNim
from controller.core.exhibit import ConfigError, check_settings
from controller.core.nimatron import Nimatron

MACHINES = {"drnim": DrNim, "nimatron": Nimatron}

SERVICE_DEFAULTS = {
    "machine": "drnim",         # drnim or nimatron
    "pinmap": "",               # empty: the shipped hardware/<machine>/pinmap.toml
    "pin_factory": "lgpio",     # lgpio (any Pi, the only one on a Pi 5), rpigpio (older Pis), mock (tests)
    "state_dir": "",            # empty: $STATE_DIRECTORY (set by systemd), else /var/lib/drnim-controller
    "runtime_dir": "",          # empty: $RUNTIME_DIRECTORY, else /run/drnim-controller
    "release_pulse_ms": 60,     # how long the release solenoid (or servo gate) stays open
    "stuck_after_s": 30,        # a button held this long is reported as stuck
    "heartbeat_s": 5,           # how often the status file for `controller status` is written
}
SERVICE_CHOICES = {
    "machine": ("drnim", "nimatron"),
    "pin_factory": ("lgpio", "rpigpio", "mock"),
}


class Config:
    """The checked settings: `service`, and `machine` for the chosen machine."""

    def __init__(self, service, machines, path=None):
        self.service = service
        self.machines = machines
        self.path = path

    @property
    def machine_name(self):
        return self.service["machine"]

    @property
    def machine(self):
        return self.machines[self.machine_name]

    def state_dir(self):
        return self.service["state_dir"] or os.environ.get("STATE_DIRECTORY", "").split(":")[0] \
            or "/var/lib/drnim-controller"

    def runtime_dir(self):
        return self.service["runtime_dir"] or os.environ.get("RUNTIME_DIRECTORY", "").split(":")[0] \
            or "/run/drnim-controller"


def load_config(path=None, overrides=None):
    """Read and check a configuration file (None: every default)."""
    data = {}
    where = path or "the defaults"
    if path:
        try:
            with open(path, "rb") as f:
                data = tomllib.load(f)
        except FileNotFoundError:
            raise ConfigError("%s: no such file" % path)
        except tomllib.TOMLDecodeError as error:
            raise ConfigError("%s: %s" % (path, error))
    for section in data:
        if section not in ("service",) + tuple(MACHINES):
            raise ConfigError("%s: [%s]: unknown section (known: service, drnim, nimatron)" % (where, section))
        if not isinstance(data[section], dict):
            raise ConfigError("%s: %s: must be a [%s] table" % (where, section, section))
    service_given = dict(data.get("service", {}))
    service_given.update(overrides or {})
    try:
        service = check_settings(SERVICE_DEFAULTS, service_given, SERVICE_CHOICES)
    except ConfigError as error:
        raise ConfigError("%s: service.%s" % (where, error))
    for key in ("release_pulse_ms", "heartbeat_s"):
        if service[key] < 1:
            raise ConfigError("%s: service.%s: must be 1 or more" % (where, key))
    machines = {}
    for name, cls in MACHINES.items():
        try:
            machines[name] = cls(data.get(name, {})).config
        except ConfigError as error:
            raise ConfigError("%s: %s.%s" % (where, name, error))
    return Config(service, machines, path)
