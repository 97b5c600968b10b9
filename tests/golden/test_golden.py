"""Golden replays: games recorded in the stored JSON form replay, with today's engine and
codec, to the very events and final state they were stored with."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from cuckoo_bot.domain import codec
from cuckoo_bot.domain.engine import apply, new_game
from cuckoo_bot.domain.rules import HouseRules

# State fields, and house rules, the recordings predate (each loads with its default).
NEWER_FIELDS = {"last_reveal"}
NEWER_RULES = {"dealer_stays", "kille", "name", "queens_block", "stakes"}
# Fields of a round (and of the reveal it keeps) the recordings predate; empty in them.
NEWER_ROUND_FIELDS = {"struck", "spent"}


def as_stored(dumped: dict[str, Any], stored: dict[str, Any]) -> dict[str, Any]:
    """``dumped`` (a round or a reveal) without the fields ``stored`` predates, which must
    hold their defaults."""
    newer = set(dumped) - set(stored)
    assert newer <= NEWER_ROUND_FIELDS and all(dumped[name] == [] for name in newer)
    return {name: dumped[name] for name in stored}


GAMES = sorted(Path(__file__).parent.glob("*.json"))


def test_the_golden_games_are_there() -> None:
    assert {p.stem for p in GAMES} >= {
        "default_rules",
        "house_rules",
        "shared_victory",
        "dealer_stays",
        "queens",
        "stakes",
        "kille",
        "chase_the_ace",
    }


@pytest.mark.parametrize("path", GAMES, ids=lambda p: p.stem)
def test_a_stored_game_replays_to_the_same_events_and_final_state(path: Path) -> None:
    game = json.loads(path.read_text())
    state = new_game(game["seats"], HouseRules.from_dict(game["rules"]), game["first_dealer"])
    for number, step in enumerate(game["log"]):
        action = codec.load_action(step["action"])
        state, events = apply(state, action)
        stored = tuple(codec.load_event(name, data) for name, data in step["events"])
        assert events == stored, f"step {number}"
        # The stored form round-trips exactly: what is written is what was read.
        assert [[codec.event_name(e), codec.dump_event(e)] for e in events] == step["events"]
    # The stored state reads back as it was written; a field added to the state since the
    # recording is not in the file (it loads with its default), so only the stored ones compare.
    stored_state = game["final_state"]
    dumped = codec.dump_state(state)
    rules = dumped["rules"]
    assert set(rules) - set(stored_state["rules"]) <= NEWER_RULES
    classic = HouseRules().to_dict()
    assert all(rules[name] == classic[name] for name in set(rules) - set(stored_state["rules"]))
    dumped["rules"] = {name: rules[name] for name in stored_state["rules"]}
    for part in ("round", "last_reveal"):
        if stored_state.get(part) is not None:
            dumped[part] = as_stored(dumped[part], stored_state[part])
    assert {key: dumped[key] for key in stored_state} == stored_state
    assert set(dumped) - set(stored_state) <= NEWER_FIELDS
    assert state.finished and state.winners
