"""Rendering in English, Spanish and French: every notice of real games, and the details."""

from __future__ import annotations

import random
import re
from dataclasses import replace
from datetime import UTC, datetime

import pytest

from cuckoo_bot.app import lobby, outbox, play
from cuckoo_bot.app.deps import Deps
from cuckoo_bot.app.model import Chat, Game, GameStatus, Player, RatingChange, Standing
from cuckoo_bot.app.notices import (
    CloseNote,
    CloseReason,
    DealNote,
    Exit,
    GameOverView,
    LobbyView,
    Notice,
    NoticeKind,
    PlayedNote,
    PromptNote,
    RoundResult,
    TableView,
)
from cuckoo_bot.app.outbox import Batch
from cuckoo_bot.app.queries import League, LeagueRow
from cuckoo_bot.domain.cards import Card
from cuckoo_bot.domain.rules import FinalTie, HouseRules
from cuckoo_bot.i18n.translator import Translator
from cuckoo_bot.transport import keydata
from cuckoo_bot.transport.render import Rendered, Renderer, TableLinks, card_label, fit
from fakebotapi.html import parse_html
from tests.hostile import seen
from tests.unit.app.fakes import FakeClock, FakeUnitOfWorkFactory, World

LANGS = ("en", "es", "fr")
CARD = re.compile(r"(10|[2-9AJQKRDV])[♣♦♥♠]")  # R, D, V: French decks
renderer = Renderer(Translator())


def plain(html_text: str) -> str:
    """What Telegram shows; raises like Telegram if the HTML is malformed."""
    text, _ = parse_html(html_text, lambda _: None)
    return text


async def played_game(
    seed: int,
    rules: HouseRules,
    people: list[Player] | None = None,
    title: str = "<Friday> & cards",
) -> Deps:
    """A whole game through the use cases: ``people`` (three by default) and a computer seat,
    random moves; its notices wait in the outbox."""
    world = World()
    deps = Deps(uow=FakeUnitOfWorkFactory(world), rng=random.Random(seed), clock=FakeClock())
    group = Chat(id=-100555, title=title, rules=rules)
    people = people or [
        Player(id=1, first_name="<b>&", last_name="O'Neil", can_dm=True),
        Player(id=2, first_name="Ana", can_dm=True),
        Player(id=3, first_name="Zoë", can_dm=True),
    ]
    opened = await lobby.open_lobby(deps, group, people[0], thread_id=None)
    assert opened.game_id is not None
    for person in people:
        await lobby.join(deps, opened.game_id, person)
    await lobby.add_computer(deps, opened.game_id, group.id, people[0], is_admin=False)
    await lobby.start(deps, group.id, people[0], is_admin=False)
    rng = random.Random(seed)
    for _ in range(5000):
        game = world.games[opened.game_id]
        if game.status is not GameStatus.RUNNING:
            break
        state = game.state
        assert state is not None and state.actor is not None
        move = rng.choice(["keep", "swap", "cut"])
        outcome = await play.act(deps, game.id, state.actor, move, state.turn)
        if outcome.reply and outcome.reply.code == "illegal_action":
            await play.act(deps, game.id, state.actor, "keep", state.turn)
    return deps


def preview(notice: Notice, game: Game, players: dict[int, Player], lang: str) -> Rendered:
    """A notice as it shows when sent on its own (the courier may merge or fold it)."""
    payload = notice.payload
    if isinstance(payload, LobbyView):
        return renderer.lobby(notice, game, players, lang)
    if isinstance(payload, TableView):
        return renderer.table(notice, [], game, players, lang)
    if isinstance(payload, DealNote):
        return renderer.deal(payload, game, players, lang, with_result=True)
    if isinstance(payload, PromptNote):
        return renderer.prompt(payload, game, players, lang, reader=notice.chat_id)
    if isinstance(payload, CloseNote) and payload.place is not None:
        return renderer.final(payload, game, players, lang, reader=notice.chat_id)
    if isinstance(payload, CloseNote):
        return renderer.close(payload, game, players, lang, reader=notice.chat_id)
    if isinstance(payload, PlayedNote):
        return renderer.played(payload, game, players, lang)
    return renderer.group_notice(notice, game, players, lang)


def rendered(batch: Batch, lang: str):  # type: ignore[no-untyped-def]
    for notice in batch.notices:
        assert notice.game_id is not None
        game = batch.games[notice.game_id]
        yield notice, preview(notice, game, batch.players, lang)


@pytest.mark.parametrize(
    "rules",
    [
        HouseRules(),
        HouseRules(lives=5, kings_block=False, double_cut=True, final_tie=FinalTie.SUDDEN_DEATH),
    ],
)
async def test_every_notice_of_a_game_renders_as_valid_telegram_html_in_every_language(
    rules: HouseRules,
) -> None:
    deps = await played_game(seed=11, rules=rules)
    batch = await outbox.claim(deps)
    assert len(batch.notices) > 10
    assert {n.kind for n in batch.notices} >= {
        NoticeKind.LOBBY,
        NoticeKind.TABLE,
        NoticeKind.DEAL,
        NoticeKind.PROMPT,
        NoticeKind.CLOSE,
        NoticeKind.GAME_OVER,
        NoticeKind.PLAYED,
    }
    for lang in LANGS:
        for notice, shown in rendered(batch, lang):
            text = plain(shown.text)
            assert 0 < len(text) <= 4096
            assert "<b>&amp; O'Neil" not in text and "{" not in text
            payload = str(notice.payload)
            # A line recalling the last round shows cards the table saw at its reveal.
            lines = text.splitlines()
            recalled = "".join(line for line in lines if line.startswith("↩️"))
            rest = "\n".join(line for line in lines if not line.startswith("↩️"))
            # The group sees cards only in a reveal or a sudden-death draw, or a shown king.
            if notice.chat_id < 0 and "RevealView" not in payload and "SuddenDeath" not in payload:
                body = "\n".join(line for line in text.splitlines() if not line.startswith("↩️"))
                assert all(c.startswith("K") for c in CARD.findall(body)), text
            if isinstance(notice.payload, PromptNote):
                # A turn prompt shows one card of this round as held: the one the player holds
                # now (after a swap, the card it took from them before it); a line under its
                # call may recall the card they held at the last reveal.
                held = card_label(notice.payload.card.code, lang)
                gave = notice.payload.gave
                took = [card_label(gave.code, lang)] if gave is not None else []
                assert [m.group(0) for m in CARD.finditer(rest)] == [*took, held], text
                # Only a prompt whose card came with it recalls it (the first to play, or a
                # player safe at the last reveal); the others read it with their card at the
                # deal: told once.
                last = notice.payload.last
                if notice.payload.prev is not None and last is not None and last.card is not None:
                    shown_cards = [m.group(0) for m in CARD.finditer(recalled)]
                    assert shown_cards == [card_label(last.card.code, lang)], text
                else:
                    assert not recalled, text
            if shown.keyboard is not None:
                for row in shown.keyboard.inline_keyboard:
                    for button in row:
                        data = button.callback_data
                        assert isinstance(data, str) and len(data.encode()) <= 64
                        assert not CARD.search(data)


def test_cards_are_rank_and_suit_symbol() -> None:
    assert [card_label(c) for c in ("AS", "10H", "KC", "7D", "QH", "JS")] == [
        "A♠",
        "10♥",
        "K♣",
        "7♦",
        "Q♥",
        "J♠",
    ]
    # as each language's decks print them: French decks show R(oi), D(ame) and V(alet)
    assert [card_label(c, "fr") for c in ("AS", "KC", "QH", "JS")] == ["A♠", "R♣", "D♥", "V♠"]
    assert [card_label(c, "es") for c in ("KC", "QH", "JS")] == ["K♣", "Q♥", "J♠"]
    # and the live table's faces say the same (its corners and its framed letter)
    from cuckoo_bot.transport.webapp.faces import standard

    king = standard(Card.from_code("KH"), "fr")
    assert (king["corner"], king["picture"], king["label"]) == ("R", "R", "R♥")


async def test_the_english_keys_say_join_leave_start_keep_swap_cut() -> None:
    deps = await played_game(seed=3, rules=HouseRules())
    labels = set()
    for _, shown in rendered(await outbox.claim(deps), "en"):
        if shown.keyboard:
            labels |= {b.text for row in shown.keyboard.inline_keyboard for b in row}
    for word in ("Join", "Leave", "Start", "Keep", "Swap", "Cut"):
        assert any(word in label for label in labels), (word, labels)


@pytest.mark.parametrize(
    ("lang", "keep", "swap"),
    [("en", "Keep", "Swap"), ("es", "Quedármela", "Cambiar"), ("fr", "Garder", "Échanger")],
)
async def test_turn_keys_are_translated(lang: str, keep: str, swap: str) -> None:
    deps = await played_game(seed=5, rules=HouseRules())
    prompts = [
        shown
        for notice, shown in rendered(await outbox.claim(deps), lang)
        if isinstance(notice.payload, PromptNote) and notice.payload.options == ("keep", "swap")
    ]
    assert prompts[0].keyboard is not None
    labels = " ".join(b.text for row in prompts[0].keyboard.inline_keyboard for b in row)
    assert keep in labels and swap in labels


def test_long_texts_are_trimmed_at_a_line_under_telegrams_limit() -> None:
    text = "\n".join(f"line {i} " + "x" * 60 for i in range(200))
    trimmed = fit(text)
    assert len(trimmed) <= 4096 and trimmed.endswith("…")
    assert trimmed.split("\n")[-2].startswith("line ")


@pytest.mark.parametrize("lang", LANGS)
def test_a_league_table_of_twenty_long_names_is_aligned_and_fits(lang: str) -> None:
    rows = [
        LeagueRow(
            rank=i + 1,
            player=Player(
                id=i + 1,
                first_name="Bartholomew-Maximilian" + "<&>" * (i % 2),
                last_name="von Longname",
            ),
            standing=Standing(
                player_id=i + 1,
                scope=-1,
                season="2026-11",
                games=40 - i,
                wins=20 - i,
                rating_mu=40 - i,
            ),
        )
        for i in range(20)
    ]
    text = renderer.league(lang, League(scope=-1, season="2026-11", rows=rows), "<Club>", "2026-11")
    shown = seen(plain(text))
    assert len(text) <= 4096
    table = shown.split("\n")[3:]
    widths = {len(line) for line in table if line.strip()}
    assert len(widths) == 1  # columns line up
    assert "&lt;" not in shown and "<Club>" in shown


def test_callback_data_is_small_versioned_and_round_trips() -> None:
    biggest = keydata.KeyData(keydata.KEEP, game=2**31 - 1, round=10**6, turn=10**9)
    assert len(biggest.encode().encode()) <= 64
    assert keydata.decode(biggest.encode()) == biggest
    # Forged keys: ids the store cannot hold, negative or not numbers at all.
    forged = ("1:j:9223372036854775808", "1:k:2147483648:1:1", "1:k:-1:1:1", "1:m:1e3")
    for bad in ("", "0:k:1:1:1", "1:k:x:1:1", "1:zz:1", "1:k:1:1", *forged):
        with pytest.raises(keydata.BadKeyData):
            keydata.decode(bad)


async def test_a_twenty_player_table_with_long_names_keeps_its_reveal_under_the_limit() -> None:
    world = World()
    deps = Deps(uow=FakeUnitOfWorkFactory(world), rng=random.Random(2), clock=FakeClock())
    group = Chat(id=-100556, title="Big table", rules=HouseRules(max_players=20))
    people = [
        Player(
            id=i,
            first_name=f"Maximiliana-Bartholomea {i:02d}",
            last_name="von Langenachname 🦜",
            can_dm=True,
        )
        for i in range(1, 21)
    ]
    opened = await lobby.open_lobby(deps, group, people[0], thread_id=None)
    assert opened.game_id is not None
    for person in people:
        await lobby.join(deps, opened.game_id, person)
    await lobby.start(deps, group.id, people[0], is_admin=False)
    while True:
        game = world.games[opened.game_id]
        assert game.state is not None
        if game.state.rounds_dealt > 1 or game.status is not GameStatus.RUNNING:
            break
        assert game.state.round is not None
        move = "keep" if game.state.round.actor_is_dealer else "swap"
        await play.act(deps, game.id, game.state.actor, move, game.state.turn)
    batch = await outbox.claim(deps)
    revealed = [
        (notice, game)
        for notice in batch.notices
        if (game := batch.games[notice.game_id or 0])
        and getattr(notice.payload, "reveal", None) is not None
    ]
    assert revealed
    for lang in LANGS:
        notice, game = revealed[0]
        text = renderer.table(notice, [], game, batch.players, lang).text
        shown = plain(text)
        assert len(shown.encode("utf-16-le")) // 2 <= 4096
        # One row per seat, each with its card; the reveal says who lost a life.
        rows = [
            line
            for line in shown.splitlines()
            if re.search(r" · (10|[2-9AJQKRDV])[♣♦♥♠]( 💔)?$", line)
        ]
        assert len(rows) == 20, shown
        assert "💔" in shown.split("\n\n👀", 1)[1]
        assert len(shown.splitlines()) <= 25, shown


async def test_a_games_story_and_the_history_render_in_every_language_under_the_limit() -> None:
    from cuckoo_bot.app import queries

    deps = await played_game(seed=17, rules=HouseRules(double_cut=True))
    history = await queries.history(deps, -100555)
    (game,) = history.games
    story = await queries.story(deps, -100555, game.id)
    assert story is not None and game.state is not None
    for lang in LANGS:
        listed = plain(renderer.history(lang, history))
        assert f"#{game.id}" in listed and "&lt;" not in listed
        pages = renderer.story(lang, story)
        for page in pages:
            assert len(plain(page).encode("utf-16-le")) // 2 <= 4096
        told = "\n".join(plain(page) for page in pages)
        # Every round dealt is told, and the end.
        for number in range(1, game.state.rounds_dealt + 1):
            assert f"{number}" in told
        assert told.count("👀") == sum(
            1 for entry in story.log for e in entry.events if type(e).__name__ == "Revealed"
        )
    english = "\n".join(plain(p) for p in renderer.story("en", story))
    assert "won the game" in english and "🏆" in english


async def test_the_end_of_the_game_shows_the_summary_and_a_play_again_key() -> None:
    deps = await played_game(seed=11, rules=HouseRules())
    batch = await outbox.claim(deps)
    (over,) = [n for n in batch.notices if n.kind is NoticeKind.GAME_OVER]
    game = batch.games[over.game_id or 0]
    for lang in LANGS:
        shown = renderer.group_notice(over, game, batch.players, lang)
        text = plain(shown.text)
        assert "📋" in text and "🏅" in text
        assert shown.keyboard is not None
        (key,) = [b for row in shown.keyboard.inline_keyboard for b in row]
        assert key.callback_data == keydata.KeyData(keydata.AGAIN, game.id).encode()
    english = plain(renderer.group_notice(over, game, batch.players, "en").text)
    assert "won" in english
    for change in over.payload.changes:  # type: ignore[union-attr]
        points = f"+{change.points}" if change.points >= 0 else f"−{-change.points}"
        assert f"#{change.place} this month" in english and f"{points} point" in english


def test_the_summary_of_a_twenty_player_game_with_long_names_fits_one_message() -> None:
    from datetime import UTC, datetime

    from cuckoo_bot.app.model import Game, RatingChange
    from cuckoo_bot.app.notices import Exit, GameOverView, Notice

    people = {
        i: Player(id=i, first_name=f"Maximiliana-Bartholomea {i:02d}", last_name="von Lang 🦜")
        for i in range(1, 21)
    }
    view = GameOverView(
        winners=(20,),
        rounds=61,
        out=tuple(Exit(i, 3 * i) for i in range(1, 20)),
        changes=tuple(RatingChange(i, 40 - 4 * i, 21 - i) for i in range(1, 21)),
        places=((20, 1), *((i, 21 - i) for i in range(19, 0, -1))),
    )
    game = Game(
        chat_id=-1,
        creator_id=1,
        rules=HouseRules(max_players=20),
        turn_timeout=90,
        created_at=datetime.now(UTC),
        id=7,
        seats=list(people),
    )
    notice = Notice(NoticeKind.GAME_OVER, -1, view, game_id=7)
    for lang in LANGS:
        text = plain(renderer.group_notice(notice, game, people, lang).text)
        assert len(text.encode("utf-16-le")) // 2 <= 4096
        assert text.count("Maximiliana") == 1 + 20  # the winner, then everyone on the podium


@pytest.mark.parametrize("lang", LANGS)
def test_a_refused_language_is_answered_in_words(lang: str) -> None:
    from cuckoo_bot.app.results import Reply

    text = renderer.reply(lang, Reply("unknown_language", {"language": "de"}))
    assert text and "{" not in text
    assert renderer.popup(lang, Reply("invalid_setting", {"name": "lives", "detail": "abc"}))


START = datetime(2026, 12, 1, 20, 0, tzinfo=UTC)


def _table_game() -> Game:
    game = Game(
        chat_id=-1, creator_id=1, rules=HouseRules(), turn_timeout=60, created_at=START, id=9
    )
    game.seats = [1, 2, 3, 4, -5]
    game.chat = Chat(id=-1, title="Club")
    return game


NAMED = {i: Player(id=i, first_name=n) for i, n in ((1, "Ann"), (2, "Ben"), (3, "Cat"), (4, "Dan"))}


def test_the_end_is_a_podium_in_finishing_order_with_points_and_places() -> None:
    view = GameOverView(
        winners=(3,),
        rounds=12,
        out=(Exit(-5, 2), Exit(1, 7), Exit(4, 7), Exit(2, 11)),
        changes=(
            RatingChange(3, 24, 1),
            RatingChange(2, 3, 2),
            RatingChange(1, -8, 4),
            RatingChange(4, -12, 5),
        ),
        places=((3, 1), (2, 2), (1, 3), (4, 3), (-5, 5)),
    )
    game = _table_game()
    cast = renderer.cast(NAMED, game.seats, "en")
    shown = seen(plain(renderer.game_over(view, game, cast, "en").text))
    podium = shown.split("How it ended\n", 1)[1].split("\n")
    assert podium == [
        "🥇 Cat · +24 points · #1 this month",
        "🥈 Ben · out in round 11 · +3 points · #2 this month",
        "🥉 Ann · out in round 7 · −8 points · #4 this month",
        "🥉 Dan · out in round 7 · −12 points · #5 this month",  # out together: same place
        "5. Player 5 · out in round 2",  # no name known here; a computer seat has no points
    ]


@pytest.mark.parametrize("lang", LANGS)
def test_a_shared_win_is_told_as_one_to_each_winner_never_beside_a_lost_last_life(
    lang: str,
) -> None:
    out = RoundResult(round=9, card=Card.from_code("2C"), lost=True, lives=0, out=True)
    note = CloseNote(reason=CloseReason.GAME_OVER, prev=out, winners=(1, 2), shared=True)
    mine = seen(plain(renderer.close(note, _table_game(), NAMED, lang, reader=1).text))
    assert "Ben" in mine and "Ann" not in mine and "2♣" not in mine  # no "last life" line
    theirs = seen(plain(renderer.close(note, _table_game(), NAMED, lang, reader=3).text))
    assert "Ann" in theirs and "Ben" in theirs and "2♣" in theirs
    alone = CloseNote(reason=CloseReason.GAME_OVER, winners=(1,))
    assert "You won" in renderer.close(alone, _table_game(), NAMED, "en", reader=1).text


@pytest.mark.parametrize("lang", LANGS)
def test_a_turn_shows_when_it_runs_out_and_the_first_player_keeps_their_last_round_in_view(
    lang: str,
) -> None:
    from datetime import timedelta

    game = _table_game()
    deadline = START + timedelta(seconds=60)
    last = RoundResult(round=4, card=Card.from_code("6S"), lost=True, lives=2)
    note = PromptNote(
        round=5,
        turn=21,
        card=Card.from_code("QH"),
        lives=2,
        options=("keep", "swap"),
        target=2,
        prev=last,  # the first to play: the card came with this prompt
        last=last,
        deadline=deadline,
    )
    html_text = renderer.prompt(note, game, NAMED, lang).text
    # A date-time Telegram shows in the reader's zone; its text is the UTC time for old apps.
    assert f'<tg-time unix="{int(deadline.timestamp())}" format="T">' in html_text
    shown = plain(html_text)
    call, recall, rest = shown.split("\n", 2)
    # The call to act first (with the group, the round and the seconds: a lock screen's line),
    # then how the last round ended.
    assert call.startswith("👉") and "Club" in call and "5" in call and "60" in call
    assert recall.startswith("↩️") and "4" in recall and "6♠" in recall and "💔" in recall
    assert deadline.strftime("%H:%M:%S") in rest
    # Answered, the prompt keeps that line (nothing else in the chat told that round).
    played = PlayedNote(round=5, turn=21, answer="done_keep", card=Card.from_code("QH"), last=last)
    answered = plain(renderer.played(played, game, NAMED, lang).text)
    assert answered.split("\n", 1)[0] == recall and card_label("QH", lang) in answered
    # Not the first to play: their card came at the deal, with the last round's end.
    later = replace(note, prev=None)
    assert "↩️" not in plain(renderer.prompt(later, game, NAMED, lang).text)
    # A time-out nudge names the seconds left and the time, and rings (not quiet).
    from cuckoo_bot.app.notices import NudgeNote

    nudge = renderer.nudge(NudgeNote(5, 21, deadline, seconds=20), game, lang)
    assert "20" in plain(nudge.text) and "tg-time" in nudge.text and not nudge.quiet


async def test_the_live_table_opens_from_the_prompt_and_the_group_table_only_when_it_exists() -> (
    None
):
    deps = await played_game(seed=5, rules=HouseRules())
    batch = await outbox.claim(deps)
    linked = Renderer(Translator())

    def openers(rendered: Rendered) -> list[dict[str, object]]:
        if rendered.keyboard is None:
            return []
        rows = rendered.keyboard.to_dict()["inline_keyboard"]
        return [b for row in rows for b in row if "url" in b or "web_app" in b]

    def shown_with(links: TableLinks) -> dict[NoticeKind, list[list[dict[str, object]]]]:
        linked.links = links
        seen_by_kind: dict[NoticeKind, list[list[dict[str, object]]]] = {}
        for notice in batch.notices:
            assert notice.game_id is not None
            game = batch.games[notice.game_id]
            payload = notice.payload
            if isinstance(payload, PromptNote):
                shown = linked.prompt(payload, game, batch.players, "es")
            elif isinstance(payload, TableView):
                shown = linked.table(notice, [], game, batch.players, "es")
            else:
                continue
            seen_by_kind.setdefault(notice.kind, []).append(openers(shown))
        return seen_by_kind

    # No public URL: nothing links to a table that does not exist.
    none = shown_with(TableLinks())
    assert all(found == [] for kind in none.values() for found in kind)

    # A public URL: the prompt opens the page as a Mini App; the group (where a Mini App
    # button cannot be) gets the direct link once the app's short name is known.
    page = "https://cards.example.org/app"
    without_name = shown_with(TableLinks(page, "cuckoo_bot"))
    game_id = batch.notices[0].game_id
    label = Translator().t("es", "btn_open_table")
    assert without_name[NoticeKind.PROMPT][0] == [
        {"text": label, "web_app": {"url": f"{page}?game={game_id}"}}
    ]
    assert all(found == [] for found in without_name[NoticeKind.TABLE])
    named = shown_with(TableLinks(page, "cuckoo_bot", "table"))
    direct = f"https://t.me/cuckoo_bot/table?startapp={game_id}"
    tables = [found for found in named[NoticeKind.TABLE] if found]
    assert tables and all(found == [{"text": label, "url": direct}] for found in tables)


@pytest.mark.parametrize("lang", LANGS)
def test_a_long_popup_fits_200_utf16_units_and_never_splits_an_emoji(lang: str) -> None:
    from cuckoo_bot.app.results import Reply
    from cuckoo_bot.transport.render.common import utf16_len

    for filler in ("🃏" * 300, "x" + "🃏" * 300, "abc" * 100):
        text = renderer.popup(lang, Reply("invalid_setting", {"name": "lives", "detail": filler}))
        assert utf16_len(text) <= 200 and text.endswith("…")
        text.encode("utf-8")  # no half of a surrogate pair left behind
    short = renderer.popup(lang, Reply("invalid_setting", {"name": "lives", "detail": "🃏"}))
    assert "🃏" in short and not short.endswith("…")
