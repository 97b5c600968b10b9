"""Chats and players: what is stored comes back, a later sighting keeps what is known, and a
supergroup migration takes the chat's games and league along."""

from __future__ import annotations

from dataclasses import replace
from datetime import UTC, datetime, timedelta

from cuckoo_bot.app.model import GLOBAL_SCOPE, GameStatus, Player, Standing
from cuckoo_bot.app.ports import UnitOfWorkFactory
from cuckoo_bot.domain.rules import HouseRules
from tests.contract.conftest import Store
from tests.integration.builders import CHAT_ID, ODD_RULES, PLAYERS, chat, lobby


async def test_chat_round_trip_keeps_house_rules(uow_factory: UnitOfWorkFactory) -> None:
    stored = chat(rules=ODD_RULES, turn_timeout=42.5, language="fr")
    async with uow_factory() as uow:
        await uow.chats.add(stored)
        await uow.commit()
    async with uow_factory() as uow:
        assert await uow.chats.get(CHAT_ID) == stored
        assert await uow.chats.get(CHAT_ID + 1) is None
        changed = replace(stored, title="Renamed", rules=HouseRules(), turn_timeout=None)
        changed.active = False
        await uow.chats.save(changed)
        await uow.commit()
    async with uow_factory() as uow:
        assert await uow.chats.get(CHAT_ID, lock=True) == changed


async def test_a_groups_pot_is_written_only_by_a_games_end_and_moves_with_the_chat(
    uow_factory: UnitOfWorkFactory,
) -> None:
    async with uow_factory() as uow:
        await uow.chats.add(chat())
        await uow.commit()
    async with uow_factory() as uow:
        assert await uow.chats.take_pot(CHAT_ID) == 0
        await uow.chats.put_pot(CHAT_ID, 3)
        await uow.commit()
    async with uow_factory() as uow:
        stale = await uow.chats.get(CHAT_ID)
        assert stale is not None and stale.pot == 3
        # A settings change saved from a copy read before the pot moved leaves the pot alone.
        await uow.chats.save(replace(stale, title="Renamed", pot=0))
        await uow.commit()
    async with uow_factory() as uow:
        assert await uow.chats.take_pot(CHAT_ID) == 3
        await uow.chats.migrate(CHAT_ID, CHAT_ID - 1)
        await uow.commit()
    async with uow_factory() as uow:
        assert await uow.chats.take_pot(CHAT_ID - 1) == 3
        assert await uow.chats.take_pot(CHAT_ID) == 0  # no such chat any more


async def test_player_upsert_keeps_what_is_known(uow_factory: UnitOfWorkFactory) -> None:
    ann = Player(id=7_000_000_001, first_name="Ann", username="ann", language="es", can_dm=True)
    async with uow_factory() as uow:
        assert await uow.players.upsert(ann) == ann
        await uow.commit()
    async with uow_factory() as uow:
        # A later sighting: new name, no news on DMs, Telegram's language ignored once known.
        again = Player(id=ann.id, first_name="Annie", last_name="A", language="fr")
        expected = replace(again, can_dm=True, language="es")
        assert await uow.players.upsert(again) == expected
        assert await uow.players.get(ann.id) == expected
        assert (await uow.players.upsert(replace(again, can_dm=False))).can_dm is False
        await uow.players.set_language(ann.id, "fr")
        await uow.commit()
    async with uow_factory() as uow:
        stored = await uow.players.get(ann.id)
        assert stored == replace(expected, can_dm=False, language="fr")
        robot = await uow.players.upsert(PLAYERS[3])
        assert robot == PLAYERS[3]
        found = await uow.players.get_many([ann.id, robot.id, 42])
        assert found == {ann.id: stored, robot.id: robot}
        assert await uow.players.get_many([]) == {}


async def test_a_player_first_seen_without_a_language_takes_the_next_one_and_reachability(
    uow_factory: UnitOfWorkFactory,
) -> None:
    bea = Player(id=7_000_000_002, first_name="Bea")
    async with uow_factory() as uow:
        assert await uow.players.upsert(bea) == bea  # can_dm and language unknown
        assert (await uow.players.upsert(replace(bea, language="fr"))).language == "fr"
        await uow.players.set_reachable(bea.id, False)
        await uow.commit()
    async with uow_factory() as uow:
        assert await uow.players.get(bea.id) == replace(bea, language="fr", can_dm=False)
        await uow.players.set_reachable(bea.id, True)
        await uow.commit()
    async with uow_factory() as uow:
        found = await uow.players.get(bea.id)
        assert found is not None and found.can_dm is True


async def test_language_and_reachability_of_someone_never_seen_change_nothing(
    uow_factory: UnitOfWorkFactory,
) -> None:
    async with uow_factory() as uow:
        await uow.players.set_language(42, "fr")
        await uow.players.set_reachable(42, False)
        await uow.commit()
    async with uow_factory() as uow:
        assert await uow.players.get(42) is None


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


async def test_migrating_a_chat_never_seen_does_nothing(uow_factory: UnitOfWorkFactory) -> None:
    async with uow_factory() as uow:
        await uow.chats.migrate(CHAT_ID, CHAT_ID - 1)
        await uow.commit()
    async with uow_factory() as uow:
        assert await uow.chats.get(CHAT_ID) is None
        assert await uow.chats.get(CHAT_ID - 1) is None


async def test_a_flood_wait_is_held_until_it_ends_and_never_shortened(
    store: Store,
) -> None:
    """Until when Telegram refuses a chat is the store's, so another instance (or the next
    life of this one) waits for it too; a later, shorter 429 never cuts a longer wait."""
    group, person = CHAT_ID, 7_000_000_001
    now = datetime(2026, 12, 3, 12, 0, tzinfo=UTC)
    one, two = store.instance("one"), store.instance("two")
    async with one(autocommit=True) as uow:
        await uow.chats.hold(group, now + timedelta(seconds=30))
        await uow.chats.hold(person, now + timedelta(seconds=2))
        await uow.commit()
    async with two(read_only=True) as uow:
        assert await uow.chats.held(now) == {
            group: now + timedelta(seconds=30),
            person: now + timedelta(seconds=2),
        }
        assert await uow.chats.held(now + timedelta(seconds=5)) == {
            group: now + timedelta(seconds=30)
        }
    async with two(autocommit=True) as uow:
        await uow.chats.hold(group, now + timedelta(seconds=10))  # shorter: kept as it was
        await uow.chats.hold(person, now + timedelta(seconds=40))  # longer: lengthened
        await uow.commit()
    async with one(read_only=True) as uow:
        assert await uow.chats.held(now + timedelta(seconds=31)) == {
            person: now + timedelta(seconds=40)
        }
        assert await uow.chats.held(now + timedelta(seconds=40)) == {}
    async with one(autocommit=True) as uow:  # a day later: the old holds are forgotten
        await uow.chats.hold(group, now + timedelta(days=2))
        await uow.commit()
    async with one(read_only=True) as uow:
        assert await uow.chats.held(now) == {group: now + timedelta(days=2)}
