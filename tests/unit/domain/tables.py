"""Helpers that set a table the way a rule-card example describes it."""

from __future__ import annotations

from collections.abc import Sequence

from cuckoo_bot.domain.actions import Deal, Keep
from cuckoo_bot.domain.cards import FULL_DECK, KILLE_ONE, Card
from cuckoo_bot.domain.decks import deck_for
from cuckoo_bot.domain.engine import Result, apply, new_game
from cuckoo_bot.domain.events import RoundDealt
from cuckoo_bot.domain.rules import HouseRules
from cuckoo_bot.domain.state import GameState


def card(code: str) -> Card:
    """``card("2C")``; the rule card writes 2♣."""
    return Card.from_code(code)


KILLE_CODES = {
    "mask": 1,
    "flowerpot": 2,
    "wreath": 3,
    "inn": 16,
    "cavalier": 17,
    "pig": 18,
    "hussar": 19,
    "cuckoo": 20,
    "harlequin": 21,
}


def kille(name: str | int, copy: str = "X") -> str:
    """A Kille card's code by its name (``kille("cuckoo")``) or number (``kille(7)``), of the
    first copy (``X``) or the second (``Y``)."""
    rank = KILLE_CODES[name] if isinstance(name, str) else name + KILLE_ONE - 1
    return f"{rank}{copy}"


def stacked_deck(
    hands: Sequence[str], stock_top: Sequence[str] = (), deck: Sequence[Card] = FULL_DECK
) -> tuple[Card, ...]:
    """A deck dealing ``hands`` in turn order (dealer last), then ``stock_top`` as the next cuts."""
    first = [card(c) for c in (*hands, *stock_top)]
    rest = [c for c in deck if c not in first]
    return (*first, *rest)


def dealt_table(
    players: Sequence[int],
    dealer: int,
    hands: Sequence[str],
    stock_top: Sequence[str] = (),
    rules: HouseRules | None = None,
) -> GameState:
    """A new game with ``players`` seated clockwise, ``dealer`` dealing ``hands`` in turn order."""
    rules = rules or HouseRules()
    state = new_game(players, rules, first_dealer=dealer)
    state, _ = apply(state, Deal(stacked_deck(hands, stock_top, deck_for(rules).cards)))
    return state


def keep_all(state: GameState) -> Result:
    """Everyone left to act in this round keeps; returns the state and the last events."""
    events: tuple[object, ...] = ()
    while state.round is not None and state.actor is not None:
        state, events = apply(state, Keep(state.actor))
    return state, events  # type: ignore[return-value]


def deal(state: GameState, holding: dict[int, str], others: str = "10H") -> Result:
    """Deal the next round so each player in ``holding`` gets that card, the rest distinct
    cards of rank ``others`` or above."""
    spare = iter(
        c.code for c in FULL_DECK if c.rank >= card(others).rank and c.code not in holding.values()
    )
    # The order this deal will use, as the engine tells it: deal once, read it, deal again.
    _, trial = apply(state, Deal(stacked_deck([c.code for c in FULL_DECK])))
    order = next(e.order for e in trial if isinstance(e, RoundDealt))
    hands = [holding.get(p) or next(spare) for p in order]
    return apply(state, Deal(stacked_deck(hands)))
