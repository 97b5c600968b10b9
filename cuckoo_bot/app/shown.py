"""What the chats show, as the store has it: the ``messages`` table's bookkeeping for delivery.

Each function is one short transaction (most one statement): the messages a game's later
notices may edit (``reread``), a send another process may have made too, recorded the moment
Telegram answers (``record``), a chat in doubt after a lost answer (``doubt``, ``doubts``,
``settle_doubt``), messages no notice accounts for (``unaccounted``, ``cleared``), second
copies of a notice (``copies``, ``forget``), and a game's end read back after a later game
showed in its chat (``drop_outlived``, in a claim's transaction). The rules of the table:
``notices/message.py``.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from itertools import zip_longest

from cuckoo_bot.app.deps import Deps
from cuckoo_bot.app.notices import OUTLIVED, CloseNote, CloseReason, GameOverView, Notice
from cuckoo_bot.app.notices.message import Message
from cuckoo_bot.app.notices.row import Delivered, SentMessage
from cuckoo_bot.app.ports import UnitOfWork


async def reread(deps: Deps, game_ids: Collection[int]) -> list[SentMessage]:
    """The games' messages later notices may edit, as the store has them now."""
    found: list[SentMessage] = []
    async with deps.uow(read_only=True) as uow:
        for game_id in sorted(game_ids):
            found += await uow.messages.sent(game_id)
    return found


async def record(deps: Deps, delivered: Delivered) -> None:
    """A copy of a notice another process may have shown, sent again: its message is
    recorded the moment Telegram answers (one statement), not with the batch's mark, so a
    process killed right after leaves no copy with keys that only its memory knew."""
    async with deps.uow(autocommit=True) as uow:
        await uow.messages.record([delivered])
        await uow.commit()


async def doubt(deps: Deps, chat_id: int, since: int) -> None:
    """A message may stand in this chat that the store never learnt of (a send whose
    answer was lost): written down, so any instance clears its keys, not only this one."""
    async with deps.uow() as uow:
        await uow.messages.doubt(chat_id, since)
        await uow.commit()


async def cleared(deps: Deps, chat_id: int, message_ids: Sequence[int], shown: int) -> None:
    """Messages no notice accounted for lost their keys as notice ``shown`` was shown again:
    their rows say so (one statement), so no late report of that notice or an older one gives
    them back (``MessageRepository.cleared``)."""
    if not message_ids:
        return
    async with deps.uow(autocommit=True) as uow:
        await uow.messages.cleared(chat_id, message_ids, shown)
        await uow.commit()


async def copies(deps: Deps) -> list[Message]:
    """Second copies of a notice (one statement): those showing keys must lose them, and a
    twin without keys is deleted (``MessageRepository.copies``)."""
    async with deps.uow(autocommit=True) as uow:
        return await uow.messages.copies()


async def forget(deps: Deps, copy: Message) -> None:
    """A twin deleted from its chat: its row goes (one statement)."""
    assert copy.message_id is not None
    async with deps.uow(autocommit=True) as uow:
        await uow.messages.forget(copy.chat_id, copy.message_id)
        await uow.commit()


async def doubts(deps: Deps) -> dict[int, int]:
    """Every chat in doubt, with its oldest doubtful notice (one statement)."""
    async with deps.uow(autocommit=True) as uow:
        return await uow.messages.doubts()


async def settle_doubt(deps: Deps, chat_id: int, since: int) -> None:
    """The keys of what no notice accounts for in the chat are cleared: no doubt left."""
    async with deps.uow(autocommit=True) as uow:
        await uow.messages.settle_doubt(chat_id, since)
        await uow.commit()


async def unaccounted(
    deps: Deps, chat_id: int, notice_id: int, *, below: int | None, span: int
) -> list[int]:
    """The messages in a chat that no notice accounts for, where notice ``notice_id`` would
    have shown: the ``span`` ids just ``below`` a message, nearest first, never under the
    newest message an earlier notice put there; or else the ids after that newest one, and
    in a private chat around it, nearest first, after before. A chat's notices are shown in
    order, but not after a crash: an earlier notice shown again (its first copy's mark lost)
    may stand above this one's. (A group's ids before are mostly people's messages, which
    cannot be edited, and each try would spend the group's 20 calls a minute.)"""
    async with deps.uow(read_only=True) as uow:
        low = await uow.messages.newest_before(chat_id, notice_id)
        if below is None:
            after = range(low + 1, low + 1 + span)
            before = range(low - 1, max(0, low - span), -1) if chat_id > 0 else range(0)
            ids = [m for pair in zip_longest(after, before) for m in pair if m is not None]
        else:
            ids = list(range(below - 1, max(low, below - 1 - span), -1))
        if not ids:
            return []
        known = await uow.messages.messages_between(chat_id, min(ids), max(ids))
    return [m for m in ids if m not in known]


def _end(notice: Notice) -> bool:
    """A game's end told in a chat (not a key too old to press coming off)."""
    note = notice.payload
    if isinstance(note, GameOverView):
        return not note.expired
    return isinstance(note, CloseNote) and note.reason is not CloseReason.EXPIRED


async def drop_outlived(uow: UnitOfWork, notices: list[Notice]) -> list[Notice]:
    """A game's end read back after a newer notice of a later game showed a message in its
    chat is not shown again: a chat's notices are shown in order, so a process showed it and
    died before its mark (shown now, it would stand under the new game's lobby and take the
    first copy's Play again key). A later game's message from an older notice (a player's
    two games in two groups at once) says nothing. Marked passed over in the claim's
    transaction; one statement per end read back, nothing per press."""
    outlived = [
        n
        for n in notices
        if _end(n)
        and n.game_id is not None
        and await uow.messages.later_game_shown(n.chat_id, n.game_id, after=n.id)
    ]
    if not outlived:
        return notices
    await uow.outbox.mark([Delivered(n.id, error=OUTLIVED, tries=0) for n in outlived])
    gone = {n.id for n in outlived}
    return [n for n in notices if n.id not in gone]
