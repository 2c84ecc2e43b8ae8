"""Each machine's status lamps as a visitor reads them: the simulator's row of lamps and the labels
beside a built machine's (the assembly guide's table, controller/hardware/pinmap/labels.py) say the
same words, in every language of the catalogs."""


def lamp_names(t):
    """{machine: {lamp: its name in `t`'s language}} for every status lamp of every machine."""
    return {
        "drnim": {"your_turn": t._("your turn"), "drnim_turn": t._("Dr. Nim's turn"), "fault": t._("fault"),
                  "you_win": t._("you win"), "drnim_wins": t._("Dr. Nim wins")},
        "nimatron": {"your_turn": t._("your turn"), "machine_turn": t._("the Nimatron's turn"),
                     "nim_champ": t._("NIM CHAMP"), "machine_wins": t._("the Nimatron wins")},
    }
