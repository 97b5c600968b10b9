"""Record the golden games: ``python -m tests.golden.record`` writes ``tests/golden/*.json``.

Each file is a whole game as the store keeps it: the seating, the house rules, the first
dealer, every action and the events it caused (the ``game_log`` JSON form) and the final state
(the ``games.state`` JSON form). The files are kept as they were written; ``test_golden``
replays them with the engine of today, so a game stored by an older version still resumes.
Record anew only when a change of the stored form is meant, with a migration for old rows.
"""

from __future__ import annotations

import json
import random
import sys
from pathlib import Path
from typing import Any

from cuckoo_bot.domain import codec
from cuckoo_bot.domain.actions import Action, Deal, Resign, Timeout
from cuckoo_bot.domain.cards import Card
from cuckoo_bot.domain.decks import STANDARD, deck_for
from cuckoo_bot.domain.engine import apply, legal_actions, new_game
from cuckoo_bot.domain.rules import FinalTie, GameName, HouseRules
from cuckoo_bot.domain.state import GameState

HERE = Path(__file__).parent


def _play(seats: list[int], rules: HouseRules, seed: int, deck: Any = None) -> dict[str, Any]:
    rng = random.Random(seed)
    state = new_game(seats, rules, first_dealer=seats[0])
    log = []
    for step in range(5000):
        if state.finished:
            break
        action: Action
        if state.needs_deal:
            action = Deal(deck(rng) if deck else deck_for(rules).shuffled(rng))
        elif step == 9 and len(state.active_players) > 3:
            action = Resign(state.active_players[-1])  # a player leaves mid-round
        elif rng.random() < 0.1:
            action = Timeout(state.turn)
        else:
            action = rng.choice(legal_actions(state))
        state, events = apply(state, action)
        log.append(
            {
                "action": codec.dump_action(action),
                "events": [[codec.event_name(e), codec.dump_event(e)] for e in events],
            }
        )
    assert state.finished
    return {
        "seats": seats,
        "rules": rules.to_dict(),
        "first_dealer": seats[0],
        "log": log,
        "final_state": codec.dump_state(state),
    }


def _fours_first(rng: random.Random) -> tuple[Card, ...]:
    """Every player is dealt a four: everyone left goes out together."""
    deck = list(STANDARD.shuffled(rng))
    return tuple([c for c in deck if c.rank == 4] + [c for c in deck if c.rank != 4])


GAMES: dict[str, Any] = {
    "default_rules": lambda: _play([11, 12, 13, 14, -1], HouseRules(), seed=1),
    "house_rules": lambda: _play(
        [11, 12, 13, 14, 15, 16],
        HouseRules(
            lives=5,
            kings_block=False,
            double_cut=True,
            fast_turns=True,
            final_tie=FinalTie.SUDDEN_DEATH,
        ),
        seed=2,
    ),
    "shared_victory": lambda: _play([11, 12, 13], HouseRules(), seed=3, deck=_fours_first),
    "dealer_stays": lambda: _play([11, 12, 13, 14], HouseRules(dealer_stays=True), seed=5),
    # Three Queens send an ask on, one of them to a block.
    "queens": lambda: _play([11, 12, 13, 14, 15, 16], HouseRules(queens_block=True), seed=27),
    # Played for stakes: the rules core plays it as any game (the chips are the league's).
    "stakes": lambda: _play([11, 12, 13, -1], HouseRules(stakes=True), seed=6),
    # One-card Kille: the Cuckoo stops rounds, the Hussar and the Pig strike, the Inn and the
    # Cavalier send asks on, and a Harlequin is spent by a swap.
    "kille": lambda: _play([11, 12, 13, 14, 15, 16], HouseRules(kille=True), seed=KILLE_SEED),
    # The game's regional name: stored with the rules, no rule of play changes with it.
    "chase_the_ace": lambda: _play(
        [11, 12, 13, 14], HouseRules(name=GameName.CHASE_THE_ACE), seed=8
    ),
}


KILLE_SEED = 51


def main(names: list[str]) -> None:
    """Record the games named (all of them if none): a recording once made stays as it was
    stored, so a new one is recorded alone."""
    for name, make in GAMES.items():
        if names and name not in names:
            continue
        game = make()
        path = HERE / f"{name}.json"
        path.write_text(json.dumps(game, ensure_ascii=False, indent=1) + "\n")
        final: GameState = codec.load_state(game["final_state"])
        print(f"{path.name}: {len(game['log'])} steps, winners {final.winners}")


if __name__ == "__main__":
    main(sys.argv[1:])
