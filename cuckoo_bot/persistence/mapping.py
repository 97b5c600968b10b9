"""Explicit mapping between table rows and the app's dataclasses (and the domain's JSON codec)."""

from __future__ import annotations

from datetime import datetime
from functools import partial
from typing import Any

from cuckoo_bot.app.model import Chat, Game, GameStatus, LogEntry, Player, Standing
from cuckoo_bot.app.notices import Notice, NoticeKind, Payload, dump_payload, load_payload
from cuckoo_bot.domain import codec
from cuckoo_bot.domain.rules import HouseRules
from cuckoo_bot.domain.state import GameState
from cuckoo_bot.persistence.decoded import Decoded
from cuckoo_bot.persistence.models import (
    GameLogRow,
    StandingRow,
)

TURN_TIMEOUT = "turn_timeout"
# What the ``*_from_row`` functions read, column by column, by name: a model's instance, a Core
# row of its table's columns, or a table's part of a joined row (``store.Prefixed``).
Columns = Any

# The games' states and the notices' payloads written or decoded lately (``decoded.py``): a
# game's by its id, a notice's by its kind and id. Sized for more games than one token can keep
# busy at once (ten presses a second: 30 to 60 games at a human pace), each with the dozen or
# so notices a press reads again: about 15 KB a state of six seats, a few KB a notice.
STATES: Decoded[GameState] = Decoded(128)
PAYLOADS: Decoded[Payload] = Decoded(1024)


def settings_of(rules: HouseRules, turn_timeout: float | None) -> dict[str, Any]:
    return {**rules.to_dict(), TURN_TIMEOUT: turn_timeout}


def _turn_timeout(settings: dict[str, Any]) -> float | None:
    value = settings.get(TURN_TIMEOUT)
    return None if value is None else float(value)


# -- chats -----------------------------------------------------------------------------------


def chat_values(chat: Chat) -> dict[str, Any]:
    """Column values of ``chat`` (without the timestamps)."""
    return {
        "id": chat.id,
        "title": chat.title,
        "language": chat.language,
        "settings": settings_of(chat.rules, chat.turn_timeout),
        "migrated_from": chat.migrated_from,
        "active": chat.active,
    }


def chat_from_row(row: Columns) -> Chat:
    return Chat(
        id=row.id,
        title=row.title,
        language=row.language,
        rules=HouseRules.from_dict(row.settings),
        turn_timeout=_turn_timeout(row.settings),
        migrated_from=row.migrated_from,
        active=row.active,
        pot=row.pot,
    )


# -- players ---------------------------------------------------------------------------------


def player_values(player: Player) -> dict[str, Any]:
    return {
        "id": player.id,
        "first_name": player.first_name,
        "last_name": player.last_name,
        "username": player.username,
        "language": player.language or None,
        "can_dm": player.can_dm,
        "is_computer": player.is_computer,
    }


def player_from_row(row: Columns) -> Player:
    return Player(
        id=row.id,
        first_name=row.first_name,
        last_name=row.last_name,
        username=row.username,
        language=row.language,
        can_dm=row.can_dm,
        is_computer=row.is_computer,
    )


# -- games -----------------------------------------------------------------------------------


GAME_COLUMNS = (
    "chat_id",
    "thread_id",
    "status",
    "creator_id",
    "settings",
    "seats",
    "state",
    "dealer",
    "winners",
    "shared_victory",
    "deadline",
    "warn_at",
    "language",
    "offered",
    "cancel_reason",
    "created_at",
    "started_at",
    "finished_at",
)


def game_values(game: Game) -> dict[str, Any]:
    """Column values of ``game`` except ``id`` and ``version`` (the store manages those)."""
    state = game.state
    return {
        "chat_id": game.chat_id,
        "thread_id": game.thread_id,
        "status": game.status.value,
        "creator_id": game.creator_id,
        "settings": settings_of(game.rules, game.turn_timeout),
        "seats": list(game.seats),
        "state": codec.dump_state(state) if state is not None else None,
        "dealer": state.dealer if state is not None else None,
        "winners": list(state.winners) if state is not None else [],
        "shared_victory": state.shared_victory if state is not None else False,
        "deadline": game.deadline,
        "warn_at": game.warn_at,
        "language": game.language,
        "offered": list(game.offered) or None,
        "cancel_reason": game.cancel_reason,
        "created_at": game.created_at,
        "started_at": game.started_at,
        "finished_at": game.finished_at,
    }


def stored_seats(game: Game) -> tuple[tuple[int, int | None, int | None], ...]:
    """The ``game_players`` rows a game has: (player, lives, round out) in seat order."""
    if game.state is not None:
        return tuple((s.player, s.lives, s.eliminated_in_round) for s in game.state.seats)
    return tuple((p, None, None) for p in game.seats)


def game_from_row(row: Columns, chat: Columns | None = None) -> Game:
    turn_timeout = _turn_timeout(row.settings)
    game = Game(
        id=row.id,
        chat_id=row.chat_id,
        creator_id=row.creator_id,
        rules=HouseRules.from_dict(row.settings),
        turn_timeout=turn_timeout if turn_timeout is not None else 0.0,
        created_at=row.created_at,
        thread_id=row.thread_id,
        status=GameStatus(row.status),
        seats=list(row.seats),
        state=STATES.get(row.id, row.state, codec.load_state) if row.state is not None else None,
        deadline=row.deadline,
        warn_at=row.warn_at,
        started_at=row.started_at,
        finished_at=row.finished_at,
        cancel_reason=row.cancel_reason,
        language=row.language,
        offered=list(row.offered or []),
        version=row.version,
        chat=chat_from_row(chat) if chat is not None else None,
        stored_log_seq=row.log_seq,
    )
    game.stored_round = game.state.round.number if game.state and game.state.round else None
    game.stored_seats = stored_seats(game)
    return game


# -- the log ---------------------------------------------------------------------------------


def log_values(game_id: int, seq: int, round_no: int | None, entry: LogEntry) -> dict[str, Any]:
    return {
        "game_id": game_id,
        "seq": seq,
        "round": round_no,
        "actor": entry.actor,
        "action": codec.dump_action(entry.action) if entry.action is not None else None,
        "events": [[codec.event_name(e), codec.dump_event(e)] for e in entry.events],
        "at": entry.at,
    }


def log_entry_from_row(row: GameLogRow) -> LogEntry:
    return LogEntry(
        action=codec.load_action(row.action) if row.action is not None else None,
        events=tuple(codec.load_event(name, data) for name, data in row.events),
        at=row.at,
        actor=row.actor,
    )


# -- the outbox ------------------------------------------------------------------------------


def notice_values(notice: Notice, created_at: datetime) -> dict[str, Any]:
    return {
        "kind": notice.kind.value,
        "chat_id": notice.chat_id,
        "game_id": notice.game_id,
        "thread_id": notice.thread_id,
        "round": notice.round,
        "payload": dump_payload(notice.payload),
        "created_at": created_at,
        "attempts": 0,
    }


def notice_from_row(row: Columns) -> Notice:
    kind = NoticeKind(row.kind)
    return Notice(
        kind=kind,
        chat_id=row.chat_id,
        game_id=row.game_id,
        payload=PAYLOADS.get((kind, row.id), row.payload, partial(load_payload, kind)),
        id=row.id,
        thread_id=row.thread_id,
        created_at=row.created_at,
        attempts=row.attempts,
    )


# -- standings -------------------------------------------------------------------------------


def standing_values(standing: Standing) -> dict[str, Any]:
    return {
        "scope": standing.scope,
        "season": standing.season,
        "player_id": standing.player_id,
        "games": standing.games,
        "wins": standing.wins,
        "shared_wins": standing.shared_wins,
        "lives_lost": standing.lives_lost,
        "rounds_survived": standing.rounds_survived,
        "rating_mu": standing.rating_mu,
        "rating_sigma": standing.rating_sigma,
        "chips": standing.chips,
    }


def standing_from_row(row: StandingRow) -> Standing:
    return Standing(
        player_id=row.player_id,
        scope=row.scope,
        season=row.season,
        games=row.games,
        wins=row.wins,
        shared_wins=row.shared_wins,
        lives_lost=row.lives_lost,
        rounds_survived=row.rounds_survived,
        rating_mu=row.rating_mu,
        rating_sigma=row.rating_sigma,
        chips=row.chips,
    )
