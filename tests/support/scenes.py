"""Real games played to a moment, as the live table's page is sent them.

The page's tests read these, not hand-written views: each is a game the engine played, with a
stacked deck and real moves, written out by the server's own ``Snapshot.view`` (``as_json``).
A test that needs a view no server can send (a leaked card, say) changes one of these, in
plain sight.
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import UTC, datetime, timedelta
from typing import Any

from cuckoo_bot.app.live import Seen
from cuckoo_bot.app.model import Game, GameStatus, Player
from cuckoo_bot.domain.actions import Action, Deal, Keep, PlayerId, Swap, Timeout
from cuckoo_bot.domain.cards import Card
from cuckoo_bot.domain.decks import KILLE, STANDARD, deck_for
from cuckoo_bot.domain.engine import apply, new_game
from cuckoo_bot.domain.rules import HouseRules
from cuckoo_bot.domain.state import GameState, Phase
from cuckoo_bot.i18n.messages import MESSAGES
from cuckoo_bot.i18n.translator import Translator
from cuckoo_bot.transport.render.common import rules_line
from cuckoo_bot.transport.webapp.view import Snapshot

TRANSLATOR = Translator()

GAME = 12
ANA, BOB, EVE, ZOE, CURLY, RTL = 111, 222, 333, 444, 555, 666
HOSTILE = "<img src=x onerror=window.__xss=1>"
# Raw names, as a page might be sent them if the server's cleaning ever let one through.
NAMES = {
    ANA: "Ana",
    BOB: "Bob",
    EVE: HOSTILE,
    ZOE: "Zoë",
    CURLY: "{name}",
    RTL: "\u202eRETSAM",
}
DEADLINE = datetime(2026, 12, 3, 10, 0, tzinfo=UTC)
NOW = DEADLINE - timedelta(seconds=29.876544)  # 09:59:30.123456: 29.9 s of the turn left
# What the server sends: every web_ text of the catalog, without its prefix.
STRINGS = {
    key.removeprefix("web_"): text for key, text in MESSAGES.items() if key.startswith("web_")
}
# The cards a deal gives the seats a scene does not name: middling, never a King or an Ace,
# so they neither block nor lose.
_FILLER = [c for rank in (10, 9, 8, 11, 12, 7, 6, 5) for c in STANDARD.cards if c.rank == rank]
# The same for the Kille deck: its numbers 5 to 9, no card with a power.
_KILLE_FILLER = [c for c in KILLE.cards if 8 <= c.rank <= 12]


class Scene:
    """One game, played move by move by the real engine, and the views its pages get."""

    def __init__(
        self,
        names: Mapping[PlayerId, str],
        *,
        dealer: PlayerId,
        rules: HouseRules | None = None,
        lang: str = "en",
        game_id: int = GAME,
    ) -> None:
        self.game_id = game_id
        self.names = dict(names)
        self.rules = rules or HouseRules(max_players=max(10, len(self.names)))
        self.dealer = dealer
        self.lang = lang
        self.state: GameState | None = None  # the lobby: no game yet
        self.status = GameStatus.LOBBY
        self.version = 1

    # -- playing --------------------------------------------------------------------------------

    def start(self) -> Scene:
        self.state = new_game(list(self.names), self.rules, self.dealer)
        self.status = GameStatus.RUNNING
        self.version += 1
        return self

    def cancel(self) -> Scene:
        self.status = GameStatus.CANCELLED
        self.version += 1
        return self

    def do(self, *actions: Action) -> Scene:
        for action in actions:
            self.state, _ = apply(self.playing, action)
            self.version += 1
        if self.playing.finished:
            self.status = GameStatus.FINISHED
        return self

    def deal(self, cards: Mapping[PlayerId, str], stock: tuple[str, ...] = ()) -> Scene:
        """Deal a round of the scene's deck in which the seats named get those cards (the
        others: ``_FILLER``), the stock starting with ``stock`` (what the dealer cuts)."""
        deck = deck_for(self.rules)
        probe, _ = apply(self.playing, Deal(deck.cards))  # the round's turn order
        assert probe.round is not None
        given = {p: Card.from_code(code) for p, code in cards.items()}
        top = [Card.from_code(code) for code in stock]
        filler = _KILLE_FILLER if deck is KILLE else _FILLER
        spare = [c for c in filler if c not in given.values() and c not in top]
        dealt = [given[p] if p in given else spare.pop(0) for p in probe.round.order]
        rest = top + [c for c in deck.cards if c not in dealt and c not in top]
        return self.do(Deal(tuple(dealt + rest)))

    def keep(self, count: int | None = None) -> Scene:
        """The next ``count`` players keep their cards (None: everyone left this round)."""
        while count is None or count > 0:
            state = self.playing
            if state.phase is not Phase.TURNS or state.round is None:
                break
            self.do(Keep(state.round.actor, state.turn))
            count = None if count is None else count - 1
        return self

    def swap(self) -> Scene:
        state = self.playing
        assert state.round is not None
        return self.do(Swap(state.round.actor, state.turn))

    def time_out(self) -> Scene:
        return self.do(Timeout(self.playing.turn))

    def round(self, cards: Mapping[PlayerId, str]) -> Scene:
        """A whole round in which everyone keeps: the lowest of ``cards`` lose a life."""
        return self.deal(cards).keep()

    @property
    def playing(self) -> GameState:
        assert self.state is not None, "the game has not started"
        return self.state

    # -- what the page is sent ------------------------------------------------------------------

    def game(self) -> Game:
        running = self.status is GameStatus.RUNNING and self.state is not None
        return Game(
            chat_id=-100,
            creator_id=next(iter(self.names)),
            rules=self.rules,
            turn_timeout=90,
            created_at=DEADLINE - timedelta(hours=1),
            id=self.game_id,
            status=self.status,
            seats=list(self.names),
            state=self.state,
            deadline=DEADLINE if running and self.playing.phase is Phase.TURNS else None,
            language=self.lang,
            version=self.version,
        )

    def view(
        self, viewer: PlayerId | None = ANA, *, now: datetime = NOW, strings: bool = True
    ) -> dict[str, Any]:
        """The view the server sends ``viewer``'s page (None: a spectator's)."""
        people = {p: Player(id=p, first_name=name) for p, name in self.names.items()}
        game = self.game()
        rules = rules_line(TRANSLATOR, self.lang, game.rules, game.turn_timeout)
        shot = Snapshot(Seen(game, people, self.lang), dict(self.names), rules)
        view: dict[str, Any] = dict(shot.view(viewer, now))
        if strings:
            view["strings"] = dict(STRINGS)
        return view

    def copy(self) -> Scene:
        twin = Scene(
            self.names, dealer=self.dealer, rules=self.rules, lang=self.lang, game_id=self.game_id
        )
        twin.state, twin.status, twin.version = self.state, self.status, self.version
        return twin


# -- the scenes the page's tests start from ---------------------------------------------------


def played_to_round_four() -> Scene:
    """Six players. Eve lost a life in each of rounds 1-3 and is out; Zoë lost two, Bob one.
    Round 4: Zoë deals; Curly asked Rtl to swap and Rtl's K♠ blocked; Rtl's clock ran out;
    now it is Ana's turn (the third), holding 7♦."""
    scene = Scene(NAMES, dealer=ANA).start()
    scene.round({EVE: "AC", ZOE: "AD"})
    scene.round({EVE: "AC", ZOE: "AD"})
    scene.round({EVE: "AC", BOB: "AH"})
    scene.deal({CURLY: "5C", RTL: "KS", ANA: "7D", BOB: "QC", ZOE: "2H"})
    return scene.swap().time_out()


def running() -> Scene:
    scene = played_to_round_four()
    assert scene.playing.round is not None and scene.playing.round.actor == ANA
    return scene


def revealed() -> Scene:
    """``running``, everyone left kept: Zoë's 2♥ is the lowest and her last life goes."""
    return running().keep()


def finished() -> Scene:
    """``revealed``, then three rounds in which Ana, Curly and Rtl hold the Aces: all three
    go out together and Bob wins."""
    scene = revealed()
    for _ in range(3):
        scene.round({ANA: "AC", CURLY: "AD", RTL: "AH", BOB: "QS"})
    assert scene.status is GameStatus.FINISHED and scene.playing.winners == (BOB,)
    return scene


def lobby(game_id: int = GAME) -> Scene:
    return Scene(NAMES, dealer=ANA, game_id=game_id)


def crowded(count: int) -> Scene:
    """``count`` players with long, mixed-script names, round 1 dealt; Ana holds A♠."""
    long_names = ["W" * 64, "Ngô Đình Diệm", "محمد", "👨\u200d👩\u200d👧\u200d👦 Family", "Zalgơ̷̢"]
    names = {ANA: "Ana"} | {
        1000 + i: long_names[i % len(long_names)] + f" {i}" for i in range(1, count)
    }
    scene = Scene(names, dealer=1000 + count - 1).start()
    return scene.deal({ANA: "AS"})
