"""The live table's page with One-card Kille's 42 cards, in a real browser.

Every Kille card has a face the page draws (its picture's motif, or its figure), named as the
chat names it in every language; a motif the page cannot draw is a card's back. Real Kille
games played to a moment (a strike, a Cuckoo's stop, an Inn's pass-on, a Harlequin spent by a
swap) show what each seat did. The browser, the page's server and the fake API are
``test_webapp_page``'s.
"""

from __future__ import annotations

import random
from datetime import UTC, datetime
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pydantic import TypeAdapter

from cuckoo_bot.app.live import Seen
from cuckoo_bot.app.model import Player
from cuckoo_bot.domain.actions import Action, Cut, Deal, PlayerId, Timeout
from cuckoo_bot.domain.cards import Card, Suit
from cuckoo_bot.domain.decks import KILLE
from cuckoo_bot.domain.engine import apply, legal_actions, new_game
from cuckoo_bot.domain.rules import HouseRules
from cuckoo_bot.domain.state import ActKind, GameState
from cuckoo_bot.transport.render.common import card_label
from cuckoo_bot.transport.webapp.contract import PageView
from cuckoo_bot.transport.webapp.faces import faces, kille
from cuckoo_bot.transport.webapp.view import ACTED, Snapshot
from tests.support.scenes import ANA, BOB, CURLY, EVE, NAMES, RTL, ZOE, Scene
from tests.unit.app.test_live import _game
from tests.unit.transport import test_webapp_page as page_tests
from tests.unit.transport.test_webapp_page import Opener, Page, iso, js

# The page tests' browser, static server and pages, as this module's fixtures.
server, browser = page_tests.server, page_tests.browser
lib, open_page = page_tests.lib, page_tests.open_page

LANGS = ("en", "es", "fr")
PICTURES = {
    1: "mask",
    2: "flowerpot",
    3: "wreath",
    16: "inn",
    17: "cavalier",
    18: "pig",
    19: "hussar",
    20: "cuckoo",
    21: "harlequin",
}
# A few names as the chat writes them, in each language (``render/kille.py``).
NAMED = {
    "en": {"20X": "🐦 Cuckoo", "16Y": "🏠 Inn", "21X": "🃏 Harlequin", "7Y": "🎴 4"},
    "es": {"20X": "🐦 Cuco", "16Y": "🏠 Posada", "21X": "🃏 Arlequín", "7Y": "🎴 4"},
    "fr": {"20X": "🐦 Coucou", "16Y": "🏠 Auberge", "21X": "🃏 Arlequin", "7Y": "🎴 4"},
}
KILLE_RULES = HouseRules(kille=True, max_players=10)
# The cards a deal gives the seats a scene does not name: the numbers 5 to 9, with no power,
# never the lowest of a round that holds a Mask.

DRAW = """Object.entries(a).map(([code, face]) => {
    const box = document.createElement('div');
    box.innerHTML = T.cardSvg(face, code);
    const svg = box.firstElementChild;
    const middle = [...svg.querySelectorAll('[data-motif]')].pop();
    return {
        code: code,
        checked: T.checkedFace(face) !== null,
        back: svg.classList.contains('back'),
        label: svg.getAttribute('aria-label'),
        card: svg.dataset.card,
        motifs: [...svg.querySelectorAll('[data-motif]')].map((g) => g.dataset.motif),
        middle: middle ? middle.textContent : null,
        corner: [...svg.querySelectorAll('text')].map((t) => t.textContent).slice(0, 1),
        shapes: middle ? middle.querySelectorAll('path, circle, ellipse, rect').length : 0,
        texts: svg.querySelectorAll('text').length,
    };
})"""


def game() -> Scene:
    """Six players at a Kille table, Ana dealing: Bob plays first, then Eve, Zoë, Curly, Rtl."""
    return Scene(NAMES, dealer=ANA, rules=KILLE_RULES).start()


def models(page: Page, view: dict[str, Any]) -> dict[int, dict[str, Any]]:
    got = js(page, "a.seats.map((s) => T.seatModel(a, s, T.texts(a.strings)))", view)
    return {m["player"]: m for m in got}


def name(player: PlayerId) -> str:
    return iso(NAMES[player])


# -- the faces ----------------------------------------------------------------------------------


@pytest.mark.parametrize("lang", LANGS)
def test_every_kille_card_has_a_face_the_page_draws(lib: Page, lang: str) -> None:
    """The 42 cards (two alike of each of 21): a picture's motif in the middle and, small, in
    both corners; a number's figure big in the middle and in both corners; each named as the
    chat names it, in the game's language."""
    sent = faces((card.code for card in KILLE.cards), lang)
    assert len(sent) == 42
    drawn = {d["code"]: d for d in js(lib, DRAW, sent)}
    for card in KILLE.cards:
        got = drawn[card.code]
        assert got["checked"] and not got["back"], card
        assert (got["label"], got["card"]) == (card_label(card.code, lang), card.code)
        picture = PICTURES.get(card.rank)
        if picture is not None:
            assert got["motifs"] == [picture] * 3, card  # two corners and the middle
            assert got["texts"] == 0, card  # drawn, not typed: no emoji font needed
            assert got["shapes"] >= 4, card
        else:
            figure = str(card.rank - 3)
            assert got["motifs"] == ["number"], card
            assert got["middle"] == figure and got["corner"] == [figure], card
    for code, label in NAMED[lang].items():
        assert drawn[code]["label"] == label
    pictures = {drawn[f"{rank}X"]["label"] for rank in PICTURES}
    assert len(pictures) == len(PICTURES)  # nine names, nine motifs
    assert faces(["20X"], lang)["20X"] == faces(["20Y"], lang)["20Y"]  # the copies look alike


def test_a_face_the_page_cannot_draw_is_a_cards_back(lib: Page) -> None:
    cuckoo, seven = kille(Card(20, Suit.KILLE_A)), kille(Card(10, Suit.KILLE_B))
    not_faces = [
        {**cuckoo, "motif": "dragon"},  # a motif from a newer server: refused, never guessed
        {**cuckoo, "motif": "__proto__"},
        {**cuckoo, "motif": "constructor"},
        {**cuckoo, "motif": None},
        {**cuckoo, "suit": "H"},  # a motif has no suit
        {**cuckoo, "pips": 3},  # nor pips
        {**seven, "suit": "X"},
        {**seven, "motif": ""},  # no motif and no suit: nothing to draw
        {k: v for k, v in cuckoo.items() if k != "motif"},
        {k: v for k, v in cuckoo.items() if k != "sign"},
    ]
    back = js(lib, "T.backSvg()")
    assert js(lib, "a.map((f) => T.checkedFace(f))", not_faces) == [None] * len(not_faces)
    assert js(lib, "a.map((f) => T.cardSvg(f, '20X'))", not_faces) == [back] * len(not_faces)
    hostile = {**seven, "label": '"><script>', "corner": "<b>", "picture": "<i>&"}
    got = js(
        lib,
        """(() => { const box = document.createElement('div');
            box.innerHTML = T.cardSvg(a, '10Y');
            return [box.querySelectorAll('script, b, i').length,
                    box.firstElementChild.getAttribute('aria-label'),
                    [...box.querySelectorAll('text')].map(t => t.textContent)];
        })()""",
        hostile,
    )
    assert got == [0, '"><script>', ["<b>", "<b>", "<i>&"]]


# -- what the seats did -------------------------------------------------------------------------


def test_a_strike_a_stop_and_an_inns_pass_on_read_at_the_seats(lib: Page) -> None:
    # Bob asks Eve, whose Hussar strikes: no swap, a life for Bob at the reveal.
    view = game().deal({BOB: "9X", EVE: "19X"}).swap().view()
    by = models(lib, view)
    assert by[BOB]["status"] == f"⚔️ struck by {name(EVE)}'s ⚔️ Hussar: a life at the reveal"
    assert by[BOB]["tone"] == "king"
    assert (by[EVE]["shown"], by[EVE]["shownFace"]["label"]) == ("19X", "⚔️ Hussar")
    # Bob asks Eve, whose Inn sends him on to Zoë; her Pig strikes.
    view = game().deal({BOB: "9X", EVE: "16X", ZOE: "18Y"}).swap().view()
    by = models(lib, view)
    sent_on = f"↪️ sent on by {name(EVE)}'s 🏠 Inn"
    assert by[BOB]["status"] == (
        f"{sent_on} · ⚔️ struck by {name(ZOE)}'s 🐖 Pig: a life at the reveal"
    )
    assert (by[EVE]["shown"], by[ZOE]["shown"]) == ("16X", "18Y")
    # The Inn sends Bob on to Zoë, who swaps.
    view = game().deal({BOB: "9X", EVE: "16X", ZOE: "5Y"}).swap().view()
    by = models(lib, view)
    assert by[BOB]["status"] == f"{sent_on} · 🔄 swapped with {name(ZOE)}"
    assert by[BOB]["tone"] == "done" and by[EVE]["shown"] == "16X"
    # Ana deals and plays last: Rtl asks her, and her Cavalier has nobody to send him on to.
    scene = game().deal({RTL: "9X", ANA: "17Y"}).keep(4)
    by = models(lib, scene.swap().view())
    assert by[RTL]["status"] == f"↪️ blocked by {name(ANA)}'s 🐎 Cavalier"
    assert by[ANA]["shown"] == "17Y"  # it refused at the dealer's, the last seat
    # Bob asks Eve, whose Cuckoo stops the round: the cards are shown at once.
    stopped = game().deal({BOB: "9X", EVE: "20Y", CURLY: "1X"}).swap()
    view = stopped.view()
    assert view["revealed"]
    by = models(lib, view)
    assert by[BOB]["status"] == f"🐦 stopped by {name(EVE)}'s 🐦 Cuckoo: the round ends"
    assert by[CURLY]["lost"] and by[CURLY]["status"] == "💔 lost a life"  # the Mask
    assert all(m["shown"] is None for m in by.values())  # on the table with the rest


def test_a_dealer_who_cuts_the_card_that_blocks_says_which(lib: Page) -> None:
    """The dealer's cut set aside: the Kille deck's Cuckoo, the 52 cards' King, by name."""
    cases = ((KILLE_RULES, "15X", "20Y", "🐦 Cuckoo"), (HouseRules(), "QS", "KD", "K♦"))
    for rules, held, card, label in cases:
        scene = Scene(NAMES, dealer=ANA, rules=rules).start()
        scene = scene.deal({ANA: held}, stock=(card,)).keep(5)  # the dealer's turn, last
        by = models(lib, scene.do(Cut(ANA, scene.playing.turn)).view())
        assert (by[ANA]["status"], by[ANA]["tone"]) == (f"👑 cut {label}: blocked", "king")


def test_a_queen_keeps_her_sign_and_her_label(lib: Page) -> None:
    """The 52 cards' Coucou's Queens: 👸 and her label, in the game's language."""
    rules = HouseRules(queens_block=True, max_players=10)
    for lang, queen in (("en", "Q♥"), ("fr", "D♥")):
        scene = Scene(NAMES, dealer=ANA, rules=rules, lang=lang).start()
        view = scene.deal({BOB: "2S", EVE: "QH", ZOE: "QC"}).swap().view()
        by = models(lib, view)
        assert by[BOB]["status"] == (
            f"👸 sent on by {name(EVE)}'s {queen} · 👸 blocked by {name(ZOE)}'s {queen[0]}♣"
        )


def test_a_harlequin_swapped_away_says_it_counts_lowest(lib: Page) -> None:
    """Bob swaps his Harlequin with Eve: it is spent, and at the reveal her seat says why it is
    the lowest; Eve sees it on her own card at once, nobody else before the reveal."""
    scene = game().deal({BOB: "21X", EVE: "9X", CURLY: "21Y"}).swap()
    eve = scene.view(EVE)
    assert [s["spent"] for s in eve["seats"] if s["player"] == EVE] == [True]
    assert models(lib, eve)[EVE]["spent"]
    ana = scene.view(ANA)
    assert not any(s["spent"] for s in ana["seats"])  # Eve's card is face down for Ana
    revealed = scene.keep().view(ANA)
    assert revealed["revealed"]
    spent = {s["player"]: s["spent"] for s in revealed["seats"]}
    assert spent == {p: p == EVE for p in spent}  # Curly's Harlequin never changed hands
    by = models(lib, revealed)
    assert by[EVE]["spent"] and by[EVE]["lost"]
    assert not by[CURLY]["spent"] and not by[CURLY]["lost"]


def test_the_page_shows_kille_cards_and_statuses(open_page: Opener) -> None:
    """The whole page, drawn: the Hussar at Eve's seat, Bob's strike, and at the reveal the
    spent Harlequin's note."""
    view = game().deal({BOB: "9X", EVE: "19X", ANA: "20X"}).swap().view()
    page, _ = open_page(view)
    status = page.locator(f".seat[data-player='{BOB}'] .status")
    assert status.text_content() == f"⚔️ struck by {name(EVE)}'s ⚔️ Hussar: a life at the reveal"
    shown = page.locator(f".seat[data-player='{EVE}'] .shown svg")
    assert shown.get_attribute("aria-label") == "⚔️ Hussar"
    assert shown.locator("[data-motif='hussar']").count() == 3
    mine = page.locator(f".seat[data-player='{ANA}'] .card3d.up")
    assert mine.get_attribute("aria-label") == "🐦 Cuckoo"
    assert mine.locator("[data-motif='cuckoo']").count() == 3
    assert page.locator(".seat .spent").count() == 0

    passed = game().deal({BOB: "9X", EVE: "16X", ZOE: "5Y"}).swap().view()
    page, _ = open_page(passed)
    status = page.locator(f".seat[data-player='{BOB}'] .status")
    assert status.text_content() == (
        f"↪️ sent on by {name(EVE)}'s 🏠 Inn · 🔄 swapped with {name(ZOE)}"
    )
    assert page.locator(f".seat[data-player='{EVE}'] .shown [data-motif='inn']").count() == 3

    stopped = game().deal({BOB: "21X", EVE: "20Y", CURLY: "1X"}).swap().view()
    page, _ = open_page(stopped)
    status = page.locator(f".seat[data-player='{BOB}'] .status")
    assert status.text_content() == f"🐦 stopped by {name(EVE)}'s 🐦 Cuckoo: the round ends"
    assert page.locator(".seat .spent").count() == 0  # the Cuckoo refused: nothing changed hands

    spent = game().deal({BOB: "21X", EVE: "9X"}).swap().keep().view()
    page, _ = open_page(spent)
    note = page.locator(".seat.spent .spent")
    assert note.count() == 1 and note.text_content() == "🃏 swapped: lowest"
    assert page.locator(f".seat[data-player='{EVE}'].spent.lost").count() == 1


# -- every view of a real Kille game --------------------------------------------------------


def _next(state: GameState, rng: random.Random) -> Action:
    if state.needs_deal:
        return Deal(KILLE.shuffled(rng))
    options = legal_actions(state)
    if not options or rng.random() < 0.1:
        return Timeout(state.turn)
    return rng.choice(options)


@settings(max_examples=20, deadline=None)
@given(seed=st.integers(0, 2**32), players=st.integers(3, 8), steps=st.integers(0, 120))
def test_every_view_of_a_kille_game_is_what_the_contract_says(
    seed: int, players: int, steps: int
) -> None:
    rng = random.Random(seed)
    seated = list(range(1, players + 1))
    state = new_game(seated, KILLE_RULES, seated[0])
    for _ in range(steps):
        if state.finished:
            break
        state, _ = apply(state, _next(state, rng))
    people = {p: Player(id=p, first_name=f"P{p}") for p in seated}
    shot = Snapshot(Seen(_game(state), people, "es"), {p: f"P{p}" for p in seated})
    for viewer in (*seated, None):
        view = shot.view(viewer, datetime(2026, 12, 1, tzinfo=UTC))
        TypeAdapter(PageView).validate_python(view, strict=True)
        for seat in view["seats"]:
            assert not seat["spent"] or seat["card"] in ("21X", "21Y")


def test_every_act_a_seat_can_end_on_has_a_name_on_the_page() -> None:
    assert set(ACTED) == set(ActKind)
    assert {"struck", "stopped"} <= set(ACTED.values())
