"""What the machines say and the lines of their working, in English: the
text of every message id the core gives (controller/core/drnim.py,
nimatron.py, working.py), for the catalogs.

The core names a message by a short id with its values (``("message",
"one_row", {"row": 3})``), so that a board carries no sentences. Here each
id has its English, which `python -m controller.language.catalogs` extracts
(Babel) into the catalogs' template with the id as the message's context;
a shell renders an id in its visitor's language with
`controller.language.Language.message`. A message with a number that a
noun follows has a singular and a plural and names the value that counts.

The board never imports this module, nor anything in controller/language/.
"""


def said(message, english):
    """One message: its id (the catalog's context) and its English."""
    return (english, None, None)


def said_n(message, singular, plural, count):
    """A message with a plural: the English for one and for many, and the value that counts."""
    return (singular, plural, count)


MESSAGES = {
    # --- Dr. Nim --------------------------------------------------------------
    "new_loses": said_n("new_loses", "New game: %(marbles)d marble, whoever takes the last one loses.",
                        "New game: %(marbles)d marbles, whoever takes the last one loses.", "marbles"),
    "new_wins": said_n("new_wins", "New game: %(marbles)d marble, whoever takes the last one wins.",
                       "New game: %(marbles)d marbles, whoever takes the last one wins.", "marbles"),
    "restarted": said("restarted", "The controller restarted while a marble was on its way: check the marbles, "
                                   "put them all back on the rail and press New game."),
    "over": said("over", "The game is over: put the marbles back on the rail and press New game."),
    "jammed": said("jammed", "Waiting for the jammed marble: free it, or press New game."),
    "check": said("check", "Check the marbles, put them all back on the rail and press New game."),
    "drnim_first": said("drnim_first", "Dr. Nim goes first: move the turn switch to Dr. Nim, then press the trigger."),
    "took_three": said("took_three", "You may take 1 to 3 marbles: now move the turn switch to Dr. Nim and press "
                                     "the trigger."),
    "wait_marble": said("wait_marble", "Wait for your marble to come through before you move the turn switch to "
                                       "Dr. Nim."),
    "you_first": said("you_first", "You go first: press the trigger 1 to 3 times."),
    "take_first": said("take_first", "Take 1 to 3 marbles before you move the turn switch to Dr. Nim."),
    "eq_strategy": said("eq_strategy", "The equalizer takes no part when a strategy decides Dr. Nim's moves."),
    "eq_next_game": said("eq_next_game", "The equalizer is set before the first marble: the switch counts from the "
                                         "next game."),
    "jam": said("jam", "A marble did not reach the gate: check the rail and the release and free it. Nothing was "
                       "counted."),
    "late_marble": said("late_marble", "A marble passed the gate after the game: check how many marbles are loaded."),
    "marble_back": said_n("marble_back", "A marble passed the gate: %(left)d is left on the rail. Press New game "
                                         "when all are back.",
                          "A marble passed the gate: %(left)d are left on the rail. Press New game when all are "
                          "back.", "left"),
    "jam_cleared": said("jam_cleared", "The marble came through: play on."),
    "extra_you": said("extra_you", "A marble passed the gate without a release: counted for you."),
    "extra_drnim": said("extra_drnim", "A marble passed the gate without a release: counted for Dr. Nim."),
    "you_beat_drnim": said("you_beat_drnim", "You win! You beat Dr. Nim."),
    "drnim_wins": said("drnim_wins", "Dr. Nim wins."),
    # --- the Nimatron -----------------------------------------------------------
    # Translators: rows is the lamps lit in each row, such as "1 3 5 6".
    "new_you_first": said("new_you_first", "New game: %(rows)s. You move first."),
    "new_nimatron_first": said("new_nimatron_first", "New game: %(rows)s. The Nimatron moves first."),
    "not_resumed": said("not_resumed", "The last game could not be resumed: press New game."),
    "one_row": said("one_row", "Take from one row only: this turn you are taking from row %(row)d."),
    "row_empty": said("row_empty", "Row %(row)d has no lamps left."),
    "lamp_first": said("lamp_first", "Put out at least one lamp, then press the button for the Nimatron's turn."),
    # Translators: the 1940 winners' coin was stamped "Nim Champ": keep the two words, or the best-known equivalent.
    "nim_champ": said("nim_champ", "NIM CHAMP! You beat the Nimatron."),
    "nimatron_wins": said("nimatron_wins", "The Nimatron wins."),
    # --- Dr. Nim's working ---------------------------------------------------------
    # Translators: the working explains a proof. n is the marbles left, t is 1 when the last marble loses and 0
    # when it wins, q = (n - t) mod 4. Keep the letters and the formulas as they are.
    "w_t_loses": said("w_t_loses", "Last marble loses, so t = %(t)d"),
    "w_t_wins": said("w_t_wins", "Last marble wins, so t = %(t)d"),
    "w_n": said_n("w_n", "n = %(n)d marble on the rail", "n = %(n)d marbles on the rail", "n"),
    "w_n_turn": said_n("w_n_turn", "n = %(n)d marble on the rail when Dr. Nim's turn began",
                       "n = %(n)d marbles on the rail when Dr. Nim's turn began", "n"),
    "w_q": said("w_q", "q = (n − t) mod 4 = (%(n)d − %(t)d) mod 4 = %(q)d"),
    "w_over": said("w_over", "The game is over."),
    "w_q0": said("w_q0", "q = 0: the player to move is losing."),
    "w_q_wins": said("w_q_wins", "q = %(q)d: the player to move wins by taking %(q)d, leaving %(left)d."),
    "w_historic": said("w_historic", "Dr. Nim on q = 0 is losing and takes 1; on q = 1-3 it takes q, unless the "
                                     "equalizer is armed: then it takes 1 (its one misplay)."),
    # Translators: opponent is the name of a strategy, such as perfect or fallible:0.1 (a setting's value).
    "w_strategy": said("w_strategy", "Dr. Nim's moves come from the '%(opponent)s' opponent (decide = strategy)."),
    "w_this_turn": said("w_this_turn", "This turn Dr. Nim takes %(take)d; %(taken)d so far."),
    "w_handed": said("w_handed", "The turn switch is at Dr. Nim: press the trigger and Dr. Nim takes %(take)d."),
    "w_handed_misplay": said("w_handed_misplay", "The turn switch is at Dr. Nim: press the trigger and Dr. Nim takes "
                                                 "%(take)d, the equalizer's misplay."),
    # Translators: the visitor ends a turn on Dr. Nim with the turn switch and the trigger, not with a button as
    # on the Nimatron: say those two, in the words of the other texts about them.
    "w_if_handed": said("w_if_handed", "If you now move the turn switch to Dr. Nim and press the trigger, Dr. Nim "
                                       "takes %(take)d."),
    "w_if_handed_misplay": said("w_if_handed_misplay", "If you now move the turn switch to Dr. Nim and press the "
                                                       "trigger, Dr. Nim takes %(take)d, the equalizer's misplay."),
    "w_last_losing": said("w_last_losing", "Dr. Nim's last turn: n = %(n)d, q = 0, losing: it took %(took)d."),
    "w_last_right": said("w_last_right", "Dr. Nim's last turn: n = %(n)d, q = %(q)d: it took %(took)d, leaving "
                                         "%(left)d."),
    "w_last_misplay": said("w_last_misplay", "Dr. Nim's last turn: n = %(n)d, q = %(q)d: it took %(took)d, the "
                                             "equalizer's misplay."),
    "w_last_opponent": said("w_last_opponent", "Dr. Nim's last turn: n = %(n)d, q = %(q)d: its opponent took "
                                               "%(took)d."),
    # --- the Nimatron's working -----------------------------------------------------
    "w_nim": said("w_nim", "Last lamp wins (Nim)"),
    "w_misere": said("w_misere", "Last lamp loses (misère Nim)"),
    # Translators: a row in binary, such as "row 3   5 = 101", shown in a monospace font above the ones and the
    # parity of each binary column: pad the words of these three lines with spaces so that their digits line up.
    "w_row": said("w_row", "row %(row)d  %(lamps)2d = %(bits)s"),
    "w_ones": said("w_ones", "ones        %(digits)s"),
    "w_parity": said("w_parity", "parity      %(digits)s"),
    "w_nim_sum": said("w_nim_sum", "nim-sum = %(sum)d"),
    "w_no_lamps": said("w_no_lamps", "No lamps left."),
    "w_singles": said("w_singles", "Only single lamps left: the mover loses when their number is odd."),
    "w_sum0": said("w_sum0", "0: the player to move is losing."),
    "w_sum_not0": said("w_sum_not0", "Not 0: the player to move can win."),
    "w_hand_wins": said("w_hand_wins", "If you hand over now, the Nimatron can win."),
    "w_hand_loses": said("w_hand_loses", "If you hand over now, the Nimatron is losing."),
    "w_you_losing": said("w_you_losing", "To move: you, in a losing position."),
    "w_nimatron_losing": said("w_nimatron_losing", "To move: the Nimatron, in a losing position."),
    "w_you_move": said_n("w_you_move", "To move: you; winning move: take %(count)d lamp from row %(row)d.",
                         "To move: you; winning move: take %(count)d lamps from row %(row)d.", "count"),
    "w_nimatron_move": said_n("w_nimatron_move", "To move: the Nimatron; winning move: take %(count)d lamp from row "
                                                 "%(row)d.",
                              "To move: the Nimatron; winning move: take %(count)d lamps from row %(row)d.",
                              "count"),
}
