"""The lobby message: who has joined, who was invited, and the keys to join, leave, start,
add a computer or cancel; once the lobby is over, how it ended."""

from __future__ import annotations

from cuckoo_bot.app.deps import LOBBY_TIMEOUT
from cuckoo_bot.app.model import Game, GameStatus
from cuckoo_bot.app.notices import LobbyView, Notice
from cuckoo_bot.transport import keydata
from cuckoo_bot.transport.render.common import (
    Known,
    Part,
    Rendered,
    fit,
    keys,
    mention,
    moment,
    name_of,
)


class LobbyPart(Part):
    lobby_minutes = int(LOBBY_TIMEOUT // 60)  # how long a lobby stays open, said in its hint

    def lobby(self, notice: Notice, game: Game, known: Known, lang: str) -> Rendered:
        t = self.tr.t
        view = notice.payload
        assert isinstance(view, LobbyView)
        seats = view.seats
        players = self.cast(known, [*seats, game.creator_id, *view.offered], lang)
        creator = name_of(players, game.creator_id)
        title = t(lang, "lobby_title", game_name=self.game_name(lang, game.rules), creator=creator)
        lines = [title, ""]
        lines.append(t(lang, "lobby_players", count=len(seats), max=game.rules.max_players))
        lines += [f"{i}. {name_of(players, s)}" for i, s in enumerate(seats, 1)] or [
            t(lang, "lobby_nobody")
        ]
        keyboard = None
        if view.offered:
            # Mentions: the invited hear of the new game (a mention in a new message notifies).
            invited = ", ".join(mention(players, p) for p in view.offered)
            lines += ["", t(lang, "lobby_offered", names=invited)]
        if view.status is GameStatus.LOBBY:
            lines += [
                "",
                t(
                    lang,
                    "lobby_hint",
                    min=game.rules.min_players,
                    max=game.rules.max_players,
                    creator=creator,
                    when=self._when(game, lang),
                ),
                self.rules_line(lang, game.rules, game.turn_timeout),
            ]
            keyboard = keys(
                [
                    [
                        (t(lang, "btn_join"), keydata.KeyData(keydata.JOIN, game.id).encode()),
                        (t(lang, "btn_leave"), keydata.KeyData(keydata.LEAVE, game.id).encode()),
                    ],
                    [
                        (t(lang, "btn_start"), keydata.KeyData(keydata.START, game.id).encode()),
                        (
                            t(lang, "btn_add_computer"),
                            keydata.KeyData(keydata.COMPUTER, game.id).encode(),
                        ),
                    ],
                    [(t(lang, "btn_cancel"), keydata.KeyData(keydata.CANCEL, game.id).encode())],
                ]
            )
        elif view.status in (GameStatus.RUNNING, GameStatus.FINISHED):
            lines += ["", t(lang, "lobby_started")]
        else:
            key = {"expired": "lobby_expired", "bot_removed": "lobby_bot_removed"}.get(
                view.reason or "", "lobby_cancelled"
            )
            lines += ["", t(lang, key)]
        return Rendered(fit("\n".join(lines)), keyboard)

    def _when(self, game: Game, lang: str) -> str:
        """When the lobby starts by itself, as a moment (a date-time entity), not a countdown
        that would stand still in the message."""
        if game.deadline is not None:
            return self.tr.t(lang, "lobby_at", time=moment(game.deadline))
        return self.tr.t(lang, "lobby_in", minutes=self.lobby_minutes)
