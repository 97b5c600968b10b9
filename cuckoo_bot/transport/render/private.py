"""A player's private chat: the card dealt, the turn prompt with the card held now and its
keys, how the last round ended for them, and the end of the game."""

from __future__ import annotations

from typing import Any

from cuckoo_bot.app.model import Game
from cuckoo_bot.app.notices import (
    CloseNote,
    CloseReason,
    DealNote,
    News,
    NudgeNote,
    PlayedNote,
    PromptNote,
    RoundResult,
)
from cuckoo_bot.app.results import Reply, ReplyCode
from cuckoo_bot.domain.state import Act, ActKind
from cuckoo_bot.transport import keydata
from cuckoo_bot.transport.render.common import (
    Known,
    Players,
    Rendered,
    card_label,
    hearts,
    keys,
    moment,
    move_row,
    name_of,
    queen_blocked,
    seen_length,
    short_name,
    shown_card,
    sign,
)
from cuckoo_bot.transport.render.names import user_text
from cuckoo_bot.transport.render.replies import ReplyPart

# An answer's own mark: a King's block is no success; a lapse and a skip have their own; a
# Queen's (Coucou's Queens) is told with her.
ANSWER_MARKS = {
    "timed_out": "",
    "skipped_by": "",
    "done_blocked": "👑 ",
    "done_cut_blocked": "👑 ",
    "done_queen_blocked": "👸 ",
    "done_swap_via": "👸 ",
    "done_blocked_via": "👸 ",
    # One-card Kille: the Cuckoo's stop and the Hussar's or the Pig's strike.
    "done_stopped": "🐦 ",
    "done_stopped_via": "🐦 ",
    "done_struck": "⚔️ ",
    "done_struck_via": "⚔️ ",
}
WEAK_MARKS = ("done_queen_blocked", "done_swap_via", "done_blocked_via")  # the card's sign
SO_FAR = 90  # characters as read: the round so far in one line of a phone
# Telegram's 🎉 message effect, one of the six every user has (getAvailableMessageEffects).
CELEBRATION = "5046509860389126442"


class PrivatePart(ReplyPart):
    def _where(self, game: Game, round_no: int, lang: str) -> str:
        title = game.chat.title if game.chat is not None else ""
        return self.tr.t(lang, "private_head", chat=user_text(title, "Cuckoo"), round=round_no)

    def result(self, prev: RoundResult | None, game: Game, lang: str) -> Rendered | None:
        """How the last round ended for the player; None when not known."""
        if prev is None:
            return None
        return Rendered("\n".join(self._result_block(prev, game, lang)))

    def _result_block(self, prev: RoundResult, game: Game, lang: str) -> list[str]:
        return [self._where(game, prev.round, lang), self._result_line(prev, lang)]

    def _result_line(self, prev: RoundResult, lang: str) -> str:
        t = self.tr.t
        if prev.card is None:
            return t(lang, "result_gathered")
        card = shown_card(prev.card, prev.spent, lang, self.tr)
        if not prev.lost:
            return t(lang, "result_safe", card=card, lives=hearts(prev.lives))
        # Why the life went: the clock (fast turns), or the lowest card, alone or tied (two
        # Kings can be the lowest: said plainly, it does not read like a mistake).
        key = "result_out" if prev.out else "result_lost"
        if prev.struck:
            key += "_struck"
        elif prev.timeout:
            key += "_timeout"
        elif prev.tied:
            key += "_tied"
        others = self.tr.count(lang, "count_others", prev.tied) if prev.tied else ""
        return t(lang, key, card=card, lives=hearts(prev.lives), others=others)

    def deal(
        self, note: DealNote, game: Game, known: Known, lang: str, with_result: bool
    ) -> Rendered:
        """The card dealt; over the last prompt, how the last round ended comes first."""
        t = self.tr.t
        players = self.cast(known, game.seats, lang)
        lines = (
            [*self._result_block(note.prev, game, lang), ""] if with_result and note.prev else []
        )
        lines.append(self._where(game, note.round, lang))
        lines.append(t(lang, "deal_card", card=card_label(note.card.code, lang)))
        if note.position == note.players:
            lines.append(t(lang, "deal_you_deal", players=note.players))
        else:
            lines.append(
                t(
                    lang,
                    "deal_place",
                    position=note.position,
                    players=note.players,
                    dealer=name_of(players, note.dealer),
                )
            )
        return Rendered("\n".join(lines), quiet=True)  # the turn's prompt is what notifies

    def prompt(
        self, note: PromptNote, game: Game, known: Known, lang: str, reader: int | None = None
    ) -> Rendered:
        """Your turn, with exactly one card: the one you hold now. The first line is the call
        to act, with the group, the round and the time (what a phone's lock screen shows);
        a player whose card came with this prompt (the first to play, or one who came through
        the last round safe) reads there how that round ended: nothing else told it; the round
        so far names the reader "you"."""
        t = self.tr.t
        players = self.cast(known, game.seats, lang)
        card = card_label(note.card.code, lang)
        if note.news is News.SWAPPED and note.by is not None and note.gave is not None:
            gave = card_label(note.gave.code, lang)
            other = name_of(players, note.by)
            held = t(lang, "prompt_swapped_gave", other=other, gave=gave, card=card)
        elif note.news is News.SWAPPED and note.by is not None:
            held = t(lang, "prompt_swapped", other=name_of(players, note.by), card=card)
        elif note.news is News.CUT:
            held = t(lang, "prompt_cut", card=card)
        else:
            held = t(lang, "prompt_card", card=card)
        title = game.chat.title if game.chat is not None else ""
        lines = [
            t(
                lang,
                "prompt_call",
                chat=user_text(title, "Cuckoo"),
                round=note.round,
                seconds=int(game.turn_timeout),
            )
        ]
        if note.prev is not None and note.last is not None:
            lines.append(self.recall_line(note.last, lang))
        lines += [held, t(lang, "prompt_lives", lives=hearts(note.lives))]
        if note.acts:
            lines.append(self.so_far(lang, note.acts, players, reader))
        until = t(lang, "prompt_until", time=moment(note.deadline)) if note.deadline else ""
        if note.target is None and note.again:
            ask = t(lang, "prompt_ask_again", until=until)
        elif note.target is None:
            ask = t(lang, "prompt_ask_dealer", until=until)
        else:
            ask = t(lang, "prompt_ask", target=name_of(players, note.target), until=until)
        lines.append(ask)
        row = move_row(self.tr, lang, note.options, game, note.round, note.turn)
        table = self.table_button(lang, game.id, private=True)
        return Rendered("\n".join(lines), keys([row], table))

    def recall_line(self, last: RoundResult, lang: str) -> str:
        """The player's last round in a line, under the call of their next prompt."""
        key = "last_safe"
        if last.lost:
            key = (
                "last_lost_struck"
                if last.struck
                else "last_lost_timeout"
                if last.timeout
                else "last_lost_tied"
                if last.tied
                else "last_lost"
            )
        card = shown_card(last.card, last.spent, lang, self.tr) if last.card is not None else "—"
        others = self.tr.count(lang, "count_others", last.tied) if last.tied else ""
        return self.tr.t(lang, key, round=last.round, card=card, others=others)

    def nudge(self, note: NudgeNote, game: Game, lang: str) -> Rendered:
        """The turn runs out soon (a reply to the prompt; it notifies)."""
        key = "nudge_fast" if game.rules.fast_turns else "nudge"  # what the clock costs
        text = self.tr.t(lang, key, seconds=note.seconds, time=moment(note.deadline))
        return Rendered(text)

    def so_far(self, lang: str, acts: tuple[Act, ...], players: Players, reader: int | None) -> str:
        """The round so far in one line of a phone (``SO_FAR`` characters as read): the reader
        is "you", names are short, keeps in a row are one item, a chain of swaps one line of
        arrows; what still does not fit goes from the front ("…")."""
        t = self.tr.t
        you = t(lang, "brief_you")

        def who(player: int | None) -> str:
            if player is None:
                return ""
            return you if player == reader else short_name(players, player)

        def brief(short: bool) -> list[str]:
            return [item(kind, run, short) for kind, run in _runs(acts)]

        def item(kind: ActKind, run: list[Act], short: bool) -> str:
            first = run[0]
            if kind is ActKind.KEEP:
                return t(lang, "brief_keep", name=", ".join(who(a.player) for a in run))
            if kind is ActKind.SWAP:
                names = [who(a.target) for a in run]
                if short and len(names) > 3:  # a long chain: where it began and where it ends
                    names = [names[0], "…", *names[-2:]]
                return t(lang, "brief_swap", name=who(first.player), target=" ⇄ ".join(names))
            name, target = who(first.player), who(first.target)
            shown = card_label(first.shown.code, lang) if first.shown is not None else ""
            return t(
                lang,
                _brief_key(first, reader),
                name=name,
                target=target,
                king=shown,
                sign=sign(first.shown),
            )

        items = brief(short=False)
        line = t(lang, "prompt_so_far", acts=" · ".join(items))
        if seen_length(line) > SO_FAR:
            items = brief(short=True)
            line = t(lang, "prompt_so_far", acts=" · ".join(items))
        while len(items) > 1 and seen_length(line) > SO_FAR:
            items.pop(0)
            line = t(lang, "prompt_so_far", acts="… " + " · ".join(items))
        return line

    def played(self, note: PlayedNote, game: Game, known: Known, lang: str) -> Rendered:
        """The prompt the player pressed, answered: what happened and the card held now (and
        that the cards are on the table, when the move ended the round). No keys."""
        params: dict[str, Any] = {}
        if note.card is not None:
            params["card"] = note.card.code
        if note.other is not None:
            params["player"] = note.other
        if note.king is not None:
            params["king"] = note.king.code
            params["call"] = game.rules.name
        if note.via is not None and note.queen is not None:
            params["via"], params["queen"] = note.via, note.queen.code
        players = self.cast(known, game.seats, lang)
        done = self.reply(lang, Reply(ReplyCode(note.answer), params), players)
        mark = ANSWER_MARKS.get(note.answer, "✅ ")
        if note.answer in WEAK_MARKS:  # an Inn or a Cavalier (Kille) rather than a Queen
            mark = sign(note.queen or note.king) + " "
        lines = [] if note.last is None else [self.recall_line(note.last, lang)]
        lines += [self._where(game, note.round, lang), f"{mark}{done}"]
        if note.revealed:  # the move ended the round
            lines.append(self.tr.t(lang, "played_revealed"))
        return Rendered("\n".join(lines))

    def final(self, note: CloseNote, game: Game, known: Known, lang: str, reader: int) -> Rendered:
        """The end of a won game, a new message for everyone who sat at it: who won (you, in
        the second person), where the reader finished and what the game did to their line in
        the group's table this month, and the Play again key. A winner's comes with 🎉."""
        t = self.tr.t
        players = self.cast(known, game.seats, lang)
        title = game.chat.title if game.chat is not None else ""
        lines = [t(lang, "final_head", chat=user_text(title, "Cuckoo"))]
        won = reader in note.winners
        if won and note.shared:
            others = ", ".join(name_of(players, w) for w in note.winners if w != reader)
            lines.append(t(lang, "close_you_won_shared", names=others))
        elif won:
            lines.append(t(lang, "close_you_won"))
        else:
            names = ", ".join(name_of(players, w) for w in note.winners)
            lines.append(t(lang, "close_won_shared" if note.shared else "close_won", names=names))
            lines.append(t(lang, "final_place", place=note.place, seats=note.seats))
        if note.points is not None and note.month_place is not None:
            sign = "+" if note.points >= 0 else "−"
            points = self.tr.count(lang, "count_points", abs(note.points), sign=sign)
            lines.append(f"{points} · {t(lang, 'podium_month', place=note.month_place)}")
        if note.chips is not None:  # a game for stakes
            sign = "+" if note.chips >= 0 else "−"
            chips = sign + self.tr.count(lang, "count_chips", abs(note.chips))
            lines.append(t(lang, "final_chips", chips=chips))
        data = keydata.KeyData(keydata.AGAIN, game.id).encode()
        again = keys([[(t(lang, "btn_play_again"), data)]])
        return Rendered("\n".join(lines), again, effect=CELEBRATION if won else None)

    def close(
        self, note: CloseNote, game: Game, known: Known, lang: str, reader: int | None = None
    ) -> Rendered:
        """The end of the game for ``reader``, over their last prompt (its keys go). A winner
        is told so in the second person; a shared win never sits beside "your last life"."""
        t = self.tr.t
        players = self.cast(known, game.seats, lang)
        lines = []
        won = note.reason is CloseReason.GAME_OVER and reader is not None and reader in note.winners
        if note.prev is not None and won and note.shared:
            lines.append(self._where(game, note.prev.round, lang))
        elif note.prev is not None:
            lines += self._result_block(note.prev, game, lang)
        if won and note.shared:
            others = ", ".join(name_of(players, w) for w in note.winners if w != reader)
            lines.append(t(lang, "close_you_won_shared", names=others))
        elif won:
            lines.append(t(lang, "close_you_won"))
        elif note.reason is CloseReason.GAME_OVER and note.winners:
            names = ", ".join(name_of(players, w) for w in note.winners)
            key = "close_won_shared" if note.shared else "close_won"
            lines.append(t(lang, key, names=names))
        else:
            lines.append(t(lang, f"close_{note.reason}"))
        # Out of the game, the rest is no longer urgent for the player.
        return Rendered("\n".join(lines), quiet=note.reason is CloseReason.OUT)


def _brief_key(act: Act, reader: int | None) -> str:
    """The words for one act that is a run of its own, as ``reader`` reads it."""
    kind = act.kind
    if kind is ActKind.PASSED or queen_blocked(act):
        # Coucou's Queens: a Queen sent the ask on, or refused it (nobody after her).
        what = "passed" if kind is ActKind.PASSED else "queen_blocked"
        return f"brief_{what}_by_you" if act.target == reader else f"brief_{what}"
    if kind in (ActKind.BLOCKED, ActKind.STOPPED, ActKind.STRUCK) and act.target == reader:
        return f"brief_{kind.value}_by_you"
    if kind is ActKind.CUT_BLOCKED and act.player == reader:
        return "brief_cut_blocked_you"
    return f"brief_{kind.value}"


def _runs(acts: tuple[Act, ...]) -> list[tuple[ActKind, list[Act]]]:
    """The round's acts told together: keeps in a row, and a chain of swaps (each one asked by
    the player the last swap went to) are one run each; any other act is a run of its own."""
    runs: list[tuple[ActKind, list[Act]]] = []
    for act in acts:
        last = runs[-1] if runs else None
        if last is not None and act.kind is last[0] is ActKind.KEEP:
            last[1].append(act)
        elif last is not None and act.kind is last[0] is ActKind.SWAP:
            if last[1][-1].target == act.player:
                last[1].append(act)
            else:
                runs.append((act.kind, [act]))
        else:
            runs.append((act.kind, [act]))
    return runs
