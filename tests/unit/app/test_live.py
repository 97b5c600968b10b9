"""The live table's read model: every viewer sees their own card and nobody else's before the
reveal, a King shown to block a swap, and every card once the round is revealed."""

from __future__ import annotations

import json
import random
from datetime import UTC, datetime

from hypothesis import given, settings
from hypothesis import strategies as st

from cuckoo_bot.app.live import LiveTable, live_table
from cuckoo_bot.app.model import Game, GameStatus
from cuckoo_bot.domain import codec
from cuckoo_bot.domain.actions import Action, Deal, Move, PlayerId, Timeout
from cuckoo_bot.domain.decks import STANDARD
from cuckoo_bot.domain.engine import apply, legal_actions, new_game
from cuckoo_bot.domain.rules import HouseRules
from cuckoo_bot.domain.state import GameState, Phase

SPECTATOR = 999


def _game(state: GameState) -> Game:
    status = GameStatus.FINISHED if state.finished else GameStatus.RUNNING
    game = Game(
        chat_id=-100,
        creator_id=state.players[0],
        rules=state.rules,
        turn_timeout=90,
        created_at=datetime(2026, 12, 1, tzinfo=UTC),
        id=7,
        status=status,
        seats=list(state.players),
        state=state,
        deadline=datetime(2026, 12, 1, 0, 1, tzinfo=UTC),
    )
    return game


def _next(state: GameState, rng: random.Random) -> Action:
    if state.needs_deal:
        return Deal(STANDARD.shuffled(rng))
    options = legal_actions(state)
    if not options or rng.random() < 0.1:
        return Timeout(state.turn)
    return rng.choice(options)


def _seen(table: LiveTable) -> str:
    return json.dumps(codec.dump(table))


@settings(max_examples=25, deadline=None)
@given(
    seed=st.integers(0, 2**32),
    players=st.integers(3, 8),
    double_cut=st.booleans(),
)
def test_no_viewer_ever_sees_a_card_that_is_not_theirs_before_its_reveal(
    seed: int, players: int, double_cut: bool
) -> None:
    rng = random.Random(seed)
    seated: list[PlayerId] = list(range(1, players + 1))
    state = new_game(seated, HouseRules(double_cut=double_cut), seated[0])
    for _ in range(150):
        if state.finished:
            break
        state, _ = apply(state, _next(state, rng))
        game = _game(state)
        rnd = state.round
        in_turns = state.phase is Phase.TURNS and rnd is not None
        shown = {a.shown.code for a in rnd.acts if a.shown is not None} if rnd else set()
        for viewer in [*seated, SPECTATOR, None]:
            table = live_table(game, viewer)
            text = _seen(table)
            for seat in table.seats:
                if in_turns:
                    assert rnd is not None
                    if seat.player == viewer and seat.player in rnd.order and not seat.out:
                        assert seat.card == rnd.card_of(seat.player).code
                    else:
                        assert seat.card is None, (viewer, seat)
                    assert seat.shown is None or seat.shown in shown
            if in_turns:
                assert rnd is not None
                hidden = {
                    rnd.card_of(p).code
                    for p in rnd.order
                    if p != viewer and rnd.card_of(p).code not in shown
                }
                # No hidden card anywhere in what this viewer would be sent.
                assert not any(f'"{code}"' in text for code in hidden), (viewer, text)
                assert not any(c.code in text for c in rnd.stock if c.code not in shown)


def test_the_reveal_turns_every_card_over_and_marks_the_lowest() -> None:
    rng = random.Random(3)
    seated: list[PlayerId] = [1, 2, 3, 4]
    state = new_game(seated, HouseRules(), 1)
    while True:
        state, _ = apply(state, _next(state, rng))
        if state.last_reveal is not None and state.phase is not Phase.TURNS:
            break
    reveal = state.last_reveal
    assert reveal is not None
    table = live_table(_game(state), SPECTATOR)
    assert table.revealed and table.actor is None and table.options == ()
    for seat in table.seats:
        card = reveal.card_of(seat.player)
        assert seat.card == (card.code if card is not None else None)
        assert seat.lost == reveal.lost(seat.player)
    assert any(seat.lost for seat in table.seats)


def test_the_player_to_act_gets_their_keys_and_nobody_else_does() -> None:
    rng = random.Random(5)
    state = new_game([1, 2, 3], HouseRules(), 1)
    state, _ = apply(state, Deal(STANDARD.shuffled(rng)))
    actor = state.actor
    assert actor is not None
    game = _game(state)
    mine = live_table(game, actor)
    assert mine.actor == actor and mine.deadline == game.deadline
    assert set(mine.options) <= {Move.KEEP, Move.SWAP, Move.CUT} and Move.KEEP in mine.options
    for other in (p for p in (1, 2, 3, SPECTATOR) if p != actor):
        assert live_table(game, other).options == ()


def test_a_lobby_shows_its_seats_and_no_card() -> None:
    game = Game(
        chat_id=-100,
        creator_id=1,
        rules=HouseRules(),
        turn_timeout=90,
        created_at=datetime(2026, 12, 1, tzinfo=UTC),
        seats=[1, 2],
    )
    table = live_table(game, 1)
    assert table.status is GameStatus.LOBBY and [s.player for s in table.seats] == [1, 2]
    assert all(s.card is None for s in table.seats)
