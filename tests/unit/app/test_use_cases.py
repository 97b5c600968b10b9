"""Use cases over the in-memory store: lobby to winner, presses, clocks, leaving, leagues."""

from __future__ import annotations

import random
from dataclasses import replace
from datetime import timedelta

from cuckoo_bot.app import chats, lobby, outbox, play, queries, sweep
from cuckoo_bot.app.deps import Deps
from cuckoo_bot.app.model import ALL_TIME, GLOBAL_SCOPE, Asker, Chat, GameStatus, Player
from cuckoo_bot.app.notices import NoticeKind
from cuckoo_bot.app.results import Outcome, ReplyCode
from cuckoo_bot.app.settings import SETTINGS, encode
from cuckoo_bot.domain import codec
from cuckoo_bot.domain.actions import Deal
from cuckoo_bot.domain.engine import apply
from cuckoo_bot.domain.rules import HouseRules

from .conftest import person
from .fakes import FakeClock, FakeUnitOfWorkFactory, World
from .fakes import FakeUnitOfWork as FakeUoW

ANN, BEN, CLEO, DAN = (person(11, "Ann"), person(12, "Ben"), person(13, "Cleo"), person(14, "Dan"))


async def running_game(deps: Deps, group: Chat, players: list[Player]) -> int:
    opened = await lobby.open_lobby(deps, group, players[0], thread_id=None)
    assert opened.game_id is not None
    for player in players[1:]:
        joined = await lobby.join(deps, opened.game_id, player)
        assert joined.reply is not None and joined.reply.code == "joined"
    started = await lobby.start(deps, group.id, players[0], is_admin=False)
    assert started.reply is not None and started.reply.code == "started", started
    return opened.game_id


def the_game(world: World, game_id: int):  # type: ignore[no-untyped-def]
    return world.games[game_id]


async def test_a_lobby_fills_starts_and_deals_each_player_a_private_card(
    deps: Deps, world: World, group: Chat
) -> None:
    game_id = await running_game(deps, group, [ANN, BEN, CLEO])
    game = the_game(world, game_id)
    assert game.status is GameStatus.RUNNING and sorted(game.seats) == [11, 12, 13]
    assert game.state is not None and game.state.round is not None
    # Each player's card arrives privately: the one to act gets it with their turn's keys.
    private = [n for n in world.outbox.values() if n.kind in (NoticeKind.DEAL, NoticeKind.PROMPT)]
    assert sorted(n.chat_id for n in private) == [11, 12, 13]
    for notice in private:
        assert notice.payload.card == game.state.round.card_of(notice.chat_id)
    (prompt,) = [n for n in private if n.kind is NoticeKind.PROMPT]
    assert prompt.chat_id == game.state.actor and prompt.payload.turn == game.state.turn
    tables = [n for n in world.outbox.values() if n.kind is NoticeKind.TABLE]
    assert tables[-1].payload.actor == game.state.actor
    assert game.deadline == deps.clock.now() + __import__("datetime").timedelta(seconds=90)


async def test_only_the_player_to_act_counts_and_a_double_tap_acts_once(
    deps: Deps, world: World, group: Chat
) -> None:
    game_id = await running_game(deps, group, [ANN, BEN, CLEO])
    state = the_game(world, game_id).state
    actor, turn = state.actor, state.turn
    other = next(p for p in (11, 12, 13) if p != actor)
    wrong = await play.act(deps, game_id, other, "keep", turn)
    assert wrong.reply is not None and wrong.reply.code in ("not_your_turn", "stale_turn")
    assert the_game(world, game_id).state == state
    first = await play.act(deps, game_id, actor, "keep", turn)
    assert first.reply is not None and first.reply.code == "done_keep"
    assert not first.reply.alert  # a toast, as for every move
    # The prompt pressed is answered in place; the next player's prompt tells the round so far.
    assert first.batch is not None
    (played,) = [n for n in first.batch.notices if n.kind is NoticeKind.PLAYED]
    assert played.chat_id == actor and played.payload.turn == turn
    assert played.payload.answer == "done_keep" and played.payload.card is not None
    (prompt,) = [n for n in first.batch.notices if n.kind is NoticeKind.PROMPT]
    assert [(a.player, a.kind.value) for a in prompt.payload.acts] == [(actor, "keep")]
    second = await play.act(deps, game_id, actor, "keep", turn)
    assert second.reply is not None and second.reply.code == "already_keep"  # what they did
    # A key naming the right turn but another round is not one the bot made.
    now = the_game(world, game_id).state
    forged = await play.act(deps, game_id, now.actor, "keep", now.turn, round_no=99)
    assert forged.reply.code == "stale_turn" and the_game(world, game_id).state == now
    assert the_game(world, game_id).state.turn == turn + 1


async def test_a_redelivered_update_is_a_no_op(deps: Deps, world: World, group: Chat) -> None:
    game_id = await running_game(deps, group, [ANN, BEN, CLEO])
    state = the_game(world, game_id).state
    await play.act(deps, game_id, state.actor, "keep", state.turn, update_id=500)
    after = the_game(world, game_id).state
    again = await play.act(deps, game_id, after.actor, "keep", after.turn, update_id=500)
    assert again.reply is None and the_game(world, game_id).state == after


async def test_a_whole_game_with_computer_seats_ends_with_a_winner_and_a_league_line(
    deps: Deps, world: World, group: Chat
) -> None:
    opened = await lobby.open_lobby(deps, group, ANN, thread_id=None)
    game_id = opened.game_id
    assert game_id is not None
    await lobby.join(deps, game_id, ANN)
    for _ in range(3):
        await lobby.add_computer(deps, game_id, group.id, ANN, is_admin=False)
    await lobby.start(deps, group.id, ANN, is_admin=False)
    for _ in range(200):
        game = the_game(world, game_id)
        if game.status is GameStatus.FINISHED:
            break
        assert game.state.actor == ANN.id  # computers never keep the table waiting
        await play.act(deps, game_id, ANN.id, "keep", game.state.turn)
    game = the_game(world, game_id)
    assert game.status is GameStatus.FINISHED and game.state.winners
    over = [n for n in world.outbox.values() if n.kind is NoticeKind.GAME_OVER]
    assert len(over) == 1
    line = world.standings[(group.id, ALL_TIME, ANN.id)]
    assert line.games == 1 and (GLOBAL_SCOPE, ALL_TIME, ANN.id) in world.standings
    assert not any(key[2] < 0 for key in world.standings)  # computer seats have no league line
    # The log replays to the stored state.
    log = world.log[game_id]
    state = None
    from cuckoo_bot.domain.engine import new_game

    first_dealer = next(
        e.dealer for entry in log for e in entry.events if type(e).__name__ == "RoundDealt"
    )
    state = new_game(game.seats, game.rules, first_dealer)
    for entry in log:
        if entry.action is not None:
            state, events = apply(state, entry.action)
            assert events == entry.events
    assert state == game.state
    assert (
        isinstance(log[0].action, Deal)
        and codec.load_action(codec.dump_action(log[0].action)) == log[0].action
    )


async def test_the_turn_clock_keeps_for_the_player_and_early_or_stale_timers_do_nothing(
    deps: Deps, world: World, group: Chat, clock: FakeClock
) -> None:
    game_id = await running_game(deps, group, [ANN, BEN, CLEO])
    before = the_game(world, game_id).state
    early = await play.expire(deps, game_id)
    assert not early.batch and the_game(world, game_id).state == before
    clock.advance(91)
    assert [g for g, _ in (await sweep.look(deps)).due] == [game_id]
    fired = await play.expire(deps, game_id)
    assert fired.batch
    after = the_game(world, game_id).state
    assert after.turn == before.turn + 1 and after.round.acts[-1].kind.value == "timeout"
    assert (await sweep.look(deps)).due == []
    # The lapsed prompt says the clock ran out and what the player kept.
    (lapsed,) = [n for n in fired.batch.notices if n.kind is NoticeKind.PLAYED]
    assert lapsed.chat_id == before.actor and lapsed.payload.answer == "timed_out"
    assert lapsed.payload.card == before.round.card_of(before.actor)


async def test_a_lobby_without_enough_players_expires_and_one_with_enough_starts(
    deps: Deps, world: World, group: Chat, clock: FakeClock
) -> None:
    opened = await lobby.open_lobby(deps, group, ANN, thread_id=None)
    await lobby.join(deps, opened.game_id, BEN)
    clock.advance(601)
    await play.expire(deps, opened.game_id)
    assert the_game(world, opened.game_id).status is GameStatus.CANCELLED
    assert the_game(world, opened.game_id).cancel_reason == "expired"
    second = await lobby.open_lobby(deps, group, ANN, thread_id=None)
    for p in (ANN, BEN, CLEO):
        await lobby.join(deps, second.game_id, p)
    clock.advance(601)
    await play.expire(deps, second.game_id)
    assert the_game(world, second.game_id).status is GameStatus.RUNNING


async def test_one_open_game_per_chat_and_only_creator_or_admin_manage_it(
    deps: Deps, world: World, group: Chat
) -> None:
    opened = await lobby.open_lobby(deps, group, ANN, thread_id=None)
    again = await lobby.open_lobby(deps, group, BEN, thread_id=None)
    assert again.reply.code == "game_exists" and again.game_id == opened.game_id
    for p in (BEN, CLEO, DAN):
        await lobby.join(deps, opened.game_id, p)
    refused = await lobby.start(deps, group.id, BEN, is_admin=False)
    assert refused.reply.code == "creator_or_admin_only"
    refused = await lobby.cancel(deps, group.id, CLEO, is_admin=False)
    assert refused.reply.code == "creator_or_admin_only"
    done = await lobby.cancel(deps, group.id, CLEO, is_admin=True)
    assert (
        done.reply.code == "cancelled"
        and the_game(world, opened.game_id).status is GameStatus.CANCELLED
    )


async def test_starting_needs_three_players(deps: Deps, group: Chat) -> None:
    opened = await lobby.open_lobby(deps, group, ANN, thread_id=None)
    await lobby.join(deps, opened.game_id, BEN)
    short = await lobby.start(deps, group.id, ANN, is_admin=False)
    assert short.reply.code == "need_players" and short.reply.params == {"min": 3, "have": 2}


async def test_leaving_a_running_game_gathers_the_deal(
    deps: Deps, world: World, group: Chat
) -> None:
    game_id = await running_game(deps, group, [ANN, BEN, CLEO, DAN])
    left = await lobby.leave(deps, group.id, BEN)
    assert left.reply.code == "resigned"
    game = the_game(world, game_id)
    assert game.state.lives(12) == 0 and 12 not in game.state.round.order
    # The group reads it in one message: Ben left, the cards are dealt again.
    (told,) = [n.payload for n in world.outbox.values() if n.kind is NoticeKind.ANNOUNCE]
    assert [line.event for line in told.lines()] == ["PlayerRemoved", "Misdealt"]
    # Ben's keys go with a word in his private chat; the others get the new deal.
    closed = [n for n in world.outbox.values() if n.kind is NoticeKind.CLOSE]
    assert [(n.chat_id, n.payload.reason) for n in closed] == [(12, "resigned")]


async def test_a_join_link_joins_after_private_start(deps: Deps, world: World, group: Chat) -> None:
    opened = await lobby.open_lobby(deps, group, ANN, thread_id=None)
    stranger = Player(id=99, first_name="Zoe", language="fr")
    outcome = await chats.private_start(deps, stranger, chats.join_payload(opened.game_id))
    assert outcome.reply.code == "joined"
    assert 99 in the_game(world, opened.game_id).seats and world.players[99].can_dm is True


async def test_migration_moves_the_game_and_the_league(
    deps: Deps, world: World, group: Chat
) -> None:
    game_id = await running_game(deps, group, [ANN, BEN, CLEO])
    await chats.chat_migrated(deps, group.id, -1009999)
    assert the_game(world, game_id).chat_id == -1009999
    assert world.chats[-1009999].migrated_from == group.id


async def test_after_a_migration_a_turn_asked_in_the_group_is_asked_again_there(
    deps: Deps, world: World, group: Chat
) -> None:
    game_id = await running_game(deps, group, [ANN, BEN, CLEO])
    actor = the_game(world, game_id).state.actor
    world.players[actor] = replace(world.players[actor], can_dm=False)  # blocked the bot
    moved = await chats.chat_migrated(deps, group.id, -1009999)
    assert moved.batch is not None
    kinds = {(n.kind, n.chat_id) for n in moved.batch.notices}
    assert kinds == {(NoticeKind.TABLE, -1009999), (NoticeKind.TURN, -1009999)}
    (turn,) = [n for n in moved.batch.notices if n.kind is NoticeKind.TURN]
    assert turn.payload.actor == actor and turn.payload.turn == the_game(world, game_id).state.turn


async def test_the_bot_removed_cancels_without_posting_to_the_group(
    deps: Deps, world: World, group: Chat
) -> None:
    game_id = await running_game(deps, group, [ANN, BEN, CLEO])
    pending_before = len(world.outbox)
    await chats.bot_removed(deps, group.id)
    game = the_game(world, game_id)
    assert game.status is GameStatus.CANCELLED and game.cancel_reason == "bot_removed"
    added = list(world.outbox.values())[pending_before:]
    # Nothing for the group; each player is told privately (their prompt's keys go).
    assert sorted(n.chat_id for n in added) == [11, 12, 13]
    assert {(n.kind, n.payload.reason) for n in added} == {(NoticeKind.CLOSE, "cancelled")}


async def test_show_card_reveals_only_ones_own_card(deps: Deps, world: World, group: Chat) -> None:
    game_id = await running_game(deps, group, [ANN, BEN, CLEO])
    state = the_game(world, game_id).state
    mine = await play.show_card(deps, game_id, BEN.id)
    assert mine.reply.alert and mine.reply.params["card"] == state.round.card_of(BEN.id).code
    stranger = await play.show_card(deps, game_id, 77)
    assert stranger.reply.code == "no_card"


async def test_leaderboard_lists_players_by_rating(deps: Deps, world: World, group: Chat) -> None:
    game_id = await running_game(deps, group, [ANN, BEN, CLEO])
    for _ in range(500):
        game = the_game(world, game_id)
        if game.status is GameStatus.FINISHED:
            break
        await play.act(deps, game_id, game.state.actor, "keep", game.state.turn)
    league = await queries.leaderboard(deps, group.id)
    assert [row.rank for row in league.rows] == [1, 2, 3]
    winner = the_game(world, game_id).state.winners
    assert league.rows[0].player.id in winner
    ratings = [row.standing.rating for row in league.rows]
    assert ratings == sorted(ratings, reverse=True)


async def test_a_player_idle_two_turns_running_leaves_at_the_next_deal_and_play_goes_on(
    deps: Deps, world: World, group: Chat, clock: FakeClock
) -> None:
    deps = replace(deps, reveal_pause=4)  # the next deal is a step of its own, as in production
    game_id = await running_game(deps, group, [ANN, BEN, CLEO, DAN])
    for _ in range(200):
        game = the_game(world, game_id)
        if game.state.lives(ANN.id) == 0 or game.status is not GameStatus.RUNNING:
            break
        if game.state.actor == ANN.id or game.state.actor is None:  # Ann's lapse, or a deal
            clock.advance(91)
            await play.expire(deps, game_id)
        else:
            await play.act(deps, game_id, game.state.actor, "keep", game.state.turn)
    game = the_game(world, game_id)
    assert game.state.lives(ANN.id) == 0 and game.status is GameStatus.RUNNING
    announced = [
        (line.event, line.data)
        for n in world.outbox.values()
        if n.kind is NoticeKind.ANNOUNCE
        for line in n.payload.lines()
    ]
    assert ("PlayerRemoved", {"player": ANN.id, "reason": "idle"}) in announced
    # Ann is told in private, with how her last round ended (the life it cost, if any).
    (ended,) = [
        n for n in world.outbox.values() if n.kind is NoticeKind.CLOSE and n.chat_id == ANN.id
    ]
    assert ended.payload.reason == "idle" and ended.payload.prev is not None
    assert ended.payload.prev.round == game.state.round.number - 1
    # The new round's table shows whose turn it is, and that player is asked privately.
    table = [n for n in world.outbox.values() if n.kind is NoticeKind.TABLE][-1]
    assert table.payload.round == game.state.round.number
    assert table.payload.actor == game.state.actor and table.payload.reveal is None
    prompt = [n for n in world.outbox.values() if n.kind is NoticeKind.PROMPT][-1]
    assert prompt.chat_id == game.state.actor and prompt.payload.turn == game.state.turn


async def test_only_the_creator_or_an_admin_seats_computers_and_a_lobby_of_computers_never_starts(
    deps: Deps, world: World, group: Chat, clock: FakeClock
) -> None:
    eve = Player(id=21, first_name="Eve")  # never talked to the bot: not seated by herself
    opened = await lobby.open_lobby(deps, group, eve, thread_id=None)
    refused = await lobby.add_computer(deps, opened.game_id, group.id, BEN, is_admin=False)
    assert refused.reply.code == "creator_or_admin_only"
    for _ in range(3):
        await lobby.add_computer(deps, opened.game_id, group.id, CLEO, is_admin=True)
    clock.advance(601)
    await play.expire(deps, opened.game_id)
    game = the_game(world, opened.game_id)
    assert game.status is GameStatus.CANCELLED and game.cancel_reason == "expired"


class AllFours(random.Random):
    """Deals every player a 4 each round (the rest of the deck shuffled as usual)."""

    def shuffle(self, x: list, random: object = None) -> None:  # type: ignore[override,type-arg]
        super().shuffle(x)
        if len(x) == 52:
            fours = [c for c in x if c.rank == 4]
            x[:] = fours + [c for c in x if c.rank != 4]


async def test_everyone_out_in_the_same_reveal_share_the_victory_and_the_league_says_so(
    world: World, group: Chat, clock: FakeClock
) -> None:
    from cuckoo_bot.i18n.translator import Translator
    from cuckoo_bot.transport.render import Renderer

    deps = Deps(uow=FakeUnitOfWorkFactory(world, clock), rng=AllFours(3), clock=clock)
    game_id = await running_game(deps, group, [ANN, BEN, CLEO])
    for _ in range(20):
        game = the_game(world, game_id)
        if game.status is GameStatus.FINISHED:
            break
        await play.act(deps, game_id, game.state.actor, "keep", game.state.turn)
    game = the_game(world, game_id)
    assert game.state.shared_victory and set(game.state.winners) == {ANN.id, BEN.id, CLEO.id}
    line = world.standings[(group.id, ALL_TIME, ANN.id)]
    assert line.shared_wins == 1 and line.wins == 0
    batch = await outbox.claim(deps)
    (over,) = [n for n in batch.notices if n.kind is NoticeKind.GAME_OVER]
    render = Renderer(Translator())
    texts = {
        lang: render.group_notice(over, game, batch.players, lang).text
        for lang in ("en", "es", "fr")
    }
    assert "won the game together" in texts["en"]
    assert all(name in text for text in texts.values() for name in ("Ann", "Ben", "Cleo"))


async def finished_game(deps: Deps, world: World, group: Chat, robots: int = 1) -> int:
    opened = await lobby.open_lobby(deps, group, ANN, thread_id=None)
    game_id = opened.game_id
    assert game_id is not None
    for player in (BEN, CLEO):
        await lobby.join(deps, game_id, player)
    for _ in range(robots):
        await lobby.add_computer(deps, game_id, group.id, ANN, is_admin=False)
    await lobby.start(deps, group.id, ANN, is_admin=False)
    for _ in range(500):
        game = the_game(world, game_id)
        if game.status is GameStatus.FINISHED:
            return game_id
        await play.act(deps, game_id, game.state.actor, "keep", game.state.turn)
    raise AssertionError("the game did not end")


async def test_the_end_of_a_game_sums_it_up_with_each_players_move_in_the_league(
    deps: Deps, world: World, group: Chat
) -> None:
    game_id = await finished_game(deps, world, group)
    game = the_game(world, game_id)
    (over,) = [n for n in world.outbox.values() if n.kind is NoticeKind.GAME_OVER]
    view = over.payload
    assert view.winners == game.state.winners and view.rounds == game.state.rounds_dealt
    # Everyone but the winner went out, in the order of the rounds they went out in.
    assert [e.player for e in view.out] == sorted(
        (s.player for s in game.state.seats if s.player not in game.state.winners),
        key=lambda p: game.state.seat(p).eliminated_in_round,
    )
    assert [e.round for e in view.out] == sorted(e.round for e in view.out)
    # The podium: the winners first, then who went out last; everyone seated has a place.
    assert {p for p, _ in view.places} == set(game.seats)
    assert [p for p, place in view.places if place == 1] == list(game.state.winners)
    assert [p for p, _ in view.places][len(view.winners) :] == [e.player for e in view.out][::-1]
    # Each person's change is their new points in the group's table this month (all start at 0),
    # and their place there; the computer seat is not ranked.
    season = next(k[1] for k in world.standings if k[1] != ALL_TIME)
    table = sorted(
        (world.standings[(group.id, season, p)] for p in (11, 12, 13)),
        key=lambda s: (-s.rating, -s.wins, s.player_id),
    )
    assert {c.player: c.points for c in view.changes} == {s.player_id: s.points for s in table}
    places = {c.player: c.place for c in view.changes}
    assert places == {s.player_id: 1 + sum(o.points > s.points for o in table) for s in table}


async def test_everyone_who_sat_at_a_won_game_is_told_how_it_ended_for_them(
    deps: Deps, world: World, group: Chat
) -> None:
    game_id = await finished_game(deps, world, group)
    game = the_game(world, game_id)
    (over,) = [n for n in world.outbox.values() if n.kind is NoticeKind.GAME_OVER]
    ends = {
        n.chat_id: n.payload
        for n in world.outbox.values()
        if n.kind is NoticeKind.CLOSE and n.payload.place is not None
    }
    # Every person, those out in earlier rounds too; computer seats get nothing.
    assert sorted(ends) == [ANN.id, BEN.id, CLEO.id]
    changes = {c.player: c for c in over.payload.changes}
    for player, end in ends.items():
        assert end.reason == "game_over" and end.winners == game.state.winners
        assert end.seats == len(game.seats)
        assert end.points == changes[player].points
        assert end.month_place == changes[player].place
        assert (end.place == 1) == (player in game.state.winners)
    places = sorted(end.place for end in ends.values())
    assert places[0] >= 1 and places[-1] <= len(game.seats)


async def test_play_again_works_from_the_private_end_of_the_game_for_who_sat_there(
    deps: Deps, world: World, group: Chat
) -> None:
    game_id = await finished_game(deps, world, group)
    stranger = await lobby.play_again(deps, game_id, DAN.id, DAN, reachable=True)
    assert stranger.reply.code == "unknown_button"  # not at that table
    again = await lobby.play_again(deps, game_id, BEN.id, BEN, reachable=True)
    assert again.reply.code == "again_opened"
    new = the_game(world, again.game_id)
    assert new.chat_id == group.id and new.seats[0] == BEN.id  # the lobby opens in the group


async def test_play_again_opens_a_lobby_with_the_same_rules_seats_the_tapper_and_invites_the_rest(
    deps: Deps, world: World, group: Chat, clock: FakeClock
) -> None:
    game_id = await finished_game(deps, world, group)
    before = the_game(world, game_id)
    other_chat = await lobby.play_again(deps, game_id, -999, BEN, reachable=True)
    assert other_chat.reply.code == "unknown_button"  # a key only works in its own group
    again = await lobby.play_again(deps, game_id, group.id, BEN, reachable=True)
    assert again.reply.code == "again_opened"
    new = the_game(world, again.game_id)
    assert new.status is GameStatus.LOBBY and new.rules == before.rules
    robots = [p for p in before.seats if p < 0]
    assert new.seats == [BEN.id, *robots]  # the tapper and the computer seats, nobody else
    assert sorted(new.offered) == [ANN.id, CLEO.id]
    (shown,) = [n for n in again.batch.notices if n.kind is NoticeKind.LOBBY]
    assert sorted(shown.payload.offered) == [ANN.id, CLEO.id]
    # Another tap on the same key joins that lobby; it never opens a second one.
    joined = await lobby.play_again(deps, game_id, group.id, CLEO, reachable=True)
    assert joined.reply.code == "joined" and joined.game_id == new.id
    assert the_game(world, new.id).seats == [BEN.id, *robots, CLEO.id]
    assert sum(1 for g in world.games.values() if g.status.open) == 1
    # Once the lobby timeout has passed since the end, the key is spent.
    await lobby.cancel(deps, group.id, BEN, is_admin=True)
    clock.advance(601)
    late = await lobby.play_again(deps, game_id, group.id, ANN, reachable=True)
    assert late.reply.code == "play_again_expired"


async def test_the_play_again_key_comes_off_the_summary_at_the_lobby_timeout(
    deps: Deps, world: World, group: Chat, clock: FakeClock
) -> None:
    game_id = await finished_game(deps, world, group)
    game = the_game(world, game_id)
    assert game.deadline == game.finished_at + timedelta(seconds=deps.lobby_timeout)
    assert (game_id, game.deadline) in await play.deadlines(deps)  # re-armed at start-up
    early = await play.expire(deps, game_id)
    assert early.batch is None and the_game(world, game_id).deadline == game.deadline
    clock.advance(deps.lobby_timeout + 1)
    assert [g for g, _ in (await sweep.look(deps)).due] == [game_id]  # the sweeper finds it
    expired = await play.expire(deps, game_id)
    assert expired.batch is not None
    gone, *private = expired.batch.notices
    assert gone.kind is NoticeKind.GAME_OVER and gone.payload.expired
    # The key also comes off each person's private end of the game.
    assert sorted(n.chat_id for n in private) == sorted(p for p in game.seats if p > 0)
    assert all(n.kind is NoticeKind.CLOSE and n.payload.reason == "expired" for n in private)
    assert the_game(world, game_id).deadline is None
    assert (await sweep.look(deps)).due == []
    again = await play.expire(deps, game_id)  # a second timer, another instance: nothing
    assert again.batch is None


async def test_history_lists_the_groups_finished_games_and_tells_one_from_its_log(
    deps: Deps, world: World, group: Chat
) -> None:
    first = await finished_game(deps, world, group, robots=0)
    second = await finished_game(deps, world, group, robots=0)
    listed = await queries.history(deps, group.id)
    assert [g.id for g in listed.games] == [second, first]
    assert {11, 12, 13} <= set(listed.players)
    story = await queries.story(deps, group.id, first)
    assert story is not None and story.log == world.log[first]
    assert await queries.story(deps, -999, first) is None  # another group's game


async def test_a_forged_key_cannot_seat_anyone_in_another_groups_lobby(
    deps: Deps, world: World, group: Chat
) -> None:
    opened = await lobby.open_lobby(deps, group, ANN, thread_id=None)
    elsewhere = -100777
    joined = await lobby.join(deps, opened.game_id, BEN, chat_id=elsewhere)
    robot = await lobby.add_computer(deps, opened.game_id, elsewhere, CLEO, is_admin=True)
    assert joined.reply.code == robot.reply.code == "unknown_button"
    assert the_game(world, opened.game_id).seats == [ANN.id]


async def play_to_the_first_reveal(deps: Deps, world: World, game_id: int) -> Outcome:
    """Everyone keeps until the round is revealed; the last press's outcome."""
    state = the_game(world, game_id).state
    while True:
        pressed = await play.act(deps, game_id, state.actor, "keep", state.turn)
        state = the_game(world, game_id).state
        if state.actor is None or state.rounds_dealt > 1:
            return pressed


async def test_the_reveal_has_its_moment_then_the_next_deal_comes_with_its_own_clock(
    world: World, group: Chat, clock: FakeClock
) -> None:
    deps = Deps(FakeUnitOfWorkFactory(world, clock), random.Random(7), clock, turn_timeout=90)
    deps = replace(deps, reveal_pause=4)
    game_id = await running_game(deps, group, [ANN, BEN, CLEO])
    last = await play_to_the_first_reveal(deps, world, game_id)
    # The press that ended the round says the cards are on the table.
    (played,) = [n for n in last.batch.notices if n.kind is NoticeKind.PLAYED]
    assert played.payload.revealed
    game = the_game(world, game_id)
    # Revealed, and nothing dealt yet: the table shows the reveal alone for the pause.
    assert game.state.rounds_dealt == 1 and game.state.actor is None
    assert game.deadline == clock.now() + timedelta(seconds=4) and game.warn_at is None
    assert not [n for n in world.outbox.values() if n.kind is NoticeKind.DEAL and n.round == 2]
    early = await play.expire(deps, game_id)
    assert not early.batch and the_game(world, game_id).state.rounds_dealt == 1
    clock.advance(4)
    dealt = await play.expire(deps, game_id)
    game = the_game(world, game_id)
    assert dealt.batch and game.state.rounds_dealt == 2 and game.state.actor is not None
    # The next turn's clock starts after the pause. Who lost a life learns it now, with the
    # next card, and so does the first to play (on their prompt); a player who came through
    # safe learns it with their turn, their card with it.
    assert game.deadline == clock.now() + timedelta(seconds=90)
    deals = [n for n in dealt.batch.notices if n.kind in (NoticeKind.DEAL, NoticeKind.PROMPT)]
    last = game.state.last_reveal
    first = game.state.actor
    told_now = {p for p in (ANN.id, BEN.id, CLEO.id) if p in last.lowest or p == first}
    assert {n.chat_id for n in deals} == told_now and all(n.round == 2 for n in deals)
    assert len(told_now) < 3  # somebody was safe: their card waits for their turn
    for notice in deals:
        told = notice.payload.prev if notice.kind is NoticeKind.DEAL else notice.payload.last
        assert told is not None and told.round == 1
        assert told.card == last.card_of(notice.chat_id)
        assert told.lost == (notice.chat_id in last.lowest)
    # The new table does not tell the last reveal again: its own table did.
    (table,) = [n for n in dealt.batch.notices if n.kind is NoticeKind.TABLE]
    assert table.payload.reveal is None and table.payload.round == 2


async def four_in_round_two(
    world: World, group: Chat, clock: FakeClock
) -> tuple[Deps, int, Outcome]:
    """Ann, Ben, Cleo and Dan keep through round 1; round 2 is dealt after the reveal's pause
    (its outcome is the deal's)."""
    deps = Deps(FakeUnitOfWorkFactory(world, clock), random.Random(7), clock, turn_timeout=90)
    deps = replace(deps, reveal_pause=4)
    game_id = await running_game(deps, group, [ANN, BEN, CLEO, DAN])
    await play_to_the_first_reveal(deps, world, game_id)
    clock.advance(4)
    return deps, game_id, await play.expire(deps, game_id)


async def test_a_card_after_a_safe_round_comes_with_the_turn_and_its_prompt_tells_that_round(
    world: World, group: Chat, clock: FakeClock
) -> None:
    """Who came through a round safe gets no message at the deal: the prompt of their turn
    recalls how that round ended and shows the card (after a swap, the one it took too), and
    the answer on it keeps that line. Whoever lost a life is told at the deal, with the card."""
    deps, game_id, dealt = await four_in_round_two(world, group, clock)
    players = [ANN, BEN, CLEO, DAN]
    state = the_game(world, game_id).state
    reveal, rnd = state.last_reveal, state.round
    assert rnd is not None and rnd.number == 2
    cards = dict(zip(rnd.order, rnd.cards, strict=True))
    safe = {p.id for p in players if p.id not in reveal.lowest}
    assert safe - {rnd.order[0]}  # a safe player waits for their turn
    deals = {n.chat_id for n in dealt.batch.notices if n.kind is NoticeKind.DEAL}
    assert deals == {p.id for p in players} - safe - {rnd.order[0]}
    later = [n for n in world.outbox.values() if n.kind is NoticeKind.DEAL and n.round == 2]
    assert {n.chat_id for n in later} == deals
    seen_swapped = False
    while (state := the_game(world, game_id).state).round.number == 2 and state.actor:
        actor, dealer = state.actor, state.round.actor_is_dealer
        (prompt,) = [
            n
            for n in world.outbox.values()
            if n.kind is NoticeKind.PROMPT and n.chat_id == actor and n.payload.turn == state.turn
        ]
        note = prompt.payload
        if actor in safe or actor == rnd.order[0]:
            assert note.prev is not None and note.prev.card == reveal.card_of(actor)
            assert not note.prev.lost and note.prev.round == 1
        else:
            assert note.prev is None  # told at the deal: not told twice
        if note.news.value == "swapped":
            seen_swapped = True
            assert note.gave == cards[actor] and note.card != cards[actor]
        else:
            assert note.gave is None
        pressed = await play.act(deps, game_id, actor, "keep" if dealer else "swap", state.turn)
        (answer,) = [n for n in pressed.batch.notices if n.kind is NoticeKind.PLAYED]
        assert answer.payload.last == note.prev
    assert seen_swapped


async def test_a_round_gathered_before_a_waiting_players_turn_tells_them_their_last_round(
    world: World, group: Chat, clock: FakeClock
) -> None:
    """A player whose card waited for a turn that never came (someone left, the cards were
    gathered) never saw that round: the new deal shows their card at once, under how the
    round before ended for them, which nothing had told yet."""
    deps, game_id, _ = await four_in_round_two(world, group, clock)
    players = [ANN, BEN, CLEO, DAN]
    state = the_game(world, game_id).state
    reveal, rnd = state.last_reveal, state.round
    waiting = [p for p in rnd.order[1:-1] if p not in reveal.lowest]
    assert waiting, "a safe player waits for their turn"
    leaver = next(p for p in players if p.id == rnd.order[0])
    left = await lobby.leave(deps, group.id, leaver)
    assert left.reply.code == "resigned"
    state = the_game(world, game_id).state
    assert state.round.number == 3
    for player in waiting:
        # Their deal, or their prompt when they play first: it tells round 1, not 2.
        (shown,) = [
            n
            for n in world.outbox.values()
            if n.kind in (NoticeKind.DEAL, NoticeKind.PROMPT)
            and n.chat_id == player
            and n.round == 3
        ]
        told = shown.payload.prev
        assert told is not None and told.round == 1 and not told.lost
        assert told.card == reveal.card_of(player)


async def test_a_slow_player_is_nudged_once_before_the_clock_runs_out(
    world: World, group: Chat, clock: FakeClock
) -> None:
    deps = Deps(FakeUnitOfWorkFactory(world, clock), random.Random(7), clock, turn_timeout=90)
    deps = replace(deps, turn_warning=20)
    game_id = await running_game(deps, group, [ANN, BEN, CLEO])
    game = the_game(world, game_id)
    actor, turn, deadline = game.state.actor, game.state.turn, game.deadline
    assert game.warn_at == deadline - timedelta(seconds=20)
    # The table, the prompt and the deadline agree on when the turn runs out.
    (prompt,) = [n for n in world.outbox.values() if n.kind is NoticeKind.PROMPT]
    assert prompt.payload.deadline == deadline
    assert [g for g, _ in (await sweep.look(deps)).due] == []
    clock.advance(70)
    assert [g for g, _ in (await sweep.look(deps)).due] == [game_id]
    nudged = await play.expire(deps, game_id)
    assert nudged.deadline == deadline  # the timer is armed again for the turn's end
    (nudge,) = nudged.batch.notices
    assert nudge.kind is NoticeKind.NUDGE and nudge.chat_id == actor
    assert nudge.payload.turn == turn and nudge.payload.seconds == 20
    assert the_game(world, game_id).state.turn == turn  # nothing else moved
    # Once only: the next wake-up is the deadline itself.
    assert (await sweep.look(deps)).due == [] and the_game(world, game_id).warn_at is None
    again = await play.expire(deps, game_id)
    assert not again.batch
    clock.advance(20)
    lapsed = await play.expire(deps, game_id)
    assert lapsed.batch and the_game(world, game_id).state.turn == turn + 1


async def test_no_nudge_on_a_short_turn_nor_for_a_turn_already_played(
    world: World, group: Chat, clock: FakeClock
) -> None:
    short = Deps(FakeUnitOfWorkFactory(world, clock), random.Random(7), clock, turn_timeout=30)
    short = replace(short, turn_warning=20)
    game_id = await running_game(short, group, [ANN, BEN, CLEO])
    assert the_game(world, game_id).warn_at is None  # 30 s is shorter than twice 20 s
    long = replace(short, turn_timeout=90)
    other = Chat(id=-100777, title="Other")
    game_id = await running_game(
        long, other, [person(21, "Eve"), person(22, "Fay"), person(23, "Gus")]
    )
    state = the_game(world, game_id).state
    clock.advance(60)
    await play.act(long, game_id, state.actor, "keep", state.turn)
    # The press set a new clock for the next player; the old nudge time is gone with it.
    game = the_game(world, game_id)
    assert game.warn_at == clock.now() + timedelta(seconds=70)
    assert not [n for n in world.outbox.values() if n.kind is NoticeKind.NUDGE]


async def test_a_bot_woken_after_the_turn_ran_out_sends_no_late_reminder(
    world: World, group: Chat, clock: FakeClock
) -> None:
    deps = Deps(FakeUnitOfWorkFactory(world, clock), random.Random(7), clock, turn_timeout=90)
    deps = replace(deps, turn_warning=20)
    game_id = await running_game(deps, group, [ANN, BEN, CLEO])
    turn = the_game(world, game_id).state.turn
    clock.advance(95)  # down past the nudge and the deadline: the turn simply lapses
    fired = await play.expire(deps, game_id)
    assert the_game(world, game_id).state.turn == turn + 1
    assert not [n for n in fired.batch.notices if n.kind is NoticeKind.NUDGE]


async def test_a_settings_tap_is_one_transaction_giving_the_settings_and_the_answers_language(
    world: World, clock: FakeClock, group: Chat
) -> None:
    opened: list[object] = []

    class Counting(FakeUnitOfWorkFactory):
        def __call__(self, *, read_only: bool = False, autocommit: bool = False) -> FakeUoW:
            opened.append(read_only)
            return super().__call__(read_only=read_only, autocommit=autocommit)

    deps = Deps(uow=Counting(world, clock), rng=random.Random(1), clock=clock)
    await chats.set_language(deps, group, "fr")
    asker = Asker(group.id, "en")
    opened.clear()
    outcome, stored = await chats.change_setting(deps, group, "lives", "5", 10, asker, admin=1)
    assert len(opened) == 1
    assert outcome.reply is not None and outcome.reply.code is ReplyCode.SETTING_CHANGED
    assert outcome.lang == "fr" and stored is not None and stored.rules.lives == 5
    # The same tap delivered again changes nothing and shows nothing again.
    again, nothing = await chats.change_setting(deps, group, "lives", "3", 10, asker, admin=1)
    assert again.reply is None and nothing is None
    forged, kept = await chats.change_setting(deps, group, "lives", "99", 11, asker, admin=1)
    assert forged.reply is not None and forged.reply.code is ReplyCode.INVALID_SETTING
    assert kept is not None and kept.rules.lives == 5
    async with deps.uow(read_only=True) as uow:
        saved = await uow.chats.get(group.id)
    assert saved is not None and saved.rules.lives == 5


async def test_every_settings_key_sets_what_it_shows_next_and_no_other_rule_can_be_set(
    deps: Deps, group: Chat
) -> None:
    asker = Asker(group.id)
    update = 100
    for setting in SETTINGS:
        for value in setting.choices:
            update += 1
            arg = encode(value)
            outcome, stored = await chats.change_setting(deps, group, setting.name, arg, update)
            assert outcome.reply is not None, setting.name
            assert outcome.reply.code is ReplyCode.SETTING_CHANGED, (setting.name, arg)
            assert stored is not None and setting.get(stored, 90) == value
    # A rule with no settings key (a forged key's data) is refused, not saved.
    for name, raw in (("idle_turn_limit", "9"), ("lives", "4"), ("kings_block", "yes")):
        update += 1
        outcome, _ = await chats.change_setting(deps, group, name, raw, update, asker, admin=1)
        assert outcome.reply is not None and outcome.reply.code is ReplyCode.INVALID_SETTING
    async with deps.uow(read_only=True) as uow:
        saved = await uow.chats.get(group.id)
    assert saved is not None and saved.rules.idle_turn_limit == HouseRules().idle_turn_limit


async def test_a_claim_reads_the_context_only_of_the_notices_it_keeps(
    deps: Deps, world: World, group: Chat
) -> None:
    first = await running_game(deps, group, [ANN, BEN, CLEO])
    other = Chat(id=-1009, title="Other table")
    await running_game(deps, other, [DAN, person(15, "Erin"), person(16, "Fay")])
    kept = await outbox.claim(deps, keep=lambda n: n.chat_id == group.id)
    assert kept.notices and {n.chat_id for n in kept.notices} == {group.id}
    assert set(kept.games) == {first}  # the other table's game was not read
    assert {m.notice.game_id for m in kept.sent} <= {first}
    none = await outbox.claim(deps, keep=lambda n: False)
    assert none.notices == [] and none.games == {}
