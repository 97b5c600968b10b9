"""FakeBotApi: the HTTP front end (aiohttp) serving /bot<token>/<method> and /_control/<action>."""

from __future__ import annotations

import inspect
import logging
from collections.abc import Iterable
from types import TracebackType
from typing import Any, Self

from aiohttp import web

from . import (  # noqa: F401 - importing registers the handlers
    api_bot,
    api_callbacks,
    api_chats,
    api_commands,
    api_deletes,
    api_messages,
)
from .control import Controls
from .errors import ApiError, method_not_found, unauthorized
from .http_io import dumps, jsonable, query_value, read_params
from .models import JSON, CallRecord
from .params import Params
from .registry import CANONICAL, HANDLERS
from .state import TelegramState

_log = logging.getLogger(__name__)

# Control actions reachable over HTTP: the Controls methods, by name.
CONTROL_ACTIONS = frozenset(
    {
        "add_user",
        "add_group",
        "join_group",
        "create_topic",
        "user_sends",
        "user_edits",
        "press_button",
        "callback_answer",
        "wait_callback_answer",
        "block_bot",
        "unblock_bot",
        "kick_bot",
        "add_bot_to_group",
        "migrate_group",
        "flood",
        "flood_chat",
        "flood_violations",
        "drop_answers",
        "age_message",
        "messages",
        "last_message",
        "dm",
        "calls",
        "call_count",
        "commands",
        "bot_texts",
        "pending_updates",
        "transcript",
        "wait_for_message",
        "wait_idle",
        "webhook_targets",
        "webhook_duplicate",
        "webhook_deliveries",
        "delivered_update_ids",
        "webhook_pending",
        "wait_webhook_idle",
    }
)


class FakeBotApi(Controls):
    """A fake Telegram Bot API server on 127.0.0.1 with a test control API.

    Use as `async with FakeBotApi() as server:` and point the bot at `server.base_url`.
    Once the bot calls setWebhook, updates are POSTed to its URL instead; a webhook has
    `webhook_timeout` seconds to answer an update, and a failed one is sent again after
    `webhook_retry_delay` seconds. `insecure_web_app_origins` (e.g. `("http://127.0.0.1:8080",)`)
    lets web_app buttons open plain-http pages of those origins, which Telegram never allows:
    only the local demo, which serves its page on 127.0.0.1, needs it.
    """

    def __init__(
        self,
        token: str = "123:ABC",
        bot_username: str = "cuckoo_test_bot",
        *,
        bot_first_name: str = "Cuckoo Test Bot",
        host: str = "127.0.0.1",
        port: int = 0,
        privacy_mode: bool = True,
        rate_limit: bool = False,
        strict_ampersand: bool = True,
        callback_query_timeout: float | None = None,
        control_api: bool = True,
        webhook_timeout: float = 10.0,
        webhook_retry_delay: float = 0.2,
        insecure_web_app_origins: Iterable[str] = (),
    ) -> None:
        super().__init__(
            TelegramState(
                token,
                bot_username,
                bot_first_name,
                privacy_mode=privacy_mode,
                rate_limit=rate_limit,
                strict_ampersand=strict_ampersand,
                callback_query_timeout=callback_query_timeout,
                webhook_timeout=webhook_timeout,
                webhook_retry_delay=webhook_retry_delay,
                insecure_web_app_origins=insecure_web_app_origins,
            )
        )
        self.host = host
        self._requested_port = port
        self._port: int | None = None
        self._control_api = control_api
        self._runner: web.AppRunner | None = None

    # -- addresses --------------------------------------------------------------------

    @property
    def token(self) -> str:
        return self.world.token

    @property
    def bot(self) -> JSON:
        """The bot's User object."""
        return self.world.bot.to_api()

    @property
    def port(self) -> int:
        if self._port is None:
            raise RuntimeError("server not started")
        return self._port

    @property
    def url(self) -> str:
        return f"http://{self.host}:{self.port}"

    @property
    def base_url(self) -> str:
        """For `telegram.Bot(token, base_url=...)`, which appends `<token>/<method>`."""
        return f"{self.url}/bot"

    @property
    def control_url(self) -> str:
        return f"{self.url}/_control"

    # -- lifecycle ----------------------------------------------------------------------

    def make_app(self) -> web.Application:
        app = web.Application(client_max_size=64 * 1024 * 1024)
        app.router.add_route("*", "/bot{token}/{method}", self._bot_endpoint)
        if self._control_api:
            app.router.add_route("GET", "/_control", self._control_index)
            app.router.add_route("*", "/_control/{action}", self._control_endpoint)
        app.router.add_route("*", "/{tail:.*}", self._not_found)
        return app

    async def start(self) -> None:
        self.world.closing = False
        self._runner = web.AppRunner(self.make_app(), access_log=None, shutdown_timeout=2.0)
        await self._runner.setup()
        site = web.TCPSite(self._runner, self.host, self._requested_port)
        await site.start()
        self._port = int(self._runner.addresses[0][1])
        await self.world.delivery.resume()

    async def stop(self) -> None:
        # Release long polls first so shutdown does not wait for their timeouts.
        self.world.closing = True
        self.world.changed("closing")
        await self.world.delivery.close()
        if self._runner is not None:
            await self._runner.cleanup()
            self._runner = None

    async def __aenter__(self) -> Self:
        await self.start()
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        await self.stop()

    # -- HTTP handlers ---------------------------------------------------------------------

    async def _bot_endpoint(self, request: web.Request) -> web.Response:
        given = request.match_info["method"]
        method = CANONICAL.get(given.lower(), given)
        started = self.world.clock()
        params = Params({})
        result: Any = None
        try:
            params = Params(await read_params(request), method)
            if request.match_info["token"] != self.world.token:
                raise unauthorized()
            if given.lower() not in CANONICAL:
                raise method_not_found()
            implementation = HANDLERS.get(method)
            result = await implementation(self.world, params) if implementation else True
            status, body = 200, {"ok": True, "result": result}
        except ApiError as error:
            status, body = error.code, error.body()
        except Exception as error:  # a bug in the fake must show up as a failed call, not hang
            _log.exception("fake Bot API failed in %s", method)
            status = 500
            body = {
                "ok": False,
                "error_code": 500,
                "description": f"Internal Server Error: {error!r}",
            }
        record = CallRecord(method, params.recorded(), status, started, body.get("description"))
        record.result, record.parameters = result, body.get("parameters")
        lost = status == 200 and self.world.lost_answers.take(method, record.params)
        if lost:
            record.status = 0  # carried out, but the bot hears nothing
        self.world.record_call(record)
        if lost and request.transport is not None:
            request.transport.close()
        return web.json_response(body, status=status, dumps=dumps)

    async def _not_found(self, request: web.Request) -> web.Response:
        body = {"ok": False, "error_code": 404, "description": "Not Found"}
        return web.json_response(body, status=404)

    async def _control_index(self, request: web.Request) -> web.Response:
        return web.json_response({"ok": True, "result": sorted(CONTROL_ACTIONS)})

    async def _control_endpoint(self, request: web.Request) -> web.Response:
        action = request.match_info["action"]
        if action not in CONTROL_ACTIONS:
            return web.json_response({"ok": False, "error": f"unknown action {action}"}, status=404)
        kwargs: dict[str, Any] = {k: query_value(v) for k, v in request.query.items()}
        if request.body_exists:
            try:
                body = await request.json()
            except ValueError:
                return web.json_response({"ok": False, "error": "body must be JSON"}, status=400)
            if not isinstance(body, dict):
                return web.json_response(
                    {"ok": False, "error": "body must be an object"}, status=400
                )
            kwargs.update(body)
        try:
            result = getattr(self, action)(**kwargs)
            if inspect.isawaitable(result):
                result = await result
        except TimeoutError as error:
            return web.json_response({"ok": False, "error": str(error)}, status=408, dumps=dumps)
        except (ValueError, KeyError, TypeError, ApiError) as error:
            return web.json_response({"ok": False, "error": str(error)}, status=400, dumps=dumps)
        return web.json_response({"ok": True, "result": jsonable(result)}, dumps=dumps)
