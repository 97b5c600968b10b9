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
from cuckoo_bot.domain.cards import CAVALIER, CUCKOO, HARLEQUIN, HUSSAR, INN, KING, PIG, QUEEN, Card
from cuckoo_bot.domain.decks import deck_for
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
    RoundStopped,
    SuddenDeathStarted,
    SwapBlocked,
    SwapPassedOn,
    Swapped,
    SwapStruck,
    TimedOut,
)
from cuckoo_bot.domain.rules import FinalTie, HouseRules
from cuckoo_bot.domain.state import GameState, Phase, Reveal, finishing_ranks

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
    kille=st.booleans(),
    idle_turn_limit=st.integers(1, 3),
)


def reveal_rank(card: Card, spent: tuple[Card, ...]) -> int:
    """The README's ranking at a reveal: the card's rank, but a Kille Harlequin that changed
    hands this round below everything (0)."""
    return 0 if card in spent else card.rank


def lowest_of(reveal: Reveal | Revealed, spent: tuple[Card, ...]) -> set[int]:
    ranks = [reveal_rank(c, spent) for c in reveal.cards]
    return {p for p, r in zip(reveal.order, ranks, strict=True) if r == min(ranks)}


def power(card: Card, rules: HouseRules) -> str | None:
    """What the README says a card's holder does when asked for a swap."""
    if rules.kille:
        kille = {CUCKOO: "stop", HUSSAR: "strike", PIG: "strike", INN: "pass", CAVALIER: "pass"}
        return kille.get(card.rank)
    if card.rank == KING and rules.kings_block:
        return "block"
    if card.rank == QUEEN and rules.queens_block:
        return "pass"
    return None


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
        self.step(Deal(deck_for(self.state.rules).shuffled(random.Random(seed))))

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
        deck = deck_for(self.state.rules).shuffled(random.Random(seed))
        for action in (Deal(deck), Keep(player), Resign(player)):
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
        assert before.round is not None and after.last_reveal is not None
        spent = after.last_reveal.spent
        lowest = lowest_of(reveal, spent)
        assert set(reveal.lowest) == lowest
        penalised = set(before.round.penalised)
        penalised |= {e.player for e in events if isinstance(e, TimedOut) and e.penalised}
        struck = set(before.round.struck) | {e.player for e in events if isinstance(e, SwapStruck)}
        if not before.rules.fast_turns:
            assert not penalised
        if not before.rules.kille:
            assert not struck and not spent
        losers = Counter(e.player for e in events if isinstance(e, LifeLost))
        # Exactly the lowest, the fast-turn idlers and the Kille struck lose.
        assert set(losers) == lowest | penalised | struck
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
        """A swap asked goes to the neighbour, who gives their card unless it has a power
        (``power``): a King blocks; a card that passes sends the ask to the next player (never
        back to the asker: with nobody after, it blocks), once with the 52 cards (a second
        Queen there blocks), on and on with the Kille deck's; the Kille Cuckoo stops the round
        (the reveal at once), the Hussar and the Pig strike the asker. Only the two who swap
        change cards, and a Kille Harlequin that changes hands is spent."""
        asks = [
            e
            for e in events
            if isinstance(e, Swapped | SwapBlocked | SwapPassedOn | SwapStruck | RoundStopped)
        ]
        if not asks:
            return
        rnd, rules = before.round, before.rules
        assert rnd is not None
        asker, pos = rnd.actor, rnd.position
        index, passes, expected = pos + 1, 0, []
        limit = len(rnd.order) if rules.kille else 1
        while True:
            target, theirs = rnd.order[index], rnd.cards[index]
            does = power(theirs, rules)
            if does == "pass" and passes < limit and index + 1 < len(rnd.order):
                expected.append(
                    SwapPassedOn(asker, target, queen=theirs, next=rnd.order[index + 1])
                )
                index, passes = index + 1, passes + 1
                hypothesis.event("an ask passed on")
                continue
            break
        mine = rnd.cards[pos]
        outcome = {
            None: Swapped(asker, target, player_card=theirs, neighbour_card=mine),
            "block": SwapBlocked(asker, target, king=theirs),
            "pass": SwapBlocked(asker, target, king=theirs),
            "stop": RoundStopped(asker, target, cuckoo=theirs),
            "strike": SwapStruck(asker, target, card=theirs),
        }[does]
        hypothesis.event(f"an ask ended: {type(outcome).__name__}")
        assert asks == [*expected, outcome]
        if does == "stop":
            assert any(isinstance(e, Revealed) for e in events)
        if after.round is not None and after.round.number == rnd.number:
            if does == "strike":
                assert asker in after.round.struck
            if does is None and rules.kille:
                harlequins = {c for c in (mine, theirs) if c.rank == HARLEQUIN}
                assert harlequins <= set(after.round.spent)
        cards = (
            after.round.cards if after.round is not None and after.phase is Phase.TURNS else None
        )
        if cards is not None:
            swapped = {asker: theirs, target: mine} if does is None else {}
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
    def one_card_per_active_player_and_the_whole_deck(self) -> None:
        state = self.state
        if state.phase is not Phase.TURNS:
            return
        rnd = state.round
        assert rnd is not None
        assert len(rnd.cards) == len(rnd.order)
        assert set(rnd.order) == set(state.active_players)
        assert deck_for(state.rules).is_whole(rnd.all_cards())

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
        assert set(last.lowest) == lowest_of(last, last.spent)
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
