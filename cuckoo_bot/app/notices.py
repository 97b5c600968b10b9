"""What players must see after a step, as typed notices written to the outbox with the move.

The group keeps one table message per round; the player whose turn it is gets the decision in
their private chat, with the card they hold now; each player's card for a round arrives at the
deal. The transport decides how each notice reaches Telegram (send, edit, coalesce); this module
only decides what must be seen.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import datetime
from enum import Enum, StrEnum
from typing import Any

from cuckoo_bot.app.model import MOVE_NAMES, GameStatus, RatingChange, is_computer
from cuckoo_bot.domain import codec
from cuckoo_bot.domain.actions import PlayerId
from cuckoo_bot.domain.cards import Card
from cuckoo_bot.domain.engine import legal_actions
from cuckoo_bot.domain.events import (
    CardCut,
    Event,
    GameAbandoned,
    GameWon,
    LifeLost,
    Misdealt,
    PlayerEliminated,
    PlayerRemoved,
    RemovalReason,
    Revealed,
    RoundDealt,
    SuddenDeathDrawn,
    SuddenDeathStarted,
    Swapped,
)
from cuckoo_bot.domain.state import Act, GameState, Phase, finishing_ranks


class NoticeKind(Enum):
    LOBBY = "lobby"  # group: the lobby message, edited in place
    TABLE = "table"  # group: the round's table message, edited in place
    TURN = "turn"  # group: a turn for a player the bot cannot write to, with the keys
    ANNOUNCE = "announce"  # group: a one-off line (a misdeal, a player leaving, sudden death)
    GAME_OVER = "game_over"  # group: the winner(s), or why nobody won
    DEAL = "deal"  # private: the card dealt this round, with how the last round ended
    PROMPT = "prompt"  # private: your turn, the card you hold now, and the keys
    CLOSE = "close"  # private: the game is over for you (the prompt's keys go)
    PLAYED = "played"  # private: your move, told on the prompt you pressed (its keys go)
    NUDGE = "nudge"  # private: your turn runs out soon (a reply to the prompt, which notifies)

    @property
    def private(self) -> bool:
        return self in (
            NoticeKind.DEAL,
            NoticeKind.PROMPT,
            NoticeKind.CLOSE,
            NoticeKind.PLAYED,
            NoticeKind.NUDGE,
        )


# -- payloads -----------------------------------------------------------------------------------


class News(StrEnum):
    """How the card in a prompt came to the player since they last saw one."""

    HELD = "held"  # the card they had
    DEALT = "dealt"  # dealt with this prompt (the first person asked in the round)
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


@dataclass(frozen=True)
class Recap:
    """The last reveal in one line, atop the next round's table: who lost a life with which
    card, and who went out."""

    round: int
    lost: tuple[PlayerId, ...] = ()
    cards: tuple[Card, ...] = ()  # aligned with ``lost``
    out: tuple[PlayerId, ...] = ()


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
    recap: Recap | None = None  # how the round before ended
    deadline: datetime | None = None  # when the turn in play runs out

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
    options: tuple[str, ...]
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

    def load(self) -> Event:
        return codec.load_event(self.event, self.data)


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
    """A player's turn, in their private chat: exactly one card, the one they hold now."""

    round: int
    turn: int
    card: Card
    lives: int
    options: tuple[str, ...]  # keep, swap, cut
    target: PlayerId | None = None  # whose card a swap takes; None for the dealer
    cuts_made: int = 0
    news: News = News.HELD
    by: PlayerId | None = None
    prev: RoundResult | None = None  # the last round's end, for the first to act
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
    king: Card | None = None  # a king that blocked the swap or the cut
    revealed: bool = False  # the move ended the round: the cards are on the table
    # The first to play in a round: how their last round ended, which their prompt's first
    # line told (nothing else did), kept atop the answer and what follows on that message.
    last: RoundResult | None = None


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
)

PAYLOADS: dict[NoticeKind, type[Any]] = {
    NoticeKind.LOBBY: LobbyView,
    NoticeKind.TABLE: TableView,
    NoticeKind.TURN: TurnView,
    NoticeKind.ANNOUNCE: Announcement,
    NoticeKind.GAME_OVER: GameOverView,
    NoticeKind.DEAL: DealNote,
    NoticeKind.PROMPT: PromptNote,
    NoticeKind.CLOSE: CloseNote,
    NoticeKind.PLAYED: PlayedNote,
    NoticeKind.NUDGE: NudgeNote,
}


def dump_payload(payload: Payload) -> dict[str, Any]:
    data = codec.dump(payload)
    assert isinstance(data, dict)
    return data


def load_payload(kind: NoticeKind, data: dict[str, Any]) -> Payload:
    loaded: Payload = codec.load(PAYLOADS[kind], data)
    return loaded


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


# -- the collector ------------------------------------------------------------------------------


class Notices:
    """Collects what one move makes players see, coalesced: one table view per round and one
    private notice per player and purpose; each keeps the place of its first mention and the
    content of its last."""

    def __init__(self, chat_id: int, game_id: int, thread_id: int | None, state: GameState | None):
        self._chat_id = chat_id
        self._game_id = game_id
        self._thread_id = thread_id
        self._turn_before = state.turn if state is not None else None
        self._phase_before = state.phase if state is not None else None
        self._items: dict[tuple[Any, ...], Notice] = {}
        self._results: dict[PlayerId, RoundResult] = {}
        self._swapped_by: dict[PlayerId, PlayerId] = {}  # neighbour -> who swapped with them
        self._cut = False
        self.revealed = False  # a round was revealed in this move

    def _put(self, key: tuple[Any, ...], kind: NoticeKind, chat_id: int, payload: Payload) -> None:
        notice = self._items.get(key)
        if notice is None:
            thread = self._thread_id if chat_id == self._chat_id else None
            self._items[key] = Notice(
                kind=kind,
                chat_id=chat_id,
                payload=payload,
                game_id=self._game_id,
                thread_id=thread,
            )
        else:
            notice.payload = payload

    # group ------------------------------------------------------------------------------------

    def lobby(self, view: LobbyView) -> None:
        self._put(("lobby",), NoticeKind.LOBBY, self._chat_id, view)

    def table(self, state: GameState, *, closed: bool = False, gathered: bool = False) -> None:
        rnd = state.round
        if rnd is None:
            return
        live = state.phase is Phase.TURNS and not closed
        key = ("table", rnd.number)
        old = self._items.get(key)
        lives = tuple(state.lives(p) for p in rnd.order)
        view = TableView(
            round=rnd.number,
            dealer=rnd.dealer,
            order=rnd.order,
            lives=lives,
            acts=rnd.acts,
            actor=rnd.actor if live else None,
            turn=state.turn if live else None,
            cuts_made=rnd.cuts_made,
            gathered=gathered,
            closed=closed,
            recap=_recap(state, rnd.number),
        )
        if old is not None:
            assert isinstance(old.payload, TableView)
            # The lives show the round as dealt; the recap and the reveal stay once there.
            view = dataclasses.replace(
                view, lives=old.payload.lives, reveal=old.payload.reveal, recap=old.payload.recap
            )
        self._put(key, NoticeKind.TABLE, self._chat_id, view)

    def _reveal(self, state: GameState, event: Revealed | LifeLost | PlayerEliminated) -> None:
        rnd = state.round
        assert rnd is not None
        self.table(state)
        notice = self._items[("table", rnd.number)]
        view = notice.payload
        assert isinstance(view, TableView)
        reveal = view.reveal
        if isinstance(event, Revealed):
            reveal = RevealView(revealed=event)
        elif reveal is not None and isinstance(event, LifeLost):
            reveal = dataclasses.replace(reveal, losses=(*reveal.losses, event))
        elif reveal is not None and isinstance(event, PlayerEliminated):
            reveal = dataclasses.replace(reveal, eliminated=(*reveal.eliminated, event.player))
        if reveal is not None:
            lives = tuple(state.lives(p) for p in reveal.revealed.order)
            reveal = dataclasses.replace(reveal, lives=lives)
        notice.payload = dataclasses.replace(view, reveal=reveal)

    def announce(self, event: Event, key: tuple[Any, ...]) -> None:
        payload = Announcement(codec.event_name(event), codec.dump_event(event))
        self._put(("announce", *key), NoticeKind.ANNOUNCE, self._chat_id, payload)

    def game_over(self, view: GameOverView) -> None:
        self._put(("over",), NoticeKind.GAME_OVER, self._chat_id, view)

    # private ----------------------------------------------------------------------------------

    def _deal(self, state: GameState, event: RoundDealt) -> None:
        for position, (player, card) in enumerate(zip(event.order, event.cards, strict=True)):
            if is_computer(player):
                continue
            note = DealNote(
                round=event.round,
                card=card,
                dealer=event.dealer,
                position=position + 1,
                players=len(event.order),
                prev=self._results.pop(player, None) or last_result(state, player, event.round),
            )
            self._put(("deal", player), NoticeKind.DEAL, player, note)

    def played(self, player: PlayerId, note: PlayedNote) -> None:
        """The player's press, answered on their prompt (before anything this move deals)."""
        if not is_computer(player):
            self._put(("played", player), NoticeKind.PLAYED, player, note)

    def close(
        self, player: PlayerId, reason: CloseReason, over: GameOverView | None = None
    ) -> None:
        if is_computer(player):
            return
        note = CloseNote(
            reason=reason,
            prev=self._results.get(player),
            winners=over.winners if over else (),
            shared=over.shared if over else False,
        )
        self._put(("close", player), NoticeKind.CLOSE, player, note)

    def close_all(
        self, state: GameState, reason: CloseReason, over: GameOverView | None = None
    ) -> None:
        """Everyone still at the table (or out in this very move) is told; their keys go."""
        closed = {key[1] for key in self._items if key[0] == "close"}
        for seat in state.seats:
            if seat.active or seat.player in self._results or seat.player in closed:
                self.close(seat.player, reason, over)

    # events -----------------------------------------------------------------------------------

    def note(self, state: GameState, events: tuple[Event, ...]) -> None:
        """Record what ``events`` (from the step that led to ``state``) make players see."""
        revealed = any(isinstance(e, Revealed) for e in events)
        for event in events:
            if isinstance(event, RoundDealt):
                self._deal(state, event)
            elif isinstance(event, Swapped):
                self._swapped_by[event.neighbour] = event.player
            elif isinstance(event, CardCut):
                self._cut = True
            elif isinstance(event, Revealed):
                self.revealed = True
                self._results.update(_results_of(state, event))
                self._reveal(state, event)
            elif isinstance(event, LifeLost) and revealed:
                self._reveal(state, event)
            elif isinstance(event, PlayerEliminated) and revealed:
                self._reveal(state, event)
                self.close(event.player, CloseReason.OUT)
            elif isinstance(event, Misdealt):
                rnd = state.round
                for player in rnd.order if rnd is not None else ():
                    self._results[player] = RoundResult(
                        round=event.round, lives=state.lives(player)
                    )
                self.announce(event, (event.round,))
            elif isinstance(event, PlayerRemoved):
                idle = event.reason is RemovalReason.IDLE
                reason = CloseReason.IDLE if idle else CloseReason.RESIGNED
                self.close(event.player, reason)
                self.announce(event, (event.player,))
            elif isinstance(event, SuddenDeathStarted | SuddenDeathDrawn):
                self.announce(event, (len(self._items),))
            elif isinstance(event, GameWon | GameAbandoned):
                over = (
                    GameOverView(winners=event.winners, shared=event.shared)
                    if isinstance(event, GameWon)
                    else GameOverView(abandoned=True)
                )
                self.game_over(over)
                won = isinstance(event, GameWon)
                self.close_all(state, CloseReason.GAME_OVER if won else CloseReason.ABANDONED, over)

    def summary(self, state: GameState, changes: tuple[RatingChange, ...]) -> None:
        """Add the game's summary to its end: rounds, who went out when, the league's moves."""
        notice = self._items.get(("over",))
        if notice is None or not isinstance(notice.payload, GameOverView):
            return
        out = sorted(
            (
                Exit(seat.player, seat.eliminated_in_round)
                for seat in state.seats
                if seat.eliminated_in_round is not None and seat.player not in state.winners
            ),
            key=lambda e: e.round,
        )
        ranks = finishing_ranks(state)
        places = tuple(sorted(ranks.items(), key=lambda item: item[1]))
        notice.payload = dataclasses.replace(
            notice.payload,
            rounds=state.rounds_dealt,
            out=tuple(out),
            changes=changes,
            places=places if state.winners else (),
        )
        if not state.winners:
            return
        moved = {c.player: c for c in changes}
        for seat in state.seats:
            if is_computer(seat.player):
                continue
            told = self._items.get(("close", seat.player))
            prev = told.payload.prev if told and isinstance(told.payload, CloseNote) else None
            change = moved.get(seat.player)
            note = CloseNote(
                reason=CloseReason.GAME_OVER,
                prev=prev,
                winners=state.winners,
                shared=state.shared_victory,
                place=ranks[seat.player],
                seats=len(state.seats),
                points=change.points if change else None,
                month_place=change.place if change else None,
            )
            self._put(("close", seat.player), NoticeKind.CLOSE, seat.player, note)

    # the decision -----------------------------------------------------------------------------

    def prompt(
        self, state: GameState, can_write: Mapping[PlayerId, bool], *, moved: bool = False
    ) -> None:
        """Ask the player to act, where their private information is: in their private chat,
        or in the group for a player the bot cannot write to. ``moved``: the group's messages
        are gone (a migration), so a turn asked there is asked again."""
        actor = state.actor
        rnd = state.round
        if actor is None or rnd is None or is_computer(actor):
            return
        if state.turn == self._turn_before and not (moved and not can_write.get(actor, True)):
            return
        deal = self._items.pop(("deal", actor), None)
        prev = (
            deal.payload.prev if deal is not None and isinstance(deal.payload, DealNote) else None
        )
        news, by = News.HELD, None
        if deal is not None:
            news = News.DEALT
        elif actor in self._swapped_by:
            news, by = News.SWAPPED, self._swapped_by[actor]
        elif self._cut and rnd.actor_is_dealer:
            news = News.CUT
        note = PromptNote(
            round=rnd.number,
            turn=state.turn,
            card=rnd.card_of(actor),
            lives=state.lives(actor),
            options=tuple(MOVE_NAMES[type(a)] for a in legal_actions(state)),
            target=None if rnd.actor_is_dealer else rnd.order[rnd.position + 1],
            cuts_made=rnd.cuts_made,
            news=news,
            by=by,
            prev=prev,
            again=rnd.cuts_made > 0 and rnd.actor_is_dealer,
            acts=rnd.acts,
            last=last_result(state, actor, rnd.number),
        )
        if can_write.get(actor, True):
            self._put(("prompt", actor), NoticeKind.PROMPT, actor, note)
        else:
            self._put(("turn",), NoticeKind.TURN, self._chat_id, TurnView.asking(actor, note))

    def stamp(self, deadline: datetime | None) -> None:
        """The turn in play runs out at ``deadline``: its table, prompt or group ask say when."""
        for notice in self._items.values():
            payload = notice.payload
            if isinstance(payload, TableView) and payload.actor is None:
                continue
            if isinstance(payload, TableView | PromptNote | TurnView):
                notice.payload = dataclasses.replace(payload, deadline=deadline)

    def collected(self) -> list[Notice]:
        items = list(self._items.values())
        self._items.clear()
        return items


def _results_of(state: GameState, event: Revealed) -> dict[PlayerId, RoundResult]:
    """How the round just revealed ended for each player in it."""
    results = (last_result(state, player, event.round + 1) for player in event.order)
    return {r_player: r for r_player, r in zip(event.order, results, strict=True) if r}


def last_result(state: GameState, player: PlayerId, round_no: int) -> RoundResult | None:
    """How the round before ``round_no`` ended for ``player``, when it was revealed."""
    last = state.last_reveal
    card = last.card_of(player) if last is not None else None
    if last is None or card is None or last.round != round_no - 1:
        return None
    lost = last.lost(player)
    lives = state.lives(player)
    return RoundResult(
        round=last.round,
        card=card,
        lost=lost,
        timeout=lost and player not in last.lowest,
        lives=lives,
        out=lives == 0,
    )


def _recap(state: GameState, round_no: int) -> Recap | None:
    """The reveal of the round before ``round_no``, in a line; None when it was not revealed."""
    last = state.last_reveal
    if last is None or last.round != round_no - 1:
        return None
    lost = tuple(p for p in last.order if last.lost(p))
    return Recap(
        round=last.round,
        lost=lost,
        cards=tuple(last.cards[last.order.index(p)] for p in lost),
        out=tuple(p for p in lost if state.lives(p) == 0),
    )
