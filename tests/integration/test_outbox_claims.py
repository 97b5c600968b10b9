"""Several instances claiming at once on one database never share a notice (PostgreSQL skips
the rows another transaction is claiming; SQLite's writers take turns). What a claim means
(leases, retries, hand back, take back, pruning) is the contract every store keeps:
``tests/contract/test_outbox.py``."""

from __future__ import annotations

import asyncio

from sqlalchemy.ext.asyncio import AsyncEngine

from cuckoo_bot.app.notices import Announcement, Delivered, Notice, NoticeKind
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


async def test_a_renewal_passes_over_notices_being_marked_and_never_deadlocks_with_the_mark(
    engine: AsyncEngine, clock: StepClock
) -> None:
    """A mark in hand holds its notices' rows until it commits. A renewal meanwhile renews
    the others and passes over those (they are done: no lease to keep); it does not wait, so
    the mark's next rows are free when it gets to them. Waiting, the two locked their rows in
    different orders and PostgreSQL broke the circle a second later by failing one of them."""
    uows = sql_uow_factory(engine, clock, instance="me")
    async with uows() as uow:
        await seed(uow)
        notices = [_note(str(i)) for i in range(4)]
        await uow.outbox.add_many(notices)
        await uow.commit()
    first, second, *others = [n.id for n in notices]
    if engine.dialect.name != "postgresql":
        # One writer at a time: the renewal comes after the mark, which took its notices.
        async with uows() as uow:
            await uow.outbox.mark([Delivered(second, 7, True)])
            await uow.commit()
        async with uows() as uow:
            renewed = await uow.outbox.renew({first, second, *others})
            await uow.commit()
        assert renewed == {first, *others}
        return
    async with uows() as marking:
        await marking.outbox.mark([Delivered(second, 7, True)])  # holds the second's row

        async def renew() -> set[int]:
            async with uows() as uow:
                found = await uow.outbox.renew({first, second, *others})
                await uow.commit()
                return found

        renewed = await asyncio.wait_for(renew(), timeout=5)
        assert renewed == {first, *others}
        await marking.outbox.mark([Delivered(first, 8, True)])  # free: the renewal is done
        await marking.commit()
    async with uows() as uow:
        assert await uow.outbox.renew({first, second, *others}) == set(others)
