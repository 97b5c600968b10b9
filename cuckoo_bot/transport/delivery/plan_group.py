"""What a group chat needs for a batch of notices, decided from the chat's known messages
(pure: no call, no clock). The group's budget is spent on what players must see: only the
newest view of a lobby or of a round's table is shown, a turn asked in the group is deleted
once it is over, and rounds that ended before their table was posted are folded, a few at a
time, under the table of an earlier finished round. The lane (``group.py``) spends the budget
and calls."""

from __future__ import annotations

from typing import Any

from cuckoo_bot.app.model import Game, GameStatus
from cuckoo_bot.app.notices import (
    SUPERSEDED,
    TURN_OVER,
    AnswerNote,
    GameOverView,
    Notice,
    NoticeKind,
    SentMessage,
    TableView,
    TurnView,
)
from cuckoo_bot.transport.delivery.known import ChatView, Known
from cuckoo_bot.transport.delivery.steps import (
    Delete,
    Edit,
    Send,
    Skip,
    Step,
    TakeKeys,
    Unchanged,
)

MAX_FOLDED = 3  # finished rounds shown under one table message (Telegram's 4,096 characters)


def plan(notices: list[Notice], chat: ChatView) -> list[Step]:
    """What is skipped (recorded first, whatever the budget allows), the turns asked that are
    over (deleted), then each notice shown (edited in place, or sent)."""
    skips: list[Step] = []
    kept = _coalesce(notices, chat.known, skips)
    folded = _fold(kept, chat.known)
    shows = [step for n in kept if n.id in folded for step in _show(n, folded[n.id], chat)]
    return [*skips, *_retract(notices, chat), *shows]


def _key(notice: Notice) -> tuple[Any, ...] | None:
    if notice.kind in (NoticeKind.LOBBY, NoticeKind.TURN):
        return (notice.kind, notice.game_id)
    if notice.kind is NoticeKind.TABLE:
        return (notice.kind, notice.game_id, notice.round)
    if isinstance(notice.payload, AnswerNote):  # the same answer, kept twice: shown once
        return (notice.kind, notice.thread_id, notice.payload.text)
    return None


def current(notice: Notice, game: Game | None) -> bool:
    """A turn asked in the group is still the game's turn."""
    view = notice.payload
    return (
        isinstance(view, TurnView)
        and game is not None
        and game.status is GameStatus.RUNNING
        and game.state is not None
        and game.state.turn == view.turn
    )


def _coalesce(notices: list[Notice], known: Known, skips: list[Step]) -> list[Notice]:
    """The newest view of each lobby and round table; asks of a turn that is over dropped."""
    newest = {key: n for n in notices if (key := _key(n)) is not None}
    kept: list[Notice] = []
    for notice in notices:
        key = _key(notice)
        if key is not None and newest[key] is not notice:
            skips.append(Skip(notice, SUPERSEDED))
        elif notice.kind is NoticeKind.TURN and not current(notice, known.game(notice)):
            skips.append(Skip(notice, TURN_OVER))
        elif notice.kind is NoticeKind.TABLE and _outdated(notice, known):
            skips.append(Skip(notice, SUPERSEDED))
        else:
            kept.append(notice)
    return kept


def _outdated(notice: Notice, known: Known) -> bool:
    """A table view older than one already shown (read back after a restart): a newer view of
    the same round, or the middle of a round whose next round is shown. The final view of a
    round is never dropped for a later round's (its reveal must be seen), only for the game's
    end, whose summary tells how each player went out, when it has no message of its own. A
    view that asks a turn the game has left behind (it moved on, or ended) is outdated too,
    however the chat's messages read: a newer notice shows the table as it is (one held by an
    instance that died is shown after the newer ones, and must not ask again)."""
    view = notice.payload
    assert isinstance(view, TableView)
    game = known.game(notice)
    if not view.final and game is not None and view.turn is not None:
        if game.status is not GameStatus.RUNNING:
            return True
        if game.state is not None and game.state.turn > view.turn:
            return True
    if known.live_of(notice, NoticeKind.GAME_OVER) and table_message(notice, known) is None:
        return True  # posted under the game's end, a round would read out of order (it says it)
    table = known.newest_kind(notice, NoticeKind.TABLE)
    if table is None or table.notice.id < notice.id:
        return False
    return table.notice.round == notice.round or not view.final


def table_message(notice: Notice, known: Known) -> SentMessage | None:
    """The message that shows this round's table, if any: the newest table, or else the
    round's own message still offering My card. A round's last view read back after the next
    round's table was posted (an instance that died held it) ends the round in place, above
    the next one: as a new message it would stand below it, the rounds read out of order."""
    table = known.newest_kind(notice, NoticeKind.TABLE)
    if table is not None and table.notice.round == notice.round:
        return table
    own = [s for s in known.live_of(notice, NoticeKind.TABLE) if s.notice.round == notice.round]
    return own[-1] if own else None


def _fold(notices: list[Notice], known: Known) -> dict[int, tuple[Notice, ...]]:
    """Each notice shown, with the finished rounds folded under it: a finished round that
    never had its table posted is shown under the table of an earlier finished round (a
    message never edited again), a few rounds per message."""
    folded: dict[int, tuple[Notice, ...]] = {}  # notice id: the rounds folded under it
    carriers: dict[int | None, int] = {}
    for notice in notices:
        view = notice.payload
        if not isinstance(view, TableView):
            folded[notice.id] = ()
            continue
        carrier = carriers.get(notice.game_id)
        if (
            view.final
            and carrier is not None
            and len(folded[carrier]) < MAX_FOLDED
            and table_message(notice, known) is None
        ):
            folded[carrier] = (*folded[carrier], notice)
            continue
        folded[notice.id] = ()
        if view.final:
            carriers[notice.game_id] = notice.id
        else:
            carriers.pop(notice.game_id, None)
    return folded


def _retract(notices: list[Notice], chat: ChatView) -> list[Step]:
    """A turn asked in the group is deleted once it is over."""
    steps: list[Step] = []
    for game_id in sorted({n.game_id for n in notices if n.game_id is not None}):
        game = chat.known.games.get(game_id)
        for old in chat.known.live.get((chat.id, game_id), []):
            if old.notice.kind is NoticeKind.TURN and not current(old.notice, game):
                steps.append(Delete(old))
    return steps


def _show(notice: Notice, inner: tuple[Notice, ...], chat: ChatView) -> list[Step]:
    """One notice: a table edits its round's message (a view already shown is recorded, a
    mid-round view may wait while the budget asks it to), a lobby edits the lobby, a key too
    old to press comes off; anything else is a new message."""
    view, known = notice.payload, chat.known
    if isinstance(view, GameOverView) and view.expired:
        ended = known.live_of(notice, NoticeKind.GAME_OVER)
        if not ended:
            return [Skip(notice, "no key left to take off")]
        return [TakeKeys(notice, old) for old in ended]
    if notice.kind is NoticeKind.TABLE:
        assert isinstance(view, TableView)
        target = table_message(notice, known)
        if target is not None and target.notice.payload == view and not inner:
            return [Unchanged(notice, target, inner)]
    elif notice.kind is NoticeKind.LOBBY:
        target = known.newest_kind(notice, NoticeKind.LOBBY)
    else:
        return [Send(notice, folded=inner)]
    if target is None:
        return [Send(notice, folded=inner)]
    may_wait = isinstance(view, TableView) and not view.final
    send = Send(notice, folded=inner)
    return [Edit(notice, target, (send,), keys=True, folded=inner, may_wait=may_wait)]
