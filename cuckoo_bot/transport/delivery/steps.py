"""What a planner decides a chat needs, one step at a time; a lane carries the steps out.

A step names notices and messages, never wording: the lane renders a notice when it makes the
call. Each step is one Bot API call at most (a ``Skip`` or an ``Unchanged`` none), and records
what Telegram answered as a report the store merges into ``messages``.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum

from cuckoo_bot.app.notices import Notice, RoundResult, SentMessage


class Show(Enum):
    OWN = "own"  # the notice's own message
    WITH_RESULT = "with result"  # a card dealt on the last prompt: it tells the result too


@dataclass(frozen=True)
class Skip:
    """The notice is not shown (superseded, its turn over, told by another message)."""

    notice: Notice
    why: str


@dataclass(frozen=True)
class Send:
    """A new message shows the notice (``reply_to``: a reply to that message). Where a message
    the store never knew may stand above it, the lane clears its keys after."""

    notice: Notice
    reply_to: int | None = None
    folded: tuple[Notice, ...] = ()  # finished rounds shown under this table
    show: Show = Show.OWN


@dataclass(frozen=True)
class Edit:
    """The notice is shown by editing ``target``. ``keys``: the edited message keeps the keys
    the notice shows (else it shows none); ``recall``: the target's line recalling the last
    round stays on top. Should the target be gone (deleted by someone), ``otherwise`` is done
    instead of the rest of the plan. ``may_wait``: a group may leave the edit for a later run
    while its budget asks updates to wait."""

    notice: Notice
    target: SentMessage
    otherwise: tuple[Step, ...] = ()
    show: Show = Show.OWN
    keys: bool = False
    recall: bool = False
    folded: tuple[Notice, ...] = ()
    may_wait: bool = False


@dataclass(frozen=True)
class Unchanged:
    """``target`` shows the notice as it is already: recorded, no call."""

    notice: Notice
    target: SentMessage
    folded: tuple[Notice, ...] = ()


@dataclass(frozen=True)
class Clear:
    """An earlier message loses its keys; ``retell``: it says how that round ended instead."""

    old: SentMessage
    retell: RoundResult | None = None


@dataclass(frozen=True)
class TakeKeys:
    """The notice (a key too old to press) takes the keys off ``target``."""

    notice: Notice
    target: SentMessage


@dataclass(frozen=True)
class Delete:
    """A message whose moment is over (a turn asked in a group) is deleted."""

    old: SentMessage


@dataclass(frozen=True)
class Orphans:
    """Another process may have shown the notice, its message never recorded: what no notice
    accounts for after the chat's known messages loses its keys."""

    notice: Notice


Step = Skip | Send | Edit | Unchanged | Clear | TakeKeys | Delete | Orphans
CALLS = (Send, Edit, TakeKeys, Delete)  # the steps that call Telegram and spend a group's budget
FENCED = (Send, Edit, TakeKeys, Unchanged, Orphans)  # the steps that show a notice


class ClaimsRanOut(Exception):
    """The notices' claims may have run out: the plan stops before its next fenced step."""
