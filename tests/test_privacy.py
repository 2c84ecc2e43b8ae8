"""docs/privacy.md, the statement a museum's data protection officer files: what the exhibit keeps
(the service's state folder) and what the broker's log holds of a screen, as the statement says.
The web page's and the cards' claims are proved in test_web.py and test_visitor_card.py."""

import re
import sqlite3

import paho.mqtt.client as mqtt

from broker_rig import Broker, wait_until
from conftest import ROOT
from service_rig import Rig

PRIVACY = (ROOT / "docs" / "privacy.md").read_text(encoding="utf-8")


def test_the_exhibit_keeps_a_game_and_the_statistics_and_names_no_one(tmp_path):
    """A game played on the service (telemetry off, as shipped) leaves the state folder and the
    statistics that privacy.md lists, and no more: a new file or column there is a new thing kept,
    which the statement must say before a museum signs it off."""
    rig = Rig(tmp_path, equalizer=False)
    for _ in range(6):
        rig.take(1)
        rig.hand_over()
    rig.service.stop()
    assert rig.machine.mode == "over"
    assert sorted(path.name for path in (tmp_path / "state").iterdir()) == ["game.json", "stats.sqlite"]
    db = sqlite3.connect(tmp_path / "state" / "stats.sqlite")
    columns = dict((table, [row[1] for row in db.execute("pragma table_info(%s)" % table)])
                   for (table,) in db.execute("select name from sqlite_master where type = 'table'"))
    db.close()
    assert columns == {"games": ["ended", "machine", "winner", "duration_s"], "faults": ["at", "machine", "kind"]}
    assert "game (`ended` time, `machine`, `winner` player/machine, `duration_s`) and fault (`at`, `machine`, " \
           "`kind`)" in PRIVACY


def test_a_screen_s_connection_leaves_no_address_in_the_broker_s_log(tmp_path):
    """A phone or kiosk following an exhibit connects to the museum's broker, and Mosquitto logs its
    address at each connection; with the line privacy.md gives for museum.conf it logs none, and the
    screen still gets the exhibit's status."""
    line = re.search(r"Add this line to `museum.conf` and it writes none:\s+`([^`]+)`", PRIVACY).group(1)
    for settings in ("", line + "\n"):
        folder = tmp_path / ("quiet" if settings else "default")
        folder.mkdir()
        broker = Broker(folder, websockets=True, logging=settings)
        got = []
        try:
            screen = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2, client_id="drnim-screen-1a2b3c4d",
                                 transport="websockets")
            screen.on_message = lambda client, data, message: got.append(message.payload)
            screen.on_connect = lambda client, data, flags, code, properties: client.subscribe("nim-museum/+/status")
            screen.connect("127.0.0.1", broker.ws_port)
            screen.loop_start()
            exhibit = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2, client_id="hall-1")
            exhibit.connect("127.0.0.1", broker.port)
            exhibit.loop_start()
            exhibit.publish("nim-museum/hall-1/status", b'{"v": 1}', qos=1, retain=True).wait_for_publish(5)
            wait_until(lambda: got, 10, "the screen's status")
            for client in (screen, exhibit):
                client.disconnect()
                client.loop_stop()
        finally:
            broker.stop()
        log = (folder / "mosquitto.log").read_text()
        assert ("127.0.0.1" in log) == (settings == ""), log
