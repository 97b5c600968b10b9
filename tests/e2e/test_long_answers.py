"""Long answers never silence a group: ``/history N`` of a long game, under Telegram's real
limits (20 messages a minute in a group), against the real bot process."""

from __future__ import annotations

import asyncio
import random
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from sqlalchemy import update
from sqlalchemy.engine import URL

from cuckoo_bot.app import lobby, play
from cuckoo_bot.app.clock import SystemClock
from cuckoo_bot.app.deps import Deps
from cuckoo_bot.app.model import Chat, GameStatus, Player
from cuckoo_bot.domain.rules import HouseRules
from cuckoo_bot.persistence.engine import make_engine
from cuckoo_bot.persistence.migrate import upgrade
from cuckoo_bot.persistence.models import OutboxRow
from cuckoo_bot.persistence.uow import sql_uow_factory
from fakebotapi import FakeBotApi
from tests.hostile import seen
from tests.support.driver import GROUP_PATIENCE

from .conftest import BOT_USERNAME, GROUP, BotProcess, telegram

pytestmark = pytest.mark.slow

ANN, BEN, STRANGER = 101, 102, 103


async def long_game_in_store(database_url: URL) -> int:
    """A finished 20-seat game in the group (Ann and 19 computer seats), long enough that its
    story takes several messages; its notices count as shown long ago."""
    await upgrade(database_url)
    engine = make_engine(database_url)
    try:
        deps = Deps(uow=sql_uow_factory(engine), rng=random.Random(4), clock=SystemClock())
        ann = Player(id=ANN, first_name="Ann", can_dm=True)
        group = Chat(id=GROUP, title="Cuckoo club", rules=HouseRules(max_players=20, lives=5))
        opened = await lobby.open_lobby(deps, group, ann, thread_id=None)
        assert opened.game_id is not None
        for _ in range(19):
            await lobby.add_computer(deps, opened.game_id, GROUP, ann, is_admin=True)
        await lobby.start(deps, GROUP, ann, is_admin=True)
        async with deps.uow() as uow:
            game = await uow.games.get(opened.game_id)
        while game is not None and game.status is GameStatus.RUNNING:
            assert game.state is not None
            await play.act(deps, game.id, ANN, "keep", game.state.turn)
            async with deps.uow() as uow:
                game = await uow.games.get(opened.game_id)
        assert game is not None and game.status is GameStatus.FINISHED
        async with engine.begin() as connection:
            await connection.execute(update(OutboxRow).values(sent_at=OutboxRow.created_at))
        return game.id
    finally:
        await engine.dispose()


@pytest.fixture
async def limited() -> AsyncIterator[FakeBotApi]:
    """The fake Bot API with Telegram's published limits: 429s past 20 a minute in a group."""
    async with telegram() as server:
        yield server


async def test_a_long_story_goes_privately_and_the_group_is_answered_at_once(
    limited: FakeBotApi, database_url: URL, tmp_path: Path
) -> None:
    fake = limited
    fake.add_user(ANN, "Ann", language_code="en", started=True)
    fake.add_user(BEN, "Ben", language_code="es", started=False)
    fake.add_user(STRANGER, "Stranger", language_code="en", started=True)
    fake.add_group(GROUP, "Cuckoo club", type="supergroup", members=[ANN, BEN], admins=[ANN])
    game_id = await long_game_in_store(database_url)
    bot = BotProcess(fake, database_url, tmp_path / "bot.log", CUCKOO_GROUP_RATE="20")
    try:
        await bot.start()
        loop = asyncio.get_running_loop()
        before = max((m.message_id for m in fake.messages(GROUP)), default=0)
        fake.user_sends(ANN, GROUP, f"/history {game_id}")
        await asyncio.sleep(2)  # a clock: the story is under way (a page a second) when /help comes
        asked = loop.time()
        fake.user_sends(ANN, GROUP, "/help")
        helped = await fake.wait_for_message(GROUP, contains="/newgame", timeout=60, after=before)
        waited = loop.time() - asked
        print(f"/help answered {waited:.2f} s after it was sent, 2 s after /history {game_id}")
        # The group got one line for the story, then the help: the story went privately.
        said = [m for m in fake.messages(GROUP) if m.from_bot and m.message_id > before]
        assert [m.message_id for m in said] == [said[0].message_id, helped.message_id]
        assert "is in our private chat" in seen(said[0].text)
        # The whole story, to the winner, one page a second (Telegram's pace in a private chat).
        await fake.wait_for_message(ANN, contains="🏆", timeout=60)
        pages = [m for m in fake.dm(ANN) if m.from_bot and "🃏" in (m.text or "")]
        assert len(pages) >= 2, [p.text for p in pages]
        assert f"#{game_id}" in (pages[0].text or "")

        # Ben never started the bot: the group line carries a key to read it privately.
        fake.user_sends(BEN, GROUP, f"/history {game_id}")
        offer = await fake.wait_for_message(
            GROUP, contains=f"#{game_id}", after=helped.message_id, timeout=GROUP_PATIENCE
        )
        link = next(b["url"] for row in offer.buttons() for b in row if "url" in b)
        assert link == f"https://t.me/{BOT_USERNAME}?start=story_{game_id}"
        fake.user_sends(BEN, BEN, f"/start story_{game_id}")
        told = await fake.wait_for_message(BEN, contains=f"#{game_id}", timeout=30)
        assert "Ronda" in (told.text or "")  # in Ben's own language
        # Someone outside the group cannot read the group's games.
        fake.user_sends(STRANGER, STRANGER, f"/start story_{game_id}")
        refused = await fake.wait_for_message(STRANGER, contains="not in", timeout=30)
        assert "#" not in (refused.text or "")
        assert all(c.status != 429 for c in fake.calls("sendMessage"))  # no flood, no wait
    finally:
        await bot.stop()
