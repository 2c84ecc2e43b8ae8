"""The `[telemetry]` section of the service's configuration, checked like every other.

Off by default. With `enabled = true` the exhibit publishes to one MQTT broker;
docs/telemetry.md says what, and where.
"""

import ipaddress
import os
import socket
import stat

from controller.core.exhibit import ConfigError, Setting, check_settings

TELEMETRY_SETTINGS = {
    "enabled": Setting(False),
    "host": Setting("localhost"),             # the broker
    "port": Setting(0, 0, 65535),             # 0: 1883, or 8883 with TLS
    "tls": Setting(False),
    "ca_file": Setting(""),                   # with tls: the broker's CA certificate; empty: the system's
    "username": Setting(""),                  # empty: no log-in
    "password_file": Setting(""),             # a file whose first line is the password
    "client_id": Setting(""),                 # the exhibit's name; empty: this computer's host name
    "topic_prefix": Setting("nim-museum"),
    "heartbeat_s": Setting(60, 5, 86400),     # the status is sent again this often, changed or not
}

# Characters MQTT reserves in topics (wildcards) or that would split one.
RESERVED = "+#/\0"
# What a host name or an address holds besides ASCII letters and digits (an IPv6 address's colons, its
# zone after %). Nothing else: install.sh writes the host into an environment file for systemd.
HOST_MARKS = ".-_:%"
# MQTT 5's reason codes for a refused log-in: "Bad user name or password", "Not authorized".
LOG_IN_REFUSED = (134, 135)
# A password file holds one line: more than this is not one.
PASSWORD_FILE_LIMIT = 4096


# install.sh writes the broker that drnim-mqtt.service forwards to into this file beside the configuration,
# from its [telemetry]; a later change of telemetry.host or port needs install.sh telemetry to rewrite it.
PROXY_FILE = "mqtt-broker.env"


def proxy_address(settings):
    """The broker as install.sh writes it for the proxy: host:port, an IPv6 address in brackets."""
    host = settings["host"]
    return "%s:%d" % ("[%s]" % host if ":" in host else host, settings["port"])


def proxy_target(settings, config_path):
    """(the broker drnim-mqtt.service forwards to, the file that says so) when it is not the one
    [telemetry] names, else None (telemetry off, no proxy installed beside `config_path`, the same
    broker). A restart alone left the exhibit reporting to the broker it had, or to none."""
    if not settings["enabled"] or not config_path:
        return None
    path = os.path.join(os.path.dirname(os.path.abspath(config_path)), PROXY_FILE)
    try:
        with open(path, encoding="utf-8") as file:
            lines = file.read().splitlines()
    except (OSError, UnicodeDecodeError):
        return None
    forwarded = [line[len("BROKER="):].strip() for line in lines if line.startswith("BROKER=")]
    if not forwarded or forwarded[-1] == proxy_address(settings):
        return None
    return forwarded[-1], path


def misrouted(target):
    """A proxy_target in words that follow "the broker HOST:PORT"."""
    return ("is not where drnim-mqtt.service forwards to: it goes to %s (%s, which install.sh wrote from an "
            "earlier [telemetry]): run sudo systemd/install.sh telemetry" % target)


def check_telemetry(where, given):
    """The checked [telemetry] settings, with the defaults filled in; ConfigError naming the key."""
    try:
        settings = check_settings(TELEMETRY_SETTINGS, given)
    except ConfigError as error:
        raise ConfigError("%s: telemetry.%s" % (where, error))

    def bad(key, problem):
        return ConfigError("%s: telemetry.%s: %r: %s" % (where, key, settings[key], problem))

    settings["port"] = settings["port"] or default_port(settings["tls"])
    settings["client_id"] = settings["client_id"] or socket.gethostname()
    name = settings["client_id"]
    if any(c in RESERVED for c in name) or not name.strip() or len(name.encode()) > 64 or not name.isprintable():
        raise bad("client_id", "the exhibit's name: 1 to 64 bytes, printable, without + # / or a NUL")
    prefix = settings["topic_prefix"]
    if not prefix or any(c in "+#\0" for c in prefix) or prefix.startswith("/") or prefix.endswith("/") \
            or not prefix.isprintable():
        raise bad("topic_prefix", "must be a topic such as \"nim-museum\" or \"museum/hall-2\", without + # or a "
                                  "slash at either end")
    host = settings["host"]
    if not host or len(host) > 253 or any(not (c.isascii() and c.isalnum()) and c not in HOST_MARKS for c in host):
        raise bad("host", "must be the broker's host name or address (letters, digits and . - _ : %)")
    if ":" in host and not ipv6(host):
        name, port = host.rsplit(":", 1)
        raise bad("host", "the port goes in telemetry.port: host = \"%s\"%s"
                  % (name, " and port = %s" % port if port.isdigit() else ""))
    if settings["enabled"]:
        for key in ("ca_file", "password_file"):
            path = settings[key]
            if path and not os.path.isfile(path):
                raise bad(key, "a folder, not a file" if os.path.isdir(path) else "no such file")
        if settings["ca_file"] and not settings["tls"]:
            raise bad("ca_file", "given, but tls is off: set tls = true")
        if settings["password_file"] and not settings["username"]:
            raise bad("password_file", "given, but no username")
    return settings


def ipv6(host):
    """Whether `host` is an IPv6 address (its zone after % allowed), the only host a colon belongs in: a
    broker written "broker.museum.lan:1883", as `controller fleet --broker` takes it, passed the check,
    and install.sh gave systemd's proxy "[broker.museum.lan:1883]:1883", which reaches no broker."""
    try:
        return ipaddress.ip_address(host.split("%", 1)[0]).version == 6
    except ValueError:
        return False


def default_port(tls):
    """MQTT's port: 8883 with TLS, 1883 without."""
    return 8883 if tls else 1883


def password_in_clear(settings):
    """A sentence for the log and `config check` when a password crosses the network unencrypted (a
    username and password_file with tls off, to a broker not on this computer), else None. A museum's
    own network may be trusted, so it is said, not refused."""
    if not (settings["enabled"] and settings["username"] and settings["password_file"]) or settings["tls"]:
        return None
    if settings["host"] == "localhost" or loopback(settings["host"]):
        return None
    return ("telemetry: the password is sent to %s unencrypted, where anyone on the network can read it: tls is "
            "off (set telemetry.tls = true and use the broker's TLS port)" % settings["host"])


def loopback(host):
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:            # a host name
        return False


def check_password(where, settings):
    """A step of `controller config check` and `run` alone: the password file can be read. Not in
    check_telemetry, since other commands load the configuration for staff who may not read it."""
    if settings["enabled"]:
        try:
            read_password(settings["password_file"])
        except ConfigError as error:
            raise ConfigError("%s: %s" % (where, error))


def read_password(path, setting="telemetry.password_file"):
    """The first line of the password file (empty: no password); ConfigError when it cannot be read,
    is not a regular file (/dev/zero would be read for ever), is longer than PASSWORD_FILE_LIMIT, or
    is readable or writable by every user of this computer, naming `setting` (None: the caller
    names what gave the path, such as a command-line option)."""
    if not path:
        return None
    try:
        info = os.stat(path)
        if not stat.S_ISREG(info.st_mode):
            raise ValueError("not a regular file")
        if info.st_mode & (stat.S_IROTH | stat.S_IWOTH):
            raise ValueError("%s by every user of this computer: chmod o-rw %s" % (
                "readable" if info.st_mode & stat.S_IROTH else "writable", path))
        with open(path, "rb") as f:
            raw = f.read(PASSWORD_FILE_LIMIT + 1)
        if len(raw) > PASSWORD_FILE_LIMIT:
            raise ValueError("more than %d bytes: a password file holds one line" % PASSWORD_FILE_LIMIT)
        try:
            text = raw.decode("utf-8")
        except UnicodeDecodeError:
            raise ValueError("not UTF-8 text")     # not the codec's words, which quote a byte of the password
        return text.split("\n")[0].rstrip("\r")
    except (OSError, ValueError) as error:
        raise ConfigError("%s%s: cannot read it (%s)" % (setting + ": " if setting else "", path,
                                                          getattr(error, "strerror", None) or error))


def refusal(reason, log_in):
    """The broker's refusal of a connection in words; when it refused the log-in, `log_in` names what
    to check. paho gives MQTT 3.1.1's refusals as MQTT 5's reason codes."""
    if reason.value in LOG_IN_REFUSED:
        return "%s: check %s" % (reason, log_in)
    return str(reason)
