"""What players must see after a step, as typed notices written to the outbox with the move.

The group keeps one table message per round; the player whose turn it is gets the decision in
their private chat, with the card they hold now. The first deal is shown to everyone at once, and
so is a card after a lost life (with the loss); after a round a player came through safe, their
card waits for their turn (``card_waits``). The transport decides how each notice reaches
Telegram (send, edit, coalesce); this module only decides what must be seen: a ``Bulletin``
collects the notices of one step.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Mapping
from datetime import datetime
from typing import Any, ClassVar

from cuckoo_bot.app.model import RatingChange, StakesResult, is_computer
from cuckoo_bot.app.notices.kinds import NoticeKind
from cuckoo_bot.app.notices.payloads import (
    Announcement,
    CloseNote,
    CloseReason,
    DealNote,
    Exit,
    GameOverView,
    LobbyView,
    News,
    Payload,
    PlayedNote,
    PromptNote,
    RevealView,
    RoundResult,
    TableView,
    TurnView,
)
from cuckoo_bot.app.notices.row import Notice
from cuckoo_bot.domain import codec
from cuckoo_bot.domain.actions import Move, PlayerId
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
from cuckoo_bot.domain.state import GameState, Phase, finishing_ranks, pot_of


class Bulletin:
    """Collects what one move makes players see, coalesced: one table view per round and one
    private notice per player and purpose; each keeps the place of its first mention and the
    content of its last."""

    def __init__(
        self,
        chat_id: int,
        game_id: int,
        thread_id: int | None,
        state: GameState | None,
        carried: int = 0,
    ):
        self._chat_id = chat_id
        self._carried = carried  # stakes: what the group's last pot left for this game
        self._game_id = game_id
        self._thread_id = thread_id
        self._turn_before = state.turn if state is not None else None
        self._items: dict[tuple[Any, ...], Notice] = {}
        self._results: dict[PlayerId, RoundResult] = {}
        # neighbour -> who swapped with them, and the card the neighbour gave
        self._swapped_by: dict[PlayerId, tuple[PlayerId, Card]] = {}
        self._cut = False

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
            pot=pot_of(state, self._carried) if state.rules.stakes else None,
        )
        if old is not None:
            assert isinstance(old.payload, TableView)
            # The lives show the round as dealt; the reveal stays once there.
            view = dataclasses.replace(view, lives=old.payload.lives, reveal=old.payload.reveal)
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
            last = state.last_reveal
            reveal = RevealView(revealed=event, spent=last.spent if last is not None else ())
        elif reveal is not None and isinstance(event, LifeLost):
            reveal = dataclasses.replace(reveal, losses=(*reveal.losses, event))
        elif reveal is not None and isinstance(event, PlayerEliminated):
            reveal = dataclasses.replace(reveal, eliminated=(*reveal.eliminated, event.player))
        if reveal is not None:
            lives = tuple(state.lives(p) for p in reveal.revealed.order)
            reveal = dataclasses.replace(reveal, lives=lives)
        notice.payload = dataclasses.replace(view, reveal=reveal)

    def announce(self, event: Event) -> None:
        """A line in the group. A step's lines make one message (a player's leaving and the
        round dealt again; two players dropped at one deal; sudden death and its first draw):
        one call of the group's budget, and one ring instead of two."""
        told = self._items.get(("announce",))
        if told is not None:
            assert isinstance(told.payload, Announcement)
            told.payload = told.payload.adding(event)
            return
        payload = Announcement(codec.event_name(event), codec.dump_event(event))
        self._put(("announce",), NoticeKind.ANNOUNCE, self._chat_id, payload)

    def game_over(self, view: GameOverView) -> None:
        self._put(("over",), NoticeKind.GAME_OVER, self._chat_id, view)

    # private ----------------------------------------------------------------------------------

    def _deal(self, state: GameState, event: RoundDealt) -> None:
        for position, (player, card) in enumerate(zip(event.order, event.cards, strict=True)):
            if is_computer(player):
                continue
            prev = self._results.pop(player, None) or last_result(state, player, event.round)
            if card_waits(state, prev, event.round):
                continue  # shown with the player's turn, under how their last round ended
            note = DealNote(
                round=event.round,
                card=card,
                dealer=event.dealer,
                position=position + 1,
                players=len(event.order),
                prev=prev,
            )
            self._put(("deal", player), NoticeKind.DEAL, player, note)

    def played(self, player: PlayerId, note: PlayedNote) -> None:
        """The player's press, answered on their prompt (before anything this move deals)."""
        if not is_computer(player):
            self._put(("played", player), NoticeKind.PLAYED, player, note)

    def close(
        self,
        player: PlayerId,
        reason: CloseReason,
        over: GameOverView | None = None,
        prev: RoundResult | None = None,
    ) -> None:
        if is_computer(player):
            return
        note = CloseNote(
            reason=reason,
            prev=self._results.get(player) or prev,
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
        """Record what ``events`` (from the step that led to ``state``) make players see: each
        event goes to its handler (``_ON``); an event no player sees by itself (a keep, a
        blocked swap: the table shows it) has none."""
        revealed = any(isinstance(e, Revealed) for e in events)
        for event in events:
            handler = self._ON.get(type(event))
            if handler is not None:
                handler(self, state, event, revealed)

    # Each handler gets the state after the step, the event, and whether the step revealed a
    # round (a life lost or a player out is told with the reveal; otherwise it is another
    # event's: a player who resigned is told by that).

    def _dealt(self, state: GameState, event: RoundDealt, revealed: bool) -> None:
        self._deal(state, event)

    def _swapped(self, state: GameState, event: Swapped, revealed: bool) -> None:
        self._swapped_by[event.neighbour] = (event.player, event.player_card)

    def _card_cut(self, state: GameState, event: CardCut, revealed: bool) -> None:
        self._cut = True

    def _revealed(self, state: GameState, event: Revealed, revealed: bool) -> None:
        self._results.update(_results_of(state, event))
        self._reveal(state, event)

    def _life_lost(self, state: GameState, event: LifeLost, revealed: bool) -> None:
        if revealed:
            self._reveal(state, event)

    def _eliminated(self, state: GameState, event: PlayerEliminated, revealed: bool) -> None:
        if revealed:
            self._reveal(state, event)
            self.close(event.player, CloseReason.OUT)

    def _misdealt(self, state: GameState, event: Misdealt, revealed: bool) -> None:
        rnd = state.round
        asked = {act.player for act in rnd.acts} if rnd is not None else set()
        for player in rnd.order if rnd is not None else ():
            last = last_result(state, player, event.round)
            if last is not None and card_waits(state, last, event.round) and player not in asked:
                # Never shown this round (their card waited for a turn that did not come):
                # the new deal tells how their last round ended, not this one's gathering.
                self._results[player] = last
            else:
                self._results[player] = RoundResult(round=event.round, lives=state.lives(player))
        self.announce(event)

    def _removed(self, state: GameState, event: PlayerRemoved, revealed: bool) -> None:
        why = {RemovalReason.IDLE: CloseReason.IDLE, RemovalReason.REMOVED: CloseReason.REMOVED}
        # Dropped at the deal after their second lapse: the reveal before (a life lost to the
        # clock, with fast turns) is told with their end, as no card of the new round will.
        last = state.last_reveal
        prev = last_result(state, event.player, last.round + 1) if last is not None else None
        self.close(event.player, why.get(event.reason, CloseReason.RESIGNED), prev=prev)
        self.announce(event)

    def _sudden_death(
        self, state: GameState, event: SuddenDeathStarted | SuddenDeathDrawn, revealed: bool
    ) -> None:
        self.announce(event)

    def _won(self, state: GameState, event: GameWon, revealed: bool) -> None:
        over = GameOverView(winners=event.winners, shared=event.shared)
        self.game_over(over)
        self.close_all(state, CloseReason.GAME_OVER, over)

    def _abandoned(self, state: GameState, event: GameAbandoned, revealed: bool) -> None:
        over = GameOverView(abandoned=True)
        self.game_over(over)
        self.close_all(state, CloseReason.ABANDONED, over)

    _ON: ClassVar[dict[type[Event], Callable[[Bulletin, GameState, Any, bool], None]]] = {
        RoundDealt: _dealt,
        Swapped: _swapped,
        CardCut: _card_cut,
        Revealed: _revealed,
        LifeLost: _life_lost,
        PlayerEliminated: _eliminated,
        Misdealt: _misdealt,
        PlayerRemoved: _removed,
        SuddenDeathStarted: _sudden_death,
        SuddenDeathDrawn: _sudden_death,
        GameWon: _won,
        GameAbandoned: _abandoned,
    }

    def summary(
        self,
        state: GameState,
        changes: tuple[RatingChange, ...],
        stakes: StakesResult | None = None,
    ) -> None:
        """Add the game's summary to its end: rounds, who went out when, the league's moves,
        and who took the pot of a game played for stakes."""
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
            stakes=stakes,
        )
        if not state.winners:
            return
        moved = {c.player: c for c in changes}
        chips = dict(stakes.moved) if stakes is not None else {}
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
                chips=chips.get(seat.player),
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
        last = last_result(state, actor, rnd.number)
        if deal is None and card_waits(state, last, rnd.number):
            prev = last  # the card waited for this turn: the prompt tells how the round ended
        news, by, gave = News.HELD, None, None
        if prev is not None:
            news = News.DEALT
        if actor in self._swapped_by:
            news, (by, gave) = News.SWAPPED, self._swapped_by[actor]
        elif self._cut and rnd.actor_is_dealer:
            news = News.CUT
        note = PromptNote(
            round=rnd.number,
            turn=state.turn,
            card=rnd.card_of(actor),
            lives=state.lives(actor),
            options=tuple(Move.of(a) for a in legal_actions(state)),
            target=None if rnd.actor_is_dealer else rnd.order[rnd.position + 1],
            cuts_made=rnd.cuts_made,
            news=news,
            by=by,
            gave=gave,
            prev=prev,
            again=rnd.cuts_made > 0 and rnd.actor_is_dealer,
            acts=rnd.acts,
            last=last,
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


def card_waits(state: GameState, prev: RoundResult | None, round_no: int) -> bool:
    """A card of round ``round_no`` dealt to a player who came through the round just before
    it safe (``prev``) is not shown at the deal: it comes with their turn, whose prompt tells
    how that round ended (an edit less a player and round, and one message where there were
    two). Shown at once: the first deal, a deal after the cards were gathered, one after a
    lost life (the loss told as it happens, with the next card), and every deal where the
    turn might not come or the card change unseen before it (One-card Kille's Cuckoo stops a
    round; Coucou's Queens pass an ask over their holder to the player after)."""
    rules = state.rules
    return (
        prev is not None
        and prev.card is not None
        and not prev.lost
        and prev.round == round_no - 1
        and not rules.kille
        and not rules.queens_block
    )


def recalled(state: GameState, player: PlayerId) -> RoundResult | None:
    """How the player's last round ended, when their prompt of this round told it in its first
    line: their card came with the prompt (``card_waits``), or they were the first person to
    play (computer seats play at once, in the same move). Their answer keeps that line."""
    rnd = state.round
    if rnd is None or state.phase is not Phase.TURNS:
        return None
    last = last_result(state, player, rnd.number)
    first = not any(a.player != player and not is_computer(a.player) for a in rnd.acts)
    return last if first or card_waits(state, last, rnd.number) else None


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
    lowest = player in last.lowest
    struck = lost and not lowest and player in last.struck
    return RoundResult(
        round=last.round,
        card=card,
        lost=lost,
        timeout=lost and not lowest and not struck,
        struck=struck,
        spent=card in last.spent,
        lives=lives,
        out=lives == 0,
        tied=len(last.lowest) - 1 if lowest else 0,
    )
