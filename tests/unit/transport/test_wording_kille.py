"""One-card Kille in the game's texts: each power told as it happened, on the group's table,
in the story, to the asker and to the holder, in English, Spanish and French."""

from __future__ import annotations

import pytest

from cuckoo_bot.app.notices import Notice, NoticeKind, PlayedNote, RevealView, TableView
from cuckoo_bot.app.notices.policy import last_result
from cuckoo_bot.app.results import Reply, ReplyCode
from cuckoo_bot.app.settings import SETTINGS
from cuckoo_bot.domain.actions import Action, Deal, Keep, Swap
from cuckoo_bot.domain.cards import Card
from cuckoo_bot.domain.decks import KILLE
from cuckoo_bot.domain.events import Revealed
from cuckoo_bot.domain.rules import GameName, HouseRules
from cuckoo_bot.domain.state import GameState
from cuckoo_bot.transport.render.common import card_label
from cuckoo_bot.transport.render.names import Cast

from .test_wording import (
    ANA,
    ANA_SAYS,
    BOB,
    BOB_SAYS,
    CAROL,
    CAROL_SAYS,
    LANGS,
    NOW,
    PEOPLE,
    game,
    plain,
    played,
    renderer,
    story,
    table_rows,
    tr,
)

KILLE_RULES = HouseRules(kille=True)
# Kille codes: the rank (1 Mask ... 4-15 the numbers 1-12 ... 16 Inn, 17 Cavalier, 18 Pig,
# 19 Hussar, 20 Cuckoo, 21 Harlequin) and the copy (X or Y).
INN, PIG, HUSSAR, CUCKOO, HARLEQUIN = "16X", "18X", "19X", "20X", "21X"
TWO, FIVE, NINE, MASK = "5X", "8X", "12X", "1X"


def kille_deal(cards: list[str]) -> Deal:
    """Ana, Bob and Carol (who deals) get ``cards``; the rest of the Kille deck follows."""
    top = [Card.from_code(c) for c in cards]
    return Deal(tuple(top + [c for c in KILLE.cards if c not in top]))


def kille_game(actions: list[Action]) -> tuple[GameState, list]:  # type: ignore[type-arg]
    return played(actions, KILLE_RULES)


def cast() -> Cast:
    return Cast(PEOPLE, [ANA, BOB, CAROL], "Player {n}")


@pytest.mark.parametrize("lang", LANGS)
def test_every_kille_card_has_an_emoji_and_a_name_in_each_language(lang: str) -> None:
    labels = [card_label(card.code, lang) for card in KILLE.cards[:21]]
    assert len(set(labels)) == 21 and all(" " in label for label in labels)
    assert card_label(CUCKOO, lang).startswith("🐦") and card_label("7Y", lang) == "🎴 4"
    assert card_label(CUCKOO, lang) == card_label("20Y", lang)  # the two copies read alike


@pytest.mark.parametrize("lang", LANGS)
def test_the_cuckoo_stands_on_the_table_in_the_story_and_to_both_players(lang: str) -> None:
    state, log = kille_game([kille_deal([TWO, CUCKOO, MASK]), Swap(ANA, 1)])
    cuckoo, two = card_label(CUCKOO, lang), card_label(TWO, lang)
    row = next(r for r in table_rows(state, KILLE_RULES, lang).splitlines()[1:] if "Ana" in r)
    said = plain(tr.t(lang, "row_stopped", name="", lives="", target=BOB_SAYS, king=cuckoo))
    assert row.endswith(said.lstrip(" ·"))
    told = story(state, log, KILLE_RULES, lang)
    assert tr.t(lang, "act_stopped", name=ANA_SAYS, target=BOB_SAYS, king=cuckoo) in told
    assert state.last_reveal is not None and state.last_reveal.lowest == (CAROL,)  # at once
    rnd = state.round
    assert rnd is not None
    line = plain(renderer.so_far(lang, rnd.acts, cast(), reader=BOB))
    assert plain(tr.t(lang, "brief_stopped_by_you", name=ANA_SAYS)) in line
    note = PlayedNote(
        1, 1, "done_stopped", card=Card.from_code(TWO), other=BOB, king=rnd.acts[0].shown
    )
    answered = plain(renderer.played(note, game(state, KILLE_RULES), PEOPLE, lang).text)
    assert (
        "🐦 " + plain(tr.t(lang, "reply_done_stopped", player=BOB_SAYS, king=cuckoo, card=two))
        in answered
    )


@pytest.mark.parametrize("striker", [HUSSAR, PIG])
@pytest.mark.parametrize("lang", LANGS)
def test_a_strike_is_told_and_so_is_the_life_it_costs(lang: str, striker: str) -> None:
    actions: list[Action] = [kille_deal([NINE, striker, FIVE]), Swap(ANA, 1), Keep(BOB, 2)]
    state, log = kille_game([*actions, Keep(CAROL, 3)])
    shown = card_label(striker, lang)
    told = story(state, log, KILLE_RULES, lang)
    assert tr.t(lang, "act_struck", name=ANA_SAYS, target=BOB_SAYS, king=shown) in told
    assert tr.t(lang, "reveal_lost_struck", name=ANA_SAYS) in told
    assert tr.t(lang, "reveal_lost", name=CAROL_SAYS) in told  # the 2, the lowest card
    result = last_result(state, ANA, 2)
    assert result is not None and result.struck and not result.timeout
    line = plain(renderer.recall_line(result, lang))
    assert line == plain(tr.t(lang, "last_lost_struck", round=1, card=card_label(NINE, lang)))
    mid, _ = kille_game(actions)
    row = next(r for r in table_rows(mid, KILLE_RULES, lang).splitlines()[1:] if "Ana" in r)
    said = plain(tr.t(lang, "row_struck", name="", lives="", target=BOB_SAYS, king=shown))
    assert row.endswith(said.lstrip(" ·"))
    done = Reply(ReplyCode.DONE_STRUCK, {"card": NINE, "player": BOB, "king": striker})
    assert plain(renderer.reply(lang, done, PEOPLE)) == plain(
        tr.t(lang, "reply_done_struck", player=BOB_SAYS, king=shown, card=card_label(NINE, lang))
    )


@pytest.mark.parametrize("lang", LANGS)
def test_an_inn_sends_the_ask_on_with_its_own_sign_not_the_queens(lang: str) -> None:
    # Ana asks Bob, whose Inn sends her on to Carol: she swaps her 2 for Carol's 9.
    state, log = kille_game([kille_deal([TWO, INN, NINE]), Swap(ANA, 1)])
    inn = card_label(INN, lang)
    row = next(r for r in table_rows(state, KILLE_RULES, lang).splitlines()[1:] if "Ana" in r)
    expected = tr.t(
        lang,
        "row_swap_via",
        name="",
        lives="",
        via=BOB_SAYS,
        queen=inn,
        target=CAROL_SAYS,
        sign="↪️",
    )
    assert row.endswith(plain(expected).lstrip(" ·")) and "👸" not in row
    told = story(state, log, KILLE_RULES, lang)
    assert tr.t(lang, "act_passed", name=ANA_SAYS, target=BOB_SAYS, king=inn, sign="↪️") in told
    rnd = state.round
    assert rnd is not None
    line = plain(renderer.so_far(lang, rnd.acts, cast(), reader=BOB))
    assert plain(tr.t(lang, "brief_passed_by_you", name=ANA_SAYS, king=inn, sign="↪️")) in line
    note = PlayedNote(
        1,
        1,
        "done_swap_via",
        card=Card.from_code(NINE),
        other=CAROL,
        via=BOB,
        queen=Card.from_code(INN),
    )
    answered = plain(renderer.played(note, game(state, KILLE_RULES), PEOPLE, lang).text)
    assert "↪️ " in answered and "👸" not in answered


@pytest.mark.parametrize("lang", LANGS)
def test_a_harlequin_swapped_away_is_said_to_be_the_lowest_at_the_reveal(lang: str) -> None:
    state, log = kille_game(
        [kille_deal([FIVE, HARLEQUIN, MASK]), Swap(ANA, 1), Keep(BOB, 2), Keep(CAROL, 3)]
    )
    harlequin = card_label(HARLEQUIN, lang)
    spent = tr.t(lang, "card_spent", card=harlequin)
    assert state.last_reveal is not None and state.last_reveal.lowest == (ANA,)
    assert spent in story(state, log, KILLE_RULES, lang)
    result = last_result(state, ANA, 2)
    assert result is not None and result.spent
    assert plain(spent) in plain(renderer.recall_line(result, lang))
    rnd = state.round
    assert rnd is not None
    event = Revealed(rnd.number, rnd.order, rnd.cards, state.last_reveal.lowest)
    view = TableView(
        rnd.number,
        rnd.dealer,
        rnd.order,
        (3, 3, 3),
        acts=rnd.acts,
        reveal=RevealView(event, lives=(2, 3, 3), spent=state.last_reveal.spent),
    )
    notice = Notice(NoticeKind.TABLE, -100, view, 5, id=1, created_at=NOW)
    text = plain(renderer.table(notice, [], game(state, KILLE_RULES), PEOPLE, lang).text)
    assert plain(spent) in text


@pytest.mark.parametrize("lang", LANGS)
def test_the_rules_and_the_settings_tell_the_kille_deck_while_it_is_on(lang: str) -> None:
    on = plain(renderer.rules(lang, HouseRules(kille=True, kings_block=False), 90))
    deck_line = on.split("\n\n", 1)[1].split("\n")[0]
    assert card_label(CUCKOO, lang) in deck_line and card_label(HARLEQUIN, lang) in deck_line
    assert "52" not in deck_line
    assert plain(tr.t(lang, "rules_kille")) in on
    assert plain(tr.t(lang, "rules_no_block")) not in on  # the Kille deck has no Kings
    off = plain(renderer.rules(lang, HouseRules(), 90))
    assert plain(tr.t(lang, "rules_kille")) not in off
    assert "kille" in {s.name for s in SETTINGS}


@pytest.mark.parametrize("lang", LANGS)
def test_help_in_a_group_names_the_game_as_the_group_does_and_tells_its_deck(lang: str) -> None:
    chase = plain(renderer.help_group(lang, HouseRules(kille=True, name=GameName.CHASE_THE_ACE)))
    assert chase.startswith(f"🃏 {tr.t(lang, 'value_chase_the_ace')}")
    assert plain(tr.t(lang, "help_gist_kille")) in chase
    classic = plain(renderer.help_group(lang, HouseRules()))
    assert classic.startswith(f"🃏 {tr.t(lang, 'value_cuckoo')}")
    assert plain(tr.t(lang, "help_gist")) in classic
    free = plain(renderer.help_group(lang, HouseRules(kings_block=False)))
    assert plain(tr.t(lang, "help_gist_free")) in free
