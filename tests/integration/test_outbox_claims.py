"""Several instances on one database: each notice is held by one instance at a time, a dead
instance's notices are taken over when its lease runs out, a notice that keeps failing waits
longer each time and is given up, and old sent notices are pruned."""

from __future__ import annotations

import asyncio
import random
from datetime import timedelta

from sqlalchemy import text
from sqlalchemy.ext.asyncio import AsyncEngine

from cuckoo_bot.app import outbox
from cuckoo_bot.app.deps import Deps
from cuckoo_bot.app.model import GameStatus
from cuckoo_bot.app.notices import Announcement, Delivered, Notice, NoticeKind
from cuckoo_bot.app.outbox import LEASE, MAX_TRIES
from cuckoo_bot.persistence.uow import sql_uow_factory
from tests.databases import StepClock
from tests.integration.builders import CHAT_ID, lobby, seed


def _note(text: str, game_id: int | None = None) -> Notice:
    return Notice(NoticeKind.ANNOUNCE, CHAT_ID, Announcement(text, {}), game_id)


async def test_a_notice_is_held_by_the_instance_that_made_it_until_its_lease_runs_out(
    engine: AsyncEngine, clock: StepClock
) -> None:
    one = sql_uow_factory(engine, clock, instance="one")
    two = sql_uow_factory(engine, clock, instance="two")
    async with one() as uow:
        await seed(uow)
        made = [_note("a"), _note("b")]
        await uow.outbox.add_many(made)
        await uow.commit()
    async with two() as uow:
        assert await uow.outbox.claim() == []  # "one" is delivering them
        await uow.commit()
    async with one() as uow:
        assert [n.id for n in await uow.outbox.claim()] == [n.id for n in made]  # still its own
        await uow.commit()
    # "one" renews what it still has in hand; the other lease runs out (the instance died).
    clock.advance(seconds=LEASE.total_seconds() - 1)
    async with one(autocommit=True) as uow:
        await uow.outbox.renew([made[0].id])
        await uow.commit()
    clock.advance(seconds=2)
    async with two() as uow:
        assert [n.id for n in await uow.outbox.claim()] == [made[1].id]
        await uow.commit()
    async with one() as uow:
        assert [n.id for n in await uow.outbox.claim()] == [made[0].id]
        await uow.commit()


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


async def test_a_failing_notice_waits_longer_each_time_and_is_given_up_without_blocking(
    engine: AsyncEngine, clock: StepClock
) -> None:
    factory = sql_uow_factory(engine, clock, instance="one")
    async with factory() as uow:
        await seed(uow)
        bad, good = _note("bad"), _note("good")
        await uow.outbox.add_many([bad, good])
        await uow.commit()
    waits = []
    for _ in range(MAX_TRIES):
        async with factory() as uow:
            claimed = await uow.outbox.claim()
            await uow.commit()
        assert claimed and claimed[0].id == bad.id
        done = outbox.failed(claimed[0], "KeyError: 'x'", clock.now())
        async with factory(autocommit=True) as uow:
            await uow.outbox.mark([done])
            await uow.commit()
        if done.retry_at is None:
            assert done.error is not None and done.error.startswith(f"gave up after {MAX_TRIES}")
            break
        waits.append((done.retry_at - clock.now()).total_seconds())
        async with factory() as uow:  # waiting for its next try: only the one behind it
            assert [n.id for n in await uow.outbox.claim()] == [good.id]
            await uow.commit()
        clock.advance(seconds=waits[-1] + 0.5)
    assert waits == [2, 4, 8, 16, 32]
    async with factory() as uow:
        assert [n.id for n in await uow.outbox.claim()] == [good.id]
        assert await uow.outbox.backlog() == 1
        await uow.commit()


async def test_sent_notices_nothing_edits_are_pruned_after_the_retention(
    engine: AsyncEngine, clock: StepClock
) -> None:
    factory = sql_uow_factory(engine, clock, instance="one")
    async with factory() as uow:
        await seed(uow)
        over = await uow.games.add(lobby(status=GameStatus.FINISHED))
        running = await uow.games.add(lobby())
        notices = [
            _note("over", over.id),
            _note("running", running.id),
            _note("keys", over.id),
            _note("unsent", over.id),
            _note("no game"),
        ]
        await uow.outbox.add_many(notices)
        await uow.commit()
    async with factory(autocommit=True) as uow:
        await uow.outbox.mark(
            [
                Delivered(notices[0].id, message_id=1),
                Delivered(notices[1].id, message_id=2),
                Delivered(notices[2].id, message_id=3, live_keys=True),
                Delivered(notices[4].id, message_id=4),
            ]
        )
        await uow.commit()
    deps = Deps(uow=factory, rng=random.Random(0), clock=clock)
    assert await outbox.prune(deps) == 0
    clock.advance(seconds=(outbox.RETENTION + timedelta(minutes=1)).total_seconds())
    assert await outbox.prune(deps) == 2
    async with engine.connect() as connection:
        left = set((await connection.execute(text("SELECT id FROM outbox"))).scalars())
    # Kept: the running game's, the one with keys still on it, the one not sent yet.
    assert left == {notices[1].id, notices[2].id, notices[3].id}


async def test_a_new_life_of_an_instance_takes_its_own_claims_back_at_once(
    engine: AsyncEngine, clock: StepClock
) -> None:
    async with sql_uow_factory(engine, clock, instance="host-a")() as uow:
        await seed(uow)
        made = [_note("a"), _note("b")]
        await uow.outbox.add_many(made)
        await uow.commit()
    # The process dies at once and starts again under the same name: no lease to wait for.
    again = Deps(
        uow=sql_uow_factory(engine, clock, instance="host-a"), rng=random.Random(1), clock=clock
    )
    other = Deps(
        uow=sql_uow_factory(engine, clock, instance="host-b"), rng=random.Random(1), clock=clock
    )
    assert await outbox.take_back(other, everyone=False) == 0  # not "host-b"'s
    assert (await outbox.claim(other)).notices == []
    assert await outbox.take_back(again, everyone=False) == 2
    assert [n.id for n in (await outbox.claim(again)).notices] == [n.id for n in made]


async def test_the_sole_poller_takes_over_every_claim_but_leaves_a_retry_waiting(
    engine: AsyncEngine, clock: StepClock
) -> None:
    async with sql_uow_factory(engine, clock, instance="old")() as uow:
        await seed(uow)
        held, failing = _note("held"), _note("failing")
        await uow.outbox.add_many([held, failing])
        await uow.outbox.mark(
            [Delivered(failing.id, error="boom", retry_at=clock.now() + timedelta(seconds=30))]
        )
        await uow.commit()
    poller = Deps(
        uow=sql_uow_factory(engine, clock, instance="new"), rng=random.Random(1), clock=clock
    )
    assert await outbox.take_back(poller, everyone=True) == 1
    assert [n.id for n in (await outbox.claim(poller)).notices] == [held.id]
    clock.advance(seconds=31)  # the failed one's retry is due: anyone may take it then
    assert [n.id for n in (await outbox.claim(poller)).notices] == [held.id, failing.id]


async def test_a_stopping_instance_hands_back_what_it_holds(
    engine: AsyncEngine, clock: StepClock
) -> None:
    stopping = Deps(
        uow=sql_uow_factory(engine, clock, instance="stopping"), rng=random.Random(1), clock=clock
    )
    async with stopping.uow() as uow:
        await seed(uow)
        made = [_note("a"), _note("b")]
        await uow.outbox.add_many(made)
        await uow.commit()
    await outbox.mark(stopping, [Delivered(made[0].id, message_id=7)])  # one was shown
    successor = Deps(
        uow=sql_uow_factory(engine, clock, instance="next"), rng=random.Random(1), clock=clock
    )
    assert (await outbox.claim(successor)).notices == []  # held, lease running
    assert await outbox.hand_back(stopping) == 1
    assert [n.id for n in (await outbox.claim(successor)).notices] == [made[1].id]
