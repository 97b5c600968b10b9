"""What the sweeper reads at each run before it acts (``transport/upkeep.py``): the games whose
clock ran out, the chats Telegram holds back, the chats in doubt, whether the outbox holds
anything not delivered yet, and the second copies of a notice, in one unit of work.

It runs every two seconds, all day, on an idle bot too, and on nearly every run finds nothing,
or only notices on their way. So it asks first, in one statement, which of its reads would
find anything (``SweepRepository.pending``), and makes only those: an idle sweep is one
statement where it was five, each about 400 µs of the bot's CPU on PostgreSQL. And a sweep
that finds nothing undelivered claims nothing: its claim (an UPDATE, a transaction that
commits) would have found nothing either.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime

from cuckoo_bot.app.deps import Deps
from cuckoo_bot.app.notices.message import Message


@dataclass(frozen=True)
class Look:
    """``due``: open games whose deadline (or nudge) has passed, with when they woke;
    ``held``: the chats Telegram refuses now, and until when (as any instance was told);
    ``doubts``: every chat in doubt, with its oldest doubtful notice; ``unsent``: some
    notice is not delivered yet (held by any instance, or by none); ``copies``: second
    copies of a notice (``MessageRepository.copies``)."""

    due: list[tuple[int, datetime]]
    held: dict[int, datetime]
    doubts: dict[int, int]
    unsent: bool
    copies: list[Message] = field(default_factory=list)


async def look(deps: Deps) -> Look:
    """One statement says which reads would find anything; those are made, in the same unit
    of work."""
    async with deps.uow(read_only=True) as uow:
        now = deps.clock.now()
        pending = await uow.sweep.pending(now)
        return Look(
            due=await uow.games.due(now) if pending.due else [],
            held=await uow.chats.held(now) if pending.held else {},
            doubts=await uow.messages.doubts() if pending.doubts else {},
            unsent=pending.unsent,
            copies=await uow.messages.copies() if pending.copies else [],
        )
