"""The round's table in the group: the lives, the acts so far, whose turn it is, then the
reveal; later rounds folded under it; and the words for one act, which a game's story reuses."""

from __future__ import annotations

from cuckoo_bot.app.model import Game
from cuckoo_bot.app.notices import Notice, TableView
from cuckoo_bot.domain.events import LifeLossCause
from cuckoo_bot.domain.state import Act, ActKind
from cuckoo_bot.transport import callbacks as cb
from cuckoo_bot.transport.render.common import (
    Known,
    Part,
    Players,
    Rendered,
    card_label,
    fit_middle,
    hearts,
    keys,
    name_of,
)


def loss_key(cause: LifeLossCause) -> str:
    """The words for a life lost: to the lowest card, or to the clock."""
    return "reveal_lost_timeout" if cause is LifeLossCause.TIMEOUT else "reveal_lost"


class TablePart(Part):
    def table(
        self, notice: Notice, folded: list[Notice], game: Game, known: Known, lang: str
    ) -> Rendered:
        """The round's table. ``folded``: later rounds that ended before their own table could
        be posted; their reveals follow this round's."""
        players = self.cast(known, game.seats, lang)
        view = notice.payload
        assert isinstance(view, TableView)
        head = self._table_head(view, players, lang)
        acts = self._acts(lang, view.acts, players, view.dealer)
        lines = self._table_tail(view, game, players, lang)
        for later in folded:
            assert isinstance(later.payload, TableView)
            lines += ["", "", *self._table_tail(later.payload, game, players, lang)]
        keyboard = None
        if not view.final:
            data = cb.Callback(cb.MY_CARD, game.id).encode()
            keyboard = keys([[(self.tr.t(lang, "btn_my_card"), data)]])
        # The first table is the game's start (it notifies); later rounds come quietly.
        return Rendered(fit_middle(head, acts, lines), keyboard, quiet=view.round > 1)

    def _table_head(self, view: TableView, players: Players, lang: str) -> list[str]:
        t = self.tr.t
        return [
            t(lang, "table_title", round=view.round, dealer=name_of(players, view.dealer)),
            " · ".join(
                f"{name_of(players, pid)} {hearts(lives)}"
                for pid, lives in zip(view.order, view.lives, strict=True)
            ),
            "",
        ]

    def _table_tail(self, view: TableView, game: Game, players: Players, lang: str) -> list[str]:
        t = self.tr.t
        if view.closed:
            return [t(lang, "table_cancelled")]
        if view.gathered:
            return [t(lang, "table_gathered", round=view.round)]
        if view.reveal is not None:
            return ["", *self._reveal(lang, view, players)]
        if view.actor is not None:
            key = "table_waiting_dealer" if view.actor == view.dealer else "table_waiting"
            return [
                "",
                t(lang, key, name=name_of(players, view.actor), seconds=int(game.turn_timeout)),
            ]
        return []

    def _acts(self, lang: str, acts: tuple[Act, ...], players: Players, dealer: int) -> list[str]:
        lines, cut = [], False
        for act in acts:
            lines.append(self._act(lang, act, players, dealer, after_cut=cut))
            cut = cut or act.kind in (ActKind.CUT, ActKind.CUT_BLOCKED)
        return lines

    def _act(
        self, lang: str, act: Act, players: Players, dealer: int, after_cut: bool = False
    ) -> str:
        t = self.tr.t
        name = name_of(players, act.player)
        kind = act.kind
        if kind is ActKind.KEEP:
            if act.player == dealer:
                return t(lang, "act_dealer_stands" if after_cut else "act_dealer_keep", name=name)
            return t(lang, "act_keep", name=name)
        if kind is ActKind.TIMEOUT:
            return t(lang, "act_timeout", name=name)
        target = name_of(players, act.target) if act.target is not None else ""
        if kind is ActKind.SWAP:
            return t(lang, "act_swap", name=name, target=target)
        king = card_label(act.shown.code) if act.shown is not None else ""
        if kind is ActKind.BLOCKED:
            return t(lang, "act_blocked", name=name, target=target, king=king)
        if kind is ActKind.CUT:
            return t(lang, "act_cut", name=name)
        return t(lang, "act_cut_blocked", name=name, king=king)

    def _reveal(self, lang: str, view: TableView, players: Players) -> list[str]:
        """The reveal: every card, who lost a life, who is out, the lives left."""
        t = self.tr.t
        reveal = view.reveal
        assert reveal is not None
        shown = reveal.revealed
        lines = [t(lang, "reveal_title", round=view.round)]
        for pid, card in zip(shown.order, shown.cards, strict=True):
            marker = " ⬇️" if pid in shown.lowest else ""
            line = t(lang, "reveal_line", name=name_of(players, pid), card=card_label(card.code))
            lines.append(line + marker)
        lines.append("")
        for loss in reveal.losses:
            lines.append(t(lang, loss_key(loss.cause), name=name_of(players, loss.player)))
        for player in reveal.eliminated:
            lines.append(t(lang, "reveal_out", name=name_of(players, player)))
        alive = " · ".join(
            f"{name_of(players, pid)} {hearts(n)}"
            for pid, n in zip(shown.order, reveal.lives, strict=True)
            if n > 0
        )
        if alive:
            lines += ["", t(lang, "reveal_lives", lives=alive)]
        return lines
