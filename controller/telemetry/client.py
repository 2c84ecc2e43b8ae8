"""paho's MQTT client, refusing a packet longer than any message of ours.

paho keeps a packet whole before it looks at it, up to MQTT's 256 MB. So one
long packet from a hostile broker, or from a stranger posing as the broker on a
network without TLS, would take the memory of the Pi that plays (the exhibit
subscribes to nothing, yet paho reads whatever comes) or of the computer that
follows the fleet. No message of ours is longer than a payload (MAX_PAYLOAD)
and its topic, so a longer packet closes the connection before it is read, and
`refused` says why for the log; paho then reconnects as after any drop.
"""

import errno

import paho.mqtt.client as mqtt

from controller.telemetry.payloads import MAX_PAYLOAD

# A payload, its topic (the prefix and an exhibit's name: a few hundred bytes) and MQTT's own header.
LONGEST_PACKET = MAX_PAYLOAD + 1024


class Client(mqtt.Client):
    refused = None

    def _sock_recv(self, bufsize):
        # paho asks for the packet's body only once it has read its length (have_remaining)
        length = self._in_packet["remaining_length"]
        if self._in_packet["have_remaining"] and length > LONGEST_PACKET:
            self.refused = "sent a packet of %d bytes, more than any message of ours (%d): closed the connection " \
                "before reading it (a stranger's broker? see docs/telemetry.md, TLS)" % (length, LONGEST_PACKET)
            raise OSError(errno.EMSGSIZE, self.refused)
        return super()._sock_recv(bufsize)
