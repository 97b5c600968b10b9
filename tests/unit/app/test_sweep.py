"""What the sweeper reads at each run (``sweep.look``): the games whose clock ran out, the
chats Telegram holds back, the chats in doubt, whether anything is undelivered and the second
copies, all in one unit of work."""

from __future__ import annotations

import random
from datetime import timedelta

from cuckoo_bot.app import lobby, sweep
from cuckoo_bot.app.deps import Deps
from cuckoo_bot.app.model import Chat, Player
from cuckoo_bot.domain.rules import HouseRules
from tests.unit.app.fakes import FakeClock, FakeUnitOfWork, FakeUnitOfWorkFactory, World

GROUP = -100777


class Counted(FakeUnitOfWorkFactory):
    """The in-memory store, counting the units of work opened."""

    opened = 0

    def __call__(self, *, read_only: bool = False, autocommit: bool = False) -> FakeUnitOfWork:
        self.opened += 1
        return super().__call__(read_only=read_only, autocommit=autocommit)


async def test_one_look_reads_the_due_games_the_held_chats_and_the_doubts_at_once() -> None:
    world, clock = World(), FakeClock()
    store = Counted(world, clock)
    deps = Deps(uow=store, rng=random.Random(5), clock=clock, turn_timeout=90)
    people = [Player(id=i, first_name=f"P{i}", can_dm=True) for i in (1, 2)]
    opened = await lobby.open_lobby(
        deps, Chat(id=GROUP, title="Club", rules=HouseRules()), people[0], thread_id=None
    )
    assert opened.game_id is not None
    async with store(autocommit=True) as uow:
        await uow.chats.hold(GROUP, clock.now() + timedelta(seconds=30))
        await uow.messages.doubt(7, 40)
        await uow.commit()

    store.opened = 0
    quiet = await sweep.look(deps)
    assert store.opened == 1
    assert quiet.due == []  # the lobby's clock has not run out
    assert quiet.held == {GROUP: clock.now() + timedelta(seconds=30)}
    assert quiet.doubts == {7: 40}
    assert quiet.unsent  # the lobby's message is not shown yet

    clock.advance(timedelta(days=1).total_seconds())
    late = await sweep.look(deps)
    assert [game_id for game_id, _ in late.due] == [opened.game_id]
    assert late.held == {}  # the hold is over
    assert late.doubts == {7: 40}


async def test_once_every_notice_is_delivered_nothing_is_unsent() -> None:
    world, clock = World(), FakeClock()
    deps = Deps(uow=FakeUnitOfWorkFactory(world, clock), rng=random.Random(5), clock=clock)
    assert not (await sweep.look(deps)).unsent  # an empty outbox
    host = Player(id=1, first_name="P1", can_dm=True)
    await lobby.open_lobby(deps, Chat(id=GROUP, title="Club"), host, thread_id=None)
    assert (await sweep.look(deps)).unsent
    for notice_id in world.outbox:
        world.sent[notice_id] = clock.now()
    assert not (await sweep.look(deps)).unsent
