"""Stateful property tests: random tables, every house-rule combination, every kind of action."""

from __future__ import annotations

import json
import random
from collections import Counter

import hypothesis
import pytest
from hypothesis import HealthCheck, settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, initialize, invariant, precondition, rule

from cuckoo_bot.domain import codec
from cuckoo_bot.domain.actions import Action, Deal, Keep, Misdeal, Resign, Timeout
from cuckoo_bot.domain.cards import FULL_DECK, KING, QUEEN
from cuckoo_bot.domain.decks import STANDARD
from cuckoo_bot.domain.engine import apply, legal_actions, new_game
from cuckoo_bot.domain.errors import GameOver
from cuckoo_bot.domain.events import (
    Event,
    GameWon,
    LifeLost,
    PlayerEliminated,
    Revealed,
    RoundDealt,
    RoundEnded,
    SuddenDeathStarted,
    SwapBlocked,
    SwapPassedOn,
    Swapped,
    TimedOut,
)
from cuckoo_bot.domain.rules import FinalTie, HouseRules
from cuckoo_bot.domain.state import GameState, Phase, finishing_ranks

house_rules = st.builds(
    HouseRules,
    lives=st.sampled_from([3, 5]),
    max_players=st.just(20),
    kings_block=st.booleans(),
    final_tie=st.sampled_from(list(FinalTie)),
    double_cut=st.booleans(),
    dealer_stays=st.booleans(),
    queens_block=st.booleans(),
    stakes=st.booleans(),
    fast_turns=st.booleans(),
    idle_turn_limit=st.integers(1, 3),
)


class CuckooTable(RuleBasedStateMachine):
    state: GameState

    @initialize(size=st.integers(3, 20), rules=house_rules, seed=st.integers(0, 2**32))
    def seat_table(self, size: int, rules: HouseRules, seed: int) -> None:
        rng = random.Random(seed)
        players = rng.sample(range(1, 10_000), size)
        self.state = new_game(players, rules, first_dealer=rng.choice(players))

    # -- actions ---------------------------------------------------------------------------

    @precondition(lambda self: self.state.needs_deal)
    @rule(seed=st.integers(0, 2**32))
    def deal(self, seed: int) -> None:
        self.step(Deal(STANDARD.shuffled(random.Random(seed))))

    @precondition(lambda self: bool(legal_actions(self.state)))
    @rule(pick=st.integers(0, 1))
    def choose(self, pick: int) -> None:
        options = legal_actions(self.state)
        self.step(options[pick % len(options)])

    @precondition(lambda self: self.state.phase is Phase.TURNS)
    @rule()
    def clock_runs_out(self) -> None:
        self.step(Timeout(self.state.turn))

    @precondition(lambda self: self.state.phase is Phase.TURNS)
    @rule(back=st.integers(1, 3))
    def stale_timeout_is_a_no_op(self, back: int) -> None:
        before = self.state
        after, events = apply(before, Timeout(before.turn - back))
        assert after == before and events == ()

    @precondition(lambda self: self.state.phase is Phase.TURNS)
    @rule()
    def misdeal(self) -> None:
        self.step(Misdeal())

    @precondition(lambda self: not self.state.finished and len(self.state.active_players) > 1)
    @rule(index=st.integers(0, 19))
    def resign(self, index: int) -> None:
        active = self.state.active_players
        self.step(Resign(active[index % len(active)]))

    @precondition(lambda self: self.state.finished)
    @rule(seed=st.integers(0, 2**32))
    def a_finished_game_refuses_everything(self, seed: int) -> None:
        player = self.state.players[0]
        for action in (Deal(STANDARD.shuffled(random.Random(seed))), Keep(player), Resign(player)):
            with pytest.raises(GameOver):
                apply(self.state, action)
        assert apply(self.state, Timeout(self.state.turn)) == (self.state, ())

    # -- checks on every transition ----------------------------------------------------------

    def step(self, action: Action) -> None:
        before = self.state
        after, events = apply(before, action)
        self.check_lives(before, after)
        self.check_reveal(before, after, events)
        self.check_rotation(before, after, events)
        self.check_swap(before, after, events)
        self.check_end(after, events)
        self.check_stored(action, after, events)
        for event in events:
            if isinstance(event, GameWon | SuddenDeathStarted | Revealed):
                hypothesis.event(type(event).__name__)
        if after.abandoned:
            hypothesis.event("abandoned")
        self.state = after

    def check_stored(self, action: Action, after: GameState, events: tuple[Event, ...]) -> None:
        """What the store writes (the state, the action and its events, as JSON text) reads
        back as it was, exactly."""
        text = json.dumps(codec.dump_state(after))
        assert codec.load_state(json.loads(text)) == after
        text = json.dumps(codec.dump_action(action))
        assert codec.load_action(json.loads(text)) == action
        for event in events:
            text = json.dumps(codec.dump_event(event))
            assert codec.load_event(codec.event_name(event), json.loads(text)) == event

    def check_lives(self, before: GameState, after: GameState) -> None:
        for old, new in zip(before.seats, after.seats, strict=True):
            assert old.player == new.player
            assert 0 <= new.lives <= old.lives  # lives never rise, never go negative

    def check_reveal(self, before: GameState, after: GameState, events: tuple[Event, ...]) -> None:
        reveal = next((e for e in events if isinstance(e, Revealed)), None)
        if reveal is None:
            assert not any(isinstance(e, LifeLost) for e in events)
            return
        lowest_rank = min(c.rank for c in reveal.cards)
        lowest = {
            p for p, c in zip(reveal.order, reveal.cards, strict=True) if c.rank == lowest_rank
        }
        assert set(reveal.lowest) == lowest
        assert before.round is not None
        penalised = set(before.round.penalised)
        penalised |= {e.player for e in events if isinstance(e, TimedOut) and e.penalised}
        if not before.rules.fast_turns:
            assert not penalised
        losers = Counter(e.player for e in events if isinstance(e, LifeLost))
        assert set(losers) == lowest | penalised  # exactly the lowest (and fast-turn idlers) lose
        assert all(n == 1 for n in losers.values())  # one life in total per round
        for player in reveal.order:
            expected = before.lives(player) - (1 if player in losers else 0)
            assert after.lives(player) == expected

    def check_rotation(
        self, before: GameState, after: GameState, events: tuple[Event, ...]
    ) -> None:
        for event in events:
            if isinstance(event, RoundEnded):
                assert before.round is not None
                old = before.round.dealer
                seats = after.players
                start = seats.index(old)
                clockwise = [seats[(start + k) % len(seats)] for k in range(1, len(seats) + 1)]
                expected = next(p for p in clockwise if after.seat(p).active)
                if after.rules.dealer_stays and after.seat(old).active:
                    expected = old  # the dealer stays while still in
                assert event.next_dealer == expected
            if isinstance(event, RoundDealt):
                assert after.seat(event.dealer).active
                assert event.order[-1] == event.dealer
                assert set(event.order) == set(after.active_players)

    def check_swap(self, before: GameState, after: GameState, events: tuple[Event, ...]) -> None:
        """A swap asked goes to the neighbour, who gives their card unless a King blocks; with
        Coucou's Queens a Queen sends the ask once to the player after her holder (never back
        to the asker), where a King or a second Queen ends it. Only the two who swap change
        cards; a Queen never touches the dealer's cut."""
        asks = [e for e in events if isinstance(e, Swapped | SwapBlocked | SwapPassedOn)]
        if not asks:
            return
        rnd, rules = before.round, before.rules
        assert rnd is not None
        asker, pos = rnd.actor, rnd.position
        first = rnd.order[pos + 1]
        held = rnd.cards[pos + 1]
        passed = [e for e in asks if isinstance(e, SwapPassedOn)]
        queen = rules.queens_block and held.rank == QUEEN
        assert bool(passed) == (queen and pos + 2 < len(rnd.order))
        if passed:
            hypothesis.event("a Queen passed a swap on")
            assert passed[0] == SwapPassedOn(asker, first, queen=held, next=rnd.order[pos + 2])
            target, theirs = rnd.order[pos + 2], rnd.cards[pos + 2]
            blocks = (rules.kings_block and theirs.rank == KING) or theirs.rank == QUEEN
        else:
            target, theirs = first, held
            blocks = (rules.kings_block and theirs.rank == KING) or queen
        outcome = asks[-1]
        assert len(asks) == 1 + len(passed) and outcome.player == asker
        assert outcome.neighbour == target
        assert isinstance(outcome, SwapBlocked) == blocks
        mine = rnd.cards[pos]
        cards = (
            after.round.cards if after.round is not None and after.phase is Phase.TURNS else None
        )
        if cards is not None:
            swapped = {asker: theirs, target: mine} if not blocks else {}
            for player, card in zip(rnd.order, cards, strict=True):
                assert card == swapped.get(player, rnd.card_of(player))

    def check_end(self, after: GameState, events: tuple[Event, ...]) -> None:
        won = [e for e in events if isinstance(e, GameWon)]
        if won:
            assert after.finished and set(won[0].winners) == set(after.winners)
            if len(after.active_players) == 1:
                assert after.winners == after.active_players
            else:
                assert not after.active_players  # they went out together
                went_out = {e.player for e in events if isinstance(e, PlayerEliminated)}
                assert (
                    set(after.winners) <= went_out or after.rules.final_tie is FinalTie.SUDDEN_DEATH
                )
                assert after.shared_victory == (len(after.winners) > 1)
        elif after.finished:
            assert after.abandoned and after.winners == ()
        if any(isinstance(e, SuddenDeathStarted) for e in events):
            assert after.rules.final_tie is FinalTie.SUDDEN_DEATH and not after.active_players

    # -- invariants ------------------------------------------------------------------------

    @invariant()
    def one_card_per_active_player_and_52_cards(self) -> None:
        state = self.state
        if state.phase is not Phase.TURNS:
            return
        rnd = state.round
        assert rnd is not None
        assert len(rnd.cards) == len(rnd.order)
        assert set(rnd.order) == set(state.active_players)
        cards = rnd.all_cards()
        assert len(cards) == 52 and set(cards) == set(FULL_DECK)

    @invariant()
    def the_game_goes_on_exactly_while_two_or_more_are_left(self) -> None:
        state = self.state
        active = len(state.active_players)
        if state.phase in (Phase.DEALING, Phase.TURNS):
            assert active >= 2
        if state.phase is Phase.SUDDEN_DEATH:
            assert active == 0 and len(state.sudden_death) >= 2
        if state.finished:
            assert state.actor is None and not legal_actions(state)

    @invariant()
    def the_last_reveal_is_the_newest_round_shown_and_its_lowest_lost(self) -> None:
        last = self.state.last_reveal
        if last is None:
            return
        assert last.round <= self.state.rounds_dealt
        lowest = min(card.rank for card in last.cards)
        assert set(last.lowest) == {
            p for p, c in zip(last.order, last.cards, strict=True) if c.rank == lowest
        }
        assert all(last.lost(p) for p in last.lowest)

    @invariant()
    def places_follow_the_order_players_went_out(self) -> None:
        state = self.state
        if not state.finished or not state.winners:
            return
        ranks = finishing_ranks(state)
        assert {p for p, place in ranks.items() if place == 1} == set(state.winners)
        for a in state.players:
            for b in state.players:
                out_a = state.seat(a).eliminated_in_round
                out_b = state.seat(b).eliminated_in_round
                if a in state.winners or b in state.winners or out_a is None or out_b is None:
                    continue
                # Out later is a better place; out in the same round, the same place.
                assert (ranks[a] < ranks[b]) == (out_a > out_b)
                assert (ranks[a] == ranks[b]) == (out_a == out_b)


TestCuckooTable = CuckooTable.TestCase
TestCuckooTable.settings = settings(
    max_examples=150,
    stateful_step_count=80,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
)
