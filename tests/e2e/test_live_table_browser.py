"""The live table in a real browser (Debian's Chromium, driven by Playwright): two people play a
seeded round on their pages while a third plays with the chat's keys; each page shows its own
card and no other until the reveal turns them all over, with the lost lives; a forged, an
altered and an expired ``initData`` are refused and change nothing. Screenshots of the table at
360 px, light and dark, are kept in ``build/screenshots/`` (``CUCKOO_SCREENSHOTS`` elsewhere).

The bot is the real one, built by the composition root, serving its page and API on the
loopback; Telegram is the fake Bot API, as in ``cuckoo-bot demo --web``."""

from __future__ import annotations

import os
import time
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any
from urllib.parse import quote

import aiohttp
import pytest

from tests.support.browser import require_chromium
from tests.support.demo import WebDemo, web_demo
from tests.support.driver import GROUP_PATIENCE, Prompt
from tests.support.webapp import TablePage, hidden_cards_shown, sign_init_data

pytestmark = pytest.mark.slow

CHROMIUM = require_chromium()
playwright_api = pytest.importorskip("playwright.async_api")

SEED = 20261203
ALICE, BOB, CAROL = 101, 102, 103  # Alice and Bob on their pages, Carol on the chat's keys
SHOTS = Path(
    os.environ.get("CUCKOO_SCREENSHOTS", Path(__file__).parents[2] / "build" / "screenshots")
)


OWN_CARD_SHOWN = """([player, label]) => {
    const card = document.querySelector(`.seat[data-player='${player}'] .slot > .card3d.up`);
    return card?.getAttribute('aria-label') === label;
}"""


@pytest.fixture
async def browser() -> AsyncIterator[Any]:
    async with playwright_api.async_playwright() as p:
        browser = await p.chromium.launch(executable_path=str(CHROMIUM), args=["--no-sandbox"])
        try:
            yield browser
        finally:
            await browser.close()


async def new_page(browser: Any, dark: bool = False) -> Any:
    context = await browser.new_context(
        viewport={"width": 360, "height": 740}, color_scheme="dark" if dark else "light"
    )
    page = await context.new_page()
    # No internet here: Telegram's script does not load, and the page goes on without it.
    await page.route("https://telegram.org/**", lambda route: route.abort())
    return page


async def open_page(browser: Any, url: str, dark: bool = False) -> Any:
    page = await new_page(browser, dark)
    await page.goto(url)
    return page


async def face_up(page: Any) -> dict[int, str]:
    """The cards a page shows face up, by seat (their labels, such as "Q♥")."""
    found = await page.eval_on_selector_all(
        ".seat",
        """seats => seats.map(s => [Number(s.dataset.player),
            s.querySelector('.slot > .card3d.up')?.getAttribute('aria-label') ?? null])""",
    )
    return {player: label for player, label in found if label}


async def shown_version(page: Any, demo: WebDemo, user: int) -> dict[str, Any]:
    async with aiohttp.ClientSession() as session:
        status, view = await TablePage(session, demo.base, sign_init_data(demo.token, user)).get(
            demo.game
        )
    assert status == 200, view
    return view


async def next_turn(demo: WebDemo, after: str | None) -> Prompt:
    prompt = await demo.driver.next_prompt(after=after, wait=15)
    assert prompt is not None, "nobody was asked to play"
    return prompt


async def test_two_pages_and_a_chat_player_play_a_round_to_its_reveal(browser: Any) -> None:
    SHOTS.mkdir(parents=True, exist_ok=True)  # noqa: ASYNC240 - once, before anything runs
    async with web_demo(humans=3, seed=SEED) as demo:
        pages = {
            ALICE: await open_page(browser, demo.url(ALICE)),
            BOB: await open_page(browser, demo.url(BOB, "dark"), dark=True),
        }
        for page in pages.values():
            await page.wait_for_selector(".seat[data-player]")
        # Each card arrives at a private chat's pace (one message a second, after the
        # greeting): the table on a page can be up before every player's card is told.
        await demo.fake.wait_for(
            lambda: all(demo.driver.card_of(user) for user in (ALICE, BOB, CAROL)), GROUP_PATIENCE
        )
        held = {user: demo.driver.card_of(user) for user in (ALICE, BOB, CAROL)}
        assert all(held.values()), held

        last: str | None = None
        shots = False
        for _ in range(3):  # one turn each: the round's three turns
            prompt = await next_turn(demo, last)
            last = prompt.keys[0]
            for user, page in pages.items():
                # Each page shows its own card face up, and no other.
                mine = demo.driver.card_of(user)
                await page.wait_for_function(OWN_CARD_SHOWN, arg=[user, mine])
                assert await face_up(page) == {user: mine}
                html = await page.content()
                for other, card in held.items():
                    if other != user and card != mine:
                        assert f'aria-label="{card}"' not in html
            if not shots:
                await pages[ALICE].screenshot(path=str(SHOTS / "table-360-light.png"))
                await pages[BOB].screenshot(path=str(SHOTS / "table-360-dark.png"))
                shots = True
            if prompt.actor == CAROL:
                data = prompt.data("k") or prompt.keys[0]
                await demo.driver.press(CAROL, prompt.message, data)
                continue
            page = pages[prompt.actor]
            keys = page.locator("#keys button[data-move]")
            await keys.first.wait_for()
            moves = await keys.evaluate_all("bs => bs.map(b => b.dataset.move)")
            assert set(moves) <= {"keep", "swap", "cut"} and "keep" in moves
            other = pages[BOB if prompt.actor == ALICE else ALICE]
            assert await other.locator("#keys button[data-move]").count() == 0
            move = "swap" if "swap" in moves else "keep"
            await page.locator(f"#keys button[data-move='{move}']").click()
            await page.locator("#keys button[data-move]").first.wait_for(state="detached")

        # The reveal: every page turns every card over, marks who lost, and the lives fall.
        for user, page in pages.items():
            await page.wait_for_function(
                "() => document.querySelectorAll('.seat .slot > .card3d.up').length === 3"
            )
            view = await shown_version(page, demo, user)
            if not view["revealed"]:  # the next round was dealt already: check the one shown
                continue
            cards = await face_up(page)
            assert set(cards) == {ALICE, BOB, CAROL}
            lost = await page.eval_on_selector_all(
                ".seat.lost", "s => s.map(e => Number(e.dataset.player))"
            )
            assert sorted(lost) == sorted(s["player"] for s in view["seats"] if s["lost"])
            assert lost
        await pages[ALICE].wait_for_timeout(1000)  # the cards have turned over
        await pages[ALICE].screenshot(path=str(SHOTS / "reveal-360-light.png"))


async def test_a_forged_altered_or_expired_init_data_is_refused_and_changes_nothing(
    browser: Any,
) -> None:
    async with web_demo(humans=3, seed=SEED) as demo:
        async with aiohttp.ClientSession() as session:
            before = await TablePage(session, demo.base, sign_init_data(demo.token, ALICE)).get(
                demo.game
            )
        good = sign_init_data(demo.token, ALICE, "Alice")
        bad = {
            "forged": (sign_init_data("1:not-this-bots-token", ALICE, "Alice"), 401),
            "altered": (good.replace("Alice", "Alicia"), 401),
            "expired": (
                sign_init_data(demo.token, ALICE, "Alice", auth_date=time.time() - 2 * 86_400),
                401,
            ),
            "stranger": (sign_init_data(demo.token, 999, "Mallory"), 403),
        }
        for why, (init_data, status) in bad.items():
            url = f"{demo.base}/app?game={demo.game}#tgWebAppData={quote(init_data, safe='')}"
            page = await new_page(browser)
            async with page.expect_response(lambda r: "/app/api/" in r.url) as answer:
                await page.goto(url)
            response = await answer.value
            assert response.status == status, why
            await page.wait_for_selector("#note.fatal")
            assert await page.locator(".seat .card3d.up").count() == 0, why
            refused = await page.request.post(
                f"{demo.base}/app/api/move",
                headers={"Authorization": f"tma {init_data}"},
                data={
                    "game": demo.game,
                    "move": "keep",
                    "turn": before[1]["turn"],
                    "round": before[1]["round"],
                },
            )
            assert refused.status == status, why
            await page.context.close()
        async with aiohttp.ClientSession() as session:
            after = await TablePage(session, demo.base, sign_init_data(demo.token, ALICE)).get(
                demo.game
            )
        assert after[1]["version"] == before[1]["version"]
        assert hidden_cards_shown(after[1]) == []
