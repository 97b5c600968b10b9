"""The round's table in the group: one row per seat (its lives, what it did this round and, at
the reveal, its card), whose turn it is and until when, then the reveal; a line recalls how
the round before ended; later rounds shown together fold under it."""

from __future__ import annotations

from cuckoo_bot.app.model import Game
from cuckoo_bot.app.notices import Notice, TableView
from cuckoo_bot.domain.actions import PlayerId
from cuckoo_bot.domain.state import Act, ActKind, passed_before
from cuckoo_bot.transport import keydata
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
    queen_blocked,
    shown_card,
    sign,
)


class TablePart(Part):
    def table(
        self, notice: Notice, folded: list[Notice], game: Game, known: Known, lang: str
    ) -> Rendered:
        """The round's table. ``folded``: later rounds that ended before their own table could
        be posted; each follows, whole, in a quote the reader opens with a tap."""
        players = self.cast(known, game.seats, lang)
        view = notice.payload
        assert isinstance(view, TableView)
        head = [self._title(view, players, lang)]
        if view.round == 1:  # the game's start: the rules it is played by
            head.append(self.rules_line(lang, game.rules, game.turn_timeout))
        call = self.call(lang, game.rules)
        rows = self._rows(view, players, lang, call)
        body = ["", *rows, *self._status(view, game, players, lang)]
        if view.pot is not None:  # stakes: the pot as it grows, a chip a seat, one a life lost
            chips = self.tr.count(lang, "count_chips", view.pot)
            body.append(self.tr.t(lang, "table_pot", chips=chips))
        later = []
        for other in folded:
            assert isinstance(other.payload, TableView)
            block = [
                self._title(other.payload, players, lang),
                *self._rows(other.payload, players, lang, call),
                *self._status(other.payload, game, players, lang),
            ]
            later.append("<blockquote expandable>" + "\n".join(block) + "</blockquote>")
        keyboard = None
        if not view.final:
            data = keydata.KeyData(keydata.MY_CARD, game.id).encode()
            table = self.table_button(lang, game.id, private=False)
            keyboard = keys([[(self.tr.t(lang, "btn_my_card"), data)]], table)
        # Rounds shown together: the newest stay when all cannot fit.
        text = fit_middle(head, [*body, *later], [])
        # The first table is the game's start (it notifies); later rounds come quietly.
        return Rendered(text, keyboard, quiet=view.round > 1)

    def _title(self, view: TableView, players: Players, lang: str) -> str:
        dealer = name_of(players, view.dealer)
        return self.tr.t(lang, "table_title", round=view.round, dealer=dealer)

    def _rows(self, view: TableView, players: Players, lang: str, call: str) -> list[str]:
        """One row per seat in turn order: name, lives, what it did; at the reveal its card."""
        reveal = view.reveal
        shown = reveal.revealed if reveal is not None else None
        lost = {loss.player for loss in reveal.losses} if reveal is not None else set()
        spent = reveal.spent if reveal is not None else ()
        rows = []
        for index, player in enumerate(view.order):
            lives = view.lives[index]
            if reveal is not None and shown is not None and player in shown.order:
                lives = reveal.lives[shown.order.index(player)]
            row = self._row(view, player, lives, players, lang, call)
            if shown is not None and player in shown.order:
                held = shown.cards[shown.order.index(player)]
                card = shown_card(held, held in spent, lang, self.tr)
                mark = " 💔" if player in lost and lives > 0 else ""  # out: 💀 for lives
                row += f" · <b>{card}</b>{mark}"
            rows.append(row)
        return rows

    def _row(
        self,
        view: TableView,
        player: PlayerId,
        lives: int,
        players: Players,
        lang: str,
        call: str,
    ) -> str:
        t = self.tr.t
        name = name_of(players, player)
        heart = hearts(lives)  # 💀 once out
        acts = [a for a in view.acts if a.player == player]
        if acts:
            return self._row_act(lang, acts, name, heart, players, view.dealer, call)
        key = "row_turn" if player == view.actor else "row_waiting"
        return t(lang, key, name=name, lives=heart).rstrip()

    def _row_act(
        self,
        lang: str,
        acts: list[Act],
        name: str,
        lives: str,
        players: Players,
        dealer: PlayerId,
        call: str,
    ) -> str:
        """A seat's row with its last act. A dealer who keeps after cutting keeps the cut card;
        after a cut a King blocked (and no other cut), their own, the King still shown. An ask
        a Queen sent on says so before how it ended (Coucou's Queens)."""
        t = self.tr.t
        act = acts[-1]
        kind = act.kind
        target = name_of(players, act.target) if act.target is not None else ""
        king = card_label(act.shown.code, lang) if act.shown is not None else ""
        passed = passed_before(acts)
        via = queen = ""
        if passed is not None and passed.target is not None and passed.shown is not None:
            via, queen = name_of(players, passed.target), card_label(passed.shown.code, lang)
        mark = sign(passed.shown if passed is not None else act.shown)
        if kind is ActKind.KEEP and act.player == dealer:
            blocked = [a for a in acts[:-1] if a.kind is ActKind.CUT_BLOCKED and a.shown]
            if any(a.kind is ActKind.CUT for a in acts[:-1]):
                key = "row_dealer_stands"
            elif blocked:
                key = "row_dealer_keeps_own"
                king = card_label(blocked[-1].shown.code, lang)  # type: ignore[union-attr]
            else:
                key = "row_dealer_keep"
        else:
            key = "row_queen_blocked" if queen_blocked(act) else f"row_{kind.value}"
            key += "_via" if passed is not None else ""
        return t(
            lang,
            key,
            name=name,
            lives=lives,
            target=target,
            king=king,
            call=call,
            via=via,
            queen=queen,
            sign=mark,
        )

    def _status(self, view: TableView, game: Game, players: Players, lang: str) -> list[str]:
        """The round's last line: whose turn and until when, the reveal, or why it ended."""
        t = self.tr.t
        if view.closed:
            return ["", t(lang, "table_cancelled")]
        if view.gathered:
            return ["", t(lang, "table_gathered", round=view.round)]
        if view.reveal is not None:
            reveal = view.reveal
            out = set(reveal.eliminated)
            lost = [loss.player for loss in reveal.losses if loss.player not in out]
            parts = [t(lang, "table_revealed")]
            if lost:
                names = ", ".join(name_of(players, p) for p in lost)
                parts.append(t(lang, "table_revealed_lost", names=names))
            if out:
                names = ", ".join(name_of(players, p) for p in reveal.eliminated)
                parts.append(t(lang, "table_revealed_out", names=names))
            return ["", " ".join(parts[:1]) + " " + " · ".join(parts[1:])]
        if view.actor is not None:
            key = "table_waiting_dealer" if view.actor == view.dealer else "table_waiting"
            clock = self.clock(lang, game, view.deadline)
            return ["", t(lang, key, name=name_of(players, view.actor), clock=clock)]
        return []
