"""Derive the computer seats' swap and cut thresholds by simulation with the rules engine.

Best response, iterated: for each table size every other seat plays the current table, and
one seat tries each threshold; the threshold that loses that seat the fewest lives wins.
Run: ``python -m benchmarks.derive_strategy [--rounds N] [--deck kille]``; it prints the two
tables that ``cuckoo_bot/domain/strategy.py`` holds for that deck.
"""

from __future__ import annotations

import argparse
import random

from cuckoo_bot.domain import strategy
from cuckoo_bot.domain.actions import Cut, Deal, Keep, Move, Swap, TurnAction
from cuckoo_bot.domain.decks import KILLE, STANDARD, Deck
from cuckoo_bot.domain.engine import apply, new_game
from cuckoo_bot.domain.events import LifeLost
from cuckoo_bot.domain.rules import HouseRules
from cuckoo_bot.domain.state import GameState

SIZES = (3, 4, 5, 6, 8, 10, 12, 15, 20)


def decide(state: GameState, swap_bar: int, cut_bar: int) -> TurnAction:
    """The shipped decision (``strategy.choose``), with the bars under trial."""
    player = state.actor
    assert player is not None
    choice = strategy.choose(strategy.view_for(state, player), swap_bar, cut_bar)
    if choice is Move.CUT:
        return Cut(player)
    if choice is Move.SWAP:
        return Swap(player)
    return Keep(player)


def loss_rate(
    size: int,
    bars: tuple[int, int],
    focal: tuple[int, int],
    rounds: int,
    as_dealer: bool,
    deck: Deck = STANDARD,
) -> float:
    """Lives lost per round by one seat playing ``focal`` while the others play ``bars``.

    Every candidate sees the same seeded deals (common random numbers), so the comparison
    between thresholds is much sharper than the noise of each estimate.
    """
    rng = random.Random(size)
    players = list(range(size))
    rules = HouseRules(max_players=20, lives=5, kille=deck is KILLE)
    lost = 0
    for _ in range(rounds):
        dealer = rng.randrange(size)
        focal_seat = dealer if as_dealer else (dealer + 1 + rng.randrange(size - 1)) % size
        state = new_game(players, rules, first_dealer=dealer)
        state, _ = apply(state, Deal(deck.shuffled(rng)))
        events: tuple[object, ...] = ()
        while state.actor is not None:
            actor = state.actor
            use = focal if actor == focal_seat else bars
            state, events = apply(state, decide(state, *use))
        lost += sum(1 for e in events if isinstance(e, LifeLost) and e.player == focal_seat)
    return lost / rounds


def derive(
    rounds: int, sizes: tuple[int, ...] = SIZES, deck: Deck = STANDARD
) -> tuple[dict[int, int], dict[int, int]]:
    swap_at_most: dict[int, int] = {}
    cut_at_most: dict[int, int] = {}
    swaps, cuts = strategy.BARS[deck.name]
    tried = range(deck.lowest, deck.lowest + (10 if deck is STANDARD else 15))
    for size in sizes:
        bars = (strategy.lookup(swaps, size), strategy.lookup(cuts, size))
        for _ in range(2):  # two rounds of best response settle every size here
            swap = {t: loss_rate(size, bars, (t, bars[1]), rounds, False, deck) for t in tried}
            cut = {c: loss_rate(size, bars, (bars[0], c), rounds, True, deck) for c in tried}
            bars = (min(swap, key=lambda t: swap[t]), min(cut, key=lambda c: cut[c]))
        swap_at_most[size], cut_at_most[size] = bars
        print(f"{size:>2} players: swap at most {bars[0]:>2}, cut at most {bars[1]:>2}", flush=True)
    return swap_at_most, cut_at_most


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--rounds", type=int, default=3000)
    parser.add_argument("--deck", choices=(STANDARD.name, KILLE.name), default=STANDARD.name)
    args = parser.parse_args()
    deck = KILLE if args.deck == KILLE.name else STANDARD
    swap_at_most, cut_at_most = derive(args.rounds, deck=deck)
    prefix = "KILLE_" if deck is KILLE else ""
    print(f"{prefix}SWAP_AT_MOST =", swap_at_most)
    print(f"{prefix}CUT_AT_MOST =", cut_at_most)


if __name__ == "__main__":
    main()
