"""What each kind of notice carries: the views and notes the renderer turns into text."""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from datetime import datetime
from enum import StrEnum
from typing import Any

from cuckoo_bot.app.model import GameStatus, RatingChange, StakesResult
from cuckoo_bot.domain import codec
from cuckoo_bot.domain.actions import Move, PlayerId
from cuckoo_bot.domain.cards import Card
from cuckoo_bot.domain.events import (
    Event,
    LifeLost,
    Revealed,
)
from cuckoo_bot.domain.state import Act


class News(StrEnum):
    """How the card in a prompt came to the player since they last saw one."""

    HELD = "held"  # the card they had
    DEALT = "dealt"  # came with this prompt (the first asked, or a card that waited)
    SWAPPED = "swapped"  # a neighbour swapped with them (``PromptNote.by``)
    CUT = "cut"  # the dealer's second cut: the card they cut


class CloseReason(StrEnum):
    """Why the game is over for a player (their prompt's keys go)."""

    OUT = "out"  # lost their last life
    GAME_OVER = "game_over"  # someone won
    ABANDONED = "abandoned"  # everyone left stopped playing
    CANCELLED = "cancelled"
    RESIGNED = "resigned"
    IDLE = "idle"  # missed too many turns in a row
    REMOVED = "removed"  # taken out by the group's admin or the game's creator
    EXPIRED = "expired"  # the Play again key under their end of the game is too old


@dataclass(frozen=True)
class LobbyView:
    status: GameStatus
    seats: tuple[PlayerId, ...] = ()
    reason: str | None = None  # why a lobby closed: cancelled, expired, bot_removed
    offered: tuple[PlayerId, ...] = ()  # the last game's players, invited to take a seat


@dataclass(frozen=True)
class RevealView:
    revealed: Revealed
    losses: tuple[LifeLost, ...] = ()
    eliminated: tuple[PlayerId, ...] = ()
    lives: tuple[int, ...] = ()  # after the reveal, aligned with the round's order
    spent: tuple[Card, ...] = ()  # One-card Kille: Harlequins swapped this round (lowest)


@dataclass(frozen=True)
class TableView:
    """The group's table for one round: acts so far, whose turn it is, then the reveal."""

    round: int
    dealer: PlayerId
    order: tuple[PlayerId, ...]  # turn order, dealer last
    lives: tuple[int, ...]  # as dealt, aligned with ``order``
    acts: tuple[Act, ...] = ()
    actor: PlayerId | None = None  # None once the round is over
    turn: int | None = None
    cuts_made: int = 0
    reveal: RevealView | None = None
    gathered: bool = False  # ended without a reveal: a misdeal, or the last opponent left
    closed: bool = False  # the game was cancelled during the round
    deadline: datetime | None = None  # when the turn in play runs out
    pot: int | None = None  # stakes: the pot as it stands (None: not played for stakes)

    @property
    def final(self) -> bool:
        """Nothing more will happen in this round."""
        return self.actor is None


@dataclass(frozen=True)
class TurnView:
    """A turn asked in the group, for a player the bot cannot write to privately."""

    round: int
    turn: int
    actor: PlayerId
    options: tuple[Move, ...]
    target: PlayerId | None = None  # whose card a swap takes; None for the dealer
    cuts_made: int = 0
    deadline: datetime | None = None

    @classmethod
    def asking(cls, actor: PlayerId, note: PromptNote) -> TurnView:
        """The group's ask for the turn ``note`` would have asked privately (no card in it)."""
        return cls(
            round=note.round,
            turn=note.turn,
            actor=actor,
            options=note.options,
            target=note.target,
            cuts_made=note.cuts_made,
        )


@dataclass(frozen=True)
class Announcement:
    event: str  # the event's name, e.g. ``Misdealt``
    data: dict[str, Any] = field(default_factory=dict)  # its fields as the codec stores them
    # The same step's later events, told in the same message (``Bulletin.announce``).
    then: tuple[Announcement, ...] = ()

    def load(self) -> Event:
        return codec.load_event(self.event, self.data)

    def lines(self) -> tuple[Announcement, ...]:
        """Each event the message tells, in the order they happened."""
        return (self, *self.then)

    def adding(self, event: Event) -> Announcement:
        line = Announcement(codec.event_name(event), codec.dump_event(event))
        return replace(self, then=(*self.then, line))


@dataclass(frozen=True)
class AnswerNote:
    """A command's answer, as it was to be shown: its text, and its keys as Telegram's JSON."""

    text: str
    keys: dict[str, Any] | None = None


@dataclass(frozen=True)
class Exit:
    player: PlayerId
    round: int  # the round in which the player went out


@dataclass(frozen=True)
class GameOverView:
    """The end of the game in the group: the result, then a summary of the game."""

    winners: tuple[PlayerId, ...] = ()
    shared: bool = False
    abandoned: bool = False
    rounds: int = 0
    out: tuple[Exit, ...] = ()  # in the order players went out
    changes: tuple[RatingChange, ...] = ()  # the group's table this month
    stakes: StakesResult | None = None  # a game played for stakes: who took the pot
    # Everyone in the order they finished, with their place (players out together share it).
    places: tuple[tuple[PlayerId, int], ...] = ()
    # The "Play again" key's time is up: it comes off the summary (nothing else changes).
    expired: bool = False


@dataclass(frozen=True)
class RoundResult:
    """How a round ended for one player, told in their private chat."""

    round: int
    card: Card | None = None  # the card held at the reveal; None when the cards were gathered
    lost: bool = False
    timeout: bool = False  # the life was lost for running out of time (fast turns)
    lives: int = 0
    out: bool = False
    tied: int = 0  # others who held the same lowest card and lost a life with the player
    struck: bool = False  # One-card Kille: the life went to the Hussar's or the Pig's strike
    spent: bool = False  # One-card Kille: the card is a Harlequin swapped that round (lowest)


@dataclass(frozen=True)
class DealNote:
    round: int
    card: Card
    dealer: PlayerId
    position: int  # 1-based place in the turn order
    players: int
    prev: RoundResult | None = None


@dataclass(frozen=True)
class PromptNote:
    """A player's turn, in their private chat: the card they hold now (after a swap, also the
    card it took from them)."""

    round: int
    turn: int
    card: Card
    lives: int
    options: tuple[Move, ...]
    target: PlayerId | None = None  # whose card a swap takes; None for the dealer
    cuts_made: int = 0
    news: News = News.HELD
    by: PlayerId | None = None
    gave: Card | None = None  # the card a swap took from the player (``News.SWAPPED``)
    prev: RoundResult | None = None  # the last round's end: its card came with this prompt
    again: bool = False  # the dealer's second cut: the same prompt, asked again
    acts: tuple[Act, ...] = ()  # the round so far: what the players before did
    last: RoundResult | None = None  # the player's last round, recalled in one line
    deadline: datetime | None = None  # when the turn runs out


@dataclass(frozen=True)
class NudgeNote:
    """The player's turn runs out soon: a reply to their prompt, which notifies."""

    round: int
    turn: int
    deadline: datetime
    seconds: int = 0  # left when the nudge was written


@dataclass(frozen=True)
class PlayedNote:
    """A player's move, answered on the prompt they pressed: what happened and the card they
    hold now, in the words of the press's answer (``answer`` is its code); the keys go."""

    round: int
    turn: int
    answer: str  # done_keep, done_swap, done_blocked, done_cut, done_cut_blocked
    card: Card | None = None  # held after the move
    other: PlayerId | None = None  # the neighbour a swap was asked of
    king: Card | None = None  # the card that refused the swap (a King...) or blocked the cut
    revealed: bool = False  # the move ended the round: the cards are on the table
    # A player whose card came with their prompt (``notices.recalled``): how their last round
    # ended, which its first line told (nothing else did), kept atop the answer and what follows.
    last: RoundResult | None = None
    # The neighbour whose card sent the ask on to ``other`` (Coucou's Queen, a Kille Inn or
    # Cavalier), and that card.
    via: PlayerId | None = None
    queen: Card | None = None
    # The message whose key was pressed, in the player's private chat: the answer goes there
    # even when no notice accounts for it (a prompt shown by a process that died before it
    # recorded the message), so its keys come off whichever instance delivers the answer.
    pressed: int | None = None


@dataclass(frozen=True)
class CloseNote:
    """The game is over for this player; clears the keys of their last prompt."""

    reason: CloseReason
    prev: RoundResult | None = None
    winners: tuple[PlayerId, ...] = ()
    shared: bool = False
    # The end of a won game, for every person who sat at it (out earlier or not): a new
    # message with where they finished, what it did to their line this month, and Play again.
    place: int | None = None  # 1 for the winners; players out in the same round share one
    seats: int = 0
    points: int | None = None  # the change in the group's table this month
    chips: int | None = None  # stakes: what the game won or cost them in chips
    month_place: int | None = None


Payload = (
    LobbyView
    | TableView
    | TurnView
    | Announcement
    | GameOverView
    | DealNote
    | PromptNote
    | CloseNote
    | PlayedNote
    | NudgeNote
    | AnswerNote
)
