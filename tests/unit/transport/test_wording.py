"""What the game's texts say, checked against what happened: each line true to the move it
tells, in English, Spanish and French."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from cuckoo_bot.app.model import Game, GameStatus, LogEntry, Player
from cuckoo_bot.app.notices import LobbyView, Notice, NoticeKind, NudgeNote, TableView
from cuckoo_bot.app.notices.policy import last_result
from cuckoo_bot.app.queries import Story
from cuckoo_bot.app.results import Reply, ReplyCode
from cuckoo_bot.domain.actions import Action, Cut, Deal, Keep, Swap
from cuckoo_bot.domain.cards import Card
from cuckoo_bot.domain.decks import STANDARD
from cuckoo_bot.domain.engine import apply, new_game
from cuckoo_bot.domain.rules import GameName, HouseRules
from cuckoo_bot.domain.state import GameState
from cuckoo_bot.i18n.translator import Translator
from cuckoo_bot.transport.render import Renderer
from cuckoo_bot.transport.render.common import card_label
from cuckoo_bot.transport.render.names import Cast
from fakebotapi.html import parse_html

LANGS = ("en", "es", "fr")
NOW = datetime(2026, 12, 4, 20, 0, tzinfo=UTC)
ANA, BOB, CAROL = 1, 2, 3  # Carol deals: Ana, Bob, then Carol
PEOPLE = {p: Player(id=p, first_name=n) for p, n in ((ANA, "Ana"), (BOB, "Bob"), (CAROL, "Carol"))}
renderer = Renderer(Translator())
CAROL_SAYS = "\u2068Carol\u2069"  # a name as the texts set it: isolated
tr = Translator()


def plain(html_text: str) -> str:
    text, _ = parse_html(html_text, lambda _: None)
    return text


def dealt(cards: list[str], stock: list[str]) -> tuple[Card, ...]:
    """The deck for a round: ``cards`` to Ana, Bob and Carol, then ``stock`` on top of the
    rest (what the dealer cuts first)."""
    top = [Card.from_code(c) for c in cards + stock]
    return tuple(top + [c for c in STANDARD.cards if c not in top])


def played(actions: list[Action], rules: HouseRules) -> tuple[GameState, list[LogEntry]]:
    state = new_game([ANA, BOB, CAROL], rules, CAROL)
    log = []
    for action in actions:
        state, events = apply(state, action)
        log.append(LogEntry(action, events, NOW))
    return state, log


def game(state: GameState, rules: HouseRules) -> Game:
    status = GameStatus.FINISHED if state.finished else GameStatus.RUNNING
    return Game(
        -100, ANA, rules, 90, NOW, id=5, status=status, seats=[ANA, BOB, CAROL], state=state
    )


def table_rows(state: GameState, rules: HouseRules, lang: str) -> str:
    rnd = state.round
    assert rnd is not None
    view = TableView(
        rnd.number,
        rnd.dealer,
        rnd.order,
        (3, 3, 3),
        acts=rnd.acts,
        actor=state.actor,
        turn=state.turn,
        cuts_made=rnd.cuts_made,
    )
    notice = Notice(NoticeKind.TABLE, -100, view, 5, id=1, created_at=NOW)
    return plain(renderer.table(notice, [], game(state, rules), PEOPLE, lang).text)


def story(state: GameState, log: list[LogEntry], rules: HouseRules, lang: str) -> str:
    return "\n".join(
        plain(page) for page in renderer.story(lang, Story(game(state, rules), log, PEOPLE))
    )


DOUBLE = HouseRules(double_cut=True)


@pytest.mark.parametrize("lang", LANGS)
def test_a_dealer_whose_cut_a_king_blocked_keeps_their_own_card_and_the_king_stays_told(
    lang: str,
) -> None:
    # Carol holds 6♠ and cuts the K♠ (set aside), then keeps: she keeps her own 6♠.
    deck = dealt(["9H", "8H", "6S"], ["KS"])
    state, log = played(
        [Deal(deck), Keep(ANA, 1), Keep(BOB, 2), Cut(CAROL, 3), Keep(CAROL, 4)], DOUBLE
    )
    rows = table_rows(state, DOUBLE, lang).splitlines()[1:]  # under the title
    row = next(line for line in rows if "Carol" in line)
    assert card_label("KS", lang) in row  # the King she cut is still on her row
    assert tr.t(lang, "row_dealer_stands", name="", lives="").strip(" ·") not in row
    told = story(state, log, DOUBLE, lang)
    assert tr.t(lang, "act_dealer_keeps_own", name=CAROL_SAYS) in told
    assert tr.t(lang, "act_dealer_stands", name=CAROL_SAYS) not in told


@pytest.mark.parametrize("lang", LANGS)
def test_a_dealer_who_cut_a_card_and_keeps_it_keeps_the_cut_card(lang: str) -> None:
    # Carol cuts the 2♦, then keeps it.
    deck = dealt(["9H", "8H", "6S"], ["2D", "KS"])
    actions: list[Action] = [Deal(deck), Keep(ANA, 1), Keep(BOB, 2), Cut(CAROL, 3), Keep(CAROL, 4)]
    state, log = played(actions, DOUBLE)
    told = story(state, log, DOUBLE, lang)
    assert tr.t(lang, "act_dealer_stands", name=CAROL_SAYS) in told
    assert tr.t(lang, "act_dealer_keeps_own", name=CAROL_SAYS) not in told
    rows = table_rows(state, DOUBLE, lang).splitlines()[1:]
    row = next(line for line in rows if "Carol" in line)
    assert tr.t(lang, "row_dealer_stands", name="", lives="").strip(" ·") in row


HOUSE = HouseRules(lives=5, kings_block=False, fast_turns=True, dealer_stays=True)


@pytest.mark.parametrize("lang", LANGS)
def test_the_lobby_the_first_table_and_rules_state_the_rules_in_force(lang: str) -> None:
    line = renderer.rules_line(lang, HOUSE, 45)
    assert "\n" not in line
    for item in ("rules_no_block", "rules_lives", "rules_dealer_stays"):
        assert tr.t(lang, item, lives=5) in line
    assert tr.t(lang, "rules_clock_fast", seconds=45) in line  # what running out costs
    lobby_game = Game(-100, ANA, HOUSE, 45, NOW, id=5, seats=[ANA, BOB])
    lobby = Notice(NoticeKind.LOBBY, -100, LobbyView(GameStatus.LOBBY, (ANA, BOB)), 5, id=1)
    assert line in plain(renderer.lobby(lobby, lobby_game, PEOPLE, lang).text)

    state, _ = played([Deal(dealt(["9H", "8H", "6S"], []))], HOUSE)
    running = Game(-100, ANA, HOUSE, 45, NOW, id=5, status=GameStatus.RUNNING, state=state)
    rnd = state.round
    assert rnd is not None
    for number, shown in ((1, True), (2, False)):
        view = TableView(number, rnd.dealer, rnd.order, (5, 5, 5), actor=ANA, turn=1)
        table = Notice(NoticeKind.TABLE, -100, view, 5, id=2)
        assert (line in plain(renderer.table(table, [], running, PEOPLE, lang).text)) is shown

    rules = plain(renderer.rules(lang, HOUSE, 45))
    assert rules.endswith(line)
    assert tr.t(lang, "rules_swap_free") in rules and tr.t(lang, "rules_cut_free") in rules
    assert tr.t(lang, "rules_swap_block") not in rules  # no "unless they hold a King"
    assert tr.t(lang, "rules_deal_stays") in rules  # the same player deals every round
    assert tr.t(lang, "rules_deal_passes") not in rules
    classic = plain(renderer.rules(lang, HouseRules(), 90))
    assert tr.t(lang, "rules_swap_block") in classic and tr.t(lang, "rules_cut_block") in classic
    assert tr.t(lang, "rules_deal_passes") in classic
    assert tr.t(lang, "rules_dealer_stays") not in renderer.rules_line(lang, HouseRules(), 90)
    assert classic.endswith(renderer.rules_line(lang, HouseRules(), 90))


@pytest.mark.parametrize("name", list(GameName))
@pytest.mark.parametrize("lang", LANGS)
def test_the_games_name_titles_the_lobby_and_the_rules_and_a_king_calls_it_out(
    lang: str, name: GameName
) -> None:
    rules = HouseRules(name=name)
    called, call = tr.t(lang, f"value_{name.value}"), tr.t(lang, f"call_{name.value}")
    lobby_game = Game(-100, ANA, rules, 45, NOW, id=5, seats=[ANA, BOB])
    lobby = Notice(NoticeKind.LOBBY, -100, LobbyView(GameStatus.LOBBY, (ANA, BOB)), 5, id=1)
    assert plain(renderer.lobby(lobby, lobby_game, PEOPLE, lang).text).startswith(f"🃏 {called}")
    assert plain(renderer.rules(lang, rules, 45)).startswith(called)
    # Ana asks Bob, who holds a King: he blocks, and calls out.
    state, log = played([Deal(dealt(["9H", "KS", "6S"], [])), Swap(ANA, 1)], rules)
    rows = table_rows(state, rules, lang).splitlines()[1:]
    assert call in next(line for line in rows if "Ana" in line)
    assert call in story(state, log, rules, lang)
    done = Reply(ReplyCode.DONE_BLOCKED, {"king": "KS", "player": BOB, "card": "9H", "call": name})
    assert call in renderer.reply(lang, done, PEOPLE)
    others = {tr.t(lang, f"call_{other.value}") for other in GameName} - {call}
    assert not any(other in plain(renderer.reply(lang, done, PEOPLE)) for other in others)


@pytest.mark.parametrize("lang", LANGS)
def test_the_reminder_says_what_running_out_of_time_costs(lang: str) -> None:
    note = NudgeNote(2, 4, NOW, seconds=10)
    for rules, key in ((HOUSE, "nudge_fast"), (HouseRules(), "nudge")):
        game = Game(-100, ANA, rules, 45, NOW, id=5, status=GameStatus.RUNNING)
        text = renderer.nudge(note, game, lang).text
        expected = tr.t(lang, key, seconds=10, time="")
        assert expected.split("\n")[0][-30:] in text


@pytest.mark.parametrize("lang", LANGS)
def test_a_lost_life_is_explained_in_private_even_when_kings_were_the_lowest(lang: str) -> None:
    # Ana, Bob and Carol keep three Kings: all three are the lowest, and each loses a life.
    deck = dealt(["KH", "KS", "KD"], [])
    state, _ = played([Deal(deck), Keep(ANA, 1), Keep(BOB, 2), Keep(CAROL, 3)], HouseRules())
    result = last_result(state, ANA, 2)
    assert result is not None and result.lost and result.tied == 2
    game_ = game(state, HouseRules())
    text = plain(renderer.result(result, game_, lang).text)  # type: ignore[union-attr]
    assert tr.count(lang, "count_others", 2) in text
    assert text.endswith(
        renderer.tr.t(
            lang,
            "result_lost_tied",
            card=card_label("KH", lang),
            others=tr.count(lang, "count_others", 2),
            lives="❤️❤️",
        )
    )

    # alone at the bottom: "the lowest card"
    state, _ = played(
        [Deal(dealt(["2H", "9S", "9D"], [])), Keep(ANA, 1), Keep(BOB, 2), Keep(CAROL, 3)],
        HouseRules(),
    )
    alone = last_result(state, ANA, 2)
    assert alone is not None and alone.tied == 0
    text = plain(renderer.result(alone, game(state, HouseRules()), lang).text)  # type: ignore[union-attr]
    assert tr.t(lang, "result_lost", card="2♥", lives="❤️❤️") in text


@pytest.mark.parametrize("lang", LANGS)
def test_the_round_so_far_names_the_reader_you_and_fits_a_phone_line_at_ten(lang: str) -> None:
    from cuckoo_bot.domain.state import Act, ActKind
    from cuckoo_bot.transport.render.common import seen_length
    from cuckoo_bot.transport.render.names import Cast

    seats = list(range(1, 11))  # 10 players with long names; the reader (10) plays last
    people = {
        p: Player(id=p, first_name="Maximiliana" + "x" * p, last_name="W" * 60) for p in seats
    }
    cast = Cast(people, seats, "Player {n}")
    you = tr.t(lang, "brief_you")
    # a chain of swaps that ends with the reader: 1 -> 2 -> ... -> 9 -> 10
    chain = tuple(Act(p, ActKind.SWAP, target=p + 1) for p in range(1, 10))
    line = plain(renderer.so_far(lang, chain, cast, reader=10))
    assert seen_length(line) <= 90, line
    assert line.endswith(f"⇄ {you}")  # where the chain ends: the reader, "you"
    # keeps in a row share one item; the player before asked the reader, whose King blocked
    mixed = (
        *(Act(p, ActKind.KEEP) for p in range(1, 6)),
        Act(6, ActKind.SWAP, target=7),
        Act(7, ActKind.SWAP, target=8),
        Act(8, ActKind.TIMEOUT),
        Act(9, ActKind.BLOCKED, target=10, shown=Card.from_code("KS")),
    )
    line = plain(renderer.so_far(lang, mixed, cast, reader=10))
    assert seen_length(line) <= 90, line
    assert line.count("✋") <= 1
    assert line.endswith(plain(tr.t(lang, "brief_blocked_by_you", name=cast.short(9))))


@pytest.mark.parametrize("lang", LANGS)
def test_standings_fit_a_phone_line_say_points_and_show_one_table_while_the_same(
    lang: str,
) -> None:
    from cuckoo_bot.app.model import Standing
    from cuckoo_bot.app.queries import League, LeagueRow
    from cuckoo_bot.transport.render.common import seen_length

    def league(season: str, games: int) -> League:
        rows = [
            LeagueRow(
                rank=i + 1,
                player=Player(id=i + 1, first_name="Maximiliana" * 3, last_name="W" * 60),
                standing=Standing(
                    player_id=i + 1, scope=-1, season=season, games=games, wins=9, rating_mu=99
                ),
            )
            for i in range(20)
        ]
        return League(scope=-1, season=season, rows=rows)

    first = plain(renderer.leagues(lang, league("2026-12", 999), league("all", 999), "Club"))
    table = first[first.index("#") :]
    assert all(seen_length(line) <= 32 for line in table.splitlines()), table
    assert first.count(tr.t(lang, "league_header")) == 1  # one table: month and all time agree
    assert tr.t(lang, "league_same", label=tr.t(lang, "league_season", season="2026-12")) in first
    later = plain(renderer.leagues(lang, league("2026-12", 3), league("all", 999), "Club"))
    assert later.count(tr.t(lang, "league_header")) == 2
    stats = plain(
        renderer.stats(lang, {"season": league("2026-12", 3).rows[0].standing, "all": None})
    )
    points = league("x", 1).rows[0].standing.points
    assert tr.count(lang, "count_points", points, sign="") in stats  # the podium's word


@pytest.mark.parametrize("lang", LANGS)
def test_an_answered_prompt_is_marked_for_what_happened(lang: str) -> None:
    from cuckoo_bot.app.notices import PlayedNote

    state, _ = played([Deal(dealt(["9H", "8H", "6S"], []))], HouseRules())
    g = game(state, HouseRules())
    card = Card.from_code("7D")

    def answered(answer: str, **kw: object) -> str:
        note = PlayedNote(1, 1, answer, card=card, **kw)  # type: ignore[arg-type]
        return plain(renderer.played(note, g, PEOPLE, lang).text).splitlines()[1]

    assert answered("done_keep").startswith("✅")
    blocked = answered("done_blocked", other=BOB, king=Card.from_code("KS"))
    assert blocked.startswith("👑") and "✅" not in blocked  # a King's block is no success
    skipped = answered("skipped_by", other=ANA)
    assert skipped.startswith("⏭") and "Ana" in skipped and "7♦" in skipped


@pytest.mark.parametrize("lang", LANGS)
def test_a_lobby_says_when_it_starts_by_itself_as_a_time_not_a_countdown(lang: str) -> None:
    from datetime import timedelta

    deadline = NOW + timedelta(minutes=10)
    lobby_game = Game(-100, ANA, HouseRules(), 90, NOW, id=5, seats=[ANA], deadline=deadline)
    lobby = Notice(NoticeKind.LOBBY, -100, LobbyView(GameStatus.LOBBY, (ANA,)), 5, id=1)
    html_text = renderer.lobby(lobby, lobby_game, PEOPLE, lang).text
    assert f'<tg-time unix="{int(deadline.timestamp())}"' in html_text  # each reader's own time
    assert tr.t(lang, "lobby_in", minutes=10) not in html_text


QUEENS = HouseRules(queens_block=True)
ANA_SAYS, BOB_SAYS = "\u2068Ana\u2069", "\u2068Bob\u2069"


@pytest.mark.parametrize("lang", LANGS)
def test_a_queen_that_sends_an_ask_on_is_told_on_the_table_in_the_story_and_to_the_asker(
    lang: str,
) -> None:
    # Ana asks Bob, whose Q♥ sends her on to Carol: she swaps her 2♠ for Carol's 9♣.
    state, log = played([Deal(dealt(["2S", "QH", "9C"], [])), Swap(ANA, 1)], QUEENS)
    queen, nine = card_label("QH", lang), card_label("9C", lang)
    rows = table_rows(state, QUEENS, lang).splitlines()[1:]
    row = next(line for line in rows if "Ana" in line)
    assert row.endswith(
        plain(
            tr.t(
                lang,
                "row_swap_via",
                name="",
                lives="",
                via=BOB_SAYS,
                queen=queen,
                target=CAROL_SAYS,
                sign="👸",
            )
        ).lstrip(" ·")
    )
    told = story(state, log, QUEENS, lang)
    assert tr.t(lang, "act_passed", name=ANA_SAYS, target=BOB_SAYS, king=queen, sign="👸") in told
    assert tr.t(lang, "act_swap", name=ANA_SAYS, target=CAROL_SAYS) in told
    rnd = state.round
    assert rnd is not None
    cast = Cast(PEOPLE, [ANA, BOB, CAROL], "Player {n}")
    line = plain(renderer.so_far(lang, rnd.acts, cast, reader=BOB))
    assert plain(tr.t(lang, "brief_passed_by_you", name=ANA_SAYS, king=queen, sign="👸")) in line
    done = Reply(
        ReplyCode.DONE_SWAP_VIA, {"card": "9C", "player": CAROL, "via": BOB, "queen": "QH"}
    )
    said = plain(renderer.reply(lang, done, PEOPLE))
    assert said == plain(
        tr.t(lang, "reply_done_swap_via", via=BOB_SAYS, queen=queen, player=CAROL_SAYS, card=nine)
    )
    # A King after the Queen ends it: the row says both, and Ana keeps her card.
    state, _ = played([Deal(dealt(["2S", "QH", "KC"], [])), Swap(ANA, 1)], QUEENS)
    row = next(line for line in table_rows(state, QUEENS, lang).splitlines()[1:] if "Ana" in line)
    assert queen in row and card_label("KC", lang) in row
    assert state.round is not None and state.round.card_of(ANA) == Card.from_code("2S")


@pytest.mark.parametrize("lang", LANGS)
def test_a_queen_held_by_the_dealer_blocks_without_the_kings_call(lang: str) -> None:
    state, log = played([Deal(dealt(["9H", "2S", "QD"], [])), Keep(ANA, 1), Swap(BOB, 2)], QUEENS)
    queen = card_label("QD", lang)
    row = next(line for line in table_rows(state, QUEENS, lang).splitlines()[1:] if "Bob" in line)
    call = tr.t(lang, "call_cuckoo")
    assert queen in row and call not in row
    told = story(state, log, QUEENS, lang)
    blocked = tr.t(
        lang, "act_queen_blocked", name=BOB_SAYS, target=CAROL_SAYS, king=queen, sign="👸"
    )
    assert blocked in told


@pytest.mark.parametrize("lang", LANGS)
def test_the_rules_tell_coucous_queens_while_they_are_on(lang: str) -> None:
    on = plain(renderer.rules(lang, QUEENS, 90))
    assert plain(tr.t(lang, "rules_queens_pass")) in on
    assert tr.t(lang, "rules_queens_block") in renderer.rules_line(lang, QUEENS, 90)
    off = plain(renderer.rules(lang, HouseRules(), 90))
    assert plain(tr.t(lang, "rules_queens_none")) in off
    assert tr.t(lang, "rules_queens_pass") not in off


STAKES = HouseRules(stakes=True)


@pytest.mark.parametrize("lang", LANGS)
def test_a_game_for_stakes_shows_its_pot_who_took_it_and_everyones_chips(lang: str) -> None:
    from cuckoo_bot.app.model import Chat, StakesResult, Standing
    from cuckoo_bot.app.notices import Bulletin, GameOverView
    from cuckoo_bot.app.queries import League, LeagueRow

    # Round 1 dealt: three seats in, 2 chips carried from the group's last pot.
    state, _ = played([Deal(dealt(["2S", "9H", "6S"], []))], STAKES)
    at_table = game(state, STAKES)
    at_table.chat = Chat(-100, pot=2)
    bulletin = Bulletin(-100, 5, None, state, carried=2)
    bulletin.table(state)
    (notice,) = bulletin.collected()
    view = notice.payload
    assert isinstance(view, TableView) and view.pot == 5
    shown = plain(renderer.table(notice, [], at_table, PEOPLE, lang).text)
    assert plain(tr.t(lang, "table_pot", chips=tr.count(lang, "count_chips", 5))) in shown
    assert tr.t(lang, "rules_stakes") in shown  # the first table's rules line
    told_rules = plain(renderer.rules(lang, STAKES, 90))
    assert plain(tr.t(lang, "rules_stakes_told")).strip() in told_rules
    assert plain(tr.t(lang, "rules_stakes_told")).strip() not in plain(
        renderer.rules(lang, HouseRules(), 90)
    )
    cast = Cast(PEOPLE, [ANA, BOB, CAROL], "Player {n}")
    # A shared win: 13 chips, 6 each, 1 left for the next game.
    over = GameOverView(
        winners=(ANA, BOB),
        shared=True,
        stakes=StakesResult(pot=13, takes=((ANA, 6), (BOB, 6)), left=1),
    )
    told = plain(renderer.game_over(over, None, cast, lang).text)
    names = "\u2068Ana\u2069, \u2068Bob\u2069"
    each = tr.count(lang, "count_chips", 6)
    pot = tr.count(lang, "count_chips", 13)
    assert plain(tr.t(lang, "pot_shared", names=names, chips=pot, each=each)) in told
    assert plain(tr.count(lang, "pot_left", 1)) in told
    alone = GameOverView(winners=(ANA,), stakes=StakesResult(pot=9, takes=((ANA, 9),), left=0))
    told = plain(renderer.game_over(alone, None, cast, lang).text)
    chips = tr.count(lang, "count_chips", 9)
    assert plain(tr.t(lang, "pot_taken", name="\u2068Ana\u2069", chips=chips)) in told
    # Each player's own end of the game says what it won or cost them.
    from cuckoo_bot.app.notices import CloseNote, CloseReason

    for moved, sign in ((7, "+"), (-4, "−")):
        note = CloseNote(CloseReason.GAME_OVER, winners=(ANA,), place=1, seats=3, chips=moved)
        mine = plain(renderer.final(note, at_table, PEOPLE, lang, ANA).text)
        chips = sign + tr.count(lang, "count_chips", abs(moved))
        assert tr.t(lang, "final_chips", chips=chips) in mine
    # /leaderboard: everyone's chips, won less paid, under the table.
    rows = [
        LeagueRow(1, PEOPLE[ANA], Standing(ANA, -100, "2026-12", games=2, chips=7)),
        LeagueRow(2, PEOPLE[BOB], Standing(BOB, -100, "2026-12", games=2, chips=-7)),
    ]
    table = plain(renderer.league(lang, League(-100, "2026-12", rows), "Club", "2026-12"))
    assert (
        plain(tr.t(lang, "league_chips", chips="\u2068Ana\u2069 +7 · \u2068Bob\u2069 −7")) in table
    )
