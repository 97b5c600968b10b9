"""Notices and answers into Telegram HTML and inline keys, in the reader's language."""

from __future__ import annotations

import html
import re
from dataclasses import dataclass

from telegram import InlineKeyboardButton, InlineKeyboardMarkup

from cuckoo_bot.app.model import Chat, Game, Player
from cuckoo_bot.app.notices import (
    Announcement,
    CloseNote,
    DealNote,
    GameOverView,
    LobbyView,
    Notice,
    PromptNote,
    RoundResult,
    TableView,
    TurnView,
)
from cuckoo_bot.app.queries import History, League, Story
from cuckoo_bot.app.results import Reply
from cuckoo_bot.domain import codec
from cuckoo_bot.domain.cards import Card
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
    RemovalReason,
    Revealed,
    RoundDealt,
    SuddenDeathDrawn,
    SuddenDeathStarted,
    SwapBlocked,
    Swapped,
    TimedOut,
)
from cuckoo_bot.domain.rules import FinalTie, HouseRules
from cuckoo_bot.domain.state import Act, ActKind
from cuckoo_bot.i18n.messages import LANGUAGE_NAMES
from cuckoo_bot.i18n.translator import Translator
from cuckoo_bot.transport import callbacks as cb

Players = dict[int, Player]
MOVE_KEYS = {"keep": cb.KEEP, "swap": cb.SWAP, "cut": cb.CUT}
MAX_TEXT = 4096
MAX_POPUP = 200
_TAG = re.compile(r"<[^>]+>")
SUITS = {"C": "♣", "D": "♦", "H": "♥", "S": "♠"}


def card_label(code: str) -> str:
    """``10H`` -> ``10♥``: rank and suit symbol, A J Q K in every language."""
    card = Card.from_code(code)
    return f"{card.rank_code}{SUITS[card.suit.value]}"


NAME_LIMIT = 32  # Telegram allows 64 + 64 characters; a table of 20 needs shorter names


def name_of(players: dict[int, Player], player_id: int) -> str:
    player = players.get(player_id)
    name = player.display_name if player else "?"
    if len(name) > NAME_LIMIT:
        name = name[: NAME_LIMIT - 1] + "…"
    return html.escape(name)


def mention(players: dict[int, Player], player_id: int) -> str:
    """A real user mention: Telegram notifies the user even without a username."""
    return f'<a href="tg://user?id={player_id}">{name_of(players, player_id)}</a>'


def hearts(lives: int) -> str:
    return "❤️" * lives if lives > 0 else "💀"


def utf16_len(text: str) -> int:
    """Telegram counts a text's length in UTF-16 code units (an emoji is often two)."""
    return len(text.encode("utf-16-le")) // 2


def fit(text: str) -> str:
    """Telegram refuses texts over 4096 units: trim whole lines off the end, never mid-tag.

    The HTML source is measured, which is never shorter than what Telegram counts.
    """
    if utf16_len(text) <= MAX_TEXT:
        return text
    lines = text.split("\n")
    while lines and utf16_len("\n".join(lines)) > MAX_TEXT - 2:
        lines.pop()
    return "\n".join(lines) + "\n…"


def fit_middle(head: list[str], middle: list[str], tail: list[str]) -> str:
    """Join the parts; if too long for Telegram, drop the oldest lines of ``middle`` first, so
    the prompt or the reveal at the end always shows."""
    middle = list(middle)
    text = "\n".join([*head, *middle, *tail])
    while middle and utf16_len(text) > MAX_TEXT:
        middle = middle[1:] if middle[0] == "…" else ["…", *middle[2:]]
        text = "\n".join([*head, *middle, *tail])
    return fit(text)


@dataclass(frozen=True)
class Rendered:
    text: str
    keyboard: InlineKeyboardMarkup | None = None


def _keys(rows: list[list[tuple[str, str]]]) -> InlineKeyboardMarkup:
    return InlineKeyboardMarkup(
        [[InlineKeyboardButton(label, callback_data=data) for label, data in row] for row in rows]
    )


class Renderer:
    def __init__(self, translator: Translator, lobby_minutes: int = 10) -> None:
        self.tr = translator
        self.lobby_minutes = lobby_minutes

    # -- the group ---------------------------------------------------------------------------

    def lobby(self, notice: Notice, game: Game, players: Players, lang: str) -> Rendered:
        t = self.tr.t
        view = notice.payload
        assert isinstance(view, LobbyView)
        seats = view.seats
        creator = name_of(players, game.creator_id)
        lines = [t(lang, "lobby_title", creator=creator), ""]
        lines.append(t(lang, "lobby_players", count=len(seats), max=game.rules.max_players))
        lines += [f"{i}. {name_of(players, s)}" for i, s in enumerate(seats, 1)] or [
            t(lang, "lobby_nobody")
        ]
        keyboard = None
        if view.offered:
            invited = ", ".join(name_of(players, p) for p in view.offered)
            lines += ["", t(lang, "lobby_offered", names=invited)]
        if view.status == "lobby":
            lines += [
                "",
                t(
                    lang,
                    "lobby_hint",
                    min=game.rules.min_players,
                    max=game.rules.max_players,
                    creator=creator,
                    minutes=self.lobby_minutes,
                ),
            ]
            keyboard = _keys(
                [
                    [
                        (t(lang, "btn_join"), cb.Callback(cb.JOIN, game.id).encode()),
                        (t(lang, "btn_leave"), cb.Callback(cb.LEAVE, game.id).encode()),
                    ],
                    [
                        (t(lang, "btn_start"), cb.Callback(cb.START, game.id).encode()),
                        (t(lang, "btn_add_computer"), cb.Callback(cb.COMPUTER, game.id).encode()),
                    ],
                    [(t(lang, "btn_cancel"), cb.Callback(cb.CANCEL, game.id).encode())],
                ]
            )
        elif view.status in ("running", "finished"):
            lines += ["", t(lang, "lobby_started")]
        else:
            key = {"expired": "lobby_expired", "bot_removed": "lobby_bot_removed"}.get(
                view.reason or "", "lobby_cancelled"
            )
            lines += ["", t(lang, key)]
        return Rendered(fit("\n".join(lines)), keyboard)

    def table(
        self, notice: Notice, folded: list[Notice], game: Game, players: Players, lang: str
    ) -> Rendered:
        """The round's table. ``folded``: later rounds that ended before their own table could
        be posted; their reveals follow this round's."""
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
            keyboard = _keys([[(self.tr.t(lang, "btn_my_card"), data)]])
        return Rendered(fit_middle(head, acts, lines), keyboard)

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
            key = "reveal_lost_timeout" if loss.cause is LifeLossCause.TIMEOUT else "reveal_lost"
            lines.append(t(lang, key, name=name_of(players, loss.player)))
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

    def group_notice(
        self, notice: Notice, game: Game | None, players: Players, lang: str
    ) -> Rendered:
        """A turn asked in the group, a one-off announcement, or the end of the game."""
        payload = notice.payload
        if isinstance(payload, TurnView):
            assert game is not None
            return self.turn(payload, game, players, lang)
        if isinstance(payload, GameOverView):
            return self.game_over(payload, game, players, lang)
        assert isinstance(payload, Announcement)
        return self.announce(payload, players, lang)

    def turn(self, view: TurnView, game: Game, players: Players, lang: str) -> Rendered:
        """A turn in the group, for a player the bot cannot write to: a mention and the keys."""
        t = self.tr.t
        seconds = int(game.turn_timeout)
        who = mention(players, view.actor)
        if view.target is None and view.cuts_made > 0:
            line = t(lang, "turn_prompt_cut_again", mention=who, seconds=seconds)
        elif view.target is None:
            line = t(lang, "turn_prompt_dealer", mention=who, seconds=seconds)
        else:
            target = name_of(players, view.target)
            line = t(lang, "turn_prompt", mention=who, target=target, seconds=seconds)
        row = [
            (
                t(lang, f"btn_{option}"),
                cb.Callback(MOVE_KEYS[option], game.id, view.round, view.turn).encode(),
            )
            for option in view.options
        ]
        keys = _keys([row, [(t(lang, "btn_my_card"), cb.Callback(cb.MY_CARD, game.id).encode())]])
        return Rendered(f"{line}\n<i>{t(lang, 'turn_private_hint')}</i>", keys)

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
        if view.rounds:
            lines += ["", t(lang, "summary_rounds", rounds=view.rounds)]
        if view.out:
            gone = ", ".join(
                t(lang, "summary_out_item", name=name_of(players, e.player), round=e.round)
                for e in view.out
            )
            lines.append(t(lang, "summary_out", players=gone))
        if view.changes:
            lines += ["", t(lang, "summary_league")]
            for change in sorted(view.changes, key=lambda c: c.place or 10**6):
                lines.append(
                    t(
                        lang,
                        "summary_change",
                        name=name_of(players, change.player),
                        points=f"{change.points:+d}",
                        place=change.place,
                    )
                )
        keyboard = None
        if game is not None:
            data = cb.Callback(cb.AGAIN, game.id).encode()
            keyboard = _keys([[(t(lang, "btn_play_again"), data)]])
        return Rendered(fit("\n".join(lines)), keyboard)

    def announce(self, payload: Announcement, players: Players, lang: str) -> Rendered:
        t = self.tr.t
        event = payload.load()
        if isinstance(event, Misdealt):
            return Rendered(t(lang, "ann_misdealt"))
        if isinstance(event, PlayerRemoved):
            key = "ann_removed_idle" if event.reason is RemovalReason.IDLE else "ann_resigned"
            return Rendered(t(lang, key, name=name_of(players, event.player)))
        if isinstance(event, SuddenDeathStarted):
            names = ", ".join(name_of(players, p) for p in event.players)
            return Rendered(t(lang, "ann_sudden_death", names=names))
        assert isinstance(event, SuddenDeathDrawn)
        cards = ", ".join(
            f"{name_of(players, p)} {card_label(c.code)}"
            for p, c in zip(event.players, event.cards, strict=True)
        )
        text = t(lang, "ann_sudden_draw", cards=cards)
        if len(event.leaders) > 1:
            names = ", ".join(name_of(players, p) for p in event.leaders)
            text += "\n" + t(lang, "ann_sudden_again", names=names)
        return Rendered(text)

    # -- private chats -----------------------------------------------------------------------

    def _where(self, game: Game, round_no: int, lang: str) -> str:
        chat = game.chat.title if game.chat is not None and game.chat.title else "Cuckoo"
        return self.tr.t(lang, "private_head", chat=html.escape(chat), round=round_no)

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
        card = card_label(prev.card.code)
        if prev.out:
            return t(lang, "result_out", card=card)
        if prev.lost:
            key = "result_lost_timeout" if prev.timeout else "result_lost"
            return t(lang, key, card=card, lives=hearts(prev.lives))
        return t(lang, "result_safe", card=card, lives=hearts(prev.lives))

    def deal(
        self, note: DealNote, game: Game, players: Players, lang: str, with_result: bool
    ) -> Rendered:
        """The card dealt; over the last prompt, how the last round ended comes first."""
        t = self.tr.t
        lines = (
            [*self._result_block(note.prev, game, lang), ""] if with_result and note.prev else []
        )
        lines.append(self._where(game, note.round, lang))
        lines.append(t(lang, "deal_card", card=card_label(note.card.code)))
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
        return Rendered("\n".join(lines))

    def prompt(self, note: PromptNote, game: Game, players: Players, lang: str) -> Rendered:
        """Your turn, with exactly one card: the one you hold now."""
        t = self.tr.t
        card = card_label(note.card.code)
        if note.news == "swapped" and note.by is not None:
            held = t(lang, "prompt_swapped", other=name_of(players, note.by), card=card)
        elif note.news == "cut":
            held = t(lang, "prompt_cut", card=card)
        else:
            held = t(lang, "prompt_card", card=card)
        seconds = int(game.turn_timeout)
        if note.target is None and note.again:
            ask = t(lang, "prompt_turn_again", seconds=seconds)
        elif note.target is None:
            ask = t(lang, "prompt_turn_dealer", seconds=seconds)
        else:
            ask = t(lang, "prompt_turn", target=name_of(players, note.target), seconds=seconds)
        lines = [
            self._where(game, note.round, lang),
            held,
            t(lang, "prompt_lives", lives=hearts(note.lives)),
            "",
            ask,
        ]
        row = [
            (
                t(lang, f"btn_{option}"),
                cb.Callback(MOVE_KEYS[option], game.id, note.round, note.turn).encode(),
            )
            for option in note.options
        ]
        return Rendered("\n".join(lines), _keys([row]))

    def close(self, note: CloseNote, game: Game, players: Players, lang: str) -> Rendered:
        """The end of the game for the player, over their last prompt (its keys go)."""
        t = self.tr.t
        lines = []
        if note.prev is not None:
            lines += self._result_block(note.prev, game, lang)
        if note.reason == "game_over" and note.winners:
            names = ", ".join(name_of(players, w) for w in note.winners)
            key = "close_won_shared" if note.shared else "close_won"
            lines.append(t(lang, key, names=names))
        else:
            lines.append(t(lang, f"close_{note.reason}"))
        return Rendered("\n".join(lines))

    # -- a group's history --------------------------------------------------------------------

    def history(self, lang: str, history: History) -> str:
        """The group's last finished games: number, date, players, winner, rounds."""
        t = self.tr.t
        players = history.players
        lines = [t(lang, "history_title"), ""]
        if not history.games:
            return "\n".join([*lines, t(lang, "history_empty")])
        for game in history.games:
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
                    rounds=state.rounds_dealt,
                    players=", ".join(name_of(players, p) for p in game.seats),
                )
            )
        lines += ["", t(lang, "history_hint", game=history.games[0].id)]
        return fit("\n".join(lines))

    def story(self, lang: str, story: Story) -> list[str]:
        """One game round by round, as its log tells it; as many messages as it takes."""
        t = self.tr.t
        players = story.players
        blocks: list[list[str]] = [[t(lang, "story_title", game=story.game.id)]]
        acts: list[str] = []
        cut = False
        dealer = 0

        def close_acts() -> None:
            if acts:
                blocks[-1].append(" ".join(acts))
                acts.clear()

        for entry in story.log:
            for event in entry.events:
                if isinstance(event, RoundDealt):
                    close_acts()
                    dealer, cut = event.dealer, False
                    blocks.append(
                        [t(lang, "table_title", round=event.round, dealer=name_of(players, dealer))]
                    )
                elif isinstance(
                    event, Kept | TimedOut | Swapped | SwapBlocked | CardCut | CutBlocked
                ):
                    act = _act_of(event)
                    acts.append(self._act(lang, act, players, dealer, after_cut=cut))
                    cut = cut or isinstance(event, CardCut | CutBlocked)
                elif isinstance(event, Revealed):
                    close_acts()
                    cards = " · ".join(
                        f"{name_of(players, p)} {card_label(c.code)}"
                        + (" ⬇️" if p in event.lowest else "")
                        for p, c in zip(event.order, event.cards, strict=True)
                    )
                    blocks[-1].append(f"🂡 {cards}")
                elif isinstance(event, LifeLost):
                    key = (
                        "reveal_lost_timeout"
                        if event.cause is LifeLossCause.TIMEOUT
                        else "reveal_lost"
                    )
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
        return _pages(["\n".join(block) for block in blocks])

    # -- answers, commands -----------------------------------------------------------------------

    def reply(self, lang: str, reply: Reply, players: dict[int, Player] | None = None) -> str:
        params = dict(reply.params)
        for key in ("card", "king"):
            if key in params:
                params[key] = card_label(params[key])
        if "lives" in params and isinstance(params["lives"], int):
            params["lives"] = hearts(params["lives"])
        if "player" in params and isinstance(params["player"], int):
            params["player"] = name_of(players or {}, params["player"])
        for key, value in params.items():
            if key not in ("card", "king", "lives", "player") and isinstance(value, str):
                params[key] = html.escape(value)
        if reply.code == "language_set":
            return LANGUAGE_NAMES.get(str(params.get("language")), "")
        return self.tr.t(lang, f"reply_{reply.code}", **params)

    def popup(self, lang: str, reply: Reply, players: dict[int, Player] | None = None) -> str:
        """The answer as a button-press popup: plain text (no HTML there), at most 200 chars."""
        text = html.unescape(_TAG.sub("", self.reply(lang, reply, players)))
        return text if len(text) <= MAX_POPUP else text[: MAX_POPUP - 1] + "…"

    def rules(self, lang: str, rules: HouseRules, timeout: float) -> str:
        t = self.tr.t
        house = []
        if rules.lives != 3:
            house.append(t(lang, "rules_lives", lives=rules.lives))
        if rules.max_players != 10:
            house.append(t(lang, "rules_max_players", max_players=rules.max_players))
        if not rules.kings_block:
            house.append(t(lang, "rules_no_block"))
        if rules.double_cut:
            house.append(t(lang, "rules_double_cut"))
        if rules.fast_turns:
            house.append(t(lang, "rules_fast_turns"))
        if rules.final_tie is FinalTie.SUDDEN_DEATH:
            house.append(t(lang, "rules_sudden_death"))
        return t(
            lang,
            "rules",
            min_players=rules.min_players,
            max_players=rules.max_players,
            lives=rules.lives,
            final_tie=t(
                lang,
                "rules_tie_sudden"
                if rules.final_tie is FinalTie.SUDDEN_DEATH
                else "rules_tie_shared",
            ),
            timeout=int(timeout),
            fast=t(lang, "rules_fast") if rules.fast_turns else "",
            house=", ".join(house) + "." if house else t(lang, "rules_house_default"),
        )

    def league(self, lang: str, league: League, where: str, season_label: str) -> str:
        t = self.tr.t
        lines = [
            t(lang, "league_title", where=html.escape(where)),
            f"<i>{html.escape(season_label)}</i>",
            "",
        ]
        if not league.rows:
            lines.append(t(lang, "league_empty"))
            return "\n".join(lines)
        table = [t(lang, "league_header")]
        for row in league.rows:
            s = row.standing
            wins = s.wins + s.shared_wins
            pct = round(100 * wins / s.games) if s.games else 0
            name = row.player.display_name
            name = name if len(name) <= 15 else name[:14] + "…"
            table.append(
                f"{row.rank:<3} {name:<15} {s.points:>6d} {s.games:>5} {wins:>4} {pct:>4}%"
            )
        lines.append("<pre>" + html.escape("\n".join(table)) + "</pre>")
        return fit("\n".join(lines))

    def settings(self, lang: str, chat: Chat, default_timeout: float) -> Rendered:
        t = self.tr.t
        r = chat.rules

        def onoff(value: bool) -> str:
            return t(lang, "value_on" if value else "value_off")

        tie = t(
            lang, "value_sudden_death" if r.final_tie is FinalTie.SUDDEN_DEATH else "value_shared"
        )
        timeout = int(chat.turn_timeout or default_timeout)
        next_timeout = {30: 60, 60: 90, 90: 120, 120: 300}.get(timeout, 30)
        rows = [
            [(t(lang, "setting_lives", value=r.lives), f"lives={5 if r.lives == 3 else 3}")],
            [
                (
                    t(lang, "setting_max_players", value=r.max_players),
                    f"max_players={20 if r.max_players == 10 else 10}",
                )
            ],
            [
                (
                    t(lang, "setting_kings_block", value=onoff(r.kings_block)),
                    f"kings_block={int(not r.kings_block)}",
                )
            ],
            [
                (
                    t(lang, "setting_final_tie", value=tie),
                    "final_tie="
                    + ("shared" if r.final_tie is FinalTie.SUDDEN_DEATH else "sudden_death"),
                )
            ],
            [
                (
                    t(lang, "setting_double_cut", value=onoff(r.double_cut)),
                    f"double_cut={int(not r.double_cut)}",
                )
            ],
            [
                (
                    t(lang, "setting_fast_turns", value=onoff(r.fast_turns)),
                    f"fast_turns={int(not r.fast_turns)}",
                )
            ],
            [(t(lang, "setting_turn_timeout", value=timeout), f"turn_timeout={next_timeout}")],
        ]
        keys = [
            [(label, cb.Callback(cb.SETTING, arg=arg).encode()) for label, arg in row]
            for row in rows
        ]
        keys.append(self._language_row())
        return Rendered(t(lang, "settings_title"), _keys(keys))

    def _language_row(self) -> list[tuple[str, str]]:
        return [
            (label, cb.Callback(cb.LANGUAGE, arg=code).encode())
            for code, label in LANGUAGE_NAMES.items()
        ]

    def languages(self, lang: str) -> Rendered:
        return Rendered(self.tr.t(lang, "language_prompt"), _keys([self._language_row()]))


def _act_of(event: Kept | TimedOut | Swapped | SwapBlocked | CardCut | CutBlocked) -> Act:
    """The table's words for an event of the log (the same as during the game)."""
    if isinstance(event, Kept):
        return Act(event.player, ActKind.KEEP)
    if isinstance(event, TimedOut):
        return Act(event.player, ActKind.TIMEOUT)
    if isinstance(event, Swapped):
        return Act(event.player, ActKind.SWAP, target=event.neighbour)
    if isinstance(event, SwapBlocked):
        return Act(event.player, ActKind.BLOCKED, target=event.neighbour, shown=event.king)
    if isinstance(event, CardCut):
        return Act(event.dealer, ActKind.CUT)
    return Act(event.dealer, ActKind.CUT_BLOCKED, shown=event.king)


def _pages(blocks: list[str]) -> list[str]:
    """Blocks joined into messages of at most 4,096 units, never splitting a block."""
    pages: list[str] = []
    for block in blocks:
        block = fit(block)
        if pages and utf16_len(pages[-1] + "\n\n" + block) <= MAX_TEXT:
            pages[-1] += "\n\n" + block
        else:
            pages.append(block)
    return pages


def group_language(chat: Chat | None, game: Game | None) -> str:
    if chat is not None and chat.language:
        return chat.language
    return game.language if game is not None else "en"
