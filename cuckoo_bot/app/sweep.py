"""What the sweeper reads at each run before it acts (``transport/upkeep.py``): the games whose
clock ran out, the chats Telegram holds back, the chats in doubt, and whether the outbox holds
anything not delivered yet, in one unit of work.

Read one by one, they cost a unit of work each every two seconds, all day, on an idle bot too:
on PostgreSQL a connection taken from the pool and given back, and a session, for each. And
an idle sweep that finds nothing undelivered claims nothing: its claim (an UPDATE, a
transaction that commits) would have found nothing either.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from cuckoo_bot.app.deps import Deps


@dataclass(frozen=True)
class Look:
    """``due``: open games whose deadline (or nudge) has passed, with when they woke;
    ``held``: the chats Telegram refuses now, and until when (as any instance was told);
    ``doubts``: every chat in doubt, with its oldest doubtful notice; ``unsent``: some
    notice is not delivered yet (held by any instance, or by none)."""

    due: list[tuple[int, datetime]]
    held: dict[int, datetime]
    doubts: dict[int, int]
    unsent: bool


async def look(deps: Deps) -> Look:
    """The four reads, one statement each, in one unit of work."""
    async with deps.uow(read_only=True) as uow:
        now = deps.clock.now()
        return Look(
            due=await uow.games.due(now),
            held=await uow.chats.held(now),
            doubts=await uow.messages.doubts(),
            unsent=await uow.outbox.unsent(),
        )
