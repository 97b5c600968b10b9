"""KeyData data: small, versioned, naming the game (and the round and turn for moves).

``1:k:<game>:<round>:<turn>`` and the like; never a card. Telegram allows 64 bytes.
"""

from __future__ import annotations

from dataclasses import dataclass

from telegram.constants import InlineKeyboardButtonLimit

from cuckoo_bot.app.model import whole_number
from cuckoo_bot.domain.actions import Move

VERSION = "1"
MAX_BYTES = InlineKeyboardButtonLimit.MAX_CALLBACK_DATA  # 64 bytes

# One letter per button kind.
KEEP, SWAP, CUT = "k", "s", "c"
MOVES = {KEEP: Move.KEEP, SWAP: Move.SWAP, CUT: Move.CUT}  # key kind: the move
MOVE_KEYS = {name: kind for kind, name in MOVES.items()}  # the move's name: key kind
JOIN, LEAVE, START, COMPUTER, CANCEL, MY_CARD, AGAIN = "j", "l", "g", "b", "x", "m", "a"
SETTING, LANGUAGE = "o", "t"
GAME_BUTTONS = {JOIN, LEAVE, START, COMPUTER, CANCEL, MY_CARD, AGAIN}


class BadKeyData(ValueError):
    """Data from an old version of the bot, or not from this bot at all."""


@dataclass(frozen=True)
class KeyData:
    kind: str
    game: int = 0
    round: int = 0
    turn: int = 0
    arg: str = ""  # setting name=value, or a language code

    def encode(self) -> str:
        if self.kind in MOVES:
            data = f"{VERSION}:{self.kind}:{self.game}:{self.round}:{self.turn}"
        elif self.kind in GAME_BUTTONS:
            data = f"{VERSION}:{self.kind}:{self.game}"
        else:
            data = f"{VERSION}:{self.kind}:{self.arg}"
        if len(data.encode()) > MAX_BYTES:
            raise ValueError(f"callback data too long: {data!r}")
        return data


MAX_ID = 2**31 - 1  # game ids, rounds and turns are 32-bit integers in the store


def _number(text: str) -> int:
    """A non-negative id that fits the store; anything else is not this bot's key."""
    number = whole_number(text, 10)
    if number is None or number > MAX_ID:
        raise ValueError(text)
    return number


def decode(data: str | None) -> KeyData:
    if not data:
        raise BadKeyData("empty")
    parts = data.split(":")
    if parts[0] != VERSION or len(parts) < 3:
        raise BadKeyData(data)
    kind = parts[1]
    try:
        if kind in MOVES and len(parts) == 5:
            return KeyData(kind, _number(parts[2]), _number(parts[3]), _number(parts[4]))
        if kind in GAME_BUTTONS and len(parts) == 3:
            return KeyData(kind, _number(parts[2]))
        if kind in (SETTING, LANGUAGE):
            return KeyData(kind, arg=":".join(parts[2:]))
    except ValueError as exc:
        raise BadKeyData(data) from exc
    raise BadKeyData(data)
