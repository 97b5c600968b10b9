"""A group's past games: the list of the last finished ones, and one game told round by round
from its log, in the table's words, over as many messages as it takes."""

from __future__ import annotations

from dataclasses import dataclass, field

from cuckoo_bot.app.notices import Announcement, GameOverView
from cuckoo_bot.app.queries import History, Story
from cuckoo_bot.domain import codec
from cuckoo_bot.domain.cards import Card
from cuckoo_bot.domain.decks import deck_of
from cuckoo_bot.domain.events import (
    CardCut,
    CutBlocked,
    GameAbandoned,
    GameWon,
    Kept,
    LifeLossCause,
    LifeLost,
    Misdealt,
    PlayerEliminated,
    PlayerRemoved,
    Revealed,
    RoundDealt,
    RoundStopped,
    SuddenDeathDrawn,
    SuddenDeathStarted,
    SwapBlocked,
    SwapPassedOn,
    Swapped,
    SwapStruck,
    TimedOut,
)
from cuckoo_bot.domain.state import Act, ActKind
from cuckoo_bot.transport.render.common import (
    MAX_TEXT,
    Players,
    card_label,
    fit,
    name_of,
    pages,
    queen_blocked,
    shown_card,
    sign,
    utf16_len,
)
from cuckoo_bot.transport.render.group import GroupPart

# The events a table's row tells, one act each.
TableAct = (
    Kept
    | TimedOut
    | Swapped
    | SwapBlocked
    | SwapPassedOn
    | SwapStruck
    | RoundStopped
    | CardCut
    | CutBlocked
)


def loss_key(cause: LifeLossCause) -> str:
    """The words for a life lost: to the lowest card, to the clock, or to a Kille strike."""
    return {
        LifeLossCause.TIMEOUT: "reveal_lost_timeout",
        LifeLossCause.STRUCK: "reveal_lost_struck",
    }.get(cause, "reveal_lost")


class StoryPart(GroupPart):
    def history(self, lang: str, history: History) -> str:
        """The group's last finished games: number, date, players, winner, rounds."""
        t = self.tr.t
        lines = [t(lang, "history_title"), ""]
        if not history.games:
            return "\n".join([*lines, t(lang, "history_empty")])
        for game in history.games:
            players = self.cast(history.players, game.seats, lang)
            state = game.state
            assert state is not None
            when = game.finished_at or game.created_at
            lines.append(
                t(
                    lang,
                    "history_line",
                    game=game.id,
                    date=when.strftime("%Y-%m-%d"),
                    winner=", ".join(name_of(players, w) for w in state.winners) or "—",
                    rounds=self.tr.count(lang, "count_rounds", state.rounds_dealt),
                    players=", ".join(name_of(players, p) for p in game.seats),
                )
            )
        lines += ["", t(lang, "history_hint", game=history.games[0].id)]
        return fit("\n".join(lines))

    def story(self, lang: str, story: Story) -> list[str]:
        """One game round by round, as its log tells it; as many messages as it takes."""
        t = self.tr.t
        players = self.cast(story.players, story.game.seats, lang)
        blocks: list[list[str]] = [[t(lang, "story_title", game=story.game.id)]]
        acts: list[str] = []
        seen = _RoundSoFar(dealer=0)

        def close_acts() -> None:
            if acts:
                blocks[-1].append(" ".join(acts))
                acts.clear()

        for entry in story.log:
            for event in entry.events:
                if isinstance(event, RoundDealt):
                    close_acts()
                    seen = _RoundSoFar(dealer=event.dealer)
                    dealer = name_of(players, event.dealer)
                    blocks.append([t(lang, "table_title", round=event.round, dealer=dealer)])
                elif isinstance(event, TableAct):
                    act = _act_of(event)
                    call = self.call(lang, story.game.rules)
                    acts.append(
                        self._act(lang, act, players, seen.dealer, call, after_cut=seen.cut)
                    )
                    seen.see(event)
                elif isinstance(event, Revealed):
                    close_acts()
                    cards = " · ".join(
                        f"{name_of(players, p)} {shown_card(c, c in seen.spent, lang, self.tr)}"
                        + (" ⬇️" if p in event.lowest else "")
                        for p, c in zip(event.order, event.cards, strict=True)
                    )
                    blocks[-1].append(f"👀 {cards}")
                elif isinstance(event, LifeLost):
                    key = loss_key(event.cause)
                    blocks[-1].append(t(lang, key, name=name_of(players, event.player)))
                elif isinstance(event, PlayerEliminated):
                    blocks[-1].append(t(lang, "reveal_out", name=name_of(players, event.player)))
                elif isinstance(
                    event, Misdealt | PlayerRemoved | SuddenDeathStarted | SuddenDeathDrawn
                ):
                    close_acts()
                    note = Announcement(codec.event_name(event), codec.dump_event(event))
                    blocks[-1].append(self.announce(note, players, lang).text)
                elif isinstance(event, GameWon | GameAbandoned):
                    close_acts()
                    view = (
                        GameOverView(winners=event.winners, shared=event.shared)
                        if isinstance(event, GameWon)
                        else GameOverView(abandoned=True)
                    )
                    blocks.append([self.game_over(view, None, players, lang).text])
        close_acts()
        return pages(["\n".join(block) for block in blocks])

    def _act(
        self,
        lang: str,
        act: Act,
        players: Players,
        dealer: int,
        call: str,
        after_cut: bool | None = False,
    ) -> str:
        """One act in the table's words, a sentence. A dealer's keep after a cut keeps the cut
        card (``after_cut`` True), or their own after cutting only Kings (None)."""
        t = self.tr.t
        name = name_of(players, act.player)
        kind = act.kind
        if kind is ActKind.KEEP:
            if act.player == dealer:
                key = {True: "act_dealer_stands", None: "act_dealer_keeps_own"}
                return t(lang, key.get(after_cut, "act_dealer_keep"), name=name)
            return t(lang, "act_keep", name=name)
        if kind is ActKind.TIMEOUT:
            return t(lang, "act_timeout", name=name)
        target = name_of(players, act.target) if act.target is not None else ""
        if kind is ActKind.SWAP:
            return t(lang, "act_swap", name=name, target=target)
        king = card_label(act.shown.code, lang) if act.shown is not None else ""
        mark = sign(act.shown)
        if kind is ActKind.PASSED:
            return t(lang, "act_passed", name=name, target=target, king=king, sign=mark)
        if queen_blocked(act):
            return t(lang, "act_queen_blocked", name=name, target=target, king=king, sign=mark)
        if kind in (ActKind.STOPPED, ActKind.STRUCK):
            return t(lang, f"act_{kind.value}", name=name, target=target, king=king)
        if kind is ActKind.BLOCKED:
            return t(lang, "act_blocked", name=name, target=target, king=king, call=call)
        if kind is ActKind.CUT:
            return t(lang, "act_cut", name=name)
        return t(lang, "act_cut_blocked", name=name, king=king)


@dataclass
class _RoundSoFar:
    """What the story knows of the round it tells: its dealer, whether they cut a card (True),
    only Kings a block set aside (None) or nothing yet (False), and the cards a swap spent (a
    Kille Harlequin that changed hands: the lowest at the reveal)."""

    dealer: int
    cut: bool | None = False
    spent: set[Card] = field(default_factory=set)

    def see(self, event: object) -> None:
        if isinstance(event, CardCut):
            self.cut = True
        elif isinstance(event, CutBlocked) and not self.cut:
            self.cut = None
        elif isinstance(event, Swapped):
            cards = (event.player_card, event.neighbour_card)
            self.spent |= {c for c in cards if deck_of(c).spent_by_swap(c)}


def collapsed(pages: list[str]) -> str | None:
    """A story of one message, its rounds folded away under the title (an expandable quote a
    reader opens with a tap); None when the story takes more than one message."""
    if len(pages) != 1:
        return None
    title, _, rest = pages[0].partition("\n")
    text = f"{title}\n<blockquote expandable>{rest.strip()}</blockquote>"
    return text if rest.strip() and utf16_len(text) <= MAX_TEXT else None


def _act_of(event: TableAct) -> Act:
    """The table's words for an event of the log (the same as during the game)."""
    if isinstance(event, Kept):
        return Act(event.player, ActKind.KEEP)
    if isinstance(event, TimedOut):
        return Act(event.player, ActKind.TIMEOUT)
    if isinstance(event, Swapped):
        return Act(event.player, ActKind.SWAP, target=event.neighbour)
    if isinstance(event, SwapBlocked):
        return Act(event.player, ActKind.BLOCKED, target=event.neighbour, shown=event.king)
    if isinstance(event, SwapPassedOn):
        return Act(event.player, ActKind.PASSED, target=event.neighbour, shown=event.queen)
    if isinstance(event, SwapStruck):
        return Act(event.player, ActKind.STRUCK, target=event.neighbour, shown=event.card)
    if isinstance(event, RoundStopped):
        return Act(event.player, ActKind.STOPPED, target=event.neighbour, shown=event.cuckoo)
    if isinstance(event, CardCut):
        return Act(event.dealer, ActKind.CUT)
    return Act(event.dealer, ActKind.CUT_BLOCKED, shown=event.king)
