"""What a player's private chat needs for one notice, decided from the chat's known messages
(pure: no call, no clock). ``plan`` picks the planner by the notice's kind; the lane
(``private.py``) carries the steps out, one notice at a time, and updates what it knows.

The chat reads in order: how a round ended is told (on the prompt of that round) before the
next card or turn; a card dealt edits the player's last prompt while that is still the newest
message there; a prompt's keys are gone at the latest when its round ends.
"""

from __future__ import annotations

from collections.abc import Callable

from cuckoo_bot.app.model import Game
from cuckoo_bot.app.notices import (
    TURN_OVER,
    CloseNote,
    CloseReason,
    DealNote,
    Notice,
    NoticeKind,
    NudgeNote,
    PlayedNote,
    PromptNote,
    RoundResult,
    SentMessage,
)
from cuckoo_bot.transport.delivery.known import ChatView
from cuckoo_bot.transport.delivery.steps import (
    Clear,
    Edit,
    Orphans,
    Send,
    Show,
    Skip,
    Step,
    TakeKeys,
    Unchanged,
)

Planner = Callable[[Notice, Game, ChatView, list[Notice]], list[Step]]


def plan(notice: Notice, game: Game | None, chat: ChatView, later: list[Notice]) -> list[Step]:
    """The steps that show ``notice`` (``later``: the notices of the batch after it)."""
    if notice.kind is NoticeKind.ANSWER:
        return [Send(notice)]  # a command's answer, kept to be tried again
    if game is None:
        return [Skip(notice, "no game")]
    planner = PLANNERS.get(notice.kind)
    if planner is None:
        return [Skip(notice, "not a private notice")]
    return planner(notice, game, chat, later)


def current(note: PromptNote, game: Game) -> bool:
    """The prompt's turn is the game's turn now."""
    return game.state is not None and game.state.turn == note.turn and game.status.open


def _prompts(chat: ChatView, notice: Notice) -> list[SentMessage]:
    """The player's prompts still showing keys, oldest first."""
    return chat.known.live_of(notice, NoticeKind.PROMPT)


def _asked(chat: ChatView, notice: Notice, turn: int) -> list[SentMessage]:
    """The prompts of ``turn`` still showing keys."""
    return [
        p
        for p in _prompts(chat, notice)
        if isinstance(p.notice.payload, PromptNote) and p.notice.payload.turn == turn
    ]


def _played_in(chat: ChatView, notice: Notice, round_no: int | None) -> SentMessage | None:
    """The player's answered prompt of round ``round_no``: what the next deal or end edits."""
    played = chat.known.newest_kind(notice, NoticeKind.PLAYED)
    if played is None or round_no is None or played.notice.round != round_no:
        return None
    return played


def _tell_result(prompts: list[SentMessage], prev: RoundResult | None) -> list[Step]:
    """Earlier prompts lose their keys, before the next message so the chat reads in order.
    The newest prompt of the round that just ended says how it ended; an older one (another
    instance's, learnt of late) only loses its keys: no message tells another round."""
    told = next(
        (p for p in reversed(prompts) if prev is not None and p.notice.round == prev.round),
        None,
    )
    return [Clear(old, prev if old is told else None) for old in prompts]


def _tells(later: Notice, game: Game) -> bool:
    """A later notice of the batch that will be shown and take the pressed prompt's keys off:
    a deal, the end, or a prompt whose turn is on (one read back after its turn is skipped);
    not a prompt telling how the round just pressed ended (the first to play again, two
    players left): the pressed prompt shows its own answer, the result is told once."""
    if later.kind in (NoticeKind.DEAL, NoticeKind.CLOSE):
        return True
    note = later.payload
    recalls = isinstance(note, PromptNote) and note.prev is not None and note.last is not None
    return isinstance(note, PromptNote) and current(note, game) and not recalls


def _orphan(chat: ChatView, notice: Notice, note: PlayedNote) -> SentMessage | None:
    """The message pressed, if no notice accounts for it (shown by a process that died
    before recording it): only this answer knows it stands there with keys."""
    if note.pressed is None or note.pressed in chat.known.telling.get(chat.id, set()):
        return None
    return SentMessage(notice, note.pressed, True, max(chat.newest, note.pressed))


def played(notice: Notice, game: Game, chat: ChatView, later: list[Notice]) -> list[Step]:
    """The prompt the player pressed says what happened, its keys gone. When this batch also
    deals, asks again or ends the game for them, that edit says it instead; but a prompt no
    notice accounts for says it whatever follows, and the turn's known copies lose keys."""
    note = notice.payload
    assert isinstance(note, PlayedNote)
    orphan = _orphan(chat, notice, note)
    if orphan is not None:
        gone = (Skip(notice, "the prompt is gone"),)
        return [Edit(notice, orphan, otherwise=gone), *map(Clear, _asked(chat, notice, note.turn))]
    if any(_tells(n, game) for n in later):
        return [Skip(notice, "told by what follows")]
    pressed = _asked(chat, notice, note.turn)
    if not pressed:
        return [Skip(notice, "no prompt to answer on")]
    return [Edit(notice, pressed[-1], otherwise=(Skip(notice, "the prompt is gone"),))]


def nudge(notice: Notice, game: Game, chat: ChatView, later: list[Notice]) -> list[Step]:
    """The turn runs out soon: a reply to its prompt, which notifies (not once the turn is
    over, or when this batch moves the chat on anyway)."""
    note = notice.payload
    assert isinstance(note, NudgeNote)
    state = game.state
    over = state is None or state.turn != note.turn or not game.status.open
    asked = _asked(chat, notice, note.turn)
    if over or not asked or later:
        return [Skip(notice, "the turn is over")]
    return [Send(notice, reply_to=asked[-1].message_id)]


def deal(notice: Notice, game: Game, chat: ChatView, later: list[Notice]) -> list[Step]:
    """A new card: it edits the player's last prompt while that is the newest message there
    (a doubted chat may hold a message the store never knew at the bottom: no edit), else the
    last round's prompts tell its result and a new message shows the card; with no prompt of
    that round to tell it (a Kille Cuckoo ended it before the player's turn), the new message
    tells it above the card."""
    note = notice.payload
    assert isinstance(note, DealNote)
    # Only prompts of earlier rounds: a prompt of this round or later is not this deal's.
    prompts = [p for p in _prompts(chat, notice) if (p.notice.round or 0) < note.round]
    answered = _played_in(chat, notice, note.round - 1)
    told = list(prompts)
    if answered is not None and not any(p.notice.round == note.round - 1 for p in prompts):
        told.append(answered)  # the round's result goes on the answered prompt
    untold = note.prev is not None and not any(p.notice.round == note.prev.round for p in told)
    fallback = (
        *_tell_result(told, note.prev),
        Send(notice, show=Show.WITH_RESULT if untold else Show.OWN),
    )
    last = max(
        [*prompts, *([answered] if answered else [])], key=lambda p: p.message_id, default=None
    )
    if last is None or last.message_id != chat.newest or chat.doubted:
        return list(fallback)
    # The last prompt is what the player sees: it becomes the new deal, keys gone.
    edit = Edit(notice, last, otherwise=fallback, show=Show.WITH_RESULT, recall=True)
    return [edit, *(Clear(old) for old in prompts if old is not last)]


def prompt(notice: Notice, game: Game, chat: ChatView, later: list[Notice]) -> list[Step]:
    """The player's turn: earlier prompts tell how their round ended, then a new prompt with
    keys; the dealer's second cut asks again in place."""
    note = notice.payload
    assert isinstance(note, PromptNote)
    earlier = [
        p
        for p in _prompts(chat, notice)
        if isinstance(p.notice.payload, PromptNote) and p.notice.payload.turn < note.turn
    ]
    if not current(note, game):
        # Read back after the turn moved on. Earlier prompts still showing keys lose them (the
        # answer that would have, folded into this prompt, is not shown either); where another
        # process may have shown this one, its copy loses its keys.
        steps: list[Step] = [Skip(notice, TURN_OVER), *(Clear(old) for old in earlier)]
        return [*steps, Orphans(notice)] if chat.maybe_shown(notice) else steps
    shown = chat.known.showing(notice)
    if shown is not None:  # shown by a process killed before its mark: not another copy
        return [Unchanged(notice, shown)]
    prev = note.prev
    answered = _played_in(chat, notice, prev.round if prev else None)
    told = list(earlier)
    if answered is not None and not any(p.notice.round == answered.notice.round for p in told):
        told.append(answered)  # the last round's result goes on its answered prompt
    last = next((p for p in reversed(told) if prev and p.notice.round == prev.round), None)
    if note.last is not None and last is not None and last.notice.kind is NoticeKind.PLAYED:
        # The prompt's first line tells how that round ended: its answered prompt stays as it
        # is (an edit less); a prompt never answered still gets the result.
        prev = None
    steps = [*_tell_result(told, prev), Send(notice)]
    # The dealer's second cut: they are looking at this prompt, so it asks again in place.
    if note.again and earlier and earlier[-1].message_id == chat.newest:
        return [Edit(notice, earlier[-1], otherwise=tuple(steps), keys=True)]
    return steps


def close(notice: Notice, game: Game, chat: ChatView, later: list[Notice]) -> list[Step]:
    """The end of the game for the player: on their last prompt, or a new message if not
    asked this round; a won game's end is a new message, which notifies, with Play again."""
    note = notice.payload
    assert isinstance(note, CloseNote)
    if note.reason is CloseReason.EXPIRED:
        return _expire(notice, chat)
    prompts = _prompts(chat, notice)
    # The round that ended for the player (the game may have dealt the next one since).
    rnd = game.state.round if game.state is not None else None
    ended = note.prev.round if note.prev is not None else rnd.number if rnd else None
    answered = _played_in(chat, notice, ended)
    if answered is not None and (not prompts or prompts[-1].message_id < answered.message_id):
        prompts = [*prompts, answered]  # the answered prompt of the last round ends the game
    if note.place is not None:
        # (In a doubted chat a message the store never knew may be at the bottom: no result.)
        return [*_tell_result(prompts, None if chat.doubted else note.prev), Send(notice)]
    if not prompts:
        return [Send(notice)]
    if chat.doubted:  # the new message clears the keys of what the store never knew
        return [Send(notice), *(Clear(old) for old in prompts)]
    rest = [Clear(old) for old in prompts[:-1]]
    return [Edit(notice, prompts[-1], otherwise=(Send(notice), *rest), recall=True), *rest]


def _expire(notice: Notice, chat: ChatView) -> list[Step]:
    """The Play again key under this player's end of the game is too old: it comes off."""
    ended = chat.known.live_of(notice, NoticeKind.CLOSE)
    if not ended:
        return [Skip(notice, "no key left to take off")]
    return [TakeKeys(notice, old) for old in ended]


PLANNERS: dict[NoticeKind, Planner] = {
    NoticeKind.DEAL: deal,
    NoticeKind.PROMPT: prompt,
    NoticeKind.CLOSE: close,
    NoticeKind.PLAYED: played,
    NoticeKind.NUDGE: nudge,
}
