"""Lobbies: open, join, leave, add a computer seat, start, cancel, expire."""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any

from cuckoo_bot.app.deps import Deps
from cuckoo_bot.app.flow import advance, notices_for, resign_in, write_notices
from cuckoo_bot.app.model import DEFAULT_LANGUAGE, Chat, Game, GameStatus, Player, is_computer
from cuckoo_bot.app.notices import CloseReason, LobbyView
from cuckoo_bot.app.outbox import Batch
from cuckoo_bot.app.ports import UnitOfWork
from cuckoo_bot.app.results import Outcome, Reply, ReplyCode
from cuckoo_bot.app.shared import ensure_chat, first_time, may_manage
from cuckoo_bot.domain.actions import PlayerId
from cuckoo_bot.domain.engine import draw_first_dealer
from cuckoo_bot.domain.engine import new_game as seat_table

COMPUTER_NAMES = (
    "Ada",
    "Babbage",
    "Curie",
    "Darwin",
    "Euler",
    "Fermi",
    "Gauss",
    "Hopper",
    "Idris",
    "Jemison",
    "Kepler",
    "Lovelace",
    "Meitner",
    "Noether",
    "Ohm",
    "Pascal",
    "Quetelet",
    "Ramanujan",
    "Sagan",
    "Turing",
)


def computer_player(index: int) -> Player:
    """Computer seat ``index`` (1-based): negative ids never clash with Telegram users."""
    return Player(
        id=-index,
        first_name=f"🤖 {COMPUTER_NAMES[(index - 1) % len(COMPUTER_NAMES)]}",
        is_computer=True,
    )


async def answer(
    uow: UnitOfWork, code: ReplyCode, game: Game | None = None, **params: Any
) -> Outcome:
    """Commit (so a redelivered update stays a no-op) and answer the user, changing nothing."""
    await uow.commit()
    return Outcome(reply=Reply(code, params), game_id=game.id if game else None)


def close(game: Game, reason: str, now: datetime) -> None:
    """The lobby or game ends without a winner: cancelled, expired, or the bot was removed."""
    game.status = GameStatus.CANCELLED
    game.cancel_reason = reason
    game.finished_at = now
    game.deadline = game.warn_at = None


async def _take_seat(uow: UnitOfWork, game: Game, player: PlayerId) -> Batch:
    game.seats.append(player)
    batch = await show_lobby(uow, game)
    await uow.games.save(game)
    return batch


def _lobby_refusal(game: Game | None) -> tuple[ReplyCode, dict[str, Any]] | None:
    if game is None or game.status is not GameStatus.LOBBY:
        return ReplyCode.LOBBY_CLOSED, {}
    if len(game.seats) >= game.rules.max_players:
        return ReplyCode.LOBBY_FULL, {"max": game.rules.max_players}
    return None


def lobby_view(game: Game) -> LobbyView:
    invited = tuple(p for p in game.offered if p not in game.seats)
    return LobbyView(
        status=game.status,
        seats=tuple(game.seats),
        reason=game.cancel_reason,
        offered=invited if game.status is GameStatus.LOBBY else (),
    )


async def show_lobby(uow: UnitOfWork, game: Game) -> Batch:
    """The lobby message shows the game as it is now (seats, started, or why it closed)."""
    notices = notices_for(game)
    notices.lobby(lobby_view(game))
    return await write_notices(uow, game, notices)


async def open_lobby(
    deps: Deps, chat: Chat, user: Player, thread_id: int | None, update_id: int | None = None
) -> Outcome:
    now = deps.clock.now()
    async with deps.uow() as uow:
        if not await first_time(uow, update_id):
            return Outcome()
        stored = await ensure_chat(uow, chat, founder=user)
        await uow.players.upsert(user)
        existing = await uow.games.open_in_chat(stored.id, lock=True)
        if existing is not None:
            return await answer(uow, ReplyCode.GAME_EXISTS, existing, status=existing.status.value)
        game = Game(
            chat_id=stored.id,
            creator_id=user.id,
            rules=stored.rules,
            turn_timeout=stored.turn_timeout or deps.turn_timeout,
            created_at=now,
            thread_id=thread_id,
            deadline=now + timedelta(seconds=deps.lobby_timeout),
            language=stored.language or DEFAULT_LANGUAGE,
        )
        stored_user = await uow.players.get(user.id)
        if stored_user is not None and stored_user.can_dm:
            game.seats.append(user.id)  # the creator is in, when the bot can reach them privately
        game = await uow.games.add(game)
        game.chat = stored
        batch = await show_lobby(uow, game)
        await uow.commit()
        return Outcome(game_id=game.id, deadline=game.wake, batch=batch)


async def play_again(
    deps: Deps,
    game_id: int,
    chat_id: int,
    user: Player,
    reachable: bool,
    update_id: int | None = None,
) -> Outcome:
    """The "Play again" key under a finished game: a new lobby in the same chat with the same
    house rules, the tapper seated (when the bot can write to them), the computer seats back,
    and the other players of that game invited to take a seat. If the chat has a lobby open
    already, the key joins it. The key works for the lobby timeout after the game ended."""
    now = deps.clock.now()
    async with deps.uow() as uow:
        if not await first_time(uow, update_id):
            return Outcome()
        before = await uow.games.get(game_id)
        if before is None or before.status is not GameStatus.FINISHED:
            return await answer(uow, ReplyCode.UNKNOWN_BUTTON)
        # The key is under the group's summary, and in the private chat of each person who sat
        # at the game; pressed anywhere else it is not the bot's.
        seated = chat_id == user.id and user.id in before.seats
        if before.chat_id != chat_id and not seated:
            return await answer(uow, ReplyCode.UNKNOWN_BUTTON)
        chat_id = before.chat_id
        ended = before.finished_at or now
        if now > ended + timedelta(seconds=deps.lobby_timeout):
            return await answer(uow, ReplyCode.PLAY_AGAIN_EXPIRED)
        await uow.players.upsert(user)
        # The chat's row, locked as opening a lobby locks it: taps at the same moment take
        # turns, so the first opens the lobby and the others join it.
        await uow.chats.get(chat_id, lock=True)
        existing = await uow.games.open_in_chat(chat_id, lock=True)
        if existing is not None:
            if existing.status is not GameStatus.LOBBY:
                return await answer(
                    uow, ReplyCode.GAME_EXISTS, existing, status=existing.status.value
                )
            if user.id in existing.seats or not reachable:
                return await answer(
                    uow, ReplyCode.ALREADY_JOINED if reachable else ReplyCode.LOBBY_OPEN, existing
                )
            if (refusal := _lobby_refusal(existing)) is not None:
                return await answer(uow, refusal[0], existing, **refusal[1])
            batch = await _take_seat(uow, existing, user.id)
            await uow.commit()
            return Outcome(reply=Reply(ReplyCode.JOINED), game_id=existing.id, batch=batch)
        game = Game(
            chat_id=chat_id,
            creator_id=user.id,
            rules=before.rules,
            turn_timeout=before.turn_timeout,
            created_at=now,
            thread_id=before.thread_id,
            deadline=now + timedelta(seconds=deps.lobby_timeout),
            language=before.language,
            seats=[user.id] if reachable else [],
            offered=[p for p in before.seats if not is_computer(p) and p != user.id],
        )
        game.seats += [p for p in before.seats if is_computer(p)]
        game = await uow.games.add(game)
        game.chat = before.chat
        batch = await show_lobby(uow, game)
        await uow.commit()
        code = ReplyCode.AGAIN_OPENED if reachable else ReplyCode.NEED_PRIVATE
        return Outcome(reply=Reply(code), game_id=game.id, deadline=game.wake, batch=batch)


async def join(
    deps: Deps,
    game_id: int,
    user: Player,
    update_id: int | None = None,
    chat_id: int | None = None,
) -> Outcome:
    """Take a seat. ``chat_id``: the group the Join key was pressed in; a key only works for
    that group's own game (keys can be forged)."""
    async with deps.uow() as uow:
        if not await first_time(uow, update_id):
            return Outcome()
        await uow.players.upsert(user)
        game = await uow.games.get(game_id, lock=True)
        if game is not None and chat_id is not None and game.chat_id != chat_id:
            return await answer(uow, ReplyCode.UNKNOWN_BUTTON)
        if game is not None and user.id in game.seats and game.status is GameStatus.LOBBY:
            return await answer(uow, ReplyCode.ALREADY_JOINED, game)
        if (refusal := _lobby_refusal(game)) is not None:
            return await answer(uow, refusal[0], game, **refusal[1])
        assert game is not None
        batch = await _take_seat(uow, game, user.id)
        await uow.commit()
        return Outcome(reply=Reply(ReplyCode.JOINED), game_id=game.id, batch=batch)


async def add_computer(
    deps: Deps,
    game_id: int,
    chat_id: int,
    user: Player,
    is_admin: bool,
    update_id: int | None = None,
) -> Outcome:
    """The lobby's creator or an admin (of ``chat_id``, where the key was pressed) seats a
    computer player; only in that group's own lobby."""
    async with deps.uow() as uow:
        if not await first_time(uow, update_id):
            return Outcome()
        game = await uow.games.get(game_id, lock=True)
        if game is not None and game.chat_id != chat_id:
            return await answer(uow, ReplyCode.UNKNOWN_BUTTON)
        if (refusal := _lobby_refusal(game)) is not None:
            return await answer(uow, refusal[0], game, **refusal[1])
        assert game is not None
        if not may_manage(game, user, is_admin):
            return await answer(uow, ReplyCode.CREATOR_OR_ADMIN_ONLY, game)
        used = {-p for p in game.seats if is_computer(p)}
        index = next(i for i in range(1, 100) if i not in used)
        robot = await uow.players.upsert(computer_player(index))
        batch = await _take_seat(uow, game, robot.id)
        await uow.commit()
        return Outcome(
            reply=Reply(ReplyCode.COMPUTER_ADDED, {"name": robot.display_name}),
            game_id=game.id,
            batch=batch,
        )


async def leave(deps: Deps, chat_id: int, user: Player, update_id: int | None = None) -> Outcome:
    """Leave the chat's lobby, or resign from its running game."""
    now = deps.clock.now()
    async with deps.uow() as uow:
        if not await first_time(uow, update_id):
            return Outcome()
        game = await uow.games.open_in_chat(chat_id, lock=True)
        if game is None or user.id not in game.seats:
            return await answer(uow, ReplyCode.NOT_IN_GAME, game)
        if game.status is GameStatus.RUNNING:
            outcome = await resign_in(uow, deps, game, user.id, now)
            await uow.commit()
            return outcome
        game.seats.remove(user.id)
        batch = await show_lobby(uow, game)
        await uow.games.save(game)
        await uow.commit()
        return Outcome(reply=Reply(ReplyCode.LEFT), game_id=game.id, batch=batch)


async def start(
    deps: Deps, chat_id: int, user: Player, is_admin: bool, update_id: int | None = None
) -> Outcome:
    now = deps.clock.now()
    async with deps.uow() as uow:
        if not await first_time(uow, update_id):
            return Outcome()
        game = await uow.games.open_in_chat(chat_id, lock=True)
        if game is None:
            return await answer(uow, ReplyCode.NO_LOBBY)
        if game.status is not GameStatus.LOBBY:
            return await answer(uow, ReplyCode.ALREADY_RUNNING, game)
        if not may_manage(game, user, is_admin):
            return await answer(uow, ReplyCode.CREATOR_OR_ADMIN_ONLY, game)
        if len(game.seats) < game.rules.min_players:
            minimum, have = game.rules.min_players, len(game.seats)
            return await answer(uow, ReplyCode.NEED_PLAYERS, game, min=minimum, have=have)
        batch = await _begin(uow, deps, game, now)
        await uow.commit()
        return Outcome(
            reply=Reply(ReplyCode.STARTED), game_id=game.id, deadline=game.wake, batch=batch
        )


async def _begin(uow: UnitOfWork, deps: Deps, game: Game, now: datetime) -> Batch:
    seating = list(game.seats)
    deps.rng.shuffle(seating)  # seats are drawn, so joining first gives no edge
    game.seats = seating
    game.state = seat_table(seating, game.rules, draw_first_dealer(seating, deps.rng))
    game.status = GameStatus.RUNNING
    game.started_at = now
    notices = notices_for(game)
    notices.lobby(lobby_view(game))
    await advance(uow, deps, game, notices, now)
    batch = await write_notices(uow, game, notices)
    await uow.games.save(game)
    return batch


async def cancel(
    deps: Deps,
    chat_id: int,
    user: Player | None,
    is_admin: bool,
    reason: str = "cancelled",
    update_id: int | None = None,
) -> Outcome:
    """Cancel the chat's lobby or game. ``user=None`` is the bot itself (removed from the group)."""
    now = deps.clock.now()
    async with deps.uow() as uow:
        if not await first_time(uow, update_id):
            return Outcome()
        game = await uow.games.open_in_chat(chat_id, lock=True)
        if game is None:
            return await answer(uow, ReplyCode.NO_GAME)
        if user is not None and not may_manage(game, user, is_admin):
            return await answer(uow, ReplyCode.CREATOR_OR_ADMIN_ONLY, game)
        was_running = game.status is GameStatus.RUNNING
        notices = notices_for(game)
        close(game, reason, now)
        if was_running and game.state is not None:
            notices.close_all(game.state, CloseReason.CANCELLED)  # the players' keys go
            if user is not None:
                notices.table(game.state, closed=True)
        if user is not None:  # a removed bot cannot post anything to the group
            notices.lobby(lobby_view(game))
        batch = await write_notices(uow, game, notices)
        await uow.games.save(game)
        await uow.commit()
        return Outcome(reply=Reply(ReplyCode.CANCELLED), game_id=game.id, batch=batch)


async def lobby_deadline(uow: UnitOfWork, deps: Deps, game: Game, now: datetime) -> Outcome:
    """A lobby's time is up: start it with enough players (one of them a person), else let it
    expire."""
    people = [p for p in game.seats if not is_computer(p)]
    if len(game.seats) >= game.rules.min_players and people:
        batch = await _begin(uow, deps, game, now)
        return Outcome(game_id=game.id, deadline=game.wake, batch=batch)
    close(game, "expired", now)
    batch = await show_lobby(uow, game)
    await uow.games.save(game)
    return Outcome(game_id=game.id, batch=batch)
