"""A player gone quiet: the creator or an admin skips their turn or takes them out."""

from __future__ import annotations

from cuckoo_bot.app import quiet
from cuckoo_bot.app.deps import Deps
from cuckoo_bot.app.model import Chat, GameStatus
from cuckoo_bot.app.notices import CloseReason, NoticeKind
from cuckoo_bot.domain.events import PlayerRemoved, RemovalReason

from .fakes import World
from .test_use_cases import ANN, BEN, CLEO, DAN, running_game, the_game


async def test_only_the_creator_or_an_admin_may_skip_a_turn(
    deps: Deps, world: World, group: Chat
) -> None:
    game_id = await running_game(deps, group, [ANN, BEN, CLEO])
    before = the_game(world, game_id).state
    refused = await quiet.skip(deps, group.id, BEN, is_admin=False)
    assert refused.reply is not None and refused.reply.code == "creator_or_admin_only"
    assert the_game(world, game_id).state == before  # nothing changed
    none = await quiet.skip(deps, -999, ANN, is_admin=True)
    assert none.reply is not None and none.reply.code == "game_not_running"


async def test_a_skipped_turn_counts_as_run_out_and_the_player_is_told_who_skipped_it(
    deps: Deps, world: World, group: Chat
) -> None:
    game_id = await running_game(deps, group, [ANN, BEN, CLEO])
    state = the_game(world, game_id).state
    quiet_one, turn = state.actor, state.turn
    skipper = DAN  # an admin, not seated
    skipped = await quiet.skip(deps, group.id, skipper, is_admin=True)
    assert skipped.reply is not None and skipped.reply.code == "skipped"
    assert skipped.reply.params == {"player": quiet_one}  # answered in the group, by name
    after = the_game(world, game_id).state
    assert after.turn == turn + 1
    assert after.seat(quiet_one).idle_turns == 1  # as a clock running out
    assert skipped.batch is not None
    (told,) = [n for n in skipped.batch.notices if n.kind is NoticeKind.PLAYED]
    assert told.chat_id == quiet_one and told.payload.answer == "skipped_by"
    assert told.payload.other == skipper.id and told.payload.card is not None
    # a second /skip for the same moment skips the next turn, never the same one twice
    again = await quiet.skip(deps, group.id, ANN, is_admin=False)  # the creator
    assert again.reply is not None and again.reply.params["player"] != quiet_one


async def test_kick_takes_the_quiet_player_out_and_tells_them_in_private(
    deps: Deps, world: World, group: Chat
) -> None:
    game_id = await running_game(deps, group, [ANN, BEN, CLEO, DAN])
    quiet_one = the_game(world, game_id).state.actor
    player = next(p for p in (BEN, CLEO, DAN) if p.id != quiet_one)  # no admin, not the creator
    refused = await quiet.kick(deps, group.id, player, is_admin=False)
    assert refused.reply is not None and refused.reply.code == "creator_or_admin_only"
    kicked = await quiet.kick(deps, group.id, player, is_admin=True)
    assert kicked.reply is None  # the group's announcement below is the answer
    game = the_game(world, game_id)
    assert not game.state.seat(quiet_one).active and game.status is GameStatus.RUNNING
    assert kicked.batch is not None
    told = [
        line.data
        for n in kicked.batch.notices
        if n.kind is NoticeKind.ANNOUNCE
        for line in n.payload.lines()
        if line.event == "PlayerRemoved"
    ]
    assert told == [{"player": quiet_one, "reason": RemovalReason.REMOVED.value}]  # the group
    closes = [n for n in kicked.batch.notices if n.kind is NoticeKind.CLOSE]
    assert [(n.chat_id, n.payload.reason) for n in closes] == [(quiet_one, CloseReason.REMOVED)]
    # someone already out cannot be kicked again
    gone = await quiet.kick(deps, group.id, ANN, is_admin=False, target=quiet_one)
    assert gone.reply is not None and gone.reply.code == "kick_whom"


def test_a_removal_by_someone_else_is_its_own_reason() -> None:
    from cuckoo_bot.domain.actions import Resign
    from cuckoo_bot.domain.engine import apply, new_game
    from cuckoo_bot.domain.rules import HouseRules

    state = new_game([1, 2, 3], HouseRules(), 1)
    _, events = apply(state, Resign(2, by=1))
    assert [e.reason for e in events if isinstance(e, PlayerRemoved)] == [RemovalReason.REMOVED]
    _, events = apply(state, Resign(2))
    assert [e.reason for e in events if isinstance(e, PlayerRemoved)] == [RemovalReason.RESIGNED]
