"""Several instances claiming at once on one database never share a notice (PostgreSQL skips
the rows another transaction is claiming; SQLite's writers take turns). What a claim means
(leases, retries, hand back, take back, pruning) is the contract every store keeps:
``tests/contract/test_outbox.py``."""

from __future__ import annotations

import asyncio

from sqlalchemy.ext.asyncio import AsyncEngine

from cuckoo_bot.app.notices import Announcement, Notice, NoticeKind
from cuckoo_bot.app.tuning import LEASE
from cuckoo_bot.persistence.uow import sql_uow_factory
from tests.databases import StepClock
from tests.integration.builders import CHAT_ID, seed


def _note(text: str, game_id: int | None = None) -> Notice:
    return Notice(NoticeKind.ANNOUNCE, CHAT_ID, Announcement(text, {}), game_id)


async def test_two_instances_claiming_at_once_never_share_a_notice(
    engine: AsyncEngine, clock: StepClock
) -> None:
    async with sql_uow_factory(engine, clock, instance="maker")() as uow:
        await seed(uow)
        await uow.outbox.add_many([_note(str(i)) for i in range(60)])
        await uow.commit()
    clock.advance(seconds=LEASE.total_seconds() + 1)  # the maker died: its notices are free
    instances = [sql_uow_factory(engine, clock, instance=f"i{k}") for k in range(8)]

    async def take(instance: int, limit: int) -> list[int]:
        async with instances[instance]() as uow:
            found = [n.id for n in await uow.outbox.claim(limit=limit)]
            await uow.commit()
            return found

    rounds = await asyncio.gather(*(take(k, 10) for k in range(8)))
    taken = [i for found in rounds for i in found]
    assert len(taken) == len(set(taken)) == 60
