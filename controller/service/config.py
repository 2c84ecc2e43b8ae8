"""The service's TOML configuration: every setting has a documented default and a range.

    [service]     which machine, the pin map, the GPIO backend, paths, timings
    [drnim]       the Dr. Nim machine's settings (controller/core/drnim.py)
    [nimatron]    the Nimatron's settings (controller/core/nimatron.py)

A section per machine of the registry (controller/core/registry.py), each
checked against that machine's own table of settings. `systemd/config.toml`
is the annotated default. A bad file gets one line naming the file, the key
and the problem.
"""

import os
import tomllib

from controller.core.exhibit import ConfigError, Setting, check_settings
from controller.core.registry import NAMES, machine_class

PIN_FACTORIES = ("lgpio", "rpigpio", "mock")

SERVICE_SETTINGS = {
    "machine": Setting(NAMES[0], choices=NAMES),
    "pinmap": Setting(""),              # empty: the shipped hardware/<machine>/pinmap.toml
    # lgpio (any Pi, the only one on a Pi 5), rpigpio (older Pis), mock (tests)
    "pin_factory": Setting("lgpio", choices=PIN_FACTORIES),
    "state_dir": Setting(""),           # empty: $STATE_DIRECTORY (set by systemd), else /var/lib/drnim-controller
    "runtime_dir": Setting(""),         # empty: $RUNTIME_DIRECTORY, else /run/drnim-controller
    "release_pulse_ms": Setting(60, 1, 1000),   # how long the release solenoid stays energised
    "stuck_after_s": Setting(30, 1, 86400),     # a button held this long is reported as stuck
    "heartbeat_s": Setting(5, 1, 86400),        # how often the status file for `controller status` is written
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
    sections = ("service",) + NAMES
    for section in data:
        if section not in sections:
            raise ConfigError("%s: [%s]: unknown section (known: %s)" % (where, section, ", ".join(sections)))
        if not isinstance(data[section], dict):
            raise ConfigError("%s: %s: must be a [%s] table" % (where, section, section))
    service_given = dict(data.get("service", {}))
    service_given.update(overrides or {})
    try:
        service = check_settings(SERVICE_SETTINGS, service_given)
    except ConfigError as error:
        raise ConfigError("%s: service.%s" % (where, error))
    machines = {}
    for name in NAMES:
        try:
            machines[name] = machine_class(name)(data.get(name, {})).config
        except ConfigError as error:
            raise ConfigError("%s: %s.%s" % (where, name, error))
    return Config(service, machines, path)
