"""The live table's HTTP routes on the bot's own server: the page, and its API.

- ``GET /app`` and ``/app/<file>``: the page (``static/``), the same for everyone.
- ``GET /app/api/table?game=ID[&after=VERSION]``: the table as this viewer may see it
  (``view.as_json``); with ``after``, 204 while the game is not newer (a page that polls).
- ``GET /app/api/events?game=ID&after=VERSION``: the same, pushed (Server-Sent Events) at every
  change of the game from any instance, resuming after the version the page last saw.
- ``POST /app/api/move`` ``{game, move, turn, round}``: a seat's move, through ``play.act``
  like a chat key (one of the two for a turn takes effect); ``POST /app/api/again``: Play
  again, through ``lobby.play_again`` like the key under a finished game.

Every API request carries ``Authorization: tma <initData>``; the user is the one Telegram
signed (``auth.py``), and nothing else the request says. A seat sees its own card; anyone
else must be a member of the game's group (asked of Telegram once in a while, not at every
request) and sees no card before its reveal.

Split by job: who asks (``access.py``), the event streams (``streams.py``), what a request
reads and an answer writes (``wire.py``); here the routes, the reads and the moves.
"""

from __future__ import annotations

import asyncio
from typing import Any, Protocol

from aiohttp import web
from telegram import Bot

from cuckoo_bot.app import chats, lobby, play
from cuckoo_bot.app.model import Asker, Player
from cuckoo_bot.app.results import Outcome
from cuckoo_bot.domain.actions import Move
from cuckoo_bot.transport.metrics import Metrics
from cuckoo_bot.transport.services import Services
from cuckoo_bot.transport.webapp.access import Access, Asking
from cuckoo_bot.transport.webapp.auth import InitDataCheck
from cuckoo_bot.transport.webapp.hub import Hub
from cuckoo_bot.transport.webapp.streams import Streams
from cuckoo_bot.transport.webapp.view import Snapshot
from cuckoo_bot.transport.webapp.wire import (
    Handler,
    Problem,
    Quiet,
    is_int,
    json_answer,
    read_body,
    static_file,
    version_of,
)

MOVES = frozenset(move.value for move in Move)


class Listening(Protocol):
    """What hears the other instances' changes (``persistence.listen.GameListener``)."""

    def start(self) -> None: ...

    async def stop(self) -> None: ...


class TableApi:
    def __init__(
        self,
        services: Services,
        bot: Bot,
        check: InitDataCheck,
        hub: Hub[Snapshot | None],
        listener: Listening | None = None,
        metrics: Metrics | None = None,
    ) -> None:
        self.services = services
        self.hub = hub
        self.listener = listener  # PostgreSQL: every instance's changes; SQLite: in process
        self.metrics = metrics or Metrics()
        self._closing = asyncio.Event()  # set at shutdown: the event streams end
        self.quiet = Quiet()
        self.access = Access(services, bot, check, hub, self._closing)
        self.streams = Streams(self.access, hub, self.metrics, self.quiet)

    async def start(self) -> None:
        if self.listener is not None:
            self.listener.start()

    def close_streams(self) -> None:
        """At shutdown: every event stream ends now (its page reconnects to another
        instance, or to this one once it is back)."""
        self._closing.set()
        self.hub.wake_all()

    async def stop(self) -> None:
        self.close_streams()
        if self.listener is not None:
            await self.listener.stop()

    def install(self, app: web.Application, connections: int) -> None:
        """The routes, on a server taking at most ``connections`` at once."""
        self.streams.fit(connections)
        app.router.add_get("/app", self._page)
        app.router.add_get("/app/", self._slash)
        app.router.add_get("/app/api/table", self._guarded(self._table))
        app.router.add_get("/app/api/events", self._guarded(self.streams.events))
        app.router.add_post("/app/api/move", self._guarded(self._move))
        app.router.add_post("/app/api/again", self._guarded(self._again))
        app.router.add_get("/app/{name}", self._file)

    def _guarded(self, handler: Handler) -> Handler:
        """A request the bot cannot serve now (its database down) gets 503 and one quiet log
        line, not a traceback each: the page tries again."""

        async def guarded(request: web.Request) -> web.StreamResponse:
            try:
                return await handler(request)
            except (web.HTTPException, asyncio.CancelledError):
                raise
            except Exception as exc:
                self.quiet.tell("live table: %r", exc)
                return web.json_response({"error": "busy"}, status=503)

        return guarded

    # -- the page ---------------------------------------------------------------------------------

    async def _page(self, request: web.Request) -> web.StreamResponse:
        return static_file("table.html")

    async def _slash(self, request: web.Request) -> web.StreamResponse:
        """``/app/``: the page's own address is ``/app`` (its script is found beside it)."""
        raise web.HTTPMovedPermanently(request.rel_url.with_path("/app", keep_query=True))

    async def _file(self, request: web.Request) -> web.StreamResponse:
        return static_file(request.match_info["name"])

    # -- reading ----------------------------------------------------------------------------------

    async def _table(self, request: web.Request) -> web.Response:
        """The table; with ``after``, 204 unless the game is newer than that version (a page
        that polls gets nothing it has)."""
        access = self.access
        try:
            asking = await access.asking(request.query.get("game"), access.who(request))
            after_version = version_of(request.query.get("after"))
        except Problem as problem:
            return problem.response()
        if asking.shot.version <= after_version:
            return web.Response(status=204, headers={"Cache-Control": "no-store"})
        return json_answer(access.view(asking, asking.shot))

    # -- acting -----------------------------------------------------------------------------------

    async def _move(self, request: web.Request) -> web.Response:
        try:
            viewer = self.access.who(request)
            body = await read_body(request)
            asking = await self.access.asking(body.get("game"), viewer)
            move, turn, round_no = body.get("move"), body.get("turn"), body.get("round")
            if not isinstance(move, str) or move not in MOVES:
                raise Problem(400, "bad_request")
            if not is_int(turn) or not is_int(round_no):
                raise Problem(400, "bad_request")
        except Problem as problem:
            return problem.response()
        user = asking.viewer.user_id
        outcome = await play.act(
            self.services.deps,
            asking.shot.seen.game.id,
            user,
            Move(move),
            turn,
            None,  # idempotent by its turn: of a page's and a key's press, one takes effect
            round_no=round_no,
            asker=Asker(user, asking.viewer.language),
        )
        return await self._answer(asking, outcome, with_view=True)

    async def _again(self, request: web.Request) -> web.Response:
        try:
            viewer = self.access.who(request)
            body = await read_body(request)
            asking = await self.access.asking(body.get("game"), viewer)
        except Problem as problem:
            return problem.response()
        user = Player(
            viewer.user_id, viewer.first_name, viewer.last_name, viewer.username, can_dm=None
        )
        can_dm = await chats.reachable(self.services.deps, viewer.user_id)
        # Pressed "in the private chat" of a seat, as the key in a seat's private chat is; a
        # group member who was not seated presses it as in the group.
        seen = asking.shot.seen
        where = viewer.user_id if asking.seat is not None else seen.chat_id
        outcome = await lobby.play_again(
            self.services.deps, seen.game.id, where, user, reachable=can_dm is not False
        )
        body, status = await self._told(asking, outcome, with_view=False)
        onward = outcome.game_id
        if onward and onward != seen.game.id:
            # The game the group goes on with (the new lobby, or the one open or running there
            # already) and its view: the page shows it next.
            shot = await self.hub.latest(onward)
            if shot is not None and shot.seen.chat_id == seen.chat_id:
                seat = viewer.user_id if viewer.user_id in shot.seen.game.seats else None
                body["game"] = onward
                body["view"] = shot.view(seat, self.services.deps.clock.now())
        return json_answer(body, status=status)

    async def _answer(self, asking: Asking, outcome: Outcome, *, with_view: bool) -> web.Response:
        body, status = await self._told(asking, outcome, with_view=with_view)
        return json_answer(body, status=status)

    async def _told(
        self, asking: Asking, outcome: Outcome, *, with_view: bool
    ) -> tuple[dict[str, Any], int]:
        """What a key pressed on the page answers: its toast, whether it took effect and, for
        a move, the view after it."""
        await self.services.after(outcome)  # the chat is told as after a key (not the presser)
        lang = outcome.lang or asking.viewer.language or asking.shot.seen.language
        reply = outcome.reply
        text = self.services.renderer.popup(lang, reply, outcome.named) if reply else ""
        ok = outcome.batch is not None  # it took effect: it has something to tell the chats
        self.metrics.live_moves.labels("taken" if ok else "refused").inc()
        body: dict[str, Any] = {"ok": ok, "reply": text}
        if with_view:
            # The game as this instance's pages have it: on SQLite already the move's. On
            # PostgreSQL NOTIFY comes a moment later, so a move that took effect tells this
            # instance's pages at once (one read for the answer and them all).
            game_id = asking.shot.seen.game.id
            shot = await self.hub.latest(game_id)
            if ok and shot is not None and shot.version <= asking.shot.version:
                self.hub.changed(frozenset({game_id}))
                shot = await self.hub.latest(game_id)
            if shot is not None:
                body["view"] = shot.view(asking.seat, self.services.deps.clock.now())
        return body, 200 if ok else 409
