"""The group's other messages: a turn asked in the group (for a player the bot cannot write
to), a one-off announcement (misdeal, a player removed, sudden death), and the game's end."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from typing import Any

from cuckoo_bot.app.model import Game, StakesResult
from cuckoo_bot.app.notices import Announcement, GameOverView, Notice, TurnView
from cuckoo_bot.domain.events import (
    Event,
    Misdealt,
    PlayerRemoved,
    RemovalReason,
    SuddenDeathDrawn,
    SuddenDeathStarted,
)
from cuckoo_bot.transport import keydata
from cuckoo_bot.transport.render.common import (
    Known,
    Part,
    Players,
    Rendered,
    card_label,
    fit,
    keys,
    mention,
    move_row,
    name_of,
)

MEDALS = {1: "🥇", 2: "🥈", 3: "🥉"}


class GroupPart(Part):
    def group_notice(self, notice: Notice, game: Game | None, known: Known, lang: str) -> Rendered:
        """A turn asked in the group, a one-off announcement, or the end of the game."""
        players = self.cast(known, game.seats if game is not None else (), lang)
        payload = notice.payload
        if isinstance(payload, TurnView):
            assert game is not None
            return self.turn(payload, game, players, lang)
        if isinstance(payload, GameOverView):
            return self.game_over(payload, game, players, lang)
        assert isinstance(payload, Announcement)
        return replace(self.announce(payload, players, lang), quiet=True)

    def turn(self, view: TurnView, game: Game, players: Players, lang: str) -> Rendered:
        """A turn in the group, for a player the bot cannot write to: a mention and the keys."""
        t = self.tr.t
        clock = self.clock(lang, game, view.deadline)
        who = mention(players, view.actor)
        if view.target is None and view.cuts_made > 0:
            line = t(lang, "turn_prompt_cut_again", mention=who, clock=clock)
        elif view.target is None:
            line = t(lang, "turn_prompt_dealer", mention=who, clock=clock)
        else:
            target = name_of(players, view.target)
            line = t(lang, "turn_prompt", mention=who, target=target, clock=clock)
        row = move_row(self.tr, lang, view.options, game, view.round, view.turn)
        my_card = [(t(lang, "btn_my_card"), keydata.KeyData(keydata.MY_CARD, game.id).encode())]
        return Rendered(f"{line}\n<i>{t(lang, 'turn_private_hint')}</i>", keys([row, my_card]))

    def game_over(
        self, view: GameOverView, game: Game | None, players: Players, lang: str
    ) -> Rendered:
        """The result, then the game in short: rounds, who went out when, the league's moves;
        and a key to play again."""
        t = self.tr.t
        if view.abandoned:
            return Rendered(t(lang, "game_abandoned"))
        names = [name_of(players, w) for w in view.winners]
        if view.shared:
            lines = [t(lang, "game_won_shared", names=", ".join(names))]
        else:
            lines = [t(lang, "game_won", name=names[0])]
        if view.stakes is not None:
            lines += self._pot(view.stakes, players, lang)
        if view.rounds:
            rounds = self.tr.count(lang, "count_rounds", view.rounds)
            lines += ["", t(lang, "summary_rounds", rounds=rounds)]
        if view.places:
            lines += ["", t(lang, "summary_podium"), *self._podium(view, players, lang)]
        keyboard = None
        if game is not None:
            data = keydata.KeyData(keydata.AGAIN, game.id).encode()
            keyboard = keys([[(t(lang, "btn_play_again"), data)]])
        return Rendered(fit("\n".join(lines)), keyboard)

    def _pot(self, stakes: StakesResult, players: Players, lang: str) -> list[str]:
        """Who took the pot of a game played for stakes, and what stays for the next one."""
        t, count = self.tr.t, self.tr.count
        names = ", ".join(name_of(players, p) for p, _ in stakes.takes)
        pot = count(lang, "count_chips", stakes.pot)
        lines = []
        if len(stakes.takes) == 1:
            lines.append(t(lang, "pot_taken", name=names, chips=pot))
        elif stakes.takes:
            each = count(lang, "count_chips", stakes.takes[0][1])
            lines.append(t(lang, "pot_shared", names=names, chips=pot, each=each))
        if stakes.left:
            lines.append(count(lang, "pot_left", stakes.left))
        return lines

    def _podium(self, view: GameOverView, players: Players, lang: str) -> list[str]:
        """Everyone in the order they finished (players out in the same round share a place),
        each with the round they went out, the points the game won or cost them in the group's
        table this month, and their place there."""
        t = self.tr.t
        out = {e.player: e.round for e in view.out}
        changes = {c.player: c for c in view.changes}
        lines = []
        for player, place in view.places:
            details = []
            if player in out:
                details.append(t(lang, "podium_out", round=out[player]))
            change = changes.get(player)
            if change is not None:
                sign = "+" if change.points >= 0 else "−"
                details.append(self.tr.count(lang, "count_points", abs(change.points), sign=sign))
                details.append(t(lang, "podium_month", place=change.place))
            mark = MEDALS.get(place, f"{place}.")
            lines.append(" · ".join([f"{mark} {name_of(players, player)}", *details]))
        return lines

    def announce(self, payload: Announcement, players: Players, lang: str) -> Rendered:
        """A line in passing (a misdeal, a player gone, sudden death): each kind of event
        told by its own function (``ANNOUNCED``)."""
        say = Say(lambda key, **kw: self.tr.t(lang, key, **kw), lang)
        lines = []
        for line in payload.lines():
            event = line.load()
            lines.append(ANNOUNCED[type(event)](say, event, players))
        return Rendered("\n".join(lines))


class Say:
    """A message key and its fields in the reader's language; and a card as they read it."""

    def __init__(self, t: Callable[..., str], lang: str) -> None:
        self.t, self.lang = t, lang

    def __call__(self, key: str, **fields: Any) -> str:
        return self.t(key, **fields)

    def card(self, code: str) -> str:
        return card_label(code, self.lang)


def _misdealt(t: Say, event: Any, players: Players) -> str:
    return t("ann_misdealt")


def _removed(t: Say, event: Any, players: Players) -> str:
    assert isinstance(event, PlayerRemoved)
    key = {RemovalReason.IDLE: "ann_removed_idle", RemovalReason.REMOVED: "ann_removed"}.get(
        event.reason, "ann_resigned"
    )
    return t(key, name=name_of(players, event.player))


def _sudden_death(t: Say, event: Any, players: Players) -> str:
    assert isinstance(event, SuddenDeathStarted)
    return t("ann_sudden_death", names=", ".join(name_of(players, p) for p in event.players))


def _sudden_draw(t: Say, event: Any, players: Players) -> str:
    assert isinstance(event, SuddenDeathDrawn)
    cards = ", ".join(
        f"{name_of(players, p)} {t.card(c.code)}"
        for p, c in zip(event.players, event.cards, strict=True)
    )
    text = t("ann_sudden_draw", cards=cards)
    if len(event.leaders) > 1:
        text += "\n" + t(
            "ann_sudden_again", names=", ".join(name_of(players, p) for p in event.leaders)
        )
    return text


# The events the group is told of in a line of their own (``Bulletin.announce``).
ANNOUNCED: dict[type[Event], Callable[[Say, Any, Players], str]] = {
    Misdealt: _misdealt,
    PlayerRemoved: _removed,
    SuddenDeathStarted: _sudden_death,
    SuddenDeathDrawn: _sudden_draw,
}
