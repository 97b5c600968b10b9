"""The one entry point of the rules: ``apply(state, action) -> (state, events)``.

Randomness enters only through ``Deal`` (a deck shuffled by the caller's generator), so the
same actions always replay to the same state.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import replace

from cuckoo_bot.domain.actions import (
    Action,
    Cut,
    Deal,
    Keep,
    Misdeal,
    PlayerId,
    Resign,
    Swap,
    Timeout,
    TurnAction,
)
from cuckoo_bot.domain.cards import Card
from cuckoo_bot.domain.decks import Deck, Refusal, deck_for
from cuckoo_bot.domain.errors import (
    GameOver,
    IllegalAction,
    InvalidDeck,
    InvalidTable,
    NotInGame,
    NotYourTurn,
    StaleTurn,
)
from cuckoo_bot.domain.events import (
    CardCut,
    CutBlocked,
    Event,
    GameAbandoned,
    GameWon,
    Kept,
    LifeLossCause,
    LifeLost,
    Misdealt,
    PlayerEliminated,
    PlayerRemoved,
    RemovalReason,
    Revealed,
    RoundDealt,
    RoundEnded,
    RoundStopped,
    SuddenDeathDrawn,
    SuddenDeathStarted,
    SwapBlocked,
    SwapPassedOn,
    Swapped,
    SwapStruck,
    TimedOut,
    TurnStarted,
)
from cuckoo_bot.domain.rules import FinalTie, HouseRules
from cuckoo_bot.domain.state import Act, ActKind, GameState, Phase, Reveal, Round, Seat

Result = tuple[GameState, tuple[Event, ...]]


def new_game(players: Sequence[PlayerId], rules: HouseRules, first_dealer: PlayerId) -> GameState:
    """Seat ``players`` clockwise in the given order; the first deal is still to come."""
    if len(set(players)) != len(players):
        raise InvalidTable("a player can only sit once")
    if not rules.min_players <= len(players) <= rules.max_players:
        raise InvalidTable(
            f"{len(players)} players; this table takes {rules.min_players}..{rules.max_players}"
        )
    if first_dealer not in players:
        raise InvalidTable("the first dealer must be at the table")
    seats = tuple(Seat(player=p, lives=rules.lives) for p in players)
    return GameState(rules=rules, seats=seats, dealer=first_dealer)


def draw_first_dealer(players: Sequence[PlayerId], rng: random.Random) -> PlayerId:
    """Rule 3: the first dealer is drawn at random."""
    return rng.choice(list(players))


def legal_actions(state: GameState) -> tuple[TurnAction, ...]:
    """The choices open to the player to act; empty when the game waits for a deal or is over."""
    if state.phase is not Phase.TURNS or state.round is None:
        return ()
    rnd = state.round
    player = rnd.actor
    if rnd.actor_is_dealer:
        if rnd.cuts_made < _cuts_allowed(state.rules) and rnd.stock:
            return (Keep(player, state.turn), Cut(player, state.turn))
        return (Keep(player, state.turn),)
    return (Keep(player, state.turn), Swap(player, state.turn))


def apply(state: GameState, action: Action) -> Result:
    """Apply one action; raise a ``RuleError`` if the rules forbid it."""
    if isinstance(action, Timeout):
        return _timeout(state, action)
    if state.phase is Phase.FINISHED:
        raise GameOver("the game is over")
    if isinstance(action, Deal):
        return _deal(state, action.deck)
    if isinstance(action, Resign):
        return _resign(state, action.player, action.by)
    if isinstance(action, Misdeal):
        if state.phase is not Phase.TURNS:
            raise IllegalAction("there is no deal to gather")
        return _gather(state, [])
    return _turn_action(state, action)


# -- dealing -------------------------------------------------------------------------------


def _check_deck(state: GameState, deck: tuple[Card, ...]) -> None:
    playing = deck_for(state.rules)
    if not playing.is_whole(deck):
        raise InvalidDeck(f"a deal needs the {len(playing.cards)} distinct cards of the deck")


def _deal(state: GameState, deck: tuple[Card, ...]) -> Result:
    _check_deck(state, deck)
    if state.phase is Phase.SUDDEN_DEATH:
        return _sudden_death_draw(state, deck)
    if state.phase is not Phase.DEALING:
        raise IllegalAction("a round is already being played")
    events: list[Event] = []
    state = _remove_idle(state, events)
    if state.phase is Phase.FINISHED:
        return state, tuple(events)
    dealer = state.dealer if state.seat(state.dealer).active else _next_active(state, state.dealer)
    order = _turn_order(state, dealer)
    number = state.rounds_dealt + 1
    cards = deck[: len(order)]
    rnd = Round(
        number=number,
        dealer=dealer,
        order=order,
        cards=cards,
        stock=deck[len(order) :],
        dealt=cards,
    )
    state = replace(state, dealer=dealer, phase=Phase.TURNS, round=rnd, rounds_dealt=number)
    events.append(RoundDealt(round=number, dealer=dealer, order=order, cards=cards))
    return _prompt(state, events)


def _remove_idle(state: GameState, events: list[Event]) -> GameState:
    """Players who let too many turns in a row time out leave at the next deal."""
    idle = [
        s.player for s in state.seats if s.active and s.idle_turns >= state.rules.idle_turn_limit
    ]
    if not idle:
        return state
    if len(idle) == len(state.active_players):
        events.append(GameAbandoned())
        return replace(state, phase=Phase.FINISHED, abandoned=True)
    for player in idle:
        state = _eliminate(state, player, RemovalReason.IDLE, events)
    return _settle_if_one_left(state, events)


def _turn_order(state: GameState, dealer: PlayerId) -> tuple[PlayerId, ...]:
    order: list[PlayerId] = []
    player = dealer
    while True:
        player = _next_active(state, player)
        order.append(player)
        if player == dealer:
            return tuple(order)


def _next_active(state: GameState, player: PlayerId) -> PlayerId:
    """The nearest active player on the left (clockwise) of ``player``'s seat."""
    players = state.players
    start = players.index(player)
    for step in range(1, len(players) + 1):
        seat = state.seats[(start + step) % len(players)]
        if seat.active:
            return seat.player
    raise InvalidTable("nobody is left at the table")


def _prompt(state: GameState, events: list[Event]) -> Result:
    assert state.round is not None
    rnd = state.round
    turn = state.turn + 1
    events.append(
        TurnStarted(
            turn=turn, player=rnd.actor, is_dealer=rnd.actor_is_dealer, cuts_made=rnd.cuts_made
        )
    )
    return replace(state, turn=turn), tuple(events)


# -- turns ---------------------------------------------------------------------------------


def _cuts_allowed(rules: HouseRules) -> int:
    return 2 if rules.double_cut else 1


def _turn_action(state: GameState, action: TurnAction) -> Result:
    if state.phase is not Phase.TURNS or state.round is None:
        raise IllegalAction("no turn is being played")
    if action.player not in state.round.order:
        raise NotInGame("not dealt into this round")
    if action.turn is not None and action.turn != state.turn:
        raise StaleTurn(f"turn {action.turn} is over; now {state.turn}")
    if action.player != state.round.actor:
        raise NotYourTurn(f"waiting for {state.round.actor}")
    if not any(type(option) is type(action) for option in legal_actions(state)):
        raise IllegalAction(f"{type(action).__name__} is not open to this player now")
    rnd = state.round
    player = action.player
    state = _reset_idle(state, player)
    events: list[Event] = []
    if isinstance(action, Keep):
        events.append(Kept(player=player, is_dealer=rnd.actor_is_dealer))
        rnd = _record(rnd, Act(player, ActKind.KEEP))
        return _advance(replace(state, round=rnd), events)
    if isinstance(action, Swap):
        return _swap(state, rnd, player, events)
    return _cut(state, rnd, player, events)


def _swap(state: GameState, rnd: Round, player: PlayerId, events: list[Event]) -> Result:
    """Rule 6: the neighbour on the left gives their card for the asker's, unless their card
    refuses (``decks.Refusal``, the README's exact rules):

    - a King blocks: the asker keeps their card;
    - Coucou's Queen, the Kille Inn or Cavalier sends the ask on to the player after her
      holder (never back to the asker). The 52 cards allow one such try: a King or a second
      Queen there blocks. The Kille deck's pass on and on. With nobody after, it blocks;
    - the Kille Cuckoo stops the round: no swap, the reveal at once;
    - the Kille Hussar or Pig strikes the asker: no swap, a life at the reveal.

    A Kille Harlequin that changes hands is spent: it ranks lowest from then on. The dealer's
    cut is never touched by these (only the deck's blocker stops it)."""
    rules, deck = state.rules, deck_for(state.rules)
    index, passes = rnd.position + 1, 0
    while True:
        target, theirs = rnd.order[index], rnd.cards[index]
        refusal = deck.refusal(theirs, rules)
        if refusal is not Refusal.PASS_ON:
            break
        if passes == deck.pass_limit or index + 1 == len(rnd.order):
            refusal = Refusal.BLOCK  # no more tries: the card refuses as a King would
            break
        events.append(
            SwapPassedOn(player=player, neighbour=target, queen=theirs, next=rnd.order[index + 1])
        )
        rnd = _record(rnd, Act(player, ActKind.PASSED, target=target, shown=theirs))
        index, passes = index + 1, passes + 1
    if refusal is Refusal.NONE:
        return _advance(replace(state, round=_exchange(rnd, index, deck, events)), events)
    kind = _REFUSED[refusal]
    rnd = _record(rnd, Act(player, kind, target=target, shown=theirs))
    if refusal is Refusal.STOP:
        events.append(RoundStopped(player=player, neighbour=target, cuckoo=theirs))
        return _reveal(replace(state, round=rnd), events)
    if refusal is Refusal.STRIKE:
        events.append(SwapStruck(player=player, neighbour=target, card=theirs))
        rnd = replace(rnd, struck=(*rnd.struck, player))
    else:
        events.append(SwapBlocked(player=player, neighbour=target, king=theirs))
    return _advance(replace(state, round=rnd), events)


_REFUSED = {
    Refusal.BLOCK: ActKind.BLOCKED,
    Refusal.STOP: ActKind.STOPPED,
    Refusal.STRIKE: ActKind.STRUCK,
}


def _exchange(rnd: Round, index: int, deck: Deck, events: list[Event]) -> Round:
    """The actor and the player at ``index`` trade cards (a Kille Harlequin in it is spent)."""
    player, target = rnd.actor, rnd.order[index]
    mine, theirs = rnd.cards[rnd.position], rnd.cards[index]
    cards = list(rnd.cards)
    cards[rnd.position], cards[index] = theirs, mine
    events.append(Swapped(player=player, neighbour=target, player_card=theirs, neighbour_card=mine))
    spent = tuple(c for c in (mine, theirs) if deck.spent_by_swap(c) and c not in rnd.spent)
    rnd = replace(rnd, cards=tuple(cards), spent=(*rnd.spent, *spent))
    return _record(rnd, Act(player, ActKind.SWAP, target=target))


def _cut(state: GameState, rnd: Round, dealer: PlayerId, events: list[Event]) -> Result:
    top, stock = rnd.stock[0], rnd.stock[1:]
    held = rnd.cards[rnd.position]
    if deck_for(state.rules).blocks_cut(top, state.rules):
        events.append(CutBlocked(dealer=dealer, king=top))
        rnd = replace(rnd, stock=stock, set_aside=(*rnd.set_aside, top))
        rnd = _record(rnd, Act(dealer, ActKind.CUT_BLOCKED, shown=top))
    else:
        cards = (*rnd.cards[:-1], top)
        events.append(CardCut(dealer=dealer, old_card=held, new_card=top))
        rnd = replace(rnd, stock=stock, cards=cards, discard=(*rnd.discard, held))
        rnd = _record(rnd, Act(dealer, ActKind.CUT))
    rnd = replace(rnd, cuts_made=rnd.cuts_made + 1)
    state = replace(state, round=rnd)
    if rnd.cuts_made < _cuts_allowed(state.rules) and rnd.stock:
        return _prompt(state, events)  # double cut: the dealer may cut once more
    return _reveal(state, events)


def _timeout(state: GameState, action: Timeout) -> Result:
    if state.phase is not Phase.TURNS or state.round is None or action.turn != state.turn:
        return state, ()  # stale: the turn it was armed for is over
    rnd = state.round
    player = rnd.actor
    if rnd.actor_is_dealer and rnd.cuts_made > 0:
        # The dealer already acted this turn; a lapsed second-cut choice just stands.
        events: list[Event] = [Kept(player=player, is_dealer=True)]
        return _reveal(replace(state, round=_record(rnd, Act(player, ActKind.KEEP))), events)
    penalised = state.rules.fast_turns
    seats = tuple(
        replace(s, idle_turns=s.idle_turns + 1) if s.player == player else s for s in state.seats
    )
    rnd = _record(rnd, Act(player, ActKind.TIMEOUT))
    if penalised:
        rnd = replace(rnd, penalised=(*rnd.penalised, player))
    events = [TimedOut(player=player, turn=action.turn, penalised=penalised)]
    return _advance(replace(state, seats=seats, round=rnd), events)


def _reset_idle(state: GameState, player: PlayerId) -> GameState:
    seats = tuple(
        replace(s, idle_turns=0) if s.player == player and s.idle_turns else s for s in state.seats
    )
    return replace(state, seats=seats)


def _record(rnd: Round, act: Act) -> Round:
    return replace(rnd, acts=(*rnd.acts, act))


def _advance(state: GameState, events: list[Event]) -> Result:
    assert state.round is not None
    if state.round.actor_is_dealer:
        return _reveal(state, events)
    return _prompt(
        replace(state, round=replace(state.round, position=state.round.position + 1)), events
    )


# -- reveal and the end of the game --------------------------------------------------------


def _reveal(state: GameState, events: list[Event]) -> Result:
    assert state.round is not None
    rnd = state.round
    deck = deck_for(state.rules)

    def rank(card: Card) -> int:
        return deck.lowest - 1 if card in rnd.spent else deck.rank(card)

    lowest_rank = min(rank(card) for card in rnd.cards)
    lowest = tuple(p for p, c in zip(rnd.order, rnd.cards, strict=True) if rank(c) == lowest_rank)
    events.append(Revealed(round=rnd.number, order=rnd.order, cards=rnd.cards, lowest=lowest))
    eliminated: list[PlayerId] = []
    seats = list(state.seats)
    for i, seat in enumerate(seats):
        # Fast turns and the Kille strikes: a player loses one life in all, even when also
        # lowest (the lowest card tells first, then the strike, then the clock).
        if seat.player in lowest:
            cause = LifeLossCause.LOWEST
        elif seat.player in rnd.struck:
            cause = LifeLossCause.STRUCK
        elif seat.player in rnd.penalised:
            cause = LifeLossCause.TIMEOUT
        else:
            continue
        lives = seat.lives - 1
        events.append(LifeLost(player=seat.player, lives_left=lives, cause=cause))
        if lives == 0:
            eliminated.append(seat.player)
            events.append(PlayerEliminated(player=seat.player, round=rnd.number))
        seats[i] = replace(
            seat, lives=lives, eliminated_in_round=rnd.number if lives == 0 else None
        )
    # The revealed round stays on the table (``state.round``) until the next deal gathers it;
    # what it showed is kept longer, for the next round to recall.
    shown = Reveal(rnd.number, rnd.order, rnd.cards, lowest, rnd.penalised, rnd.struck, rnd.spent)
    state = replace(state, seats=tuple(seats), last_reveal=shown)
    remaining = state.active_players
    if len(remaining) == 1:
        return _win(state, remaining, events)
    if not remaining:
        # Every remaining player, each on a last life, went out together (rule 9).
        if state.rules.final_tie is FinalTie.SUDDEN_DEATH and len(eliminated) > 1:
            events.append(SuddenDeathStarted(players=tuple(eliminated)))
            return replace(state, phase=Phase.SUDDEN_DEATH, sudden_death=tuple(eliminated)), tuple(
                events
            )
        return _win(state, tuple(eliminated), events)
    stays = state.rules.dealer_stays and state.seat(rnd.dealer).active
    next_dealer = rnd.dealer if stays else _next_active(state, rnd.dealer)
    events.append(RoundEnded(round=rnd.number, next_dealer=next_dealer))
    return replace(state, phase=Phase.DEALING, dealer=next_dealer), tuple(events)


def _sudden_death_draw(state: GameState, deck: tuple[Card, ...]) -> Result:
    players = state.sudden_death
    cards = deck[: len(players)]
    rank = deck_for(state.rules).rank
    best = max(rank(card) for card in cards)
    leaders = tuple(p for p, c in zip(players, cards, strict=True) if rank(c) == best)
    events: list[Event] = [SuddenDeathDrawn(players=players, cards=cards, leaders=leaders)]
    if len(leaders) == 1:
        return _win(state, leaders, events)
    return replace(state, sudden_death=leaders), tuple(events)


def _win(state: GameState, winners: tuple[PlayerId, ...], events: list[Event]) -> Result:
    shared = len(winners) > 1
    events.append(GameWon(winners=winners, shared=shared))
    done = replace(
        state,
        phase=Phase.FINISHED,
        winners=winners,
        shared_victory=shared,
        sudden_death=(),
    )
    return done, tuple(events)


# -- leaving -------------------------------------------------------------------------------


def _eliminate(
    state: GameState, player: PlayerId, reason: RemovalReason, events: list[Event]
) -> GameState:
    round_number = state.round.number if state.round is not None else state.rounds_dealt
    events.append(PlayerRemoved(player=player, reason=reason))
    events.append(PlayerEliminated(player=player, round=round_number))
    seats = tuple(
        replace(s, lives=0, eliminated_in_round=round_number) if s.player == player else s
        for s in state.seats
    )
    return replace(state, seats=seats)


def _settle_if_one_left(state: GameState, events: list[Event]) -> GameState:
    remaining = state.active_players
    if len(remaining) == 1:
        state, _ = _win(state, remaining, events)
    return state


def _resign(state: GameState, player: PlayerId, by: PlayerId | None = None) -> Result:
    if player not in state.players:
        raise NotInGame("not at this table")
    reason = RemovalReason.REMOVED if by is not None and by != player else RemovalReason.RESIGNED
    events: list[Event] = []
    if state.phase is Phase.SUDDEN_DEATH and player in state.sudden_death:
        # Everyone in sudden death is already on zero lives: leaving just drops out of the draw.
        rest = tuple(p for p in state.sudden_death if p != player)
        events.append(PlayerRemoved(player=player, reason=reason))
        if len(rest) == 1:
            return _win(state, rest, events)
        return replace(state, sudden_death=rest), tuple(events)
    if not state.seat(player).active:
        raise IllegalAction("already out of the game")
    state = _eliminate(state, player, reason, events)
    if state.phase is Phase.TURNS:
        return _gather(state, events)
    state = _settle_if_one_left(state, events)
    if state.phase is Phase.DEALING and not state.seat(state.dealer).active:
        state = replace(state, dealer=_next_active(state, state.dealer))
    return state, tuple(events)


def _gather(state: GameState, events: list[Event]) -> Result:
    """Rule 10: the deal is gathered and dealt again, nobody loses a life."""
    assert state.round is not None
    rnd = state.round
    state = replace(state, phase=Phase.DEALING)
    state = _settle_if_one_left(state, events)
    if state.phase is Phase.FINISHED:
        return state, tuple(events)
    dealer = rnd.dealer if state.seat(rnd.dealer).active else _next_active(state, rnd.dealer)
    events.append(Misdealt(round=rnd.number, next_dealer=dealer))
    return replace(state, dealer=dealer), tuple(events)
