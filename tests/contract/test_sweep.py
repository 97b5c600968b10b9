"""The sweeper's one question (``SweepRepository.pending``): which of its reads would find
anything now. At every step each answer must be what the read itself finds, on every store:
a "no" where the read finds something would leave a game's clock, a held chat, a doubt, a
notice or a second copy to no sweep at all."""

from __future__ import annotations

from datetime import timedelta

from cuckoo_bot.app.model import GameStatus
from cuckoo_bot.app.notices import Delivered
from cuckoo_bot.app.ports import Pending, UnitOfWorkFactory
from tests.contract.conftest import Store
from tests.contract.steps import add, mark, note
from tests.databases import StepClock
from tests.integration.builders import CHAT_ID, lobby, seed

OTHER, THIRD = CHAT_ID - 1, CHAT_ID - 2


async def _pending(factory: UnitOfWorkFactory, clock: StepClock) -> Pending:
    """The one statement's answer, checked against the five reads it stands for."""
    async with factory(read_only=True) as uow:
        now = clock.now()
        pending = await uow.sweep.pending(now)
        assert pending == Pending(
            due=bool(await uow.games.due(now)),
            held=bool(await uow.chats.held(now)),
            doubts=bool(await uow.messages.doubts()),
            unsent=bool(await uow.outbox.backlog()),
            copies=bool(await uow.messages.copies()),
        )
    return pending


async def test_nothing_to_find_in_an_empty_store(store: Store, clock: StepClock) -> None:
    assert await _pending(store.instance("one"), clock) == Pending()


async def test_a_game_is_due_at_its_deadline_or_its_nudge_never_once_cancelled(
    store: Store, clock: StepClock
) -> None:
    one = store.instance("one")
    async with one() as uow:
        await seed(uow, (CHAT_ID, OTHER, THIRD))
        await uow.games.add(
            lobby(CHAT_ID, status=GameStatus.CANCELLED, deadline=clock.now() - timedelta(days=1))
        )
        waiting = await uow.games.add(lobby(OTHER, deadline=clock.now() + timedelta(seconds=30)))
        # A nudge with no deadline left wakes nothing (``due`` reads only a clock that runs).
        unclocked = lobby(THIRD, deadline=None)
        unclocked.warn_at = clock.now() - timedelta(seconds=1)
        await uow.games.add(unclocked)
        await uow.commit()
    assert await _pending(one, clock) == Pending()  # a cancelled game's clock is stopped
    clock.advance(seconds=30)
    assert await _pending(one, clock) == Pending(due=True)  # at its deadline exactly
    async with one() as uow:
        game = await uow.games.get(waiting.id, lock=True)
        assert game is not None
        game.deadline = clock.now() + timedelta(seconds=60)
        game.warn_at = clock.now() + timedelta(seconds=40)
        await uow.games.save(game)
        await uow.commit()
    assert await _pending(one, clock) == Pending()
    clock.advance(seconds=40)
    assert await _pending(one, clock) == Pending(due=True)  # its nudge, before its deadline


async def test_a_chat_is_held_until_telegrams_wait_is_over(store: Store, clock: StepClock) -> None:
    one = store.instance("one")
    async with one(autocommit=True) as uow:
        await uow.chats.hold(CHAT_ID, clock.now() + timedelta(seconds=30))
        await uow.commit()
    assert await _pending(one, clock) == Pending(held=True)
    clock.advance(seconds=30)
    assert await _pending(one, clock) == Pending()


async def test_a_doubt_until_it_is_settled(store: Store, clock: StepClock) -> None:
    one = store.instance("one")
    async with one() as uow:
        await seed(uow)
        await uow.commit()
    (first,) = await add(one, [note("a")])
    await mark(one, Delivered(first, 10))
    assert await _pending(one, clock) == Pending()
    async with one(autocommit=True) as uow:
        await uow.messages.doubt(CHAT_ID, first)
        await uow.commit()
    assert await _pending(one, clock) == Pending(doubts=True)
    async with one(autocommit=True) as uow:
        await uow.messages.settle_doubt(CHAT_ID, first)
        await uow.commit()
    assert await _pending(one, clock) == Pending()


async def test_unsent_until_every_notice_is_shown_or_refused_a_retry_still_unsent(
    store: Store, clock: StepClock
) -> None:
    """Any notice not delivered yet, whoever holds it."""
    one, two = store.instance("one"), store.instance("two")
    shown_id, refused_id, retried_id = await add(one, [note("a"), note("b"), note("c")])
    assert await _pending(two, clock) == Pending(unsent=True)  # held by "one": unsent all the same
    await mark(one, Delivered(shown_id, 7), Delivered(refused_id, error="Forbidden"))
    await mark(one, Delivered(retried_id, retry_at=clock.now() + timedelta(seconds=30)))
    assert await _pending(two, clock) == Pending(unsent=True)  # a try failed: tried again later
    await mark(two, Delivered(retried_id, 8))
    assert await _pending(one, clock) == Pending()


async def test_a_second_copy_until_it_is_deleted(store: Store, clock: StepClock) -> None:
    one = store.instance("one")
    async with one() as uow:
        await seed(uow)
        await uow.commit()
    ask, other = await add(one, [note("ask"), note("other")])
    await mark(one, Delivered(ask, 10, True), Delivered(other, 12, True))
    assert await _pending(one, clock) == Pending()
    await mark(one, Delivered(ask, 11, True))  # another copy, learnt of late
    assert await _pending(one, clock) == Pending(copies=True)
    async with one(autocommit=True) as uow:  # the copy deleted from its chat
        await uow.messages.forget(CHAT_ID, 10)
        await uow.commit()
    assert await _pending(one, clock) == Pending()
