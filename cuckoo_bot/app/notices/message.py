"""The ``messages`` table: one row per Telegram message the bot has shown, or may have shown.

Delivery's state lives here, not in any process: every instance and every next life reads
the same rows.

A row says which chat, which message (``message_id``; none when a send's answer never came:
the message may stand in the chat, its id unknown), what it shows (``kind`` and ``shown``,
the newest notice it shows, a number that only grows; ``sent_by``, the notice that sent it)
and whether it shows keys. A notice is a row of the outbox; the notice claimed by an instance
is the intent to show it, written with the move before any call to Telegram.

Every write is a merge by ``Message.after``: a state replaces the row's only if it is newer,
in the order (``shown``, keys gone). A later notice's edit wins over an earlier one's, and a
message whose keys came off never gets them back from a late report of the same notice. So
marks may reach the store in any order, from any batch, instance or life, and the row ends
as the newest of them: no process needs to serialise its marks or remember which keys it has
seen go.

The rules delivery keeps (the README's "Delivery's rules"; checked over random interleavings
of presses, instances, crashes and lost answers by
``tests/unit/transport/test_delivery_invariants.py``):

- (a) every live turn's prompt shows its keys;
- (b) no other message of that game shows move keys;
- (c) a notice is shown once: a second copy (after a lost answer or a crash) loses its keys
  or is deleted;
- (d) what a player sees never goes back to an older state (in the store: ``after``).
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from datetime import datetime

from cuckoo_bot.app.notices.kinds import NoticeKind


@dataclass(frozen=True)
class Message:
    """One row of ``messages``."""

    chat_id: int
    message_id: int | None  # Telegram's; None: a send whose answer never came
    game_id: int | None
    kind: NoticeKind | None  # of the notice it shows (None for an unknown one's doubt)
    sent_by: int  # the notice that sent it
    shown: int  # the newest notice it shows: only grows
    keys: bool  # it shows keys
    at: datetime  # when the row last changed

    def newer_than(self, other: Message) -> bool:
        """This state is newer than ``other``'s: a later notice, or the same one, keys gone."""
        return self.shown > other.shown or (
            self.shown == other.shown and other.keys and not self.keys
        )

    def after(self, report: Message) -> Message:
        """The row once ``report`` reaches it: the newer state, and the earliest sender."""
        merged = report if report.newer_than(self) else self
        return replace(merged, sent_by=min(self.sent_by, report.sent_by))
