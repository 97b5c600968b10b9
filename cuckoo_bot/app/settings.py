"""A group's settings, one table: each setting's name (as in its key's data and its message
key), the values its key steps through, how a key's text is read back, and where the value
lives. The use case that changes a setting and the renderer that shows the keys both read it."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace
from enum import Enum
from typing import Any

from cuckoo_bot.app.model import Chat, whole_number
from cuckoo_bot.domain.errors import InvalidSettings
from cuckoo_bot.domain.rules import FinalTie, GameName, HouseRules

TURN_TIMEOUT_RANGE = (10, 3600)  # seconds a group may give a turn


@dataclass(frozen=True)
class Setting:
    name: str
    choices: tuple[Any, ...]  # what the key steps through, in order (then back to the first)
    read: Callable[[str], Any | None]  # the key's text as a value (None: not one)
    get: Callable[[Chat, float], Any]  # the value now (the bot's turn time when unset)

    @property
    def label(self) -> str:
        """The message that names it on its key (``{value}`` filled in)."""
        return f"setting_{self.name}"

    def following(self, value: Any) -> Any:
        """What the next tap sets: the choice after ``value`` (the first, from elsewhere)."""
        if value in self.choices:
            return self.choices[(self.choices.index(value) + 1) % len(self.choices)]
        return self.choices[0]

    def apply(self, chat: Chat, value: Any) -> None:
        """Set it on ``chat``; a value the rules do not allow raises ``InvalidSettings``."""
        if self.name == "turn_timeout":
            low, high = TURN_TIMEOUT_RANGE
            if not low <= value <= high:
                raise InvalidSettings(f"turn_timeout must be within {low}..{high} seconds")
            chat.turn_timeout = float(value)
        else:
            chat.rules = replace(chat.rules, **{self.name: value})


def encode(value: Any) -> str:
    """A value as a key's text: on/off as 1/0, a rule by its name, a number as digits."""
    if isinstance(value, bool):
        return str(int(value))
    if isinstance(value, Enum):
        return str(value.value)
    return str(value)


def _number(raw: str) -> int | None:
    return whole_number(raw, 4)


def _toggle(raw: str) -> bool | None:
    return {"1": True, "0": False}.get(raw)


def _member(kind: type[Enum]) -> Callable[[str], Any | None]:
    """A key's text as the member of ``kind`` it names (None: none does)."""
    return lambda raw: next((member for member in kind if member.value == raw), None)


def _rule(name: str) -> Callable[[Chat, float], Any]:
    return lambda chat, _default: getattr(chat.rules, name)


def _turn_time(chat: Chat, default: float) -> int:
    return int(chat.turn_timeout or default)


SETTINGS: tuple[Setting, ...] = (
    Setting("lives", (3, 5), _number, _rule("lives")),
    Setting("max_players", (10, 20), _number, _rule("max_players")),
    Setting("kings_block", (False, True), _toggle, _rule("kings_block")),
    Setting("final_tie", tuple(FinalTie), _member(FinalTie), _rule("final_tie")),
    Setting("double_cut", (False, True), _toggle, _rule("double_cut")),
    Setting("dealer_stays", (False, True), _toggle, _rule("dealer_stays")),
    Setting("queens_block", (False, True), _toggle, _rule("queens_block")),
    Setting("stakes", (False, True), _toggle, _rule("stakes")),
    Setting("kille", (False, True), _toggle, _rule("kille")),
    Setting("fast_turns", (False, True), _toggle, _rule("fast_turns")),
    Setting("turn_timeout", (30, 60, 90, 120, 300), _number, _turn_time),
    Setting("name", tuple(GameName), _member(GameName), _rule("name")),
)
BY_NAME = {setting.name: setting for setting in SETTINGS}

# Every house rule a group may change has its row (the rest, e.g. the idle-turn limit, is the
# bot's own); checked when the module loads.
assert {s.name for s in SETTINGS} - {"turn_timeout"} <= set(HouseRules.__dataclass_fields__)
