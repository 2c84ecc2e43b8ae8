"""A board spoken to in the protocol's requests, over a `Link`, in the link's time
(an emulated board's own; the wall clock for a real one).

`ask(kind, **fields)` sends one request with an id and returns the board's
reply to it; every other line that comes meanwhile (the events, commands,
status changes and faults the request caused) goes to `on_line` first, in
order. A board that refuses, resets or stops answering raises one of the
errors below, each with a one-line message.
"""

# A board answers a request at once; an `advance` of a day on the emulator takes a few seconds.
REPLY_S = 30.0


class BoardError(Exception):
    """The board did not do what was asked; the message says why, in one line."""


class BoardRefused(BoardError):
    """The board answered a request with an error line."""


class BoardUnfit(BoardError):
    """The board cannot play the scripts at all: it runs another machine, mode or protocol."""


class BoardReset(BoardError):
    """The board started again (a new hello line) in the middle of a request."""


class Board:
    def __init__(self, link, on_line=None, reply_s=REPLY_S):
        self.link = link
        self.on_line = on_line or (lambda message: None)
        self.reply_s = reply_s
        self.last_id = 0
        self.machine = None     # the machine it was found to run (a real board's hello may have gone unheard)

    @property
    def hello(self):
        return self.link.hello

    def wait_hello(self, timeout):
        """The board's hello line (the one seen already, or the next); BoardError after `timeout` s."""
        deadline = self.link.clock() + timeout
        while self.link.hello is None:
            message = self.link.receive(max(0.0, deadline - self.link.clock()))
            if message is None:
                raise BoardError("no hello line from the board on %s within %d s: is the firmware running?"
                                 % (self.link.port, timeout))
            if message["kind"] != "hello":
                self.on_line(message)
        return self.link.hello

    def wait_restart(self, timeout):
        """Wait for the board to start again (a reset, a power cut): its next hello line,
        the lines before it passed on; BoardError after `timeout` s."""
        resets = self.link.resets
        deadline = self.link.clock() + timeout
        self.link.restarting = True
        try:
            while self.link.resets == resets:
                message = self.link.receive(max(0.0, deadline - self.link.clock()))
                if message is None:
                    raise BoardError("the board on %s did not start again within %d s" % (self.link.port, timeout))
                if message["kind"] != "hello":
                    self.on_line(message)
        finally:
            self.link.restarting = False

    def identify(self, timeout):
        """What the board is (its hello line's fields). A real board said hello when it
        started, maybe before the port was opened: then its state answers for it,
        on its own clock (its mode None from a build older than the state's `mode`)."""
        try:
            return self.wait_hello(timeout)
        except BoardError:
            state = self.ask("state")
        game = state.get("game")
        return {"machine": game.get("machine") if isinstance(game, dict) else None, "clock": "real",
                "mode": state.get("mode"), "protocol": state.get("protocol")}

    def pass_time(self, seconds):
        """Let `seconds` of real time pass, passing on what the board says meanwhile."""
        deadline = self.link.clock() + seconds
        while True:
            remaining = deadline - self.link.clock()
            if remaining <= 0:
                return
            message = self.link.receive(remaining)
            if message is not None:
                self.on_line(message)

    def ask(self, kind, **fields):
        """The board's reply to the request `kind` with `fields`."""
        return self.ask_all([(kind, fields)])

    def ask_all(self, requests, restarts=False):
        """Send every (kind, fields) request at once, then take the replies in
        order (the board reads its lines in turn): one wait for the link's
        round trip instead of one per request. The last reply; a refusal of
        any of them raises BoardRefused naming it. A board that starts again
        meanwhile raises BoardReset, unless the requests restart it
        (`restarts`): then its new hello line is waited for too."""
        resets = self.link.resets
        pending = []
        for kind, fields in requests:
            self.last_id += 1
            pending.append((self.last_id, kind))
            if not self.link.send(dict(fields, kind=kind, id=self.last_id)):
                raise BoardError("the board on %s is not there (%s)" % (self.link.port, self.link.gone))
        deadline = self.link.clock() + self.reply_s
        reply = None
        self.link.restarting = restarts
        try:
            while pending or (restarts and self.link.resets == resets):
                reply = self.take_reply(pending, resets, restarts, deadline) or reply
        finally:
            self.link.restarting = False
        return reply

    def take_reply(self, pending, resets, restarts, deadline):
        """One line from the board: the reply to the first pending request (returned), or another line."""
        kind = pending[0][1] if pending else "to start again"
        message = self.link.receive(max(0.0, deadline - self.link.clock()))
        if not restarts and self.link.resets != resets:
            raise BoardReset("the board on %s started again while it was asked %r" % (self.link.port, kind))
        if message is None:
            raise BoardError("the board on %s did not answer %r within %d s" % (self.link.port, kind, self.reply_s))
        if not pending or message.get("id") != pending[0][0]:
            self.on_line(message)
            return None
        if message["kind"] == "error":
            raise BoardRefused("the board refused %r: %s" % (kind, message.get("error")))
        pending.pop(0)
        return message
