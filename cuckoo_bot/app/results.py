"""What a use case hands back to the transport: a short answer for the user and what changed."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from cuckoo_bot.app.dispatch import Dispatch


@dataclass(frozen=True)
class Reply:
    """A short answer for the user who asked (a popup for a button press, a line for a command).

    ``code`` is stable and translated by the transport; ``params`` fill its placeholders.
    """

    code: str
    params: dict[str, Any] = field(default_factory=dict)
    alert: bool = False  # show as a popup the user must dismiss (e.g. a private card)
    url: str | None = None  # open this link instead (a deep link to the bot)


@dataclass(frozen=True)
class Outcome:
    reply: Reply | None = None
    game_id: int | None = None
    deadline: datetime | None = None  # the game's next deadline, to arm a timer
    dispatch: Dispatch | None = None  # committed notices to deliver now


def refused(code: str, **params: Any) -> Outcome:
    return Outcome(reply=Reply(code, params))
