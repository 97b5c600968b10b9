"""Computer seats: choose keep, swap or cut from what the seat can see.

The thresholds come from ``benchmarks/derive_strategy.py``, a best-response simulation run
with this engine; like the published rules of thumb they swap low cards, with the bar
falling as the table grows.
"""

from __future__ import annotations

from dataclasses import dataclass

from cuckoo_bot.domain.actions import Move, PlayerId, TurnAction
from cuckoo_bot.domain.cards import Card
from cuckoo_bot.domain.decks import KILLE, STANDARD, Deck, Refusal, deck_for
from cuckoo_bot.domain.rules import HouseRules
from cuckoo_bot.domain.state import ActKind, GameState, Phase

# Swap (or, for the dealer, cut) when the card's rank is at most this, by players in the round.
# Derived by benchmarks/derive_strategy.py (3,000 seeded rounds per candidate, two rounds of
# best response); sizes between rows use the row below, two players the first row. The
# simulation puts the dealer's bar level with the others', not one higher: a cut draws from
# a stock that the table's swaps have not touched.
SWAP_AT_MOST: dict[int, int] = {3: 7, 4: 6, 5: 6, 6: 5, 8: 5, 10: 4, 12: 3, 15: 3, 20: 2}
CUT_AT_MOST: dict[int, int] = {3: 6, 4: 7, 5: 6, 6: 5, 8: 4, 10: 4, 12: 3, 15: 3, 20: 3}
# The same for One-card Kille's deck (``--deck kille``, 3,000 rounds), in its ranks: 1-3 the
# low pictures, 4-15 the numbers 1 to 12 (6 players: swap up to the 3, cut up to the 5). An
# ask risks the Hussar's and the Pig's strike, so the swap bar sits lower in the deck (a
# third of its ranks at 6 players) than the 52 cards' (five of thirteen); the cut risks none.
KILLE_SWAP_AT_MOST: dict[int, int] = {3: 9, 4: 7, 5: 7, 6: 6, 8: 5, 10: 3, 12: 3, 15: 2, 20: 2}
KILLE_CUT_AT_MOST: dict[int, int] = {3: 11, 4: 9, 5: 9, 6: 8, 8: 7, 10: 5, 12: 5, 15: 4, 20: 3}
CLASSIC = HouseRules()
BARS: dict[str, tuple[dict[int, int], dict[int, int]]] = {
    STANDARD.name: (SWAP_AT_MOST, CUT_AT_MOST),
    KILLE.name: (KILLE_SWAP_AT_MOST, KILLE_CUT_AT_MOST),
}


def lookup(table: dict[int, int], size: int) -> int:
    """The row for ``size`` players, or the nearest smaller table size listed."""
    eligible = [n for n in table if n <= size]
    return table[max(eligible)] if eligible else table[min(table)]


@dataclass(frozen=True, slots=True)
class SeatView:
    """What one seat knows at its turn: its own card and what the table has shown."""

    card: Card
    table_size: int
    is_dealer: bool
    given_away: Card | None  # the card a forced swap took from this seat this round
    deck: Deck = STANDARD  # what the cards rank, and which one blocks
    spent: bool = False  # One-card Kille: the card is a Harlequin that changed hands (lowest)
    rules: HouseRules = CLASSIC  # what the cards refuse

    @property
    def rank(self) -> int:
        """The seat's card's rank at a reveal as things stand."""
        return self.deck.lowest - 1 if self.spent else self.deck.rank(self.card)


def view_for(state: GameState, player: PlayerId) -> SeatView:
    """The view of ``player``, who must be the one to act."""
    if state.phase is not Phase.TURNS or state.round is None or state.round.actor != player:
        raise ValueError("only the player to act has a decision to make")
    rnd = state.round
    position = rnd.order.index(player)
    given_away = None
    if any(a.kind is ActKind.SWAP and a.target == player for a in rnd.acts):
        given_away = rnd.dealt[position]
    return SeatView(
        card=rnd.cards[position],
        table_size=len(rnd.order),
        is_dealer=rnd.actor_is_dealer,
        given_away=given_away,
        deck=deck_for(state.rules),
        spent=rnd.cards[position] in rnd.spent,
        rules=state.rules,
    )


def choose(view: SeatView, swap_bar: int | None = None, cut_bar: int | None = None) -> Move:
    """The computer seat's decision. The bars default to the derived tables; the derivation
    (``benchmarks/derive_strategy.py``) tries others through this very function."""
    rank, deck = view.rank, view.deck
    if deck.blocks(view.card) or deck.refusal(view.card, view.rules) is not Refusal.NONE:
        return Move.KEEP  # never give away a shield: a King, a card that refuses a swap
    swaps, cuts = BARS[deck.name]
    if view.is_dealer:
        bar = cut_bar if cut_bar is not None else lookup(cuts, view.table_size)
        return Move.CUT if rank <= bar else Move.KEEP
    bar = swap_bar if swap_bar is not None else lookup(swaps, view.table_size)
    low = deck.lowest + 1  # an Ace or a 2 (the Mask or the Flowerpot): always worth a swap
    if view.given_away is not None and rank > deck.rank(view.given_away) and rank > low:
        # A forced swap already improved this seat: do not gamble the better card away.
        return Move.KEEP
    return Move.SWAP if rank <= bar else Move.KEEP


def computer_action(state: GameState) -> TurnAction:
    """The action a computer seat takes at the current prompt."""
    player = state.actor
    if player is None:
        raise ValueError("no player is to act")
    return choose(view_for(state, player)).action(player, state.turn)
