"""Decoded states and payloads kept between reads (``persistence/decoded.py``): a read gives
what the store holds now, whoever wrote it; a kept value is given back only for the same JSON."""

from __future__ import annotations

import random
from types import SimpleNamespace

from sqlalchemy import update
from sqlalchemy.ext.asyncio import AsyncEngine

from cuckoo_bot.app.notices import NoticeKind, TurnView
from cuckoo_bot.app.ports import UnitOfWorkFactory
from cuckoo_bot.domain import codec
from cuckoo_bot.persistence.decoded import Decoded
from cuckoo_bot.persistence.mapping import notice_from_row
from cuckoo_bot.persistence.models import GameRow
from tests.integration.builders import START, choose, lobby, seed, start, step


def test_a_kept_value_is_given_back_only_for_equal_data() -> None:
    decoded: Decoded[tuple[int, ...]] = Decoded(2)
    made: list[object] = []

    def decode(data: list[int]) -> tuple[int, ...]:
        made.append(data)
        return tuple(data)

    first = decoded.get(1, [1, 2], decode)
    assert decoded.get(1, [1, 2], decode) is first  # equal data: the value kept
    assert decoded.get(1, [1, 3], decode) == (1, 3)  # other data under the same key: decoded
    assert decoded.get(2, [1, 3], decode) == (1, 3)  # the same data under another key: decoded
    decoded.get(3, [9], decode)  # the least recently read (key 1) is dropped
    assert decoded.get(1, [1, 3], decode) == (1, 3)
    assert len(made) == 5 and (decoded.hits, decoded.misses) == (1, 5)


async def test_a_state_written_behind_the_process_back_is_read_as_stored(
    uow_factory: UnitOfWorkFactory, engine: AsyncEngine
) -> None:
    """Another instance (or a rolled-back unit of work that had read its own write) may leave
    the row at the same version with another state: the state read is the row's."""
    rng = random.Random(3)
    game = lobby()
    start(game, START)
    assert game.state is not None
    for _ in range(4):
        step(game, choose(game.state, rng), START)
    async with uow_factory() as uow:
        await seed(uow)
        await uow.games.add(game)
        await uow.commit()
    async with uow_factory(read_only=True) as uow:
        first = await uow.games.get(game.id)
        again = await uow.games.get(game.id)
    assert first is not None and again is not None
    assert first.state == game.state and again.state is first.state  # decoded once

    older = game.state
    step(game, choose(game.state, rng), START)
    assert game.state != older
    async with engine.begin() as connection:  # the same version, another state
        await connection.execute(
            update(GameRow).where(GameRow.id == game.id).values(state=codec.dump_state(game.state))
        )
    async with uow_factory(read_only=True) as uow:
        now = await uow.games.get(game.id)
    assert now is not None and now.version == first.version
    assert now.state == game.state != older


def test_a_notice_read_again_with_another_payload_is_decoded_again() -> None:
    """A notice's payload by its kind and id: read again with other JSON (an id used again
    after the table was emptied, another database), the payload is the JSON's."""

    def row(round_: int) -> SimpleNamespace:
        view = TurnView(round=round_, turn=1, actor=7, options=())
        return SimpleNamespace(
            id=991_001,
            kind=NoticeKind.TURN.value,
            chat_id=-100,
            game_id=5,
            payload=codec.dump(view),
            thread_id=None,
            created_at=START,
            attempts=0,
        )

    first = notice_from_row(row(1))
    assert notice_from_row(row(1)).payload is first.payload
    assert notice_from_row(row(2)).payload == TurnView(round=2, turn=1, actor=7, options=())


async def test_a_state_this_process_wrote_is_read_back_as_written_unless_rolled_back(
    uow_factory: UnitOfWorkFactory,
) -> None:
    rng = random.Random(5)
    game = lobby()
    start(game, START)
    async with uow_factory() as uow:
        await seed(uow)
        await uow.games.add(game)
        await uow.commit()
    assert game.state is not None
    step(game, choose(game.state, rng), START)
    async with uow_factory() as uow:
        await uow.games.save(game)
        await uow.commit()
    async with uow_factory(read_only=True) as uow:
        read = await uow.games.get(game.id)
    assert read is not None and read.state is game.state  # not decoded: kept as written

    committed = game.state
    step(game, choose(game.state, rng), START)
    async with uow_factory() as uow:
        await uow.games.save(game)  # written, then rolled back
    async with uow_factory(read_only=True) as uow:
        read = await uow.games.get(game.id)
    assert read is not None and read.state == committed != game.state
