"""What a technician setting up a museum's fleet is told when a setting is wrong: each mistake is
one line naming the settings (or the fleet's options) to check, on the exhibit and in
`controller fleet`. A real broker (tests/broker_rig.py)."""

import io
import os
import re
import shutil
import subprocess
import threading

import pytest

import service_rig
from broker_rig import Broker, certificates, tls_settings, wait_until
from conftest import ROOT
from controller.cli import main
from controller.core.exhibit import ConfigError
from controller.telemetry.publisher import Telemetry
from controller.telemetry.settings import check_telemetry


def exhibit_log(tmp_path, broker, problem, **settings):
    """The exhibit's telemetry lines once one says `problem`."""
    log = []
    (tmp_path / "state").mkdir(exist_ok=True)
    publisher = Telemetry(check_telemetry("test", dict({"enabled": True, "host": "localhost", "port": broker.port,
                                                        "client_id": "hall-1"}, **settings)),
                          "drnim", str(tmp_path / "state"), log.append)
    try:
        wait_until(lambda: any(problem in line for line in log), what="the exhibit's line")
    finally:
        publisher.close()
    return [line for line in log if line.startswith("telemetry: the broker")]


def fleet_error(capsys, broker, *options):
    assert main(["fleet", "--broker", "localhost:%d" % broker.port, "--once", *options]) == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1, err
    return err


def password_file(tmp_path, name, password):
    path = tmp_path / name
    path.write_text(password + "\n")
    os.chmod(path, 0o600)
    return str(path)


def logins(tmp_path, screens=False):
    """The broker's password file in `tmp_path` (passwords) with the user exhibit, password "right"
    (`screens`: and the user screen, password "s", whom the acl file beside it lets only read, as the
    README's museum.conf)."""
    passwd = shutil.which("mosquitto_passwd")
    if passwd is None:
        pytest.skip("mosquitto_passwd is missing: install Debian's package mosquitto")
    subprocess.run([passwd, "-b", "-c", str(tmp_path / "passwords"), "exhibit", "right"], check=True, timeout=60)
    os.chmod(tmp_path / "passwords", 0o600)
    if screens:
        subprocess.run([passwd, "-b", str(tmp_path / "passwords"), "screen", "s"], check=True, timeout=60)
        (tmp_path / "acl").write_text("user exhibit\ntopic readwrite nim-museum/#\nuser screen\ntopic read "
                                      "nim-museum/#\n")


def password_broker(tmp_path, screens=False):
    """A broker that lets in only the users of `logins`."""
    logins(tmp_path, screens)
    if not screens:
        return Broker(tmp_path, "allow_anonymous false\npassword_file %s" % (tmp_path / "passwords"))
    return Broker(tmp_path, "allow_anonymous false\npassword_file %s\nacl_file %s" % (tmp_path / "passwords",
                                                                                    tmp_path / "acl"))


def test_a_refused_log_in_names_the_settings_to_check(tmp_path, capsys):
    """Found setting up three exhibits: a wrong password was 'refused us (Not authorized)', on the
    exhibit and in the fleet, naming neither the setting nor the option that holds it."""
    broker = password_broker(tmp_path)
    wrong = password_file(tmp_path, "wrong", "wrong")
    try:
        assert exhibit_log(tmp_path, broker, "refused", username="exhibit", password_file=wrong) == [
            "telemetry: the broker localhost:%d refused us (Not authorized: check telemetry.username and "
            "telemetry.password_file): play goes on; games and faults wait in the queue and are sent when it is "
            "back" % broker.port]
        assert fleet_error(capsys, broker, "--username", "exhibit", "--password-file", wrong) == \
            "controller fleet: localhost:%d: the broker refused us (Not authorized: check --username and " \
            "--password-file)\n" % broker.port
    finally:
        broker.stop()


def test_a_screens_user_connecting_as_the_exhibit_does_not_throw_it_off_the_broker(tmp_path):
    """The README's screens may only read, but a broker throws off a connection when another comes with its
    client ID, whoever logs in: with the screens' login, whose password is in every screen's address,
    connecting as the exhibit's name threw the exhibit off at each try (OFFLINE in the fleet and on the
    screens). An exhibit that logs in connects as its name and a tag made from its password."""
    import paho.mqtt.client as mqtt
    broker = password_broker(tmp_path, screens=True)
    (tmp_path / "state").mkdir()
    log = []
    publisher = Telemetry(check_telemetry("test", {"enabled": True, "host": "localhost", "port": broker.port,
                                                   "client_id": "hall-1", "username": "exhibit",
                                                   "password_file": password_file(tmp_path, "secret", "right")}),
                          "drnim", str(tmp_path / "state"), log.append)
    try:
        wait_until(lambda: publisher.connected, what="the exhibit connected")
        for _ in range(4):
            answered = []
            intruder = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2, client_id="hall-1")
            intruder.username_pw_set("screen", "s")
            intruder.on_connect = lambda client, data, flags, reason, properties: answered.append(reason)
            intruder.connect("localhost", broker.port)
            intruder.loop_start()
            try:
                wait_until(lambda: answered, what="the broker's answer to the screen's user")
            finally:
                intruder.disconnect()
                intruder.loop_stop()
            assert not answered[0].is_failure, answered       # it was let in
        assert publisher.connected
    finally:
        publisher.close()
        broker.stop()
    assert "already connected" not in (tmp_path / "mosquitto.log").read_text(), "the exhibit was thrown off"
    assert not [line for line in log if "dropped" in line or "went away" in line], log


def test_a_listener_with_tls_reached_without_it_says_so(tmp_path, capsys):
    """Found setting up TLS: an exhibit with tls = false on the broker's TLS port said the broker
    'went away', and the fleet without --tls waited 5 s for 'the broker did not answer'."""
    broker = Broker(tmp_path, "allow_anonymous true\n" + tls_settings(tmp_path))
    try:
        assert exhibit_log(tmp_path, broker, "closed") == [
            "telemetry: the broker localhost:%d closed the connection without answering (a listener with TLS, or "
            "not an MQTT broker? see telemetry.tls and telemetry.port): play goes on; games and faults wait in the "
            "queue and are sent when it is back" % broker.port]
        assert fleet_error(capsys, broker) == \
            "controller fleet: localhost:%d: the broker closed the connection without answering: is this port a " \
            "listener with TLS (--tls), or not an MQTT broker?\n" % broker.port
    finally:
        broker.stop()


def test_tls_to_a_listener_without_it_says_so(tmp_path, capsys):
    """Found setting up TLS: an exhibit with tls = true on the broker's plain port said the broker
    'cannot be reached', and the fleet with --tls 'cannot reach the broker (Connection reset by
    peer)', of a broker that was there."""
    ca = str(certificates(tmp_path)[0])
    broker = Broker(tmp_path)
    try:
        lines = exhibit_log(tmp_path, broker, "TLS", tls=True, ca_file=ca)
        assert len(lines) == 1 and "dropped the TLS handshake (" in lines[0] \
            and ": a listener without TLS? see telemetry.tls and telemetry.port)" in lines[0], lines
        err = fleet_error(capsys, broker, "--tls", "--ca-file", ca)
        assert "the broker dropped the TLS handshake (" in err and "is this port a listener without TLS?" in err, err
    finally:
        broker.stop()


@pytest.mark.parametrize("host, tls, warned", [("broker.museum.lan", "false", True), ("10.0.0.5", "false", True),
                                               ("broker.museum.lan", "true", False), ("localhost", "false", False),
                                               ("127.0.0.1", "false", False), ("::1", "false", False)])
def test_a_password_sent_without_tls_over_the_network_is_said(tmp_path, capsys, host, tls, warned):
    """Found in the security walkthrough: a username and password with tls off went over the museum's
    network in the clear, and nothing said so. `config check` and the exhibit's log say it, once, and go
    on (a museum's own network may be trusted); a broker on the same computer is not a network."""
    path = service_rig.write_config(tmp_path)
    path.write_text(path.read_text() + '[telemetry]\nenabled = true\nhost = "%s"\ntls = %s\nusername = "hall-1"\n'
                    'password_file = "%s"\n' % (host, tls, password_file(tmp_path, "secret", "s")))
    assert main(["config", "check", str(path)]) == 0
    out = capsys.readouterr().out.splitlines()
    said = "%s: telemetry: the password is sent to %s unencrypted, where anyone on the network can read it: tls " \
           "is off (set telemetry.tls = true and use the broker's TLS port)" % (path, host)
    assert out[1:] == ([said] if warned else []), out
    log = []
    (tmp_path / "state").mkdir()
    publisher = Telemetry(check_telemetry("test", {"enabled": True, "host": host, "tls": tls == "true",
                                                   "port": 9, "username": "hall-1",
                                                   "password_file": str(tmp_path / "secret")}),
                          "drnim", str(tmp_path / "state"), log.append)
    publisher.close()
    assert [line for line in log if "unencrypted" in line] == ([said.split(": ", 1)[1]] if warned else []), log


def test_a_password_file_that_is_a_folder_is_called_one(tmp_path):
    (tmp_path / "secrets").mkdir()
    with pytest.raises(ConfigError) as error:
        check_telemetry("config.toml", {"enabled": True, "username": "exhibit",
                                        "password_file": str(tmp_path / "secrets")})
    assert str(error.value) == "config.toml: telemetry.password_file: %r: a folder, not a file" \
        % str(tmp_path / "secrets")



@pytest.mark.parametrize("host, said", [
    ("broker.venue.lan:1883", 'the port goes in telemetry.port: host = "broker.venue.lan" and port = 1883'),
    ("10.1.2.3:8883", 'the port goes in telemetry.port: host = "10.1.2.3" and port = 8883'),
    ("fd00::17", None), ("fe80::1%eth0", None)])
def test_a_broker_written_with_its_port_is_one_line_saying_where_the_port_goes(tmp_path, host, said):
    """A new venue's broker given as `controller fleet --broker` takes it passed `config check`, and
    install.sh made systemd's proxy "[broker.venue.lan:1883]:1883" of it, which reaches no broker. An IPv6
    address keeps its colons."""
    from conftest import in_process
    config = service_rig.write_config(tmp_path)
    config.write_text(config.read_text() + '[telemetry]\nenabled = true\nhost = "%s"\n' % host)
    result = in_process(["config", "check", str(config)])
    if said is None:
        assert result.returncode == 0, result.stderr
    else:
        assert result.returncode == 2 and result.stderr.count("\n") == 1, result.stderr
        line = config.read_text().splitlines().index('host = "%s"' % host) + 1
        assert result.stderr.endswith("%s:%d: telemetry.host: %r: %s\n" % (config, line, host, said)), result.stderr


def test_controller_status_says_what_the_broker_did_not_only_that_it_is_not_connected(tmp_path, monkeypatch):
    """A wrong password was 'Telemetry: cannot reach localhost:1883' in controller status, where the
    journal said the broker refused us: the technician looked at the network."""
    broker = password_broker(tmp_path)
    loaded = service_rig.load_config

    def reporting(path):
        config = loaded(path)
        config.telemetry = check_telemetry("test", {"enabled": True, "host": "localhost", "port": broker.port,
                                                    "client_id": "hall-1", "username": "exhibit",
                                                    "password_file": password_file(tmp_path, "wrong", "wrong")})
        return config
    monkeypatch.setattr(service_rig, "load_config", reporting)
    rig = service_rig.Rig(tmp_path, marbles=2, equalizer=False)
    try:
        wait_until(lambda: rig.service.telemetry.unreachable, what="the refusal")
        rig.service.heartbeat()
        out = io.StringIO()
        main(["status", "--config", str(tmp_path / "config.toml")], out=out)
        assert "Telemetry: the broker localhost:%d refused us (Not authorized: check telemetry.username and " \
               "telemetry.password_file), 0 games and faults waiting to be sent.\n" % broker.port in out.getvalue()
    finally:
        rig.service.stop()
        broker.stop()


def test_a_password_file_that_is_not_utf8_is_said_without_a_byte_of_the_password(tmp_path):
    """A password saved in another encoding: the refusal, in the journal and in config check, quoted
    the codec's words, which give a byte of the password and where it is ("can't decode byte 0xe9 in
    position 4"). It says only that the file is not UTF-8 text."""
    from controller.telemetry.settings import read_password
    secret = tmp_path / "secret"
    secret.write_bytes("pass\u00e9word\n".encode("latin-1"))
    os.chmod(secret, 0o600)
    with pytest.raises(ConfigError) as error:
        read_password(str(secret))
    assert str(error.value) == "telemetry.password_file: %s: cannot read it (not UTF-8 text)" % secret


# The museum.conf lines the README gives, anonymous and with the screens' log-ins.
MUSEUM_CONF = re.findall(r"printf '(listener 1883\\n[^']*)' \| sudo tee /etc/mosquitto/conf.d/museum.conf",
                         (ROOT / "README.md").read_text(encoding="utf-8"))


@pytest.mark.parametrize("conf", MUSEUM_CONF, ids=["anonymous", "log-ins"])
def test_the_readmes_broker_starts_and_refuses_a_strangers_huge_message(tmp_path, conf):
    """The README's museum.conf, on mosquitto (its listeners and folders the test's own): it starts, and a
    message longer than any of ours (70 KB, where a game is under 2 KB) is refused at the broker, so that a
    stranger's 200 MB never reaches the fleet and the screens (found by the museum IT review), while the
    games' messages go through."""
    import paho.mqtt.client as mqtt
    assert len(MUSEUM_CONF) == 2
    lines = conf.encode().decode("unicode_escape").splitlines()
    assert "persistent_client_expiration 90d" in lines
    login = {}
    if "allow_anonymous false" in lines:
        logins(tmp_path, screens=True)                      # the README's passwords and acl, here
        login = {"exhibit": "right", "screen": "s"}
    kept = [line.replace("/etc/mosquitto/passwd", str(tmp_path / "passwords")).replace(
        "/etc/mosquitto/acl", str(tmp_path / "acl")) for line in lines
        if not line.startswith(("listener", "protocol", "persistence", "max_queued_messages"))]
    broker = Broker(tmp_path, "\n".join(kept))
    received, subscribed, dropped = [], threading.Event(), threading.Event()
    reader, exhibit, stranger = (mqtt.Client(mqtt.CallbackAPIVersion.VERSION2) for _ in range(3))
    if login:
        reader.username_pw_set("screen", login["screen"])
        exhibit.username_pw_set("exhibit", login["exhibit"])
        stranger.username_pw_set("exhibit", login["exhibit"])
    reader.on_message = lambda client, data, message: received.append(len(message.payload))
    reader.on_subscribe = lambda *args: subscribed.set()
    reader.on_connect = lambda client, *args: client.subscribe("nim-museum/#", 1)
    stranger.on_disconnect = lambda *args: dropped.set()
    try:
        for client in (reader, exhibit, stranger):
            client.connect("127.0.0.1", broker.port)
            client.loop_start()
        assert subscribed.wait(10)
        exhibit.publish("nim-museum/hall-1/game", b"x" * 1500, qos=1)
        wait_until(lambda: received == [1500], what="a game's message at the reader")
        stranger.publish("nim-museum/hall-1/game", b"x" * 70000, qos=1)
        assert dropped.wait(10), "the broker took a message of 70 KB"
        exhibit.publish("nim-museum/hall-1/game", b"x" * 1600, qos=1)
        wait_until(lambda: len(received) == 2, what="the next game's message at the reader")
        assert received == [1500, 1600]
    finally:
        for client in (reader, exhibit, stranger):
            client.disconnect()
            client.loop_stop()
        broker.stop()
