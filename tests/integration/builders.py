"""Rows the integration tests store: chats, players, games played by the real rules engine."""

from __future__ import annotations

import random
from datetime import UTC, datetime, timedelta

from cuckoo_bot.app.model import Chat, Game, GameStatus, LogEntry, Player
from cuckoo_bot.app.ports import UnitOfWork
from cuckoo_bot.domain.actions import Action, Deal, Timeout
from cuckoo_bot.domain.decks import STANDARD
from cuckoo_bot.domain.engine import apply, legal_actions, new_game
from cuckoo_bot.domain.rules import FinalTie, HouseRules
from cuckoo_bot.domain.state import GameState

CHAT_ID = -1001234567890  # a supergroup id: needs BIGINT
START = datetime(2026, 11, 29, 18, 30, 15, 654321, tzinfo=UTC)
PLAYERS = (
    Player(id=7_000_000_001, first_name="Ann", username="ann", language="en", can_dm=True),
    Player(id=7_000_000_002, first_name="Bea", last_name="Bo", language="es", can_dm=True),
    Player(id=7_000_000_003, first_name="Cid", language="fr", can_dm=True),
    Player(id=-1, first_name="🤖 Ada", is_computer=True),
)
ODD_RULES = HouseRules(
    lives=5,
    max_players=6,
    kings_block=False,
    final_tie=FinalTie.SUDDEN_DEATH,
    double_cut=True,
    fast_turns=True,
    idle_turn_limit=3,
)


def chat(chat_id: int = CHAT_ID, **changes: object) -> Chat:
    values: dict[str, object] = {"id": chat_id, "title": "Cuckoo club", "language": "es"}
    values.update(changes)
    return Chat(**values)  # type: ignore[arg-type]


def lobby(chat_id: int = CHAT_ID, rules: HouseRules | None = None, **changes: object) -> Game:
    values: dict[str, object] = {
        "chat_id": chat_id,
        "creator_id": PLAYERS[0].id,
        "rules": rules or HouseRules(),
        "turn_timeout": 45.5,
        "created_at": START,
        "thread_id": 77,
        "seats": [p.id for p in PLAYERS],
        "deadline": START + timedelta(minutes=10),
        "language": "es",
    }
    values.update(changes)
    return Game(**values)  # type: ignore[arg-type]


async def seed(uow: UnitOfWork, chat_ids: tuple[int, ...] = (CHAT_ID,)) -> None:
    """The chats and players games refer to."""
    for chat_id in chat_ids:
        await uow.chats.add(chat(chat_id))
    for player in PLAYERS:
        await uow.players.upsert(player)


def start(game: Game, at: datetime) -> None:
    """What ``lobby._begin`` does, without the shuffle of seats."""
    game.state = new_game(game.seats, game.rules, first_dealer=game.seats[1])
    game.status = GameStatus.RUNNING
    game.started_at = at


def choose(state: GameState, rng: random.Random) -> Action:
    """A deal when one is due, else a random legal move, now and then the clock running out."""
    if state.needs_deal:
        return Deal(STANDARD.shuffled(rng))
    if rng.random() < 0.15:
        return Timeout(state.turn)
    return rng.choice(legal_actions(state))


def step(game: Game, action: Action, at: datetime) -> None:
    """Apply ``action`` and log it, as ``flow.step`` does."""
    assert game.state is not None
    actor = game.state.actor if not isinstance(action, Deal | Timeout) else None
    game.state, events = apply(game.state, action)
    game.new_log.append(LogEntry(action=action, events=events, at=at, actor=actor))


def replay(start_state: GameState, log: list[LogEntry]) -> GameState:
    state = start_state
    for entry in log:
        if entry.action is not None:
            state, events = apply(state, entry.action)
            assert events == entry.events
    return state
