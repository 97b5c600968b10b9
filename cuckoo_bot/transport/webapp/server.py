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
"""

from __future__ import annotations

import asyncio
import json
import logging
import time
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass
from importlib import resources
from typing import Any, Protocol, TypeGuard

from aiohttp import web
from cachetools import TTLCache
from telegram import Bot, ChatMember
from telegram.error import BadRequest, Forbidden, TelegramError

from cuckoo_bot.app import chats, lobby, play
from cuckoo_bot.app.model import Asker, Player
from cuckoo_bot.app.results import Outcome
from cuckoo_bot.app.tuning import (
    BODY_LIMIT,
    MEMBER_FOR,
    MEMBERS_KEPT,
    PING_EVERY,
    STREAMS_PER_USER,
    STREAMS_SPARE,
    WRITE_TIMEOUT,
)
from cuckoo_bot.domain.actions import Move
from cuckoo_bot.transport.metrics import Metrics
from cuckoo_bot.transport.services import Services
from cuckoo_bot.transport.webapp.auth import InitDataCheck, Refused, Viewer
from cuckoo_bot.transport.webapp.contract import PageView
from cuckoo_bot.transport.webapp.hub import Hub
from cuckoo_bot.transport.webapp.view import Snapshot, encode_event, page_strings

log = logging.getLogger(__name__)

QUIET_EVERY = 10.0  # seconds between two log lines about failing streams
MOVES = frozenset(move.value for move in Move)
STATIC = resources.files("cuckoo_bot.transport.webapp") / "static"
# The page runs its own script and Telegram's, talks only to this server, and draws its cards
# inline: nothing else may run or load, whatever a name or an answer holds.
PAGE_POLICY = (
    "default-src 'none'; script-src 'self' https://telegram.org; style-src 'unsafe-inline';"
    " img-src 'self' data:; connect-src 'self'; base-uri 'none'; form-action 'none'"
)
TYPES = {".html": "text/html", ".js": "application/javascript", ".css": "text/css"}


Handler = Callable[[web.Request], Awaitable[web.StreamResponse]]


class Problem(Exception):
    """A request answered with ``status`` and ``{"error": code}``."""

    def __init__(self, status: int, code: str, strings: dict[str, str] | None = None) -> None:
        super().__init__(code)
        self.status = status
        self.code = code
        self.strings = strings  # the page's texts, when the asker's language is known

    def response(self) -> web.Response:
        body: dict[str, object] = {"error": self.code}
        if self.strings is not None:
            body["strings"] = self.strings
        return web.json_response(body, status=self.status)


class Listening(Protocol):
    """What hears the other instances' changes (``persistence.listen.GameListener``)."""

    def start(self) -> None: ...

    async def stop(self) -> None: ...


@dataclass(frozen=True)
class Asking:
    """An authorised request: who asks, about which game, and their seat (None: watching)."""

    viewer: Viewer
    shot: Snapshot
    seat: int | None


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
        self.bot = bot
        self.check = check
        self.hub = hub
        self.listener = listener  # PostgreSQL: every instance's changes; SQLite: in process
        self.metrics = metrics or Metrics()
        self.max_streams = 1
        self.streams = 0
        # Group memberships asked of Telegram, each taken as known for MEMBER_FOR seconds of
        # the bot's clock.
        self._members: TTLCache[tuple[int, int], bool] = TTLCache(
            MEMBERS_KEPT, MEMBER_FOR, timer=lambda: services.deps.clock.now().timestamp()
        )
        self._texts: dict[str, dict[str, str]] = {}
        self._closing = asyncio.Event()  # set at shutdown: the event streams end
        self._per_user: dict[int, int] = {}  # open streams by person
        self._told_at = -QUIET_EVERY  # when a stream's failure was last logged

    async def start(self) -> None:
        if self.listener is not None:
            self.listener.start()

    def close_streams(self) -> None:
        """At shutdown: every event stream ends now (its page reconnects to another
        instance, or to this one once it is back)."""
        self._closing.set()

    async def stop(self) -> None:
        self.close_streams()
        if self.listener is not None:
            await self.listener.stop()

    def install(self, app: web.Application, connections: int) -> None:
        """The routes, on a server taking at most ``connections`` at once."""
        self.max_streams = max(1, connections - STREAMS_SPARE)
        app.router.add_get("/app", self._page)
        app.router.add_get("/app/", self._slash)
        app.router.add_get("/app/api/table", self._guarded(self._table))
        app.router.add_get("/app/api/events", self._guarded(self._events))
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
                self._told_at = _tell_quietly(self._told_at, "live table: %r", exc)
                return web.json_response({"error": "busy"}, status=503)

        return guarded

    # -- the page ---------------------------------------------------------------------------------

    async def _page(self, request: web.Request) -> web.StreamResponse:
        return _static("table.html")

    async def _slash(self, request: web.Request) -> web.StreamResponse:
        """``/app/``: the page's own address is ``/app`` (its script is found beside it)."""
        raise web.HTTPMovedPermanently(request.rel_url.with_path("/app", keep_query=True))

    async def _file(self, request: web.Request) -> web.StreamResponse:
        return _static(request.match_info["name"])

    # -- who asks ---------------------------------------------------------------------------------

    def _who(self, request: web.Request) -> Viewer:
        """The user Telegram signed for (``Authorization: tma <initData>``); first of all, so
        nothing else of a request is looked at for someone unknown."""
        if self._closing.is_set():  # shutting down: the page tries again (another instance)
            raise Problem(503, "busy")
        header = request.headers.get("Authorization", "")
        scheme, _, init_data = header.partition(" ")
        try:
            return self.check.viewer(init_data.strip() if scheme.lower() == "tma" else None)
        except Refused as refused:
            raise Problem(401, "expired" if refused.expired else "unauthorized") from None

    async def _asking(self, request: web.Request, game: object, viewer: Viewer) -> Asking:
        # Told in the asker's language: Telegram says which (the game's, once it is known).
        said = self._strings(viewer.language)
        try:
            game_id = _game_id(game)
        except Problem:
            raise Problem(400, "bad_request", said) from None
        shot = await self.hub.latest(game_id)
        if shot is None:
            raise Problem(404, "no_game", said)
        seen = shot.seen
        if viewer.user_id in seen.game.seats:
            return Asking(viewer, shot, viewer.user_id)
        if not await self._member(seen.chat_id, viewer.user_id):
            raise Problem(403, "forbidden", self._strings(seen.language))
        return Asking(viewer, shot, None)

    def _strings(self, language: str | None) -> dict[str, str]:
        """The page's texts in ``language`` (the bot's default for None), made once each."""
        key = language or ""
        if key not in self._texts:
            self._texts[key] = page_strings(self.services.renderer.tr, language)
        return self._texts[key]

    async def _member(self, chat_id: int, user_id: int) -> bool:
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

    def _view(self, asking: Asking, shot: Snapshot) -> PageView:
        """The table for this asker, with the page's texts (a whole answer, not an event)."""
        view = shot.view(asking.seat, self.services.deps.clock.now())
        return {**view, "strings": self._strings(shot.seen.language)}

    # -- reading ----------------------------------------------------------------------------------

    async def _table(self, request: web.Request) -> web.Response:
        """The table; with ``after``, 204 unless the game is newer than that version (a page
        that polls gets nothing it has)."""
        try:
            asking = await self._asking(request, request.query.get("game"), self._who(request))
            after_version = _version(request.query.get("after"))
        except Problem as problem:
            return problem.response()
        if asking.shot.version <= after_version:
            return web.Response(status=204, headers={"Cache-Control": "no-store"})
        return _json(self._view(asking, asking.shot))

    async def _events(self, request: web.Request) -> web.StreamResponse:
        try:
            asking = await self._asking(request, request.query.get("game"), self._who(request))
            resume = request.query.get("after", request.headers.get("Last-Event-ID"))
            after_version = _version(resume)
        except Problem as problem:
            return problem.response()
        user = asking.viewer.user_id
        if self.streams >= self.max_streams or self._per_user.get(user, 0) >= STREAMS_PER_USER:
            # The page polls instead; the server's connections stay free for Telegram.
            return web.json_response({"error": "busy"}, status=503, headers={"Retry-After": "30"})
        game_id = asking.shot.seen.game.id
        response = web.StreamResponse(
            headers={
                "Content-Type": "text/event-stream",
                "Cache-Control": "no-cache",
                "X-Accel-Buffering": "no",  # a proxy must pass each event on at once
            }
        )
        # A stream ends when what let it in may no longer hold: the initData's age limit, and
        # for a spectator the time a membership is taken as known. The page comes back with
        # ``after`` and is asked again.
        loop = asyncio.get_running_loop()
        # (Telegram signs initData with the wall clock's time, as ``auth.py`` checks it.)
        good_for = asking.viewer.signed_at + self.check.max_age - time.time()
        if asking.seat is None:
            good_for = min(good_for, MEMBER_FOR)
        ends = loop.time() + max(good_for, 1.0)
        self.streams += 1
        self._per_user[user] = self._per_user.get(user, 0) + 1
        self.metrics.live_pages.inc()
        try:
            await response.prepare(request)
            with self.hub.watch(game_id) as wake:
                # Read again once watching: a change made since the first read woke nobody.
                shot: Snapshot | None = await self.hub.latest(game_id)
                first = True  # the first event carries the page's texts; the others share one
                while shot is not None and not self._closing.is_set() and loop.time() < ends:
                    if shot.version > after_version:
                        after_version = shot.version
                        now = self.services.deps.clock.now()
                        if first:
                            event = encode_event(shot.version, self._view(asking, shot))
                        else:
                            event = shot.event(asking.seat, now)
                        await _send(response, event)
                        first = False
                    if not await self._woken(wake):
                        await _send(response, b": ping\n\n")
                        continue
                    wake.clear()
                    shot = await self.hub.latest(game_id)
        except (ConnectionResetError, TimeoutError):
            pass  # the page went away, or stopped reading
        except Exception as exc:  # the database, most likely: the page reconnects, then polls
            self._told_at = _tell_quietly(self._told_at, "a live table stream ended: %r", exc)
        finally:
            self.streams -= 1
            self._per_user[user] -= 1
            if not self._per_user[user]:
                del self._per_user[user]
            self.metrics.live_pages.dec()
        return response

    async def _woken(self, wake: asyncio.Event) -> bool:
        """Wait for the game's next change (True), shutdown (True) or a ping's time (False)."""
        closing = asyncio.ensure_future(self._closing.wait())
        woken = asyncio.ensure_future(wake.wait())
        try:
            done, _ = await asyncio.wait(
                {closing, woken}, timeout=PING_EVERY, return_when=asyncio.FIRST_COMPLETED
            )
        finally:
            closing.cancel()
            woken.cancel()
        return bool(done)

    # -- acting -----------------------------------------------------------------------------------

    async def _move(self, request: web.Request) -> web.Response:
        try:
            viewer = self._who(request)
            body = await _body(request)
            asking = await self._asking(request, body.get("game"), viewer)
            move, turn, round_no = body.get("move"), body.get("turn"), body.get("round")
            if not isinstance(move, str) or move not in MOVES:
                raise Problem(400, "bad_request")
            if not _is_int(turn) or not _is_int(round_no):
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
            viewer = self._who(request)
            body = await _body(request)
            asking = await self._asking(request, body.get("game"), viewer)
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
        return await self._answer(asking, outcome, with_view=False)

    async def _answer(self, asking: Asking, outcome: Outcome, *, with_view: bool) -> web.Response:
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
        return _json(body, status=200 if ok else 409)


def _static(name: str) -> web.StreamResponse:
    suffix = name[name.rfind(".") :] if "." in name else ""
    content_type = TYPES.get(suffix)
    item = STATIC / name
    if content_type is None or "/" in name or not item.is_file():
        return web.json_response({"error": "not_found"}, status=404)
    headers = {"Cache-Control": "no-cache", "X-Content-Type-Options": "nosniff"}
    if content_type == "text/html":
        headers["Content-Security-Policy"] = PAGE_POLICY
    return web.Response(
        body=item.read_bytes(), content_type=content_type, charset="utf-8", headers=headers
    )


def _json(body: Mapping[str, object], status: int = 200) -> web.Response:
    return web.json_response(body, status=status, headers={"Cache-Control": "no-store"})


async def _send(response: web.StreamResponse, data: bytes) -> None:
    """One write to a page; a page that stops reading is let go (its connection with it)."""
    async with asyncio.timeout(WRITE_TIMEOUT):
        await response.write(data)


def _tell_quietly(told_at: float, message: str, *args: object) -> float:
    """Log ``message`` unless something was told less than ``QUIET_EVERY`` seconds ago (a
    database outage ends every stream at once); when it was last told."""
    now = time.monotonic()
    if now - told_at < QUIET_EVERY:
        return told_at
    log.warning(message, *args)
    return now


def _is_int(value: object) -> TypeGuard[int]:
    return isinstance(value, int) and not isinstance(value, bool)


def _game_id(value: object) -> int:
    if isinstance(value, str) and value.isascii() and value.isdigit() and len(value) < 19:
        value = int(value)
    if isinstance(value, int) and _is_int(value) and 0 < value < 2**63:
        return value
    raise Problem(400, "bad_request")


def _version(value: str | None) -> int:
    if value is None or value == "":
        return -1
    if not (value.isascii() and value.isdigit()) or len(value) > 18:
        raise Problem(400, "bad_request")
    return int(value)


async def _body(request: web.Request) -> dict[str, Any]:
    if request.content_length is not None and request.content_length > BODY_LIMIT:
        raise Problem(413, "too_large")
    raw = b""
    try:
        async with asyncio.timeout(5):
            while len(raw) <= BODY_LIMIT and (chunk := await request.content.readany()):
                raw += chunk
        if len(raw) > BODY_LIMIT:
            raise Problem(413, "too_large")
        data = json.loads(raw)
    except (TimeoutError, ValueError, RecursionError):  # JSON's and UTF-8's errors included
        raise Problem(400, "bad_request") from None
    if not isinstance(data, dict):
        raise Problem(400, "bad_request")
    return data
