"""The live table (the Mini App's API) on the real bot process: who may look, what each one
sees, a move from the page next to the chat's keys, and the push to open pages."""

from __future__ import annotations

import asyncio
import socket
import time
from collections.abc import Callable
from typing import Any

import aiohttp
import pytest

from fakebotapi import FakeBotApi, StoredMessage
from tests.e2e.conftest import BOT_USERNAME, GROUP, TOKEN, BotProcess
from tests.support.driver import GROUP_PATIENCE, TableDriver
from tests.support.webapp import TablePage, hidden_cards_shown, sign_init_data

pytestmark = pytest.mark.slow

PUBLIC = "https://cuckoo.example.org"
PLAYERS = [7101, 7102, 7103]
WATCHER = 7104  # in the group, not seated
STRANGER = 7105  # not in the group


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def buttons(message: StoredMessage) -> list[dict[str, Any]]:
    markup = message.reply_markup or {}
    return [button for row in markup.get("inline_keyboard", []) for button in row]


def game_of(table: TableDriver) -> int:
    message = table.table()
    assert message is not None
    data = next(d for d in message.callback_datas if d.startswith("1:m:"))
    return int(data.split(":")[2])


async def live_bot(make_bot: Callable[..., BotProcess], **env: str) -> BotProcess:
    bot = make_bot(CUCKOO_PUBLIC_URL=PUBLIC, CUCKOO_WEBAPP_NAME="table", **env)
    await bot.start()
    return bot


async def started(fake: FakeBotApi, table: TableDriver) -> int:
    for user in [*PLAYERS, WATCHER, STRANGER]:
        fake.add_user(user, f"U{user}", language_code="en", started=user in PLAYERS)
    fake.add_group(
        GROUP, "Cuckoo club", type="supergroup", members=[*PLAYERS, WATCHER], creator=PLAYERS[0]
    )
    await table.start_game(PLAYERS[0], PLAYERS)
    # Each player's card arrives at a private chat's pace (one message a second, after the
    # greeting): a quiet moment on the wire is not yet every card told.
    await fake.wait_for(lambda: all(table.card_of(user) for user in PLAYERS), GROUP_PATIENCE)
    await fake.wait_idle(quiet=0.3, timeout=10)
    return game_of(table)


def page(session: aiohttp.ClientSession, bot: BotProcess, user: int, **kw: Any) -> TablePage:
    return TablePage(session, bot.http_url(), sign_init_data(TOKEN, user, f"U{user}", **kw))


async def test_each_viewer_sees_their_own_card_only_and_strangers_and_forgeries_are_refused(
    fake: FakeBotApi, make_bot: Callable[..., BotProcess], table: TableDriver
) -> None:
    bot = await live_bot(make_bot)
    game = await started(fake, table)

    # The chat opens the table: a direct link under the group's table, a Mini App button on
    # the private prompt.
    group_table = table.table()
    assert group_table is not None
    links = [b["url"] for b in buttons(group_table) if "url" in b]
    assert links == [f"https://t.me/{BOT_USERNAME}/table?startapp={game}"]
    prompt = await table.next_prompt()
    assert prompt is not None
    apps = [b["web_app"]["url"] for b in buttons(prompt.message) if "web_app" in b]
    assert apps == [f"{PUBLIC}/app?game={game}"]

    async with aiohttp.ClientSession() as session:
        views = {}
        for user in PLAYERS:
            status, view = await page(session, bot, user).get(game)
            assert status == 200, view
            views[user] = view
            assert view["viewer"] == user and view["status"] == "running"
            own = next(s for s in view["seats"] if s["player"] == user)
            assert own["card"] == table.card_of(user).replace("♠", "S").replace("♥", "H").replace(
                "♦", "D"
            ).replace("♣", "C")
            assert hidden_cards_shown(view) == []
            assert (view["options"] != []) == (view["actor"] == user)
            assert view["strings"]["keep"] and view["lang"] == "en"
            assert view["turn_seconds"] == 600
        assert [s["name"] for s in views[PLAYERS[0]]["seats"]] != []

        status, watching = await page(session, bot, WATCHER).get(game)
        assert status == 200, watching
        assert watching["viewer"] is None and watching["options"] == []
        assert all(seat["card"] is None for seat in watching["seats"])

        status, body = await page(session, bot, STRANGER).get(game)
        assert (status, body["error"]) == (403, "forbidden")
        assert body["strings"]["not_member"]  # the page says why, in the group's language

        before = fake.call_count()
        refused = {
            "missing": TablePage(session, bot.http_url(), None),
            "forged": TablePage(session, bot.http_url(), sign_init_data("1:other", PLAYERS[0])),
            "altered": TablePage(
                session,
                bot.http_url(),
                sign_init_data(TOKEN, PLAYERS[0]).replace(str(PLAYERS[0]), str(PLAYERS[1])),
            ),
            "expired": page(session, bot, PLAYERS[0], auth_date=time.time() - 7200),
        }
        for why, asker in refused.items():
            status, body = await asker.get(game)
            expected = "expired" if why == "expired" else "unauthorized"
            assert (status, body) == (401, {"error": expected}), why
            actor = views[PLAYERS[0]]["actor"]
            status, body = await asker.move(views[actor], "keep")
            assert status == 401, why
        assert fake.call_count() == before  # refused before anything is asked of Telegram
        status, view = await page(session, bot, PLAYERS[0]).get(game)
        assert view["version"] == views[PLAYERS[0]]["version"]  # nothing changed

        status, body = await page(session, bot, PLAYERS[0]).get(999_999)
        assert (status, body["error"]) == (404, "no_game")
        status, body = await page(session, bot, PLAYERS[0]).get("twelve")
        assert status == 400

        # Malformed requests get a clear refusal, never an error of the server's own.
        api = f"{bot.http_url()}/app/api"
        good = page(session, bot, PLAYERS[0])
        odd_hash = {"Authorization": f"tma auth_date={int(time.time())}&hash=%C3%A9"}
        nested = b"[" * 4000
        for method, path, kw, expected in [
            ("GET", "table", {"params": {"game": str(game)}, "headers": odd_hash}, 401),
            ("POST", "move", {"data": nested}, 401),  # who asks comes first
            ("POST", "move", {"data": nested, "headers": good.headers}, 400),
            ("POST", "move", {"json": {"game": game, "move": []}, "headers": good.headers}, 400),
            ("POST", "move", {"data": b"{" + b" " * 5000 + b"}", "headers": good.headers}, 413),
            ("GET", "table", {"params": {"game": "²"}, "headers": good.headers}, 400),
            (
                "GET",
                "table",
                {"params": {"game": str(game), "after": "²"}, "headers": good.headers},
                400,
            ),
            (
                "GET",
                "events",
                {"params": {"game": str(game)}, "headers": {**good.headers, "Last-Event-ID": "٣"}},
                400,
            ),
        ]:
            async with session.request(method, f"{api}/{path}", **kw) as r:
                assert r.status == expected, (path, kw, await r.text())
        assert "Traceback" not in bot.log()

        # The page itself is the same for everyone, at /app (its script beside it).
        async with session.get(f"{bot.http_url()}/app/?game={game}", allow_redirects=False) as r:
            assert (r.status, r.headers["Location"]) == (301, f"/app?game={game}")
        async with session.get(f"{bot.http_url()}/app?game={game}") as r:
            assert r.status == 200 and r.content_type == "text/html"
            assert "telegram-web-app.js" in await r.text()
        async with session.get(f"{bot.http_url()}/app/table.js") as r:
            assert r.status == 200 and r.content_type == "application/javascript"
        async with session.get(f"{bot.http_url()}/app/..%2Fserver.py") as r:
            assert r.status == 404


async def test_a_move_from_the_page_and_one_from_the_chat_take_effect_once_and_reach_open_pages(
    fake: FakeBotApi, make_bot: Callable[..., BotProcess], table: TableDriver
) -> None:
    bot = await live_bot(make_bot)
    game = await started(fake, table)
    async with aiohttp.ClientSession() as session:
        watcher = page(session, bot, WATCHER)
        _, view = await watcher.get(game)
        async with watcher.events(game) as pushed:
            first = await asyncio.wait_for(anext(pushed), 5)
            assert first["version"] == view["version"]

            # The first player presses Keep on the page and in the chat at the same moment:
            # one of the two takes effect, and the push reaches the watcher.
            actor = view["actor"]
            prompt = await table.next_prompt()
            assert prompt is not None and prompt.actor == actor
            data = prompt.data("k")
            assert data is not None
            _, mine = await page(session, bot, actor).get(game)
            sent = time.monotonic()
            (status, answer), chat_answer = await asyncio.gather(
                page(session, bot, actor).move(mine, "keep"),
                table.press(actor, prompt.message, data),
            )
            assert answer["reply"] and chat_answer.get("text")
            assert status in (200, 409)
            moved = await asyncio.wait_for(anext(pushed), 5)
            assert time.monotonic() - sent < 1.0
            assert moved["version"] > view["version"] and moved["turn"] == view["turn"] + 1
            assert hidden_cards_shown(moved) == []
            kept = next(s for s in moved["seats"] if s["player"] == actor)
            assert kept["acted"] == "keep"
            await fake.wait_idle(quiet=0.3, timeout=10)
            _, after = await watcher.get(game)
            assert after["turn"] == moved["turn"]  # once, not twice

            # The page's press alone, on the next turn: the chat prompt it answered loses its
            # keys, as after a key.
            nxt = await table.next_prompt(after=data)
            assert nxt is not None
            _, mine = await page(session, bot, nxt.actor).get(game)
            status, answer = await page(session, bot, nxt.actor).move(mine, mine["options"][0])
            assert status == 200 and answer["ok"], answer
            assert answer["view"]["version"] > moved["version"]
            moved = await asyncio.wait_for(anext(pushed), 5)
            await fake.wait_idle(quiet=0.3, timeout=10)
            answered = next(
                m for m in fake.messages(nxt.actor) if m.message_id == nxt.message.message_id
            )
            assert not [d for d in answered.callback_datas if d in nxt.keys]
            data = nxt.keys[0]

            # The next player moves in the chat; the page hears it too.
            nxt = await table.next_prompt(after=data)
            assert nxt is not None
            key = nxt.data("k") or nxt.keys[0]
            await table.press(nxt.actor, nxt.message, key)
            heard = await asyncio.wait_for(anext(pushed), 5)
            assert heard["turn"] == moved["turn"] + 1

        # A page that comes back resumes after the last version it saw: nothing old again.
        async with watcher.events(game, after=heard["version"]) as pushed:
            _, mine = await page(session, bot, heard["actor"]).get(game)
            status, answer = await page(session, bot, heard["actor"]).move(mine, mine["options"][0])
            assert status == 200, answer
            resumed = await asyncio.wait_for(anext(pushed), 5)
            assert resumed["version"] > heard["version"]
            async with session.get(f"{bot.http_url()}/metrics") as r:
                exposed = await r.text()
            assert "cuckoo_live_pages 1.0" in exposed  # this stream, the earlier one closed
            assert 'cuckoo_live_moves_total{result="taken"}' in exposed

        # A page that polls (its stream failing) asks for what is newer than it has.
        _, latest = await watcher.get(game)
        url = f"{bot.http_url()}/app/api/table"
        query = {"game": str(game), "after": str(latest["version"])}
        async with session.get(url, params=query, headers=watcher.headers) as r:
            assert r.status == 204
        query["after"] = str(latest["version"] - 1)
        async with session.get(url, params=query, headers=watcher.headers) as r:
            assert r.status == 200 and (await r.json())["version"] == latest["version"]

        # A move out of turn is refused with the chat's words, and changes nothing.
        _, now = await watcher.get(game)
        if now["status"] == "running" and now["actor"] is not None:
            other = next(p for p in PLAYERS if p != now["actor"])
            _, theirs = await page(session, bot, other).get(game)
            status, answer = await page(session, bot, other).move(theirs, "keep")
            assert status == 409 and not answer["ok"] and answer["reply"]
            _, again = await watcher.get(game)
            assert again["version"] == now["version"]


@pytest.mark.parametrize("backend", [pytest.param("postgresql", marks=pytest.mark.postgres)])
async def test_a_page_on_one_instance_sees_a_move_made_on_another(
    fake: FakeBotApi, make_bot: Callable[..., BotProcess], table: TableDriver
) -> None:
    ports = [free_port(), free_port()]
    fake.webhook_targets([f"http://127.0.0.1:{port}/telegram/update" for port in ports])
    bots = [
        # No CUCKOO_PUBLIC_URL: in webhook mode the live table is at the webhook URL's origin.
        make_bot(
            CUCKOO_WEBHOOK_URL="https://bot.example.org/telegram/update",
            CUCKOO_WEBHOOK_SECRET="live-table_0123456789",
            CUCKOO_PORT=str(port),
            CUCKOO_INSTANCE=f"live-{n}",
        )
        for n, port in enumerate(ports)
    ]
    for bot in bots:
        await bot.start()
    await fake.wait_for(lambda: fake.call_count("setWebhook") >= 2, 30)
    game = await started(fake, table)
    prompt = await table.next_prompt()
    assert prompt is not None
    apps = [b["web_app"]["url"] for b in buttons(prompt.message) if "web_app" in b]
    assert apps == [f"https://bot.example.org/app?game={game}"]

    async with aiohttp.ClientSession() as session:
        watcher = page(session, bots[0], WATCHER)
        _, view = await watcher.get(game)
        async with watcher.events(game, after=view["version"]) as pushed:
            for _ in range(2):  # two moves, made on the other instance
                actor = page(session, bots[1], view["actor"])
                _, mine = await actor.get(game)
                sent = time.monotonic()
                status, answer = await actor.move(mine, mine["options"][0])
                assert status == 200, answer
                heard = await asyncio.wait_for(anext(pushed), 5)
                assert time.monotonic() - sent < 1.0
                assert heard["version"] > view["version"]
                assert heard["turn"] == view["turn"] + 1
                view = heard


async def test_a_timeout_reaches_the_page_and_the_end_offers_play_again(
    fake: FakeBotApi, make_bot: Callable[..., BotProcess], table: TableDriver
) -> None:
    bot = await live_bot(make_bot, CUCKOO_TURN_TIMEOUT="2", CUCKOO_TURN_WARNING="0")
    game = await started(fake, table)
    async with aiohttp.ClientSession() as session:
        watcher = page(session, bot, WATCHER)
        _, view = await watcher.get(game)
        async with watcher.events(game, after=view["version"]) as pushed:
            # Nobody presses: the clock runs out, and the page hears it without asking.
            timed_out = await asyncio.wait_for(anext(pushed), 10)
            late = next(s for s in timed_out["seats"] if s["player"] == view["actor"])
            assert late["acted"] == "timeout"
            assert timed_out["turn"] == view["turn"] + 1

        # Everyone lets the clock run: the game ends on its own. Then the page's Play again.
        deadline = asyncio.get_running_loop().time() + 120
        while view["status"] == "running":
            assert asyncio.get_running_loop().time() < deadline, view
            await asyncio.sleep(1)
            _, view = await watcher.get(game)
        assert view["status"] == "finished"  # the idle-turn limit ended it, winner or not
        places = [seat["place"] for seat in view["seats"]]
        assert all(isinstance(p, int) and p >= 1 for p in places), places
        old_lobby = table.lobby()
        status, answer = await page(session, bot, STRANGER).post("again", {"game": game})
        assert status == 403  # not in the group: no Play again either
        status, answer = await page(session, bot, PLAYERS[1]).post("again", {"game": game})
        assert status == 200 and answer["ok"], answer
        assert answer["reply"]
        # The answer names the new lobby and brings its view: the page goes on with it.
        assert answer["game"] != game and answer["view"]["game"] == answer["game"]
        assert answer["view"]["status"] == "lobby" and answer["view"]["viewer"] == PLAYERS[1]
        await fake.wait_for(
            lambda: (
                (new := table.lobby()) is not None
                and (old_lobby is None or new.message_id > old_lobby.message_id)
            ),
            10,
        )


async def test_a_stop_with_pages_open_ends_their_streams_at_once(
    fake: FakeBotApi, make_bot: Callable[..., BotProcess], table: TableDriver
) -> None:
    bot = await live_bot(make_bot)
    game = await started(fake, table)
    async with aiohttp.ClientSession() as session:
        streams = [page(session, bot, user).events(game) for user in [*PLAYERS, WATCHER]]
        opened = [await stream.__aenter__() for stream in streams]
        for views in opened:
            await asyncio.wait_for(anext(views), 5)
        loop = asyncio.get_running_loop()
        asked = loop.time()
        assert await bot.terminate() == 0
        took = loop.time() - asked
        for views in opened:  # each page sees its stream end, and will reconnect
            with pytest.raises((StopAsyncIteration, aiohttp.ClientError)):
                await asyncio.wait_for(anext(views), 5)
        for stream in streams:
            await stream.__aexit__(None, None, None)
    assert took < 5.0, took
    assert "took too long" not in bot.log()
