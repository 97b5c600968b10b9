"""What only the SQL store does, beyond the contract every store keeps (``tests/contract``):
names kept byte for byte, and the processed-updates log forgetting old ids."""

from __future__ import annotations

<<<<<<< HEAD
import random
from dataclasses import replace
from datetime import timedelta

from cuckoo_bot.app import outbox
from cuckoo_bot.app.deps import Deps
from cuckoo_bot.app.model import ALL_TIME, GLOBAL_SCOPE, GameStatus, Player, Standing
from cuckoo_bot.app.notices import (
    Announcement,
    DealNote,
    Delivered,
    LobbyView,
    Notice,
    NoticeKind,
    PromptNote,
    TableView,
)
=======
>>>>>>> eb8899a (tests/contract: the ports' contract stated once and run over the in-memory store, SQLite and PostgreSQL (chats, players, games, deadlines, the outbox's order, leases, renewals, retries, take back, hand back, marks, edit targets and pruning, the league, processed updates, the unit of work); the pure contract statements move there from tests/integration, which keeps what only SQL does (hostile names kept exactly, update ids forgotten after a day, concurrent claims, derived rows, the one-open-game constraint))
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


<<<<<<< HEAD
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
        assert await uow.standings.of_player(PLAYERS[0].id, "all") == []
        assert await uow.updates.first_time(1)


async def test_first_time_dedupes_updates(uow_factory: UnitOfWorkFactory, clock: StepClock) -> None:
=======
async def test_processed_update_ids_are_forgotten_a_day_later(
    uow_factory: UnitOfWorkFactory, clock: StepClock
) -> None:
>>>>>>> eb8899a (tests/contract: the ports' contract stated once and run over the in-memory store, SQLite and PostgreSQL (chats, players, games, deadlines, the outbox's order, leases, renewals, retries, take back, hand back, marks, edit targets and pruning, the league, processed updates, the unit of work); the pure contract statements move there from tests/integration, which keeps what only SQL does (hostile names kept exactly, update ids forgotten after a day, concurrent claims, derived rows, the one-open-game constraint))
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
<<<<<<< HEAD


async def test_outbox_pending_oldest_first_until_marked_and_the_messages_to_edit(
    uow_factory: UnitOfWorkFactory, clock: StepClock
) -> None:
    ace = Card.from_code("AS")
    async with uow_factory() as uow:
        await seed(uow)
        first = await uow.games.add(lobby(status=GameStatus.FINISHED))
        second = await uow.games.add(lobby())
        player = PLAYERS[0].id
        notices = [
            Notice(
                NoticeKind.LOBBY,
                CHAT_ID,
                LobbyView(GameStatus.LOBBY, (1, 2)),
                first.id,
                thread_id=77,
            ),
            Notice(NoticeKind.DEAL, player, DealNote(1, ace, 2, 1, 3), second.id),
            Notice(NoticeKind.ANNOUNCE, CHAT_ID, Announcement("Misdealt", {"round": 1})),
            Notice(NoticeKind.TABLE, CHAT_ID, TableView(1, 2, (1, 2), (3, 3)), first.id),
            Notice(
                NoticeKind.PROMPT, player, PromptNote(1, 4, ace, 3, ("keep", "swap"), 2), second.id
            ),
        ]
        await uow.outbox.add_many(notices)
        await uow.commit()
    ids = [n.id for n in notices]
    assert ids == sorted(ids) and len(set(ids)) == 5
    assert all(n.created_at is not None for n in notices)
    async with uow_factory() as uow:
        assert await uow.outbox.claim() == notices  # typed payloads round-trip
        assert await uow.outbox.claim(limit=2) == notices[:2]
        assert await uow.outbox.claim(chat_id=player) == [notices[1], notices[4]]
    async with uow_factory(autocommit=True) as uow:
        await uow.outbox.mark(
            [
                Delivered(ids[0], message_id=501, live_keys=True),
                Delivered(ids[2], error="Forbidden: bot was blocked by the user"),
                Delivered(ids[1], message_id=7),
                Delivered(ids[4], message_id=8, live_keys=True),
            ]
        )
        await uow.commit()
    async with uow_factory() as uow:
        assert await uow.outbox.claim() == [notices[3]]
        sent = await uow.outbox.sent(second.id)
        # The prompt still has keys, and it is the newest message in the player's chat.
        assert [(s.notice.id, s.message_id, s.live_keys, s.newest) for s in sent] == [
            (ids[4], 8, True, 8)
        ]
        # A later edit of the same message takes its keys off (the row stays sent).
        await uow.outbox.mark([Delivered(ids[4], None, False, tries=0)])
        await uow.commit()
    async with uow_factory() as uow:
        assert await uow.outbox.sent(second.id) == []
        (lobby_message,) = await uow.outbox.sent(first.id)
        assert lobby_message.message_id == 501 and lobby_message.notice == notices[0]


async def test_standings_table_best_rating_then_wins(uow_factory: UnitOfWorkFactory) -> None:
    a, b, c, d = (p.id for p in PLAYERS)
    rows = [
        Standing(a, CHAT_ID, "2026-11", games=3, wins=1, rating_mu=30.0, rating_sigma=5.0),  # 15
        Standing(b, CHAT_ID, "2026-11", games=3, wins=0, rating_mu=27.0, rating_sigma=3.0),  # 18
        Standing(c, CHAT_ID, "2026-11", games=3, wins=2, rating_mu=24.0, rating_sigma=3.0),  # 15
        Standing(d, CHAT_ID, "2026-11", games=3, wins=5, rating_mu=20.0, rating_sigma=4.0),  # 8
        Standing(a, GLOBAL_SCOPE, "2026-11", games=9, wins=9, rating_mu=40.0, rating_sigma=1.0),
        Standing(a, CHAT_ID, ALL_TIME, games=1, rating_mu=26.0, rating_sigma=2.5),
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
        assert await uow.standings.get_many(CHAT_ID, "2026-11", [a, c, 99]) == {
            a: rows[0],
            c: rows[2],
        }
        # Saving again updates the line in place.
        better = replace(rows[3], games=4, wins=6, rating_mu=35.125, rating_sigma=1.0625)
        await uow.standings.save(better)
        await uow.commit()
    async with uow_factory() as uow:
        table = await uow.standings.table(CHAT_ID, "2026-11")
        assert table[0] == better and len(table) == 4
        mine = await uow.standings.of_player(a, "2026-11")
        assert sorted(mine, key=lambda s: s.scope) == sorted(
            [rows[0], rows[4]], key=lambda s: s.scope
        )


async def test_chat_migrate_moves_games_and_standings(uow_factory: UnitOfWorkFactory) -> None:
    new_id = CHAT_ID - 1
    a, b = PLAYERS[0].id, PLAYERS[1].id
    async with uow_factory() as uow:
        await uow.chats.add(chat(rules=ODD_RULES, turn_timeout=30.0))
        for player in PLAYERS:
            await uow.players.upsert(player)
        old_game = await uow.games.add(lobby(status=GameStatus.FINISHED, deadline=None))
        open_game = await uow.games.add(lobby())
        await uow.standings.save(Standing(a, CHAT_ID, "all", games=2, wins=2))
        await uow.standings.save(Standing(b, CHAT_ID, "all", games=2))
        await uow.standings.save(Standing(a, GLOBAL_SCOPE, "all", games=7))
        # The supergroup spoke first: its row exists, with a stale line for ``a``.
        await uow.chats.add(chat(new_id, title="New supergroup"))
        await uow.standings.save(Standing(a, new_id, "all", games=1))
        await uow.commit()
    async with uow_factory() as uow:
        assert await uow.chats.get(CHAT_ID, lock=True) is not None
        await uow.chats.migrate(CHAT_ID, new_id)
        await uow.commit()
    async with uow_factory() as uow:
        assert await uow.chats.get(CHAT_ID) is None
        moved = await uow.chats.get(new_id)
        assert moved == chat(new_id, rules=ODD_RULES, turn_timeout=30.0, migrated_from=CHAT_ID)
        assert await uow.games.open_in_chat(CHAT_ID) is None
        found = await uow.games.open_in_chat(new_id)
        assert found is not None and found.id == open_game.id
        finished = await uow.games.get(old_game.id)
        assert finished is not None and finished.chat_id == new_id
        assert await uow.standings.table(CHAT_ID, "all") == []
        assert await uow.standings.table(new_id, "all") == [
            Standing(a, new_id, "all", games=2, wins=2),
            Standing(b, new_id, "all", games=2),
        ]
        assert await uow.standings.table(GLOBAL_SCOPE, "all") == [
            Standing(a, GLOBAL_SCOPE, "all", games=7)
        ]


async def test_due_and_with_deadlines(uow_factory: UnitOfWorkFactory) -> None:
    chats = (CHAT_ID, CHAT_ID - 1, CHAT_ID - 2, CHAT_ID - 3)
    async with uow_factory() as uow:
        await seed(uow, chats)
        late = await uow.games.add(lobby(chats[0], deadline=START + timedelta(seconds=30)))
        early = await uow.games.add(lobby(chats[1], deadline=START - timedelta(seconds=5)))
        exact = await uow.games.add(lobby(chats[2], deadline=START))
        await uow.games.add(lobby(chats[3], deadline=None))
        # Cancelled games never come due, whatever their deadline says; a finished game's
        # deadline is its Play again key's.
        await uow.games.add(
            lobby(chats[0], status=GameStatus.CANCELLED, deadline=START - timedelta(days=1))
        )
        ended = await uow.games.add(
            lobby(chats[1], status=GameStatus.FINISHED, deadline=START - timedelta(seconds=1))
        )
        await uow.commit()
    async with uow_factory() as uow:
        assert await uow.games.due(START) == [
            (early.id, early.deadline),
            (ended.id, ended.deadline),
            (exact.id, START),
        ]
        assert await uow.games.due(START, limit=1) == [(early.id, early.deadline)]
        assert await uow.games.due(START - timedelta(minutes=1)) == []
        armed = await uow.games.with_deadlines()
        assert sorted(armed) == sorted(
            [
                (late.id, late.deadline),
                (early.id, early.deadline),
                (exact.id, START),
                (ended.id, ended.deadline),
            ]
        )
        assert all(deadline.tzinfo is not None for _, deadline in armed)


async def test_a_turns_nudge_wakes_the_game_before_its_deadline(
    uow_factory: UnitOfWorkFactory,
) -> None:
    async with uow_factory() as uow:
        await seed(uow, (CHAT_ID,))
        game = lobby(CHAT_ID, deadline=START + timedelta(seconds=20))
        game.warn_at = START - timedelta(seconds=1)
        game = await uow.games.add(game)
        await uow.commit()
    async with uow_factory() as uow:
        # Due at its nudge, though its deadline is still ahead; re-armed for the nudge too.
        assert await uow.games.due(START) == [(game.id, START - timedelta(seconds=1))]
        assert await uow.games.with_deadlines() == [(game.id, START - timedelta(seconds=1))]
        stored = await uow.games.get(game.id, lock=True)
        assert stored is not None and stored.warn_at == START - timedelta(seconds=1)
        stored.warn_at = None
        await uow.games.save(stored)
        await uow.commit()
    async with uow_factory() as uow:
        assert await uow.games.due(START) == []
        assert await uow.games.with_deadlines() == [(game.id, START + timedelta(seconds=20))]


async def test_where_a_notice_would_have_shown_in_its_chat(uow_factory: UnitOfWorkFactory) -> None:
    ace = Card.from_code("AS")
    player = PLAYERS[0].id
    async with uow_factory() as uow:
        await seed(uow)
        game = await uow.games.add(lobby())
        notices = [
            Notice(NoticeKind.DEAL, player, DealNote(1, ace, 2, 1, 3), game.id),
            Notice(NoticeKind.PROMPT, player, PromptNote(1, 4, ace, 3, ("keep",), 2), game.id),
            Notice(NoticeKind.DEAL, player, DealNote(2, ace, 2, 1, 3), game.id),
            Notice(NoticeKind.DEAL, CHAT_ID, DealNote(2, ace, 2, 1, 3), game.id),
        ]
        await uow.outbox.add_many(notices)
        await uow.commit()
    deal, prompt, later, elsewhere = (n.id for n in notices)
    async with uow_factory(autocommit=True) as uow:
        # The prompt's mark was lost: the chat's messages before and after it are known.
        await uow.outbox.mark(
            [
                Delivered(deal, message_id=4),
                Delivered(later, message_id=9),
                Delivered(elsewhere, message_id=5),
            ]
        )
        await uow.commit()
    async with uow_factory(read_only=True) as uow:
        assert await uow.outbox.newest_before(player, prompt) == 4
        assert await uow.outbox.newest_before(player, later) == 4
        assert await uow.outbox.newest_before(player, deal) == 0
        assert await uow.outbox.messages_between(player, 4, 9) == frozenset({4, 9})
        assert await uow.outbox.messages_between(player, 5, 8) == frozenset()
        assert await uow.outbox.messages_between(CHAT_ID, 1, 100) == frozenset({5})
    deps = Deps(uow=uow_factory, rng=random.Random(0), clock=StepClock())
    # Where the prompt would have shown: after 4, the messages no notice accounts for (9 is).
    assert await outbox.unaccounted(deps, player, prompt, below=None, span=6) == [5, 6, 7, 8, 10]
    # Below the copy sent again, nearest first, never under the earlier notices' newest.
    assert await outbox.unaccounted(deps, player, prompt, below=12, span=20) == [11, 10, 8, 7, 6, 5]
    assert await outbox.unaccounted(deps, player, prompt, below=5, span=20) == []
=======
>>>>>>> eb8899a (tests/contract: the ports' contract stated once and run over the in-memory store, SQLite and PostgreSQL (chats, players, games, deadlines, the outbox's order, leases, renewals, retries, take back, hand back, marks, edit targets and pruning, the league, processed updates, the unit of work); the pure contract statements move there from tests/integration, which keeps what only SQL does (hostile names kept exactly, update ids forgotten after a day, concurrent claims, derived rows, the one-open-game constraint))
