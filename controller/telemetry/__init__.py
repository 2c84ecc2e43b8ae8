"""Telemetry: each exhibit reports its health and its games to an MQTT broker
(publisher.py), and `controller fleet` follows them all (fleet.py). The topics
and payloads are in payloads.py and docs/telemetry.md."""
