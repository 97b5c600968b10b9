"""Webhook delivery in the fake Bot API, seen from webhook endpoints the tests run themselves."""

from __future__ import annotations

import asyncio
import socket
import ssl
from collections import deque
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass
from typing import Any

import aiohttp
import pytest
import telegram
from aiohttp import web
from telegram import InlineKeyboardButton, InlineKeyboardMarkup
from telegram.error import BadRequest, Conflict
from telegram.request import HTTPXRequest

from fakebotapi import CONTROL_ACTIONS, FakeBotApi

TOKEN = "123456:TEST-token"
ANN, BOB, CAT = 1001, 1002, 1003
GROUP = -500
SECRET_HEADER = "X-Telegram-Bot-Api-Secret-Token"
_TLS = ssl.create_default_context()  # one context for all clients: loading CAs is slow

JSON = dict[str, Any]


@dataclass
class Arrival:
    """One POST a receiver got, and when it answered."""

    update: JSON
    secret: str | None
    content_type: str
    arrived: float
    answered: float | None = None

    @property
    def update_id(self) -> int:
        return int(self.update["update_id"])

    @property
    def text(self) -> str | None:
        message = self.update.get("message")
        return message.get("text") if message else None


class Receiver:
    """A bot instance's webhook endpoint: keeps what arrives and answers as the test says."""

    def __init__(self) -> None:
        self.arrivals: list[Arrival] = []
        self.status = 200  # the answer once `answers` is used up
        self.answers: deque[int] = deque()
        self.gate = asyncio.Event()  # clear() holds every answer until set()
        self.gate.set()
        self.stall = 0  # the next `stall` requests get no answer at all
        self.in_flight = 0
        self.max_in_flight = 0
        self.url = ""
        self._arrived = asyncio.Event()
        self._stopping = asyncio.Event()
        self._runner: web.AppRunner | None = None

    async def start(self, port: int = 0) -> Receiver:
        app = web.Application()
        app.router.add_post("/hook", self._handle)
        self._runner = web.AppRunner(app, access_log=None, shutdown_timeout=0.5)
        await self._runner.setup()
        await web.TCPSite(self._runner, "127.0.0.1", port).start()
        self.url = f"http://127.0.0.1:{self._runner.addresses[0][1]}/hook"
        return self

    async def stop(self) -> None:
        self._stopping.set()
        self.gate.set()
        if self._runner is not None:
            await self._runner.cleanup()

    async def _handle(self, request: web.Request) -> web.Response:
        loop = asyncio.get_running_loop()
        arrival = Arrival(
            await request.json(),
            request.headers.get(SECRET_HEADER),
            request.content_type,
            loop.time(),
        )
        self.arrivals.append(arrival)
        self._arrived.set()
        self._arrived = asyncio.Event()
        self.in_flight += 1
        self.max_in_flight = max(self.max_in_flight, self.in_flight)
        try:
            if self.stall:
                self.stall -= 1
                await self._stopping.wait()
            await self.gate.wait()
        finally:
            self.in_flight -= 1
        arrival.answered = loop.time()
        return web.Response(status=self.answers.popleft() if self.answers else self.status)

    async def wait_arrivals(self, count: int, timeout: float = 5.0) -> list[Arrival]:  # noqa: ASYNC109
        async with asyncio.timeout(timeout):
            while len(self.arrivals) < count:
                await self._arrived.wait()
        return self.arrivals

    @property
    def update_ids(self) -> list[int]:
        return [a.update_id for a in self.arrivals]

    @property
    def texts(self) -> list[str | None]:
        return [a.text for a in self.arrivals]


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
    return port


def closed_port_url(port: int | None = None) -> str:
    """A URL nothing listens on (yet): connections to it are refused."""
    return f"http://127.0.0.1:{port or free_port()}/hook"


def make_bot(base_url: str) -> telegram.Bot:
    return telegram.Bot(
        TOKEN,
        base_url=base_url,
        request=HTTPXRequest(httpx_kwargs={"verify": _TLS}),
        get_updates_request=HTTPXRequest(httpx_kwargs={"verify": _TLS}),
    )


def populate(server: FakeBotApi) -> None:
    server.add_user(ANN, "Ann", started=True)
    server.add_user(BOB, "Bob", started=True)
    server.add_user(CAT, "Cat", started=True)
    server.add_group(GROUP, "Table", members=[ANN, BOB, CAT])


@pytest.fixture
async def server() -> AsyncIterator[FakeBotApi]:
    async with FakeBotApi(token=TOKEN, webhook_retry_delay=0.05) as srv:
        populate(srv)
        yield srv


@pytest.fixture
async def bot(server: FakeBotApi) -> AsyncIterator[telegram.Bot]:
    async with make_bot(server.base_url) as client:
        yield client


@pytest.fixture
async def receiver() -> AsyncIterator[Callable[..., Awaitable[Receiver]]]:
    """Starts webhook endpoints (on a given port if asked) and stops them after the test."""
    started: list[Receiver] = []

    async def start(port: int = 0) -> Receiver:
        started.append(await Receiver().start(port))
        return started[-1]

    yield start
    for each in started:
        await each.stop()


# -- what arrives ------------------------------------------------------------------------------


async def test_every_kind_of_update_is_posted_as_json_with_the_secret_header(
    server: FakeBotApi, bot: telegram.Bot, receiver: Callable[..., Awaitable[Receiver]]
) -> None:
    hook = await receiver()
    assert await bot.set_webhook(hook.url, secret_token="s3cret_-TOKEN")
    sent = await bot.send_message(
        ANN, "Pick", reply_markup=InlineKeyboardMarkup([[InlineKeyboardButton("Go", None, "go")]])
    )
    first = server.user_sends(ANN, ANN, "/start")
    query_id = server.press_button(ANN, ANN, sent.message_id, "go")
    server.block_bot(CAT)

    await server.wait_webhook_idle(timeout=5)

    arrivals = sorted(hook.arrivals, key=lambda a: a.update_id)
    kinds = [next(k for k in a.update if k != "update_id") for a in arrivals]
    assert kinds == ["message", "callback_query", "my_chat_member"]
    assert {(a.secret, a.content_type) for a in arrivals} == {("s3cret_-TOKEN", "application/json")}
    message = telegram.Update.de_json(arrivals[0].update, bot).message
    assert message is not None
    assert (message.message_id, message.text) == (first.message_id, "/start")
    query = telegram.Update.de_json(arrivals[1].update, bot).callback_query
    assert query is not None and (query.id, query.data) == (query_id, "go")
    ids = [a.update_id for a in arrivals]
    assert sorted(server.delivered_update_ids()) == ids
    assert [(r.update_id, r.url, r.status) for r in server.webhook_deliveries()] == [
        (i, hook.url, 200) for i in server.delivered_update_ids()
    ]
    assert server.pending_updates() == [] and server.webhook_pending() == 0
    info = await bot.get_webhook_info()
    assert (info.url, info.pending_update_count, info.last_error_date) == (hook.url, 0, None)


async def test_no_secret_no_header(
    server: FakeBotApi, bot: telegram.Bot, receiver: Callable[..., Awaitable[Receiver]]
) -> None:
    hook = await receiver()
    await bot.set_webhook(hook.url)
    server.user_sends(ANN, ANN, "hello")
    await server.wait_webhook_idle(timeout=5)
    assert [(a.text, a.secret) for a in hook.arrivals] == [("hello", None)]


# -- the webhook and getUpdates -------------------------------------------------------------


async def test_get_updates_conflicts_while_a_webhook_is_set_and_polling_resumes_after_delete(
    server: FakeBotApi, bot: telegram.Bot, receiver: Callable[..., Awaitable[Receiver]]
) -> None:
    await bot.set_webhook(closed_port_url())
    with pytest.raises(Conflict, match="can't use getUpdates method while webhook is active"):
        await bot.get_updates()
    assert server.calls("getUpdates")[-1].status == 409
    server.user_sends(ANN, ANN, "kept")
    await server.wait_for(lambda: len(server.webhook_deliveries()) >= 2)

    assert await bot.delete_webhook()
    attempts = len(server.webhook_deliveries())
    await asyncio.sleep(0.2)  # four retry delays: deliveries stopped with the webhook
    assert len(server.webhook_deliveries()) == attempts
    (update,) = await bot.get_updates(timeout=0)  # what was not delivered is still pending
    assert update.message is not None and update.message.text == "kept"
    info = await bot.get_webhook_info()
    assert (info.url, info.pending_update_count, info.last_error_date) == ("", 1, None)

    # An empty url removes the webhook as well.
    hook = await receiver()
    await bot.set_webhook(hook.url)
    assert await bot.set_webhook("")
    assert (await bot.get_webhook_info()).url == ""
    assert [u.update_id for u in await bot.get_updates(timeout=0)] == [update.update_id]


async def test_set_webhook_ends_a_waiting_long_poll(
    server: FakeBotApi, bot: telegram.Bot, receiver: Callable[..., Awaitable[Receiver]]
) -> None:
    hook = await receiver()
    before = server.world.poll_generation
    poll = asyncio.create_task(bot.get_updates(timeout=5))
    await server.wait_for(lambda: server.world.poll_generation > before)
    await bot.set_webhook(hook.url)
    with pytest.raises(Conflict, match="terminated by setWebhook request"):
        await poll


async def test_drop_pending_updates_forgets_what_was_not_delivered(
    server: FakeBotApi, bot: telegram.Bot
) -> None:
    dead = closed_port_url()
    await bot.set_webhook(dead)
    server.user_sends(ANN, ANN, "lost")
    with pytest.raises(TimeoutError, match="1 pending; last error: 'Connection refused'"):
        await server.wait_webhook_idle(timeout=0.2)
    await bot.set_webhook(dead, drop_pending_updates=True)
    await server.wait_webhook_idle(timeout=1)
    assert (await bot.get_webhook_info()).pending_update_count == 0

    server.user_sends(ANN, ANN, "lost too")
    await bot.delete_webhook(drop_pending_updates=True)
    assert await bot.get_updates(timeout=0) == ()


# -- setWebhook's parameters, getWebhookInfo ------------------------------------------------


async def test_set_webhook_checks_its_parameters_and_get_webhook_info_reports_them(
    server: FakeBotApi, bot: telegram.Bot, receiver: Callable[..., Awaitable[Receiver]]
) -> None:
    hook = await receiver()
    info = await bot.get_webhook_info()
    assert (info.url, info.has_custom_certificate, info.pending_update_count) == ("", False, 0)
    assert (info.max_connections, info.ip_address, info.allowed_updates) == (None, None, ())

    for bad in ("a b", "a+b/c=", "секрет", "ok\n"):
        with pytest.raises(BadRequest, match=r"(?i)secret token contains unallowed characters"):
            await bot.set_webhook(hook.url, secret_token=bad)
    with pytest.raises(BadRequest, match=r"(?i)secret token is too long"):
        await bot.set_webhook(hook.url, secret_token="a" * 257)
    for bad_url in ("ftp://example.org/hook", "example.org/hook", "https:///hook"):
        with pytest.raises(BadRequest, match=r"(?i)invalid webhook URL specified"):
            await bot.set_webhook(bad_url)
    assert (await bot.get_webhook_info()).url == ""

    assert await bot.set_webhook(hook.url, secret_token="a" * 256)
    info = await bot.get_webhook_info()
    assert (info.url, info.max_connections, info.ip_address) == (hook.url, 40, "127.0.0.1")
    assert info.allowed_updates == ()

    await bot.set_webhook(
        hook.url,
        max_connections=500,  # Telegram clamps to 1-100
        allowed_updates=["message", "callback_query"],
        ip_address="10.0.0.7",
    )
    info = await bot.get_webhook_info()
    assert (info.max_connections, info.ip_address) == (100, "10.0.0.7")
    assert info.allowed_updates == ("callback_query", "message")
    server.block_bot(CAT)  # my_chat_member is no longer wanted
    assert server.pending_updates() == []
    await bot.set_webhook(hook.url, max_connections=0)
    assert (await bot.get_webhook_info()).max_connections == 1


# -- failures and retries ----------------------------------------------------------------


async def test_a_non_2xx_answer_is_retried_until_the_webhook_takes_the_update(
    server: FakeBotApi, bot: telegram.Bot, receiver: Callable[..., Awaitable[Receiver]]
) -> None:
    hook = await receiver()
    hook.status = 500
    await bot.set_webhook(hook.url)
    server.user_sends(ANN, ANN, "retry me")
    await hook.wait_arrivals(2)

    info = await bot.get_webhook_info()
    assert info.pending_update_count == 1
    assert info.last_error_message == "Wrong response from the webhook: 500 Internal Server Error"
    assert info.last_error_date is not None

    hook.answers.append(404)
    hook.status = 200
    await server.wait_webhook_idle(timeout=5)
    (update_id,) = set(hook.update_ids)
    statuses = [r.status for r in server.webhook_deliveries(update_id)]
    assert statuses[-2:] == [404, 200] and set(statuses[:-2]) == {500}
    assert hook.texts == ["retry me"] * len(statuses)
    assert server.delivered_update_ids() == [update_id]
    info = await bot.get_webhook_info()
    assert info.pending_update_count == 0
    assert info.last_error_message == "Wrong response from the webhook: 404 Not Found"


async def test_a_refused_connection_is_retried_until_the_bot_listens(
    server: FakeBotApi, bot: telegram.Bot, receiver: Callable[..., Awaitable[Receiver]]
) -> None:
    port = free_port()
    await bot.set_webhook(closed_port_url(port))
    server.user_sends(ANN, ANN, "anyone there?")
    await server.wait_for(lambda: len(server.webhook_deliveries()) >= 2)
    assert {r.status for r in server.webhook_deliveries()} == {"Connection refused"}
    assert (await bot.get_webhook_info()).last_error_message == "Connection refused"

    hook = await receiver(port=port)
    await server.wait_webhook_idle(timeout=5)
    assert hook.texts == ["anyone there?"]
    assert server.webhook_deliveries()[-1].status == 200


async def test_a_webhook_that_does_not_answer_in_time_gets_the_update_again(
    receiver: Callable[..., Awaitable[Receiver]],
) -> None:
    hook = await receiver()
    hook.stall = 1
    async with FakeBotApi(token=TOKEN, webhook_timeout=0.2, webhook_retry_delay=0.05) as server:
        populate(server)
        async with make_bot(server.base_url) as bot:
            await bot.set_webhook(hook.url)
            server.user_sends(ANN, ANN, "slow")
            await server.wait_webhook_idle(timeout=5)
            assert [r.status for r in server.webhook_deliveries()] == ["Read timeout expired", 200]
            assert hook.texts == ["slow", "slow"]
            assert (await bot.get_webhook_info()).last_error_message == "Read timeout expired"


# -- order and concurrency -------------------------------------------------------------------


async def test_an_update_waits_for_the_answer_to_the_previous_one_from_its_chat(
    server: FakeBotApi, bot: telegram.Bot, receiver: Callable[..., Awaitable[Receiver]]
) -> None:
    hook = await receiver()
    hook.gate.clear()
    await bot.set_webhook(hook.url)
    server.user_sends(ANN, ANN, "first")
    server.user_sends(ANN, ANN, "second")
    server.user_sends(BOB, BOB, "other chat")

    await hook.wait_arrivals(2)
    # The probe: an update of a third chat, sent after "second". Deliveries start in the
    # order updates were sent, so once it arrives "second" was passed over, held back.
    server.user_sends(CAT, CAT, "probe")
    await hook.wait_arrivals(3)
    assert sorted(hook.texts, key=str) == ["first", "other chat", "probe"]
    assert server.webhook_pending() == 4

    hook.gate.set()
    await server.wait_webhook_idle(timeout=5)
    first, second = (a for a in hook.arrivals if a.update["message"]["chat"]["id"] == ANN)
    assert (first.text, second.text) == ("first", "second")
    assert first.answered is not None and second.arrived >= first.answered


async def test_max_connections_caps_the_updates_in_flight(
    server: FakeBotApi, bot: telegram.Bot, receiver: Callable[..., Awaitable[Receiver]]
) -> None:
    hook = await receiver()
    hook.gate.clear()
    await bot.set_webhook(hook.url, max_connections=2)
    for user in (ANN, BOB, CAT):
        server.user_sends(user, user, f"from {user}")
    await hook.wait_arrivals(2)
    # No probe can prove a third is held back (the cap holds back a probe as well): a third
    # sent anyway would arrive while the first two wait, which ``max_in_flight`` counts below;
    # a moment's wait gives it the time to.
    await asyncio.sleep(0.1)
    assert len(hook.arrivals) == 2

    hook.gate.set()
    await server.wait_webhook_idle(timeout=5)
    assert len(hook.arrivals) == 3 and hook.max_in_flight == 2


async def test_setting_the_same_webhook_again_keeps_what_is_in_flight(
    server: FakeBotApi, bot: telegram.Bot, receiver: Callable[..., Awaitable[Receiver]]
) -> None:
    hook = await receiver()
    hook.gate.clear()
    await bot.set_webhook(hook.url, secret_token="one")
    server.user_sends(ANN, ANN, "once")
    await hook.wait_arrivals(1)
    await bot.set_webhook(hook.url, secret_token="one")  # a second bot instance starting
    hook.gate.set()
    await server.wait_webhook_idle(timeout=5)
    assert hook.texts == ["once"]

    # A changed webhook starts over: what was in flight is sent again, with the new secret.
    hook.gate.clear()
    server.user_sends(ANN, ANN, "again")
    await hook.wait_arrivals(2)
    await bot.set_webhook(hook.url, secret_token="two")
    await hook.wait_arrivals(3)
    hook.gate.set()
    await server.wait_webhook_idle(timeout=5)
    assert [(a.text, a.secret) for a in hook.arrivals] == [
        ("once", "one"),
        ("again", "one"),
        ("again", "two"),
    ]


# -- several bot instances ----------------------------------------------------------------


async def test_targets_take_new_updates_in_turn(
    server: FakeBotApi, bot: telegram.Bot, receiver: Callable[..., Awaitable[Receiver]]
) -> None:
    one, two, registered = await receiver(), await receiver(), await receiver()
    await bot.set_webhook(registered.url)
    server.webhook_targets([one.url, two.url])
    for user in (ANN, BOB, CAT):
        server.user_sends(user, user, "hi")
    server.user_sends(ANN, GROUP, "/play")
    await server.wait_webhook_idle(timeout=5)
    taken = sorted((r.update_id, r.url) for r in server.webhook_deliveries())
    assert [url for _, url in taken] == [one.url, two.url, one.url, two.url]
    assert (len(one.arrivals), len(two.arrivals), registered.arrivals) == (2, 2, [])

    server.webhook_targets(None)
    server.user_sends(BOB, BOB, "back to the registered URL")
    await server.wait_webhook_idle(timeout=5)
    assert registered.texts == ["back to the registered URL"]


async def test_a_refused_target_passes_the_update_to_the_next_target(
    server: FakeBotApi, bot: telegram.Bot, receiver: Callable[..., Awaitable[Receiver]]
) -> None:
    hook = await receiver()
    dead = closed_port_url()
    await bot.set_webhook(hook.url)
    server.webhook_targets([dead, hook.url])
    for text in ("one", "two", "three"):
        server.user_sends(ANN, ANN, text)
    server.user_sends(BOB, BOB, "bob")
    await server.wait_webhook_idle(timeout=5)

    assert [t for t in hook.texts if t != "bob"] == ["one", "two", "three"]
    assert sorted(hook.texts, key=str) == ["bob", "one", "three", "two"]
    for update_id in server.delivered_update_ids():
        tries = [(r.url, r.status) for r in server.webhook_deliveries(update_id)]
        assert tries in ([(hook.url, 200)], [(dead, "Connection refused"), (hook.url, 200)])
    assert any(r.url == dead for r in server.webhook_deliveries())


async def test_every_nth_update_is_delivered_again_to_the_next_target(
    server: FakeBotApi, bot: telegram.Bot, receiver: Callable[..., Awaitable[Receiver]]
) -> None:
    one, two = await receiver(), await receiver()
    await bot.set_webhook(one.url)
    server.webhook_targets([one.url, two.url])
    server.webhook_duplicate(2)
    for n in range(1, 5):
        server.user_sends(ANN, ANN, f"m{n}")
    await server.wait_webhook_idle(timeout=5)

    assert one.texts == ["m1", "m2", "m3", "m4"]  # m2 and m4 a second time, in chat order
    assert two.texts == ["m2", "m4"]
    u1, u2, u3, u4 = server.delivered_update_ids()
    assert one.update_ids == [u1, u2, u3, u4] and two.update_ids == [u2, u4]
    records = server.webhook_deliveries(u2)
    assert [(r.url, r.duplicate) for r in records] == [(two.url, False), (one.url, True)]
    # The duplicate went out only after the first delivery was answered.
    first = next(a for a in two.arrivals if a.update_id == u2)
    again = next(a for a in one.arrivals if a.update_id == u2)
    assert first.answered is not None and again.arrived >= first.answered

    server.webhook_duplicate(0)
    server.user_sends(ANN, ANN, "m5")
    await server.wait_webhook_idle(timeout=5)
    assert (one.texts + two.texts).count("m5") == 1
    with pytest.raises(ValueError, match="every"):
        server.webhook_duplicate(-1)
    with pytest.raises(ValueError, match="URL"):
        server.webhook_targets(["not a url"])


async def test_webhook_controls_over_http(
    server: FakeBotApi, bot: telegram.Bot, receiver: Callable[..., Awaitable[Receiver]]
) -> None:
    one, two = await receiver(), await receiver()

    async def control(action: str, **args: Any) -> tuple[int, Any]:
        async with http.post(f"{server.control_url}/{action}", json=args) as resp:
            body = await resp.json()
            return resp.status, body.get("result", body.get("error"))

    assert {
        "webhook_targets",
        "webhook_duplicate",
        "webhook_deliveries",
        "delivered_update_ids",
        "webhook_pending",
        "wait_webhook_idle",
    } <= CONTROL_ACTIONS
    await bot.set_webhook(one.url)
    async with aiohttp.ClientSession() as http:
        assert await control("webhook_targets", urls=[two.url, one.url]) == (200, None)
        assert await control("webhook_duplicate", every=1) == (200, None)
        status, message = await control("user_sends", user_id=ANN, chat_id=ANN, text="hey")
        assert (status, message["text"]) == (200, "hey")
        assert await control("wait_webhook_idle", timeout=5) == (200, None)
        status, records = await control("webhook_deliveries")
        assert status == 200
        (update_id,) = {r["update_id"] for r in records}
        assert [(r["url"], r["status"], r["duplicate"]) for r in records] == [
            (two.url, 200, False),
            (one.url, 200, True),
        ]
        assert all(isinstance(r["at"], float) for r in records)
        assert await control("delivered_update_ids") == (200, [update_id])
        assert await control("webhook_pending") == (200, 0)
        assert await control("webhook_targets", urls=None) == (200, None)
        assert (await control("webhook_duplicate", every=-1))[0] == 400
        assert (await control("webhook_targets", urls=[]))[0] == 400


# -- lifecycle -----------------------------------------------------------------------------


async def test_stopping_the_server_cancels_deliveries_and_leaves_no_task(
    receiver: Callable[..., Awaitable[Receiver]],
) -> None:
    hook = await receiver()
    hook.gate.clear()
    server = FakeBotApi(token=TOKEN)
    await server.start()
    try:
        populate(server)
        async with make_bot(server.base_url) as bot:
            await bot.set_webhook(hook.url)
        server.user_sends(ANN, ANN, "in flight")
        await hook.wait_arrivals(1)
        assert any(t.get_name().startswith("fakeapi-webhook") for t in asyncio.all_tasks())
    finally:
        await server.stop()

    assert [t for t in asyncio.all_tasks() if t.get_name().startswith("fakeapi-webhook")] == []
    assert [u["message"]["text"] for u in server.pending_updates()] == ["in flight"]
