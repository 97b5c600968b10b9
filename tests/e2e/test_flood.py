"""Telegram holds one group back (every call naming it answered 429 for a minute) while two
other groups play, against the real bot process and the fake Bot API with Telegram's limits on
(20 calls a minute in a group, one message a second in a private chat, 30 a second overall;
a tap left unanswered 15 s is too old). The held group stops only itself: the other games play
to their end during the hold, every tap everywhere is answered, the bot never calls the held
group before Telegram said it could, and the held game goes on in its private chats, its
table catching up afterwards with every reveal. How fast, in figures, is
``benchmarks/held.py``'s to measure."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from sqlalchemy.engine import URL

from fakebotapi import FakeBotApi
from tests.support.driver import told_rounds
from tests.support.held import evening, seat

from .conftest import BotProcess, audit_finished_games
from .test_operations import get, samples

pytestmark = pytest.mark.slow

HOLD = 60.0  # seconds Telegram holds the group back
GROUPS = (-1003000000001, -1003000000002, -1003000000003)


async def test_a_group_under_flood_control_holds_back_only_itself(
    fake: FakeBotApi, make_bot: Callable[..., BotProcess], database_url: URL
) -> None:
    bot = make_bot()  # Telegram's limits on (the e2e default), and the bot's own budget
    await bot.start()
    tables = [seat(fake, group, 100 * (i + 1), 3) for i, group in enumerate(GROUPS)]
    held = tables[0]
    night = await evening(fake, tables, held, HOLD)

    # Not one call named the held group before Telegram said it could be called again...
    assert fake.flood_violations() == []
    refused = [c for c in fake.calls() if c.status == 429]
    assert len([c for c in refused if str(c.params.get("chat_id")) == str(held.group)]) <= 3
    # ...and nothing else waited: every tap of every table was answered in Telegram's window,
    # and the other tables played their whole game while the group was still held (its end
    # told in their own group when their own budget allowed).
    assert [t.unanswered for t in tables] == [0, 0, 0]
    for table in night.others():
        assert table.ended_at is not None, table.group
        assert table.last_press is not None and table.last_press < night.ended, table.group
    # The held game went on in its private chats and ended; its table told it afterwards.
    assert held.ended_at is not None and held.ended_at >= night.ended
    games = {g.chat_id: g for g in await audit_finished_games(database_url, GROUPS)}
    assert set(games) == set(GROUPS)  # every game finished, no move lost or made twice
    for table in tables:
        game = games[table.group]
        assert game.state is not None
        texts = "\n".join(m.text or "" for m in fake.messages(table.group, include_deleted=False))
        assert told_rounds(texts) == set(range(1, game.state.rounds_dealt + 1)), table.group
        assert "won the game" in texts
    # The operator sees it: the group's hold counted in /metrics.
    figures = samples((await get(f"{bot.http_url()}/metrics"))[1])
    assert figures['cuckoo_flood_holds_total{held="group"}'] >= 1
