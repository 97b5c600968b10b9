"""The league tables, the log of processed updates, and the unit of work itself: only a commit
keeps what was written, and what was read is the reader's to change."""

from __future__ import annotations

from dataclasses import replace

from cuckoo_bot.app.model import ALL_TIME, GLOBAL_SCOPE, GameStatus, Standing
from cuckoo_bot.app.notices import LobbyView, Notice, NoticeKind
from cuckoo_bot.app.ports import UnitOfWorkFactory
from tests.integration.builders import CHAT_ID, PLAYERS, chat, lobby, seed

A, B, C, D = (p.id for p in PLAYERS)


async def test_standings_table_best_rating_then_wins(uow_factory: UnitOfWorkFactory) -> None:
    rows = [
        Standing(A, CHAT_ID, "2026-11", games=3, wins=1, rating_mu=30.0, rating_sigma=5.0),  # 15
        Standing(B, CHAT_ID, "2026-11", games=3, wins=0, rating_mu=27.0, rating_sigma=3.0),  # 18
        Standing(C, CHAT_ID, "2026-11", games=3, wins=2, rating_mu=24.0, rating_sigma=3.0),  # 15
        Standing(D, CHAT_ID, "2026-11", games=3, wins=5, rating_mu=20.0, rating_sigma=4.0),  # 8
        Standing(A, GLOBAL_SCOPE, "2026-11", games=9, wins=9, rating_mu=40.0, rating_sigma=1.0),
        Standing(A, CHAT_ID, ALL_TIME, games=1, rating_mu=26.0, rating_sigma=2.5),
    ]
    async with uow_factory() as uow:
        await seed(uow)
        for row in rows:
            await uow.standings.save(row)
        await uow.commit()
    async with uow_factory() as uow:
        assert await uow.standings.table(CHAT_ID, "2026-11") == [rows[1], rows[2], rows[0], rows[3]]
        assert await uow.standings.table(CHAT_ID, "2026-11", limit=1) == [rows[1]]
        assert await uow.standings.table(GLOBAL_SCOPE, "2026-11") == [rows[4]]
        assert await uow.standings.table(CHAT_ID, "2026-10") == []
        assert await uow.standings.get_many(CHAT_ID, "2026-11", [A, C, 99]) == {
            A: rows[0],
            C: rows[2],
        }
        assert await uow.standings.get_many(CHAT_ID, "2026-11", []) == {}
        assert await uow.standings.table(CHAT_ID, "2026-11", limit=None) == [
            rows[1],
            rows[2],
            rows[0],
            rows[3],
        ]
        # Saving again updates the line in place.
        better = replace(rows[3], games=4, wins=6, rating_mu=35.125, rating_sigma=1.0625)
        await uow.standings.save(better)
        await uow.commit()
    async with uow_factory() as uow:
        table = await uow.standings.table(CHAT_ID, "2026-11")
        assert table[0] == better and len(table) == 4
        assert [s.player_id for s in table] == [D, B, C, A]
        mine = await uow.standings.of_player(A, "2026-11")
        assert sorted(mine, key=lambda s: s.scope) == sorted(
            [rows[0], rows[4]], key=lambda s: s.scope
        )


async def test_claiming_lines_makes_the_missing_ones(uow_factory: UnitOfWorkFactory) -> None:
    known = Standing(
        A, CHAT_ID, "2026-11", games=3, wins=1, rating_mu=30.0, rating_sigma=5.0, chips=-4
    )
    async with uow_factory() as uow:
        await seed(uow)
        await uow.standings.save(known)
        await uow.commit()
    async with uow_factory() as uow:
        claimed = await uow.standings.claim(CHAT_ID, "2026-11", [B, A])
        assert claimed == {A: known, B: Standing(B, CHAT_ID, "2026-11")}
        assert await uow.standings.claim(CHAT_ID, "2026-11", []) == {}
        await uow.commit()
    async with uow_factory() as uow:
        # Made, not only handed out: the new line is in the table with a new player's rating.
        assert await uow.standings.table(CHAT_ID, "2026-11") == [
            known,
            Standing(B, CHAT_ID, "2026-11"),
        ]


async def test_first_time_dedupes_updates(uow_factory: UnitOfWorkFactory) -> None:
    async with uow_factory() as uow:
        assert await uow.updates.first_time(10) is True
        assert await uow.updates.first_time(10) is False
        assert await uow.updates.first_time(11) is True
        await uow.commit()
    async with uow_factory() as uow:
        assert await uow.updates.first_time(10) is False
        assert await uow.updates.first_time(12) is True
        # no commit: 12 was not processed after all
    async with uow_factory() as uow:
        assert await uow.updates.first_time(12) is True
        assert await uow.updates.first_time(11) is False


async def test_uncommitted_unit_of_work_leaves_no_trace(uow_factory: UnitOfWorkFactory) -> None:
    async with uow_factory() as uow:
        await seed(uow)
        game = await uow.games.add(lobby())
        await uow.outbox.add_many(
            [Notice(NoticeKind.LOBBY, CHAT_ID, LobbyView(GameStatus.LOBBY), game.id)]
        )
        await uow.standings.save(Standing(player_id=PLAYERS[0].id, scope=CHAT_ID, season="all"))
        assert await uow.updates.first_time(1)
        assert await uow.games.get(game.id) is not None  # visible inside the transaction
        # no commit
    try:
        async with uow_factory() as uow:
            await uow.chats.add(chat())
            raise RuntimeError("the handler failed")
    except RuntimeError:
        pass
    async with uow_factory() as uow:
        assert await uow.chats.get(CHAT_ID) is None
        assert await uow.players.get(PLAYERS[0].id) is None
        assert await uow.games.get(game.id) is None
        assert await uow.outbox.claim() == []
        assert await uow.outbox.backlog() == 0
        assert await uow.standings.of_player(PLAYERS[0].id, "all") == []
        assert await uow.updates.first_time(1)


async def test_what_was_read_and_changed_is_kept_only_once_saved(
    uow_factory: UnitOfWorkFactory,
) -> None:
    line = Standing(A, CHAT_ID, ALL_TIME, games=2)
    async with uow_factory() as uow:
        await seed(uow)
        await uow.standings.save(line)
        await uow.commit()
    async with uow_factory() as uow:
        found = await uow.chats.get(CHAT_ID, lock=True)
        assert found is not None
        found.title = "Changed but never saved"
        player = await uow.players.get(A)
        assert player is not None
        player.first_name = "Changed too"
        (claimed,) = (await uow.standings.claim(CHAT_ID, ALL_TIME, [A])).values()
        claimed.games += 1
        (other,) = await uow.standings.of_player(A, ALL_TIME)
        other.wins += 1
        await uow.commit()
    async with uow_factory() as uow:
        assert await uow.chats.get(CHAT_ID) == chat()
        assert await uow.players.get(A) == PLAYERS[0]
        assert await uow.standings.table(CHAT_ID, ALL_TIME) == [line]
