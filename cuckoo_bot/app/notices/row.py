"""The outbox row (``Notice``), the message it became (``SentMessage``) and what became of
it in a delivery (``Delivered``)."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from datetime import datetime

from cuckoo_bot.app.notices.kinds import NoticeKind
from cuckoo_bot.app.notices.payloads import Payload


@dataclass
class Notice:
    """One outbox row: a message still to be sent or edited, written with the move."""

    kind: NoticeKind
    chat_id: int  # a group, or a user for private messages
    payload: Payload
    game_id: int | None = None
    id: int = 0
    thread_id: int | None = None
    created_at: datetime | None = None
    attempts: int = field(default=0, compare=False)  # tries so far (read back from the outbox)

    @property
    def round(self) -> int | None:
        """The round a table or private notice is about (for coalescing and edit targets)."""
        return getattr(self.payload, "round", None)


@dataclass(frozen=True)
class SentMessage:
    """A message a notice put in a chat: a target for later edits, and whether it has keys."""

    notice: Notice
    message_id: int
    live_keys: bool
    newest: int  # the newest message the bot sent in that chat (same chat, any game)


# Why delivery passed a notice over on its own judgement (not Telegram's refusal): a newer view
# stood in for it, or its turn was over. The newest table of a running game so passed over
# that no message shows is shown again by the sweeper (``app.repair``).
SUPERSEDED = "superseded"
TURN_OVER = "turn over"
PASSED_OVER = (SUPERSEDED, TURN_OVER)
FOLDED = "folded"  # shown inside the message of an earlier round's table
# A game's end read back after a later game of the chat showed a message: it was shown before
# (a chat's notices are shown in order) by a process that died before its mark.
OUTLIVED = "a later game is shown"


@dataclass(frozen=True)
class Delivered:
    """What became of one notice, and of the message it showed (``message_id``): a report
    that message's row in ``messages`` takes if it is newer (``Message.after``)."""

    notice_id: int
    message_id: int | None = None  # Telegram's id of the message sent or edited
    live_keys: bool = False  # that message shows keys now
    error: str | None = None  # why it was not shown (superseded, refused, ...)
    tries: int = 1  # 0: only the keys of the message that showed it were cleared
    retry_at: datetime | None = None  # failed this time: any instance may try again from then


@dataclass(frozen=True)
class Elsewhere:
    """What other deliveries did in some chats, as a batch about to show there asks."""

    # Chats where another instance holds, under a running lease, notices older than the
    # batch's: they go first.
    held: frozenset[int] = frozenset()
    # Chats where older notices are left for anyone to take (the lease of an instance that
    # died has run out, and no sweep took them yet): the batch takes them, and shows them first.
    left: frozenset[int] = frozenset()
    # Chats where another process (another instance, or this one's previous life) showed a
    # notice since the batch read the chats' messages: what it read there may be out of date.
    told_since: frozenset[int] = frozenset()
    # Private chats where a message was sent at ``paced_since`` or later, and when the newest
    # was: Telegram takes about one a second in a chat, whichever instance sends it.
    sent: Mapping[int, datetime] = field(default_factory=dict)

    @classmethod
    def of(
        cls,
        rows: Iterable[tuple[int, datetime | None, str, bool, bool, bool | None]],
        since: datetime | None,
        paced_since: datetime | None,
    ) -> Elsewhere:
        """From the notices a store found (chat, done at, kind, whether it was shown, whether
        another instance holds it, whether another process marked it): those not done are held
        elsewhere, or left for anyone; the store's own query chose which rows to give."""
        held: set[int] = set()
        left: set[int] = set()
        told_since: set[int] = set()
        sent: dict[int, datetime] = {}
        for chat, at, kind, was_shown, holds, theirs in rows:
            if at is None:
                (held if holds else left).add(chat)
                continue
            if since is not None and at >= since and was_shown and theirs:
                told_since.add(chat)
            # A prompt's answer edits it: Telegram paces the messages sent, not edits.
            paced = paced_since is not None and at >= paced_since and chat > 0
            if paced and kind != NoticeKind.PLAYED.value and (chat not in sent or at > sent[chat]):
                sent[chat] = at
        return cls(frozenset(held), frozenset(left - held), frozenset(told_since), sent)
