"""The kinds of notice, and which of them go to a private chat."""

from __future__ import annotations

from enum import Enum


class NoticeKind(Enum):
    LOBBY = "lobby"  # group: the lobby message, edited in place
    TABLE = "table"  # group: the round's table message, edited in place
    TURN = "turn"  # group: a turn for a player the bot cannot write to, with the keys
    ANNOUNCE = "announce"  # group: a one-off line (a misdeal, a player leaving, sudden death)
    GAME_OVER = "game_over"  # group: the winner(s), or why nobody won
    DEAL = "deal"  # private: the card dealt this round, with how the last round ended
    PROMPT = "prompt"  # private: your turn, the card you hold now, and the keys
    CLOSE = "close"  # private: the game is over for you (the prompt's keys go)
    PLAYED = "played"  # private: your move, told on the prompt you pressed (its keys go)
    NUDGE = "nudge"  # private: your turn runs out soon (a reply to the prompt, which notifies)
    # Either: a command's answer that could not be shown at once (its send failed), kept to be
    # tried again like any notice. Its text was written for its reader when the command came.
    ANSWER = "answer"

    @property
    def private(self) -> bool:
        return self in (
            NoticeKind.DEAL,
            NoticeKind.PROMPT,
            NoticeKind.CLOSE,
            NoticeKind.PLAYED,
            NoticeKind.NUDGE,
        )
