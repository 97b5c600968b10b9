"""The live table's contract is typed once (``webapp/contract.py``): what the server sends of
real games conforms to it, and the page's JSDoc types are generated from it."""

from __future__ import annotations

import random
from datetime import UTC, datetime
from importlib import resources

from hypothesis import given, settings
from hypothesis import strategies as st
from pydantic import TypeAdapter

from cuckoo_bot.app.live import Seen
from cuckoo_bot.app.model import Player
from cuckoo_bot.domain.engine import apply, new_game
from cuckoo_bot.domain.rules import HouseRules
from cuckoo_bot.transport.webapp import contract
from cuckoo_bot.transport.webapp.view import Snapshot
from tests.unit.app.test_live import SPECTATOR, _game, _next

STATIC = resources.files("cuckoo_bot.transport.webapp") / "static"
PAGE_VIEW = TypeAdapter(contract.PageView)
NOW = datetime(2026, 12, 1, 0, 0, 30, tzinfo=UTC)


@settings(max_examples=20, deadline=None)
@given(seed=st.integers(0, 2**32), players=st.integers(3, 8), steps=st.integers(0, 120))
def test_every_view_of_a_real_game_is_what_the_contract_says(
    seed: int, players: int, steps: int
) -> None:
    rng = random.Random(seed)
    seated = list(range(1, players + 1))
    state = new_game(seated, HouseRules(), seated[0])
    for _ in range(steps):
        if state.finished:
            break
        state, _ = apply(state, _next(state, rng))
    people = {p: Player(id=p, first_name=f"P{p}") for p in seated}
    shot = Snapshot(Seen(_game(state), people, "fr"), {p: f"P{p}" for p in seated})
    for viewer in (*seated, SPECTATOR):
        view = shot.view(viewer, NOW)
        PAGE_VIEW.validate_python(view, strict=True)
        PAGE_VIEW.validate_python({**view, "strings": {"title": "Coucou"}}, strict=True)


def test_the_pages_types_are_generated_from_the_contract() -> None:
    """``static/contract.js`` is ``jsdoc()``'s: after a change to the contract, run
    ``python -m cuckoo_bot.transport.webapp.contract``."""
    assert (STATIC / contract.JS_FILE).read_text() == contract.jsdoc()
    assert "@typedef {Object} PageView" in contract.jsdoc()
