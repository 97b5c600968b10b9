"""Who asks the live table's API, about which game, and from which seat: the initData Telegram
signed, then the game's seats, then (for a watcher) the group's membership, asked of Telegram
once and then known a while on the bot's clock."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass

from aiohttp import web
from cachetools import TTLCache
from telegram import Bot, ChatMember
from telegram.error import BadRequest, Forbidden, TelegramError

from cuckoo_bot.app.tuning import MEMBER_FOR, MEMBERS_KEPT
from cuckoo_bot.transport.services import Services
from cuckoo_bot.transport.webapp.auth import InitDataCheck, Refused, Viewer
from cuckoo_bot.transport.webapp.contract import PageView
from cuckoo_bot.transport.webapp.hub import Hub
from cuckoo_bot.transport.webapp.view import Snapshot, page_strings
from cuckoo_bot.transport.webapp.wire import Problem, game_id_of


@dataclass(frozen=True)
class Asking:
    """An authorised request: who asks, about which game, and their seat (None: watching)."""

    viewer: Viewer
    shot: Snapshot
    seat: int | None


class Access:
    """Lets a request in, or says why not (``Problem``), in the asker's language."""

    def __init__(
        self,
        services: Services,
        bot: Bot,
        check: InitDataCheck,
        hub: Hub[Snapshot | None],
        closing: asyncio.Event,
    ) -> None:
        self.services = services
        self.bot = bot
        self.check = check
        self.hub = hub
        self.closing = closing  # set at shutdown: nothing more is let in
        # Group memberships asked of Telegram, each taken as known for MEMBER_FOR seconds of
        # the bot's clock.
        self._members: TTLCache[tuple[int, int], bool] = TTLCache(
            MEMBERS_KEPT, MEMBER_FOR, timer=lambda: services.deps.clock.now().timestamp()
        )
        self._texts: dict[str, dict[str, str]] = {}

    def who(self, request: web.Request) -> Viewer:
        """The user Telegram signed for (``Authorization: tma <initData>``); first of all, so
        nothing else of a request is looked at for someone unknown."""
        if self.closing.is_set():  # shutting down: the page tries again (another instance)
            raise Problem(503, "busy")
        header = request.headers.get("Authorization", "")
        scheme, _, init_data = header.partition(" ")
        try:
            return self.check.viewer(init_data.strip() if scheme.lower() == "tma" else None)
        except Refused as refused:
            raise Problem(401, "expired" if refused.expired else "unauthorized") from None

    async def asking(self, game: object, viewer: Viewer) -> Asking:
        """``viewer`` asking about ``game``: seated, or a member of its group watching."""
        # Told in the asker's language: Telegram says which (the game's, once it is known).
        said = self.strings(viewer.language)
        try:
            game_id = game_id_of(game)
        except Problem:
            raise Problem(400, "bad_request", said) from None
        shot = await self.hub.latest(game_id)
        if shot is None:
            raise Problem(404, "no_game", said)
        seen = shot.seen
        if viewer.user_id in seen.game.seats:
            return Asking(viewer, shot, viewer.user_id)
        if not await self.member(seen.chat_id, viewer.user_id):
            raise Problem(403, "forbidden", self.strings(seen.language))
        return Asking(viewer, shot, None)

    def strings(self, language: str | None) -> dict[str, str]:
        """The page's texts in ``language`` (the bot's default for None), made once each."""
        key = language or ""
        if key not in self._texts:
            self._texts[key] = page_strings(self.services.renderer.tr, language)
        return self._texts[key]

    async def member(self, chat_id: int, user_id: int) -> bool:
        """Is ``user_id`` in the group? Asked of Telegram (one call), then known a while."""
        known = self._members.get((chat_id, user_id))
        if known is not None:
            return known
        try:
            member = await self.bot.get_chat_member(chat_id, user_id)
            inside = member.status not in (ChatMember.LEFT, ChatMember.BANNED)
        except (Forbidden, BadRequest):  # Telegram's answer: not there (or the bot is not)
            inside = False
        except TelegramError:  # no answer (network, flood control): ask again next time
            raise Problem(503, "busy") from None
        self._members[(chat_id, user_id)] = inside
        return inside

    def view(self, asking: Asking, shot: Snapshot) -> PageView:
        """The table for this asker, with the page's texts (a whole answer, a stream's first
        event)."""
        view = shot.view(asking.seat, self.services.deps.clock.now())
        return {**view, "strings": self.strings(shot.seen.language)}
