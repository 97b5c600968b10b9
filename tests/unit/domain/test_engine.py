"""Rules 1-10 and the house rules, one behaviour per test."""

from __future__ import annotations

import random

import pytest

from cuckoo_bot.domain.actions import Cut, Deal, Keep, Misdeal, Resign, Swap, Timeout
from cuckoo_bot.domain.cards import FULL_DECK
from cuckoo_bot.domain.decks import STANDARD
from cuckoo_bot.domain.engine import apply, legal_actions, new_game
from cuckoo_bot.domain.errors import (
    GameOver,
    IllegalAction,
    InvalidDeck,
    InvalidSettings,
    InvalidTable,
    NotInGame,
    NotYourTurn,
    StaleTurn,
)
from cuckoo_bot.domain.events import (
    CardCut,
    CutBlocked,
    GameAbandoned,
    GameWon,
    LifeLossCause,
    LifeLost,
    Misdealt,
    PlayerRemoved,
    RemovalReason,
    Revealed,
    RoundEnded,
    SuddenDeathDrawn,
    SuddenDeathStarted,
    SwapBlocked,
    SwapPassedOn,
    Swapped,
    TimedOut,
    TurnStarted,
)
from cuckoo_bot.domain.rules import FinalTie, GameName, HouseRules
from cuckoo_bot.domain.state import ActKind, Phase

from .tables import card, deal, dealt_table, keep_all, stacked_deck

A, B, C, D, E = 1, 2, 3, 4, 5


def test_turns_start_left_of_the_dealer_and_the_dealer_acts_last() -> None:
    state = dealt_table([A, B, C, D, E], dealer=B, hands=["2S", "3S", "4S", "5S", "6S"])
    assert state.round is not None
    assert state.round.order == (C, D, E, A, B)
    assert state.actor == C
    assert state.round.card_of(C) == card("2S") and state.round.card_of(B) == card("6S")


def test_the_player_before_the_dealer_asks_the_dealer() -> None:
    state = dealt_table([A, B, C], dealer=C, hands=["9S", "2S", "JD"])
    state, _ = apply(state, Keep(A))
    state, events = apply(state, Swap(B))
    assert Swapped(B, C, player_card=card("JD"), neighbour_card=card("2S")) in events


def test_a_card_received_through_a_forced_swap_can_be_passed_on() -> None:
    state = dealt_table([A, B, C, D], dealer=D, hands=["2S", "9H", "5C", "QD"])
    state, _ = apply(state, Swap(A))  # B now holds 2♠
    state, events = apply(state, Swap(B))  # and passes it on to C
    assert Swapped(B, C, player_card=card("5C"), neighbour_card=card("2S")) in events
    assert state.actor == C  # the forced swap did not use up B's turn


def test_a_king_holder_may_still_ask_to_swap_and_gives_the_king_away() -> None:
    state = dealt_table([A, B, C], dealer=C, hands=["KS", "3H", "8D"])
    assert Swap(A, state.turn) in legal_actions(state)
    state, events = apply(state, Swap(A))
    assert Swapped(A, B, player_card=card("3H"), neighbour_card=card("KS")) in events


def test_a_blocked_swap_ends_the_turn_with_no_second_attempt() -> None:
    state = dealt_table([A, B, C, D], dealer=D, hands=["2S", "KH", "5C", "QD"])
    state, _ = apply(state, Swap(A))
    assert state.actor == B
    with pytest.raises(NotYourTurn):
        apply(state, Swap(A))


QUEENS = HouseRules(queens_block=True)


def test_coucous_queen_sends_the_asker_on_to_the_player_after_her_holder() -> None:
    state = dealt_table([A, B, C, D], dealer=D, hands=["2S", "QH", "9C", "5D"], rules=QUEENS)
    state, events = apply(state, Swap(A))
    assert events[:2] == (
        SwapPassedOn(A, B, queen=card("QH"), next=C),
        Swapped(A, C, player_card=card("9C"), neighbour_card=card("2S")),
    )
    assert state.round is not None
    assert [state.round.card_of(p) for p in (A, B, C)] == [card("9C"), card("QH"), card("2S")]
    assert [a.kind for a in state.round.acts] == [ActKind.PASSED, ActKind.SWAP]
    assert state.actor == B  # the Queen's holder still has her turn


@pytest.mark.parametrize("after", ["KC", "QC"])
def test_a_king_or_a_second_queen_after_the_queen_ends_the_attempt(after: str) -> None:
    state = dealt_table([A, B, C, D], dealer=D, hands=["2S", "QH", after, "5D"], rules=QUEENS)
    state, events = apply(state, Swap(A))
    assert events[:2] == (
        SwapPassedOn(A, B, queen=card("QH"), next=C),
        SwapBlocked(A, C, king=card(after)),
    )
    assert state.round is not None and state.round.card_of(A) == card("2S")
    assert state.actor == B


def test_a_queen_held_by_the_dealer_blocks_as_a_king_would() -> None:
    state = dealt_table([A, B, C], dealer=C, hands=["9S", "2S", "QD"], rules=QUEENS)
    state, _ = apply(state, Keep(A))
    state, events = apply(state, Swap(B))
    assert SwapBlocked(B, C, king=card("QD")) in events
    assert not any(isinstance(e, SwapPassedOn | Swapped) for e in events)


def test_queens_never_touch_the_dealers_cut_nor_play_without_the_house_rule() -> None:
    state = dealt_table(
        [A, B, C], dealer=C, hands=["9S", "8S", "2D"], stock_top=["QC"], rules=QUEENS
    )
    state, _ = keep_two(state)
    state, events = apply(state, Cut(C))
    assert CardCut(C, old_card=card("2D"), new_card=card("QC")) in events
    plain = dealt_table([A, B, C, D], dealer=D, hands=["2S", "QH", "9C", "5D"])
    plain, events = apply(plain, Swap(A))
    assert Swapped(A, B, player_card=card("QH"), neighbour_card=card("2S")) in events


def test_the_dealer_cuts_a_card_and_the_old_one_goes_to_the_discard() -> None:
    state = dealt_table([A, B, C], dealer=C, hands=["9S", "8S", "2D"], stock_top=["JC"])
    state, _ = keep_two(state)
    assert legal_actions(state) == (Keep(C, state.turn), Cut(C, state.turn))
    state, events = apply(state, Cut(C))
    assert CardCut(C, old_card=card("2D"), new_card=card("JC")) in events
    reveal = next(e for e in events if isinstance(e, Revealed))
    assert reveal.lowest == (B,)


def test_a_cut_king_is_set_aside_and_the_dealer_keeps_the_original_card() -> None:
    state = dealt_table([A, B, C], dealer=C, hands=["9S", "8S", "2D"], stock_top=["KC"])
    state, _ = keep_two(state)
    state, events = apply(state, Cut(C))
    assert CutBlocked(C, king=card("KC")) in events
    reveal = next(e for e in events if isinstance(e, Revealed))
    assert reveal.lowest == (C,)
    assert state.lives(C) == 2


def test_the_dealer_never_swaps_and_others_never_cut() -> None:
    state = dealt_table([A, B, C], dealer=C, hands=["9S", "8S", "2D"])
    with pytest.raises(IllegalAction):
        apply(state, Cut(A))
    state, _ = keep_two(state)
    with pytest.raises(IllegalAction) as raised:
        apply(state, Swap(C))
    assert raised.value.code == "illegal_action"


def test_only_the_player_to_act_counts_and_old_prompts_are_stale() -> None:
    state = dealt_table([A, B, C], dealer=C, hands=["9S", "8S", "2D"])
    with pytest.raises(NotYourTurn) as raised:
        apply(state, Keep(B))
    assert raised.value.code == "not_your_turn"
    old_turn = state.turn
    state, _ = apply(state, Keep(A, old_turn))
    with pytest.raises(StaleTurn):
        apply(state, Keep(A, old_turn))  # a double tap acts once
    with pytest.raises(NotInGame):
        apply(state, Keep(99))


def test_a_timeout_keeps_and_a_stale_timeout_does_nothing() -> None:
    state = dealt_table([A, B, C], dealer=C, hands=["9S", "8S", "2D"])
    turn = state.turn
    state, events = apply(state, Timeout(turn))
    assert TimedOut(A, turn, penalised=False) in events
    assert state.actor == B
    same, nothing = apply(state, Timeout(turn))
    assert nothing == () and same == state


def test_no_block_variant_kings_are_just_the_highest_card() -> None:
    rules = HouseRules(kings_block=False)
    state = dealt_table(
        [A, B, C], dealer=C, hands=["2S", "KH", "5C"], stock_top=["KD"], rules=rules
    )
    state, events = apply(state, Swap(A))
    assert Swapped(A, B, player_card=card("KH"), neighbour_card=card("2S")) in events
    state, _ = apply(state, Keep(B))
    state, events = apply(state, Cut(C))
    assert CardCut(C, old_card=card("5C"), new_card=card("KD")) in events


def test_double_cut_lets_the_dealer_cut_again_and_a_king_keeps_the_card_held_before() -> None:
    rules = HouseRules(double_cut=True)
    state = dealt_table(
        [A, B, C], dealer=C, hands=["9S", "8S", "2D"], stock_top=["3C", "KC"], rules=rules
    )
    state, _ = keep_two(state)
    state, events = apply(state, Cut(C))
    assert CardCut(C, old_card=card("2D"), new_card=card("3C")) in events
    assert TurnStarted(state.turn, C, is_dealer=True, cuts_made=1) in events
    state, events = apply(state, Cut(C))
    assert CutBlocked(C, king=card("KC")) in events
    reveal = next(e for e in events if isinstance(e, Revealed))
    assert dict(zip(reveal.order, reveal.cards, strict=True))[C] == card("3C")


def test_without_double_cut_the_dealer_has_one_cut() -> None:
    state = dealt_table([A, B, C], dealer=C, hands=["9S", "8S", "2D"], stock_top=["3C"])
    state, _ = keep_two(state)
    state, events = apply(state, Cut(C))
    assert any(isinstance(e, Revealed) for e in events)


def test_fast_turns_a_timeout_costs_one_life_even_when_also_lowest() -> None:
    rules = HouseRules(fast_turns=True)
    state = dealt_table([A, B, C, D], dealer=D, hands=["2S", "9S", "JD", "QH"], rules=rules)
    state, events = apply(state, Timeout(state.turn))  # A, lowest, lets the clock run
    assert TimedOut(A, state.turn - 1, penalised=True) in events
    state, _ = apply(state, Timeout(state.turn))  # B too, not lowest
    state, _ = apply(state, Keep(C))
    state, events = apply(state, Keep(D))
    lost = [e for e in events if isinstance(e, LifeLost)]
    assert lost == [LifeLost(A, 2, LifeLossCause.LOWEST), LifeLost(B, 2, LifeLossCause.TIMEOUT)]


def test_without_fast_turns_a_timeout_costs_nothing() -> None:
    state = dealt_table([A, B, C], dealer=C, hands=["9S", "8S", "JD"])
    state, _ = apply(state, Timeout(state.turn))
    state, events = keep_all(state)
    assert [e.player for e in events if isinstance(e, LifeLost)] == [B]


def test_two_timeouts_in_a_row_remove_the_player_at_the_next_deal() -> None:
    state = dealt_table([A, B, C, D], dealer=D, hands=["9S", "8S", "JD", "QH"])
    state, _ = apply(state, Timeout(state.turn))  # A idles once
    state, _ = keep_all(state)
    state, _ = apply(state, Deal(stacked_deck(["9S", "8S", "JD", "QH"])))  # dealer A now
    assert state.round is not None and state.round.order == (B, C, D, A)
    state, _ = keep_through(state, until=A)
    state, _ = apply(state, Timeout(state.turn))  # A idles again: two in a row
    state, events = apply(state, Deal(stacked_deck(["9S", "8S", "JD"])))
    assert PlayerRemoved(A, RemovalReason.IDLE) in events
    assert state.lives(A) == 0 and state.round is not None and A not in state.round.order


def test_an_action_between_timeouts_resets_the_idle_count() -> None:
    state = dealt_table([A, B, C], dealer=C, hands=["9S", "8S", "JD"])
    state, _ = apply(state, Timeout(state.turn))
    state, _ = keep_all(state)
    state, _ = apply(state, Deal(stacked_deck(["9S", "8S", "JD"])))  # dealer A, A acts last
    state, _ = keep_all(state)
    state, _ = apply(state, Deal(stacked_deck(["9S", "8S", "JD"])))
    assert state.seat(A).idle_turns == 0
    state, _ = apply(state, Timeout(state.turn))
    state, events = (
        apply(state, Deal(stacked_deck(["9S", "8S", "JD"]))) if state.needs_deal else (state, ())
    )
    assert not any(isinstance(e, PlayerRemoved) for e in events)


def test_if_everyone_idles_out_the_game_is_abandoned() -> None:
    state = dealt_table([A, B, C], dealer=C, hands=["9S", "8S", "JD"])
    for _ in range(2):
        while state.actor is not None:
            state, _ = apply(state, Timeout(state.turn))
        if not state.finished:
            state, events = apply(state, Deal(stacked_deck(["9S", "8S", "JD"])))
    assert GameAbandoned() in events
    assert state.finished and state.abandoned and state.winners == ()


def test_the_deal_passes_left_skipping_eliminated_players() -> None:
    state = new_game([A, B, C, D], HouseRules(), first_dealer=A)
    dealers = []
    while state.lives(B) > 0:  # B holds the ace every round until out
        state, _ = deal(state, {B: "AS"})
        assert state.round is not None
        dealers.append(state.round.dealer)
        state, events = keep_all(state)
    assert dealers == [A, B, C]
    assert next(e for e in events if isinstance(e, RoundEnded)).next_dealer == D
    state, _ = deal(state, {})
    assert state.round is not None and state.round.order == (A, C, D)
    state, events = keep_all(state)
    # From D the deal skips B's empty seat: A, then C.
    assert next(e for e in events if isinstance(e, RoundEnded)).next_dealer == A
    state, _ = deal(state, {})
    state, events = keep_all(state)
    assert next(e for e in events if isinstance(e, RoundEnded)).next_dealer == C


def test_the_dealer_who_stays_deals_every_round_and_once_out_hands_the_deal_on() -> None:
    state = new_game([A, B, C, D], HouseRules(dealer_stays=True), first_dealer=B)
    dealers = []
    while state.lives(B) > 0:  # B, the dealer, holds the ace every round until out
        state, _ = deal(state, {B: "AS"})
        assert state.round is not None
        dealers.append(state.round.dealer)
        state, events = keep_all(state)
    assert dealers == [B, B, B]
    # Out: the deal passes to the left, to the next player still in, who then stays.
    assert next(e for e in events if isinstance(e, RoundEnded)).next_dealer == C
    for _ in range(2):
        state, _ = deal(state, {A: "AS"})
        assert state.round is not None and state.round.dealer == C
        assert state.round.order == (D, A, C)
        state, events = keep_all(state)
        assert next(e for e in events if isinstance(e, RoundEnded)).next_dealer == C


def test_the_dealer_who_stays_deals_again_after_a_misdeal_and_leaving_passes_the_deal() -> None:
    state = new_game([A, B, C, D], HouseRules(dealer_stays=True), first_dealer=A)
    state, _ = deal(state, {})
    state, events = apply(state, Resign(C))  # mid-round: gathered and dealt again
    assert next(e for e in events if isinstance(e, Misdealt)).next_dealer == A
    state, _ = apply(state, Resign(A))  # the dealer leaves between rounds
    state, _ = deal(state, {})
    assert state.round is not None and state.round.dealer == B


def test_the_sole_survivor_wins() -> None:
    state = new_game([A, B, C], HouseRules(), first_dealer=C)
    for _ in range(3):
        state, _ = deal(state, {A: "2S", B: "2H"})
        state, events = keep_all(state)
    # A and B went out together, C untouched: C is the sole survivor.
    assert state.winners == (C,) and not state.shared_victory
    assert GameWon((C,), shared=False) in events
    with pytest.raises(GameOver):
        apply(state, Deal(tuple(FULL_DECK)))


def test_no_winner_is_declared_while_two_are_left() -> None:
    state = new_game([A, B, C], HouseRules(), first_dealer=C)
    for _ in range(3):
        state, _ = deal(state, {A: "2S"})
        state, events = keep_all(state)
    assert state.lives(A) == 0 and not state.finished
    assert not any(isinstance(e, GameWon) for e in events)


def test_sudden_death_draws_until_one_highest_card() -> None:
    rules = HouseRules(final_tie=FinalTie.SUDDEN_DEATH)
    state = dealt_table([A, B, C], dealer=C, hands=["4S", "4H", "4D"], rules=rules)
    for _ in range(2):
        state, _ = keep_all(state)
        state, _ = apply(state, Deal(stacked_deck(["4S", "4H", "4D"])))
    state, events = keep_all(state)
    assert SuddenDeathStarted((A, B, C)) in events
    assert state.phase is Phase.SUDDEN_DEATH and state.needs_deal
    state, events = apply(state, Deal(stacked_deck(["QS", "QH", "3D"])))
    assert events == (SuddenDeathDrawn((A, B, C), (card("QS"), card("QH"), card("3D")), (A, B)),)
    assert state.sudden_death == (A, B)
    state, events = apply(state, Deal(stacked_deck(["2S", "7H"])))
    assert GameWon((B,), shared=False) in events
    assert state.winners == (B,)


def test_resigning_mid_round_gathers_the_deal_and_nobody_loses_a_life() -> None:
    state = dealt_table([A, B, C, D], dealer=D, hands=["2S", "9H", "5C", "QD"])
    state, _ = apply(state, Swap(A))
    state, events = apply(state, Resign(C))
    assert PlayerRemoved(C, RemovalReason.RESIGNED) in events
    assert Misdealt(round=1, next_dealer=D) in events
    assert state.phase is Phase.DEALING and state.dealer == D
    assert [state.lives(p) for p in (A, B, D)] == [3, 3, 3]
    state, _ = apply(state, Deal(tuple(FULL_DECK)))
    assert state.round is not None and state.round.order == (A, B, D) and state.round.number == 2


def test_when_only_one_player_is_left_after_a_resignation_they_win() -> None:
    state = dealt_table([A, B, C], dealer=C, hands=["2S", "9H", "5C"])
    state, _ = apply(state, Resign(A))
    state, events = apply(state, Resign(B))
    assert GameWon((C,), shared=False) in events


def test_misdeal_redeals_with_no_lives_lost() -> None:
    state = dealt_table([A, B, C], dealer=C, hands=["2S", "9H", "5C"])
    state, events = apply(state, Misdeal())
    assert events == (Misdealt(round=1, next_dealer=C),)
    assert state.needs_deal and all(state.lives(p) == 3 for p in (A, B, C))


@pytest.mark.parametrize("count", [2, 11])
def test_a_table_needs_three_to_max_players(count: int) -> None:
    with pytest.raises(InvalidTable):
        new_game(list(range(1, count + 1)), HouseRules(), first_dealer=1)


def test_twenty_players_with_the_house_rule() -> None:
    state = new_game(list(range(1, 21)), HouseRules(max_players=20), first_dealer=20)
    state, _ = apply(state, Deal(STANDARD.shuffled(random.Random(1))))
    assert state.round is not None and len(state.round.order) == 20


@pytest.mark.parametrize(
    "settings",
    [{"lives": 4}, {"max_players": 2}, {"max_players": 21}, {"idle_turn_limit": 0}],
)
def test_invalid_house_rules_are_refused(settings: dict[str, int]) -> None:
    with pytest.raises(InvalidSettings):
        HouseRules(**settings)  # type: ignore[arg-type]


def test_house_rules_round_trip_through_a_dict() -> None:
    rules = HouseRules(lives=5, max_players=20, kings_block=False, final_tie=FinalTie.SUDDEN_DEATH)
    assert HouseRules.from_dict(rules.to_dict()) == rules
    named = HouseRules(dealer_stays=True, name=GameName.RANTER_GO_ROUND)
    assert HouseRules.from_dict(named.to_dict()) == named
    # Rules stored before a field existed load with its default; an unknown name is refused.
    assert HouseRules.from_dict({"lives": 5}) == HouseRules(lives=5)
    with pytest.raises(InvalidSettings):
        HouseRules.from_dict({"name": "snap"})


def test_a_deal_needs_the_52_distinct_cards() -> None:
    state = new_game([A, B, C], HouseRules(), first_dealer=A)
    with pytest.raises(InvalidDeck):
        apply(state, Deal(tuple(FULL_DECK[:51])))
    with pytest.raises(InvalidDeck):
        apply(state, Deal((FULL_DECK[0], *FULL_DECK[:51])))


def keep_two(state):  # type: ignore[no-untyped-def]
    """The two non-dealers of a three-player round keep."""
    for _ in range(2):
        state, events = apply(state, Keep(state.actor))
    return state, events


def keep_through(state, until):  # type: ignore[no-untyped-def]
    events = ()
    while state.actor != until:
        state, events = apply(state, Keep(state.actor))
    return state, events
