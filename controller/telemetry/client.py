"""paho's MQTT client, refusing a packet far longer than any message of ours.

paho keeps a packet whole before it looks at it, up to MQTT's 256 MB. So one
long packet from a hostile broker, or from a stranger posing as the broker on a
network without TLS, would take the memory of the Pi that plays (the exhibit
subscribes to nothing, yet paho reads whatever comes) or of the computer that
follows the fleet. A packet longer than LONGEST_PACKET closes the connection
before it is read, and `refused` says why for the log; paho then reconnects as
after any drop. The bound is far above our messages (under MAX_PAYLOAD), so a
stranger's merely odd one is still read and ignored with its line (payloads.py):
closed, a message queued for the fleet's session would come again at every
connection, and the broker's max_packet_size (docs/telemetry.md) is what keeps
such a message from being queued at all.
"""

import errno

import paho.mqtt.client as mqtt

from controller.telemetry.payloads import MAX_PAYLOAD

LONGEST_PACKET = 64 * MAX_PAYLOAD       # 1 MiB


class Client(mqtt.Client):
    refused = None

    def take_refused(self):
        """Why the connection just lost was closed, if for a packet refused; said once: the next is not."""
        refused, self.refused = self.refused, None
        return refused

    def _sock_recv(self, bufsize):
        # paho asks for the packet's body only once it has read its length (have_remaining)
        length = self._in_packet["remaining_length"]
        if self._in_packet["have_remaining"] and length > LONGEST_PACKET:
            self.refused = "sent a packet of %d bytes, more than the %d read (a message of ours is under %d): " \
                "closed the connection before reading it (see docs/telemetry.md, for the museum's IT)" % (
                    length, LONGEST_PACKET, MAX_PAYLOAD)
            raise OSError(errno.EMSGSIZE, self.refused)
        return super()._sock_recv(bufsize)
