"""The live table's event streams (Server-Sent Events): each page hears every newer version of
its game, from any instance, until what let it in may no longer hold; a few per person, and
never so many that Telegram's updates find no connection."""

from __future__ import annotations

import asyncio
import time

from aiohttp import web

from cuckoo_bot.app.tuning import (
    GONE_EVERY,
    MEMBER_FOR,
    PING_EVERY,
    STREAMS_PER_USER,
    STREAMS_SPARE,
)
from cuckoo_bot.transport.metrics import Metrics
from cuckoo_bot.transport.webapp.access import Access
from cuckoo_bot.transport.webapp.hub import Hub
from cuckoo_bot.transport.webapp.view import Snapshot, encode_event
from cuckoo_bot.transport.webapp.wire import Problem, Quiet, send, version_of


class Streams:
    def __init__(
        self, access: Access, hub: Hub[Snapshot | None], metrics: Metrics, quiet: Quiet
    ) -> None:
        self.access = access
        self.hub = hub
        self.metrics = metrics
        self.quiet = quiet
        self.most = 1  # set by ``fit``
        self.open = 0
        self._per_user: dict[int, int] = {}  # open streams by person

    def fit(self, connections: int) -> None:
        """The server takes at most ``connections`` at once: some stay free of streams."""
        self.most = max(1, connections - STREAMS_SPARE)

    async def events(self, request: web.Request) -> web.StreamResponse:
        access = self.access
        try:
            asking = await access.asking(request.query.get("game"), access.who(request))
            resume = request.query.get("after", request.headers.get("Last-Event-ID"))
            after_version = version_of(resume)
        except Problem as problem:
            return problem.response()
        user = asking.viewer.user_id
        if self.open >= self.most or self._per_user.get(user, 0) >= STREAMS_PER_USER:
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
        good_for = asking.viewer.signed_at + access.check.max_age - time.time()
        if asking.seat is None:
            good_for = min(good_for, MEMBER_FOR)
        ends = loop.time() + max(good_for, 1.0)
        self.open += 1
        self._per_user[user] = self._per_user.get(user, 0) + 1
        self.metrics.live_pages.inc()
        try:
            await response.prepare(request)
            with self.hub.watch(game_id) as wake:
                # Read again once watching: a change made since the first read woke nobody.
                shot: Snapshot | None = await self.hub.latest(game_id)
                first = True  # the first event carries the page's texts; the others share one
                while shot is not None and not access.closing.is_set() and loop.time() < ends:
                    if shot.version > after_version:
                        after_version = shot.version
                        now = access.services.deps.clock.now()
                        if first:
                            event = encode_event(shot.version, access.view(asking, shot))
                        else:
                            event = shot.event(asking.seat, now)
                        await send(response, event)
                        first = False
                    woken = await self._woken(wake, request)
                    if woken is None:
                        break  # the page went away (its slot is free at once), or shutdown
                    if not woken:
                        await send(response, b": ping\n\n")
                        continue
                    wake.clear()
                    shot = await self.hub.latest(game_id)
        except (ConnectionResetError, TimeoutError):
            pass  # the page went away, or stopped reading
        except Exception as exc:  # the database, most likely: the page reconnects, then polls
            self.quiet.tell("a live table stream ended: %r", exc)
        finally:
            self.open -= 1
            self._per_user[user] -= 1
            if not self._per_user[user]:
                del self._per_user[user]
            self.metrics.live_pages.dec()
        return response

    async def _woken(self, wake: asyncio.Event, request: web.Request) -> bool | None:
        """Wait for the game's next change (True), a ping's time (False), the page going away
        (None: aiohttp does not cancel a handler whose client left, so the connection is
        looked at every ``GONE_EVERY``) or shutdown (None: the hub wakes every watcher).
        The stream's own task waits on the event: a change wakes it at the loop's next turn
        (a task per thing awaited, and ``asyncio.wait`` over them, took three more)."""
        loop = asyncio.get_running_loop()
        ping = loop.time() + PING_EVERY
        while True:
            left = ping - loop.time()
            try:
                async with asyncio.timeout(min(GONE_EVERY, max(left, 0))):
                    await wake.wait()
                return None if self.access.closing.is_set() else True
            except TimeoutError:
                pass
            if self.access.closing.is_set():
                return None
            if request.transport is None or request.transport.is_closing():
                return None
            if left <= GONE_EVERY:
                return False
