"""A running game whose turn nothing asks for is asked again (``repair.stalled``); a round
whose table no message shows is shown again (``repair.untold``)."""

from __future__ import annotations

import random
from dataclasses import replace

from cuckoo_bot.app import lobby, repair, tuning
from cuckoo_bot.app.deps import Deps
from cuckoo_bot.app.model import Chat, Player
from cuckoo_bot.app.notices import NoticeKind, PromptNote, TableView
from cuckoo_bot.app.outbox import Batch
from cuckoo_bot.domain.rules import HouseRules
from tests.unit.app.fakes import FakeClock, FakeUnitOfWorkFactory, World

GROUP = -100555


async def _running(world: World, clock: FakeClock) -> tuple[Deps, int]:
    deps = Deps(
        uow=FakeUnitOfWorkFactory(world, clock), rng=random.Random(3), clock=clock, turn_timeout=90
    )
    people = [Player(id=i, first_name=f"P{i}", can_dm=True) for i in (1, 2, 3)]
    chat = Chat(id=GROUP, title="Club", rules=HouseRules())
    opened = await lobby.open_lobby(deps, chat, people[0], thread_id=None)
    assert opened.game_id is not None
    for person in people[1:]:
        await lobby.join(deps, opened.game_id, person)
    await lobby.start(deps, GROUP, people[0], is_admin=False)
    return deps, opened.game_id


def _deliver_all(world: World, clock: FakeClock, *, prompt_keys: bool) -> None:
    """Every notice shown; the prompts with their keys, or (by mistake) without."""
    for i, notice in world.outbox.items():
        if i not in world.sent:
            world.sent[i] = clock.now()
            keys = notice.kind is NoticeKind.PROMPT and prompt_keys
            world.put(i, 100 + i, keys)


async def test_a_turn_whose_prompt_lost_its_keys_is_asked_again_once_its_grace_is_over() -> None:
    world, clock = World(), FakeClock()
    deps, game_id = await _running(world, clock)
    assert (await repair.stalled(deps))[0] == []  # the prompt is on its way
    _deliver_all(world, clock, prompt_keys=False)
    clock.advance(tuning.REPAIR_GRACE.total_seconds() - 1)
    assert (await repair.stalled(deps))[0] == []  # young: maybe on its way elsewhere
    clock.advance(1)
    repaired, batch = await repair.stalled(deps)
    assert repaired == [game_id]
    state = world.games[game_id].state
    assert state is not None and state.actor is not None
    (asked,) = batch.notices
    assert (asked.kind, asked.chat_id) == (NoticeKind.PROMPT, state.actor)
    note = asked.payload
    assert isinstance(note, PromptNote) and note.turn == state.turn and note.options
    assert note.deadline == world.games[game_id].deadline  # the same clock, not a new one
    assert (await repair.stalled(deps))[0] == []  # asked: on its way now


async def test_a_game_whose_prompt_shows_its_keys_is_left_alone() -> None:
    world, clock = World(), FakeClock()
    deps, game_id = await _running(world, clock)
    _deliver_all(world, clock, prompt_keys=True)
    clock.advance(300)
    written = len(world.outbox)
    assert await repair.stalled(deps) == ([], Batch([]))
    assert len(world.outbox) == written and world.games[game_id].status.open


def _newest_table(world: World) -> int:
    return max(i for i, n in world.outbox.items() if n.kind is NoticeKind.TABLE)


def _pass_over_the_table(world: World, clock: FakeClock, why: str = "superseded") -> int:
    """Everything shown, but the newest table passed over with nothing showing it."""
    _deliver_all(world, clock, prompt_keys=True)
    table = _newest_table(world)
    for row_id, row in list(world.messages.items()):
        if row.shown == table:
            del world.messages[row_id]
    world.errors[table] = why
    return table


async def test_a_round_whose_table_no_message_shows_is_shown_again_once() -> None:
    world, clock = World(), FakeClock()
    deps, game_id = await _running(world, clock)
    table = _pass_over_the_table(world, clock)
    clock.advance(tuning.REPAIR_GRACE.total_seconds() - 1)
    assert (await repair.untold(deps))[0] == []  # young: maybe on its way elsewhere
    clock.advance(1)
    repaired, batch = await repair.untold(deps)
    assert [n.id for n in repaired] == [table]
    (copy,) = batch.notices
    lost = world.outbox[table]
    assert copy.id > table
    assert (copy.kind, copy.chat_id, copy.thread_id, copy.game_id, copy.payload) == (
        NoticeKind.TABLE,
        GROUP,
        lost.thread_id,
        game_id,
        lost.payload,
    )
    assert (await repair.untold(deps))[0] == []  # the copy is on its way
    world.sent[copy.id] = clock.now()
    world.put(copy.id, 900, False)
    clock.advance(60)
    assert (await repair.untold(deps))[0] == []  # and shown


async def test_a_table_telegram_refused_or_that_asks_a_turn_gone_by_is_not_shown_again() -> None:
    world, clock = World(), FakeClock()
    deps, game_id = await _running(world, clock)
    _pass_over_the_table(world, clock, why="forbidden: bot was kicked from the group chat")
    clock.advance(60)
    assert await repair.untold(deps) == ([], Batch([]))  # it would be refused again
    world.errors[_newest_table(world)] = "superseded"
    game = world.games[game_id]
    assert game.state is not None
    world.games[game_id] = replace(game, state=replace(game.state, turn=game.state.turn + 1))
    view = world.outbox[_newest_table(world)].payload
    assert isinstance(view, TableView) and not view.final
    assert await repair.untold(deps) == ([], Batch([]))  # a newer view would stand in for it
