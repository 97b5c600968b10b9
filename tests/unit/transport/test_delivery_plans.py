"""The delivery planners as tables of cases: from a chat's known messages and a notice, the
steps that show it (send, edit, clear keys, delete, skip). No server, no clock: the plan is a
pure function; the lanes that carry it out are tested against the fake Bot API elsewhere."""

from __future__ import annotations

from dataclasses import replace
from datetime import UTC, datetime

import pytest

from cuckoo_bot.app.model import Game, GameStatus
from cuckoo_bot.app.notices import (
    CloseNote,
    CloseReason,
    DealNote,
    GameOverView,
    LobbyView,
    Notice,
    NoticeKind,
    NudgeNote,
    Payload,
    PlayedNote,
    PromptNote,
    RoundResult,
    SentMessage,
    TableView,
    TurnView,
)
from cuckoo_bot.app.outbox import Batch
from cuckoo_bot.domain.actions import Move
from cuckoo_bot.domain.cards import Card, Suit
from cuckoo_bot.domain.engine import new_game
from cuckoo_bot.domain.rules import HouseRules
from cuckoo_bot.domain.state import Round
from cuckoo_bot.transport.delivery import plan_group, plan_private
from cuckoo_bot.transport.delivery.known import ChatView, Known
from cuckoo_bot.transport.delivery.steps import (
    Clear,
    Delete,
    Edit,
    Orphans,
    Send,
    Show,
    Skip,
    Step,
    TakeKeys,
    Unchanged,
)

NOW = datetime(2026, 12, 4, 12, 0, tzinfo=UTC)
ME, GROUP, GAME = 7, -100, 1
CARD = Card(5, next(iter(Suit)))


def game(turn: int = 5, rnd: int = 2, status: GameStatus = GameStatus.RUNNING) -> Game:
    state = new_game([ME, 8, 9], HouseRules(), first_dealer=9)
    order = (ME, 8, 9)
    state = replace(state, turn=turn, round=Round(rnd, 9, order, (CARD,) * 3, ()))
    return Game(GROUP, ME, HouseRules(), 60, NOW, id=GAME, status=status, state=state)


_ids = iter(range(1, 10_000))


def note(kind: NoticeKind, payload: Payload, chat: int = ME, id: int | None = None) -> Notice:
    return Notice(kind, chat, payload, GAME, id=id or next(_ids), created_at=NOW)


def prompt(turn: int, rnd: int = 2, **kw: object) -> Notice:
    payload = PromptNote(rnd, turn, CARD, 3, (Move.KEEP, Move.SWAP), **kw)  # type: ignore[arg-type]
    return note(NoticeKind.PROMPT, payload)


def played(turn: int, rnd: int = 2, pressed: int | None = None) -> Notice:
    return note(NoticeKind.PLAYED, PlayedNote(rnd, turn, "done_keep", CARD, pressed=pressed))


def deal(rnd: int = 3, prev: RoundResult | None = None) -> Notice:
    return note(NoticeKind.DEAL, DealNote(rnd, CARD, 9, 1, 3, prev=prev))


def close(**kw: object) -> Notice:
    return note(NoticeKind.CLOSE, CloseNote(**kw))  # type: ignore[arg-type]


def on_screen(notice: Notice, message_id: int, keys: bool) -> SentMessage:
    return SentMessage(notice, message_id, keys, message_id)


def chat(
    *messages: SentMessage, g: Game | None = None, chat_id: int = ME, **kw: object
) -> ChatView:
    known = Known(Batch([], games={GAME: g or game()}, sent=list(messages)))
    return ChatView(chat_id, known, **kw)  # type: ignore[arg-type]


def plan(notice: Notice, view: ChatView, later: list[Notice] | None = None) -> list[Step]:
    return plan_private.plan(notice, view.known.game(notice), view, later or [])


RESULT = RoundResult(2, CARD, lost=True, lives=2)


# -- a card dealt ----------------------------------------------------------------------------


def test_a_card_dealt_edits_the_answered_prompt_at_the_bottom_of_the_chat() -> None:
    answered = on_screen(played(4), 10, False)
    new = deal(prev=RESULT)
    assert plan(new, chat(answered)) == [
        Edit(
            new,
            answered,
            otherwise=(Clear(answered, RESULT), Send(new)),
            show=Show.WITH_RESULT,
            recall=True,
        )
    ]


@pytest.mark.parametrize(
    ("case", "extra"),
    [
        ("a message of the bot came after the prompt", {"newest": 12}),
        ("a message the store never knew may stand after it", {"doubted": True}),
    ],
)
def test_a_card_dealt_below_other_messages_tells_the_result_then_comes_as_a_new_message(
    case: str, extra: dict[str, object]
) -> None:
    answered = on_screen(played(4), 10, False)
    messages = [answered]
    if "newest" in extra:
        messages.append(on_screen(note(NoticeKind.NUDGE, NudgeNote(2, 9, NOW), id=999), 12, False))
    new = deal(prev=RESULT)
    view = chat(*messages, doubted=bool(extra.get("doubted")))
    assert plan(new, view) == [Clear(answered, RESULT), Send(new)], case


def test_a_card_dealt_takes_the_keys_off_every_older_prompt_and_tells_the_newest() -> None:
    older, newer = on_screen(prompt(3, rnd=1), 8, True), on_screen(prompt(4), 9, True)
    new = deal(prev=RESULT)
    steps = plan(new, chat(older, newer))
    assert steps == [
        Edit(
            new,
            newer,
            otherwise=(Clear(older), Clear(newer, RESULT), Send(new)),
            show=Show.WITH_RESULT,
            recall=True,
        ),
        Clear(older),
    ]


def test_a_card_dealt_after_a_round_the_player_never_played_tells_its_result_itself() -> None:
    # One-card Kille: a Cuckoo ended round 2 before this player's turn. Their only message is
    # the deal of round 2 (no prompt, no answer): the new card comes with round 2's result.
    earlier = on_screen(deal(rnd=2), 7, False)
    new = deal(prev=RESULT)
    assert plan(new, chat(earlier)) == [Send(new, show=Show.WITH_RESULT)]
    # A prompt of that round tells it as before, and the new card comes on its own.
    asked = on_screen(prompt(4), 9, True)
    assert plan(
        new,
        chat(
            earlier,
            on_screen(note(NoticeKind.NUDGE, NudgeNote(2, 9, NOW), id=998), 12, False),
            asked,
        ),
    )[-1] == Send(new)


# -- a prompt ---------------------------------------------------------------------------------


def test_a_prompt_of_the_turn_in_play_follows_the_last_rounds_result_with_its_keys() -> None:
    last = on_screen(prompt(3, rnd=1), 8, True)
    ask = prompt(5, prev=replace(RESULT, round=1))
    assert plan(ask, chat(last)) == [Clear(last, replace(RESULT, round=1)), Send(ask)]


def test_a_prompt_that_recalls_the_last_round_leaves_the_answered_prompt_as_it_is() -> None:
    answered = on_screen(played(3, rnd=1), 8, False)
    ask = prompt(5, prev=replace(RESULT, round=1), last=replace(RESULT, round=1))
    assert plan(ask, chat(answered)) == [Clear(answered, None), Send(ask)]


@pytest.mark.parametrize("maybe_shown", [False, True])
def test_a_prompt_read_back_after_its_turn_is_skipped_and_older_keys_come_off(
    maybe_shown: bool,
) -> None:
    older = on_screen(prompt(3), 8, True)
    late = prompt(4)
    view = chat(older, g=game(turn=6), maybe_shown=lambda n: maybe_shown)
    expected: list[Step] = [Skip(late, "turn over"), Clear(older)]
    assert plan(late, view) == ([*expected, Orphans(late)] if maybe_shown else expected)


def test_a_prompt_the_store_knows_shown_with_its_keys_is_not_shown_again() -> None:
    # A process showed it, recorded its message as Telegram answered, and died before its
    # mark: read back, it is recorded as shown there, not sent as one more copy.
    asked = prompt(turn=5)
    copy = on_screen(asked, 12, True)
    assert plan(asked, chat(on_screen(prompt(turn=4), 10, False), copy)) == [Unchanged(asked, copy)]
    cleared = on_screen(asked, 12, False)  # its keys came off: shown again, with keys
    assert plan(asked, chat(cleared)) == [Send(asked)]


def test_the_dealers_second_cut_asks_again_in_place_when_its_prompt_is_at_the_bottom() -> None:
    first = on_screen(prompt(4), 9, True)
    again = prompt(5, again=True)
    steps = plan(again, chat(first))
    assert steps == [Edit(again, first, otherwise=(Clear(first), Send(again)), keys=True)]
    below = on_screen(note(NoticeKind.NUDGE, NudgeNote(2, 4, NOW)), 10, False)
    assert plan(again, chat(first, below)) == [Clear(first), Send(again)]


# -- a move answered, a nudge -----------------------------------------------------------------


def test_a_move_answered_edits_the_prompt_pressed_unless_the_batch_moves_on() -> None:
    pressed = on_screen(prompt(5), 9, True)
    answer = played(5)
    gone = (Skip(answer, "the prompt is gone"),)
    assert plan(answer, chat(pressed)) == [Edit(answer, pressed, otherwise=gone)]
    assert plan(answer, chat(pressed), [deal()]) == [Skip(answer, "told by what follows")]
    assert plan(answer, chat()) == [Skip(answer, "no prompt to answer on")]


def test_a_move_pressed_on_a_prompt_no_notice_accounts_for_is_answered_there() -> None:
    # A process showed the prompt (message 12) and died before recording it; a copy of it
    # (message 13) is known. The press on 12 is answered on 12, whatever the batch does next,
    # and the known copy loses its keys: nothing else knows 12 stands there with keys.
    copy = on_screen(prompt(5), 13, True)
    answer = played(5, pressed=12)
    orphan = SentMessage(answer, 12, True, 13)
    gone = (Skip(answer, "the prompt is gone"),)
    steps = [Edit(answer, orphan, otherwise=gone), Clear(copy)]
    assert plan(answer, chat(copy)) == steps
    assert plan(answer, chat(copy), [deal()]) == steps
    lone = played(5, pressed=12)
    assert plan(lone, chat()) == [
        Edit(lone, SentMessage(lone, 12, True, 12), otherwise=(Skip(lone, "the prompt is gone"),))
    ]
    # Pressed on the known prompt: answered as ever.
    known = played(5, pressed=13)
    assert plan(known, chat(copy)) == [
        Edit(known, copy, otherwise=(Skip(known, "the prompt is gone"),))
    ]
    assert plan(known, chat(copy), [deal()]) == [Skip(known, "told by what follows")]


def test_a_nudge_replies_to_the_prompt_of_its_turn_only_while_the_turn_is_on() -> None:
    asked = on_screen(prompt(5), 9, True)
    nudge = note(NoticeKind.NUDGE, NudgeNote(2, 5, NOW))
    assert plan(nudge, chat(asked)) == [Send(nudge, reply_to=9)]
    assert plan(nudge, chat(asked, g=game(turn=6))) == [Skip(nudge, "the turn is over")]
    assert plan(nudge, chat(asked), [deal()]) == [Skip(nudge, "the turn is over")]


# -- the end ----------------------------------------------------------------------------------


def test_the_end_edits_the_last_prompt_or_comes_as_a_new_message() -> None:
    older, last = on_screen(prompt(3, rnd=1), 8, True), on_screen(prompt(5), 9, True)
    end = close(reason=CloseReason.CANCELLED)
    assert plan(end, chat(older, last)) == [
        Edit(end, last, otherwise=(Send(end), Clear(older)), recall=True),
        Clear(older),
    ]
    assert plan(end, chat()) == [Send(end)]  # not asked this round
    assert plan(end, chat(last, doubted=True)) == [Send(end), Clear(last)]


def test_a_won_game_tells_the_last_round_then_a_new_message_ends_it() -> None:
    last = on_screen(played(5), 9, False)
    end = close(reason=CloseReason.GAME_OVER, prev=RESULT, place=1, seats=3)
    assert plan(end, chat(last)) == [Clear(last, RESULT), Send(end)]
    assert plan(end, chat(last, doubted=True)) == [Clear(last, None), Send(end)]


def test_play_again_too_old_takes_the_keys_off_each_end_still_showing_them() -> None:
    ended = on_screen(close(reason=CloseReason.GAME_OVER, place=1), 20, True)
    expired = close(reason=CloseReason.EXPIRED)
    assert plan(expired, chat(ended)) == [TakeKeys(expired, ended)]
    assert plan(expired, chat()) == [Skip(expired, "no key left to take off")]


def test_a_notice_of_no_game_or_of_a_group_is_skipped() -> None:
    lost = Notice(NoticeKind.DEAL, ME, deal().payload, game_id=None, id=77)
    assert plan(lost, chat()) == [Skip(lost, "no game")]
    lobby = note(NoticeKind.LOBBY, LobbyView(GameStatus.LOBBY))
    assert plan(lobby, chat()) == [Skip(lobby, "not a private notice")]


# -- a group ----------------------------------------------------------------------------------


def table(rnd: int, turn: int | None = 5, final: bool = False, acts: int = 0) -> Notice:
    view = TableView(rnd, 9, (ME, 8, 9), (3, 3, 3), turn=None if final else turn)
    view = replace(view, actor=None if final else ME)  # a round with no one to act is over
    view = replace(view, cuts_made=acts)
    return note(NoticeKind.TABLE, view, chat=GROUP)


def final(rnd: int) -> Notice:
    return table(rnd, final=True)


def group(*messages: SentMessage, g: Game | None = None) -> ChatView:
    return chat(*messages, g=g, chat_id=GROUP)


def test_only_the_newest_view_of_a_rounds_table_is_shown_on_its_message() -> None:
    on_table = on_screen(table(2, turn=4), 30, False)
    old, new = table(2, acts=0), table(2, acts=1)
    assert plan_group.plan([old, new], group(on_table)) == [
        Skip(old, "superseded"),
        Edit(new, on_table, (Send(new),), keys=True, may_wait=True),
    ]
    assert plan_group.plan([old, new], group()) == [Skip(old, "superseded"), Send(new)]


def test_a_view_already_shown_is_recorded_and_a_final_view_never_waits() -> None:
    view = table(2)
    same = on_screen(replace(view, id=1), 30, False)
    assert plan_group.plan([view], group(same)) == [Unchanged(view, same)]
    end = final(2)
    assert plan_group.plan([end], group(same)) == [Edit(end, same, (Send(end),), keys=True)]


def test_a_turn_asked_in_the_group_is_skipped_once_over_and_its_old_ask_deleted() -> None:
    g = game(turn=6)
    ask_view = TurnView(2, 5, ME, (Move.KEEP,))
    asked = on_screen(note(NoticeKind.TURN, ask_view, chat=GROUP), 40, True)
    late = note(NoticeKind.TURN, ask_view, chat=GROUP)
    now = note(NoticeKind.TURN, replace(ask_view, turn=6), chat=GROUP)
    assert plan_group.plan([late, now], group(asked, g=g)) == [
        Skip(late, "superseded"),
        Delete(asked),
        Send(now),
    ]
    assert plan_group.plan([late], group(asked, g=g)) == [Skip(late, "turn over"), Delete(asked)]


def test_rounds_that_ended_before_their_table_was_posted_fold_under_an_earlier_one() -> None:
    ends = [final(r) for r in (2, 3, 4, 5, 6)]
    steps = plan_group.plan(ends, group(g=game(turn=20, rnd=7)))
    assert steps == [
        Send(ends[0], folded=(ends[1], ends[2], ends[3])),
        Send(ends[4]),
    ]


def test_a_rounds_last_view_read_back_after_the_next_round_was_posted_ends_it_in_place() -> None:
    # Round 3's reveal, held by an instance that died, is read back after round 4's table was
    # posted: it edits round 3's message (still offering My card), above round 4's, not a new
    # message below it; with no message of round 3 left to edit, it comes as a new one.
    mid, end, nxt = table(3), final(3), table(4, turn=9)
    g = game(turn=9, rnd=4)
    shown = (on_screen(mid, 30, True), on_screen(nxt, 32, True))
    assert plan_group.plan([end], group(*shown, g=g)) == [
        Edit(end, shown[0], (Send(end),), keys=True)
    ]
    assert plan_group.plan([end], group(shown[1], g=g)) == [Send(end)]


def test_a_rounds_last_view_read_back_after_the_games_end_was_posted_is_not_posted_under_it() -> (
    None
):
    # The last round's reveal, held by an instance that died, read back after the summary
    # (which tells how each player went out) was posted: not a round table under the summary;
    # with the round's own message still there, it ends the round on it, above the summary.
    end = final(3)
    g = game(turn=9, rnd=3, status=GameStatus.FINISHED)
    summary = on_screen(note(NoticeKind.GAME_OVER, GameOverView(), chat=GROUP), 40, True)
    assert plan_group.plan([end], group(summary, g=g)) == [Skip(end, "superseded")]
    mid = on_screen(replace(table(3), id=end.id - 1), 30, True)
    assert plan_group.plan([end], group(mid, summary, g=g)) == [
        Edit(end, mid, (Send(end),), keys=True)
    ]


def test_a_table_asking_a_turn_the_game_left_behind_is_never_shown() -> None:
    stale = table(2, turn=5)
    assert plan_group.plan([stale], group(g=game(turn=6))) == [Skip(stale, "superseded")]
    ended = game(status=GameStatus.FINISHED)
    assert plan_group.plan([stale], group(g=ended)) == [Skip(stale, "superseded")]


def test_a_lobby_edits_its_message_and_an_old_play_again_loses_its_keys() -> None:
    lobby = note(NoticeKind.LOBBY, LobbyView(GameStatus.LOBBY, (ME,)), chat=GROUP)
    posted = on_screen(replace(lobby, id=1, payload=LobbyView(GameStatus.LOBBY)), 5, True)
    assert plan_group.plan([lobby], group(posted)) == [
        Edit(lobby, posted, (Send(lobby),), keys=True)
    ]
    summary = on_screen(note(NoticeKind.GAME_OVER, GameOverView(), chat=GROUP), 50, True)
    expired = note(NoticeKind.GAME_OVER, GameOverView(expired=True), chat=GROUP)
    assert plan_group.plan([expired], group(summary)) == [TakeKeys(expired, summary)]
    assert plan_group.plan([expired], group()) == [Skip(expired, "no key left to take off")]
