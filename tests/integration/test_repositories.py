"""What only the SQL store does, beyond the contract every store keeps (``tests/contract``):
names kept byte for byte, and the processed-updates log forgetting old ids."""

from __future__ import annotations

from cuckoo_bot.app.ports import UnitOfWorkFactory
from cuckoo_bot.persistence.repositories import UPDATES_PRUNE_EVERY
from tests.databases import StepClock
from tests.hostile import hostile_players


async def test_hostile_names_are_stored_as_they_came(uow_factory: UnitOfWorkFactory) -> None:
    people = hostile_players(first_id=8_000_000_001)
    async with uow_factory() as uow:
        for person in people:
            await uow.players.upsert(person)
        await uow.commit()
    async with uow_factory(read_only=True) as uow:
        stored = await uow.players.get_many([p.id for p in people])
    assert stored == {p.id: p for p in people}  # shown readable, but kept exactly


async def test_processed_update_ids_are_forgotten_a_day_later(
    uow_factory: UnitOfWorkFactory, clock: StepClock
) -> None:
    async with uow_factory() as uow:
        assert await uow.updates.first_time(10) is True
        assert await uow.updates.first_time(UPDATES_PRUNE_EVERY * 2) is True  # sweeps nothing yet
        await uow.commit()
    async with uow_factory() as uow:
        assert await uow.updates.first_time(10) is False
    # A day later an update whose id is a multiple of UPDATES_PRUNE_EVERY sweeps the old ids out.
    clock.advance(days=1, seconds=1)
    async with uow_factory() as uow:
        assert await uow.updates.first_time(11) is True  # not a multiple: no sweep
        assert await uow.updates.first_time(10) is False
        assert await uow.updates.first_time(UPDATES_PRUNE_EVERY * 3) is True
        await uow.commit()
    async with uow_factory() as uow:
        assert await uow.updates.first_time(10) is True
        assert await uow.updates.first_time(UPDATES_PRUNE_EVERY * 2) is True
        assert await uow.updates.first_time(11) is False  # seen today: kept
        assert await uow.updates.first_time(UPDATES_PRUNE_EVERY * 3) is False
