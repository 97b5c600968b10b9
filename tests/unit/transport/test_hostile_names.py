"""Hostile names in every text the bot writes: a name never rewrites the line it stands in, and
every seat can be told apart, in English, Spanish and French."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from cuckoo_bot.app import queries
from cuckoo_bot.app.model import GameStatus, Player
from cuckoo_bot.app.notices import GameOverView, LobbyView, TableView
from cuckoo_bot.app.results import Reply
from cuckoo_bot.domain.rules import HouseRules
from cuckoo_bot.transport.render.league import NAME_WIDTH
from cuckoo_bot.transport.render.names import FSI, NAME_LIMIT, PDI, graphemes, readable, user_text
from tests.hostile import bidi_leaks, hostile_players, isolated_names, label
from tests.unit.app.fakes import FakeUnitOfWorkFactory
from tests.unit.transport.test_render import LANGS, plain, played_game, preview, renderer

BLANK = {"en": "Player {n}", "es": "Participante {n}", "fr": "Anonyme {n}"}
GROUP = -100555


def test_the_corpus_holds_names_that_show_as_nothing_and_all_labels_differ() -> None:
    people = hostile_players()
    labels = [label(p, seat) for seat, p in enumerate(people, 1)]
    assert len(set(labels)) == len(labels)
    assert sum(readable(p.display_name) == "" for p in people) >= 4
    # Without isolation and cleaning, the corpus breaks lines: the check below can fail.
    assert bidi_leaks(f"1. {people[0].display_name} +9")


@pytest.mark.slow
async def test_every_text_of_a_twenty_player_game_keeps_each_name_in_its_place() -> None:
    people = hostile_players()
    deps = await played_game(
        seed=7, rules=HouseRules(max_players=20), people=people, title="\u202eBULC"
    )
    assert isinstance(deps.uow, FakeUnitOfWorkFactory)
    world = deps.uow.world  # every notice of the game, more than one claim takes
    (game,) = world.games.values()
    notices = [world.outbox[i] for i in sorted(world.outbox)]
    assert game.status is GameStatus.FINISHED and len(game.seats) == len(people)
    seat = {pid: i for i, pid in enumerate(game.seats, 1)}
    history = await queries.history(deps, GROUP)
    story = await queries.story(deps, GROUP, game.id)
    assert story is not None
    season = await queries.leaderboard(deps, GROUP)
    assert len(season.rows) == len(people)
    kinds: set[str] = set()
    for lang in LANGS:
        expected = {p.id: label(p, seat[p.id], BLANK[lang]) for p in people}
        texts: list[tuple[str, str]] = []
        for notice in notices:
            texts.append((notice.kind.value, preview(notice, game, world.players, lang).text))
            payload = notice.payload
            if isinstance(payload, TableView) and payload.round == 1 and not payload.final:
                # The first table lists every seat with its hearts.
                assert set(isolated_names(plain(texts[-1][1]))) >= set(expected.values())
            if isinstance(payload, LobbyView) and len(payload.seats) == len(people):
                # In the lobby a seat is its place in the list; at the table, its seat.
                joined = {pid: i for i, pid in enumerate(payload.seats, 1)}
                listed = {label(p, joined[p.id], BLANK[lang]) for p in people}
                assert set(isolated_names(plain(texts[-1][1]))) >= listed
            if isinstance(payload, GameOverView) and not payload.abandoned:
                assert set(isolated_names(plain(texts[-1][1]))) >= set(expected.values())
        for page in renderer.story(lang, story):
            texts.append(("story", page))
        told = "\n".join(plain(page) for page in renderer.story(lang, story))
        assert set(isolated_names(told)) >= set(expected.values())
        texts.append(("history", renderer.history(lang, history)))
        assert set(isolated_names(plain(texts[-1][1]))) >= set(expected.values())
        league = renderer.league(lang, season, "\u202eBULC", "2026-12")
        texts.append(("league", league))
        ranked = {row.player.id: row.rank for row in season.rows}
        want = {
            label(p, ranked[p.id], BLANK[lang], limit=NAME_WIDTH) for p in people
        }  # the name column's width
        assert set(isolated_names(plain(league))) >= want
        for person in people:
            texts.append(("welcome", renderer.welcome(lang, person)))
            reply = Reply("computer_added", {"name": person.display_name})
            texts.append(("reply", renderer.reply(lang, reply)))
            texts.append(
                ("popup", renderer.popup(lang, Reply("not_your_turn", {"player": person.id})))
            )
            stats = await queries.personal_stats(deps, person.id)
            texts.append(("stats", renderer.stats(lang, stats)))
        for kind, text in texts:
            kinds.add(kind)
            seen = plain(text) if kind != "popup" else text
            assert not bidi_leaks(seen), (lang, kind, bidi_leaks(seen))
            assert len(text) <= 4096
    assert {"lobby", "table", "deal", "prompt", "close", "game_over", "story", "league"} <= kinds


@pytest.mark.parametrize("lang", LANGS)
def test_a_name_of_nothing_visible_is_player_n_by_seat(lang: str) -> None:
    cast = renderer.cast(
        {5: Player(id=5, first_name="\u200b"), 9: Player(id=9, first_name="\u3164")}, [9, 5], lang
    )
    assert cast.name(9) == f"{FSI}{BLANK[lang].format(n=1)}{PDI}"
    assert cast.name(5) == f"{FSI}{BLANK[lang].format(n=2)}{PDI}"


def test_long_names_are_shortened_between_graphemes() -> None:
    family = "👨\u200d👩\u200d👧\u200d👦"
    name = readable(family * 40)
    assert name == family * (NAME_LIMIT - 1) + "…"
    flag = "🇫🇷"
    assert readable("a" + flag * 40, 5) == "a" + flag * 3 + "…"


@given(st.text(max_size=140))
def test_any_name_shows_isolated_readable_and_short(raw: str) -> None:
    text = user_text(raw, "Player 1")
    assert text.startswith(FSI) and text.endswith(PDI)
    assert not bidi_leaks(f"1. {text} +9")
    assert graphemes(readable(raw)) <= NAME_LIMIT
    assert "<" not in text and "\n" not in text
