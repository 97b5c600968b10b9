"""Golden transcripts: whole seeded games where every seat is a person, read as people read them.

A 3-, a 6- and a 10-player game, each in English, Spanish and French, are played by the real
bot (built by the composition root with a seeded ``random.Random``, polling in the test's event
loop, on a fresh SQLite file) against the fake Bot API. Every player presses keys by
``tests.support.driver.choose``. The whole group chat and every player's private chat, as
``FakeBotApi.transcript`` shows them (🔕 a silent message, 🎉 a message effect, "(edited)"),
must equal the golden file ``tests/e2e/transcripts/<players>-players-<lang>.txt``.

The bot is let fall idle before every press, so which edits coalesce does not depend on how
fast the machine is; only times of day (``12:34``, ``12:34:56``) are normalised to ``HH:MM``.

After a change that is meant to alter what players read, rewrite the golden files and review
their diff like code::

    CUCKOO_UPDATE_TRANSCRIPTS=1 .venv/bin/python -m pytest -m slow tests/e2e/test_transcripts.py

Every game also checks that each private chat tells how a round ended before the next round's
turn is asked (``assert_results_before_prompts``), that the fake server refused no call
(invalid HTML, over-long texts, ...), and that no text is longer than Telegram allows.
"""

from __future__ import annotations

import asyncio
import difflib
import os
import random
import re
import shutil
from collections.abc import AsyncIterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import aiohttp
import pytest
from pydantic import SecretStr
from telegram.constants import MessageLimit

from cuckoo_bot.app import queries
from cuckoo_bot.app.deps import Deps
from cuckoo_bot.config import Settings
from cuckoo_bot.i18n.translator import Translator
from cuckoo_bot.transport import keydata
from fakebotapi import FakeBotApi
from fakebotapi.text import utf16_len
from tests.support.demo import running_bot
from tests.support.driver import Prompt, TableDriver, play_out
from tests.support.review import blocks, recalls, repeats_in, results, review, stale_in

from .conftest import telegram

pytestmark = pytest.mark.slow

GOLDEN = Path(__file__).parent / "transcripts"
THIS_MODULE = "tests/e2e/test_transcripts.py"
UPDATE_ENV = "CUCKOO_UPDATE_TRANSCRIPTS"
TOKEN = "424242:Golden-transcripts-token-for-the-fake-api"
BOT_USERNAME = "cuckoo_golden_bot"
GROUP = -1001000000042
GROUP_TITLE = "Soirée cartes & co"
SEEDS = {3: 20263, 4: 20264, 5: 20265, 6: 20261, 10: 20262}
# Seconds without a Bot API call, once the outbox is empty, after which the bot counts as idle
# (in process and without a private pace, what follows a delivery comes within milliseconds).
QUIET = 0.05
TIME_OF_DAY = re.compile(r"(?<!\d)\d{1,2}:\d{2}(?::\d{2})?(?!\d)")


@dataclass(frozen=True)
class Person:
    id: int
    first_name: str
    last_name: str | None = None
    username: str | None = None


# The first one opens the game. First names are unique: they name the private chats' sections.
PEOPLE = (
    Person(301, "Élodie", "Durand", "elodie_d"),
    Person(302, "Ben"),
    Person(303, "Chiara", "Rossi"),
    Person(304, "Dmitri", None, "dmitri"),
    Person(305, "Aoife", "O'Brien"),
    Person(306, "Zoë"),
    Person(307, "Jürgen", "Müller"),
    Person(308, "María José", "Núñez"),
    Person(309, "Kofi", "Mensah"),
    Person(310, "Lin"),
)

GAMES = [
    pytest.param(players, lang, (), id=f"{players}-players-{lang}")
    for players in (3, 6, 10)
    for lang in ("en", "es", "fr")
] + [
    # Variants of the rule book, set by the group's admin with /settings' keys before the game
    # (each the data a key sets: a setting and its value).
    pytest.param(4, "en", ("dealer_stays=1",), id="4-players-en-dealer_stays"),
    pytest.param(4, "es", ("name=chase_the_ace",), id="4-players-es-name_chase_the_ace"),
    pytest.param(4, "fr", ("queens_block=1",), id="4-players-fr-queens_block"),
    pytest.param(3, "es", ("stakes=1",), id="3-players-es-stakes"),
    pytest.param(5, "en", ("kille=1",), id="5-players-en-kille"),
]


def golden_path(players: int, lang: str, variants: tuple[str, ...] = ()) -> Path:
    named = [v.removesuffix("=1").replace("=", "_") for v in variants]
    return GOLDEN / ("-".join([f"{players}-players-{lang}", *named]) + ".txt")


def bot_settings(database_url: str, api_base_url: str) -> Settings:
    """The demo's settings: an hour a turn, no group budget to wait for; no private pace and
    no pause after a reveal either, so a game takes seconds."""
    extra: dict[str, Any] = {"reveal_pause": 0} if "reveal_pause" in Settings.model_fields else {}
    return Settings(
        bot_token=SecretStr(TOKEN),
        database_url=database_url,
        api_base_url=api_base_url,
        turn_timeout=3600,
        group_rate=10_000,
        private_interval=0,
        listen="127.0.0.1",
        port=0,
        **extra,
    )


async def settle(fake: FakeBotApi, deps: Deps) -> None:
    """Wait until the bot has shown everything the last update made it show: the outbox holds
    nothing unsent (the store's own account, committed before a press is answered), and then
    no Bot API call comes for a moment (a prompt's keys are taken off in the background)."""
    loop = asyncio.get_running_loop()
    until = loop.time() + 30
    while True:
        assert loop.time() < until, "the bot is still busy after 30 s"
        if await queries.backlog(deps):
            await asyncio.sleep(0.005)
            continue
        calls = fake.call_count()
        await fake.wait_idle(quiet=QUIET, timeout=30)
        if fake.call_count() == calls and not await queries.backlog(deps):
            return


async def play_game(
    fake: FakeBotApi,
    database_url: str,
    people: list[Person],
    lang: str,
    variants: tuple[str, ...] = (),
) -> None:
    """Everyone starts the bot privately, the first person (the group's admin) turns on the
    ``variants`` with /settings' keys and opens a game in the group, all join and the first one
    starts it; then they play it out, the bot idle before every press."""
    ids = [p.id for p in people]
    settings = bot_settings(database_url, fake.base_url)
    async with running_bot(settings, random.Random(SEEDS[len(people)])) as runtime:
        for p in people:
            fake.add_user(p.id, p.first_name, p.last_name, p.username, language_code=lang)
        fake.add_group(
            GROUP, GROUP_TITLE, type="supergroup", members=ids, admins=[ids[0]], creator=ids[0]
        )
        table = TableDriver(fake, GROUP)
        for user in ids:
            await table.say(user, "/start", chat_id=user)
            await fake.wait_for_message(user)
        await settle(fake, runtime.deps)
        await table.set_rules(ids[0], variants)
        await settle(fake, runtime.deps)
        await table.say(ids[0], "/newgame")
        await fake.wait_for(table.lobby)
        for user, kind in [*((u, "1:j:") for u in ids), (ids[0], "1:g:")]:
            await settle(fake, runtime.deps)
            lobby = table.lobby()
            assert lobby is not None
            data = next(d for d in lobby.callback_datas if d.startswith(kind))
            await table.press(user, lobby, data)

        async def before_press(prompt: Prompt) -> None:
            await settle(fake, runtime.deps)

        await play_out(table, ids, len(people), check=before_press)
        assert table.game_over()
        await settle(fake, runtime.deps)


def transcript(fake: FakeBotApi, people: list[Person]) -> str:
    """The group chat as it stands at the end, then each player's private chat with every
    state each message went through (a turn's prompt, its answer, then how the round ended),
    times of day normalised. (The group's table is edited as often as its budget allows, which
    depends on timing: only its last state is compared.)"""
    parts = [f"=== group ===\n{fake.transcript(GROUP)}"]
    parts += [f"=== private: {p.first_name} ===\n{private_chat(fake, p.id)}" for p in people]
    return TIME_OF_DAY.sub("HH:MM", "\n\n".join(parts) + "\n")


def private_chat(fake: FakeBotApi, chat_id: int) -> str:
    """One line per message as it was first shown (🔕 silent, 🎉 an effect, ↪ a reply), then
    each later state after "✎", keys under each."""
    lines: list[str] = []
    for msg in fake.messages(chat_id):
        sender = "bot" if msg.from_bot else "user"
        sound = ("🔕 " if msg.silent else "") + ("🎉 " if msg.effect_id else "")
        reply = f"↪#{msg.reply_to_message_id} " if msg.reply_to_message_id else ""
        states = [(v.text, v.reply_markup) for v in msg.history] + [(msg.text, msg.reply_markup)]
        for index, (text, markup) in enumerate(states):
            head = f"#{msg.message_id} {sound}{reply}{sender}:" if index == 0 else "  ✎"
            lines.append(f"{head} {text}")
            for row in (markup or {}).get("inline_keyboard", []):
                lines.append("    " + " ".join(f"[{b.get('text')}]" for b in row))
    return "\n".join(lines)


def compare_with_golden(path: Path, actual: str) -> None:
    """Equal to the golden file, or a readable diff; rewrites it in update mode."""
    if os.environ.get(UPDATE_ENV) == "1":
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(actual, encoding="utf-8")
        return
    how = f"{UPDATE_ENV}=1 .venv/bin/pytest {THIS_MODULE} -k {path.stem}"
    assert path.exists(), f"no golden file {path}; write it with {how}"
    expected = path.read_text(encoding="utf-8")
    if actual == expected:
        return
    diff = list(
        difflib.unified_diff(
            expected.splitlines(),
            actual.splitlines(),
            f"{path.name} (golden)",
            f"{path.name} (this run)",
            lineterm="",
        )
    )
    shown = "\n".join(diff[:80]) + (f"\n... {len(diff) - 80} more lines" if len(diff) > 80 else "")
    pytest.fail(
        f"the transcript differs from {path}; if the change is meant, update it with {how} "
        f"and review the diff\n{shown}",
        pytrace=False,
    )


# -- reading a private chat (tests/support/review.py) ------------------------------------------


def _move_rounds(markup: Any) -> set[int]:
    """The rounds whose move keys a reply markup carries."""
    rounds = set()
    for row in (markup or {}).get("inline_keyboard", []):
        for button in row:
            data = button.get("callback_data")
            if data is None:
                continue
            try:
                key = keydata.decode(data)
            except keydata.BadKeyData:
                continue
            if key.kind in keydata.MOVES:
                rounds.add(key.round)
    return rounds


def assert_results_before_prompts(fake: FakeBotApi, chat_id: int) -> None:
    """A private chat of one game tells how each round ended for the player before it asks for
    their next turn, and keeps that line where it reads so.

    - As it happened (the order of the bot's sendMessage/editMessageText calls): when a turn of
      round R+1 is asked (a message gets that round's move keys), how round R ended is already
      shown (an earlier call, or higher in the same text).
    - As it reads at the end (messages by id, their final texts): every round the player was
      dealt into shows its result exactly once, above everything of a later round.
    """
    calls = [
        c
        for c in fake.calls()
        if c.ok
        and c.method in ("sendMessage", "editMessageText", "editMessageReplyMarkup")
        and isinstance(c.result, dict)
        and c.result["chat"]["id"] == chat_id
    ]
    told: dict[int, tuple[int, int]] = {}  # round -> (call, offset) where its result first showed
    asked: dict[int, tuple[int, int]] = {}  # round -> (call, offset) where its turn was first asked
    for index, call in enumerate(calls):
        text = call.result.get("text") or ""
        # A prompt's call to act comes first; the line under it recalling the last round
        # reads as told before the new round (offset -1).
        for number, offset in [*results(text), *((n, -1) for n, _ in recalls(text))]:
            told.setdefault(number, (index, offset))
        heads = {number: offset for number, offset, _ in blocks(text)}
        for number in _move_rounds(call.result.get("reply_markup")):
            asked.setdefault(number, (index, heads.get(number, 0)))
    for number, at in sorted(asked.items()):
        if number > 1:
            assert number - 1 in told and told[number - 1] < at, (
                f"chat {chat_id}: round {number} asked for a turn (call {at[0]}) before telling "
                f"how round {number - 1} ended (call {told.get(number - 1, ('never',))[0]})\n"
                + fake.transcript(chat_id)
            )

    seen: list[tuple[int, int, int]] = []  # (message, offset, round) of each result
    recalled: list[tuple[int, int, int]] = []  # the same, for a prompt's first line
    dealt: dict[int, tuple[int, int]] = {}  # round -> where it first reads
    for msg in fake.messages(chat_id, include_deleted=False):
        if not msg.from_bot or not msg.text:
            continue
        for number, offset, _ in blocks(msg.text):
            dealt.setdefault(number, (msg.message_id, offset))
        seen += [(msg.message_id, offset, n) for n, offset in results(msg.text)]
        recalled += [(msg.message_id, -1, n) for n, _ in recalls(msg.text)]
    shown = fake.transcript(chat_id)
    for number in dealt:
        # A round's result line shows once; the next prompt's first line may recall it (for
        # the first to play, it is where the round's end is told).
        places = [(m, o) for m, o, n in seen if n == number]
        assert len(places) <= 1, f"chat {chat_id}: round {number} ends {len(places)} times\n{shown}"
        places += [(m, o) for m, o, n in recalled if n == number]
        assert places, f"chat {chat_id}: how round {number} ended is never told\n{shown}"
        later = [where for n, where in dealt.items() if n > number]
        assert all(min(places) < where for where in later), (
            f"chat {chat_id}: how round {number} ended reads below a later round\n{shown}"
        )


def assert_every_call_accepted(fake: FakeBotApi) -> None:
    """The fake server refuses what Telegram would (bad HTML, too long, ...): nothing was."""
    refused = [(c.method, c.status, c.description, c.params) for c in fake.calls() if not c.ok]
    assert not refused, refused


def assert_texts_within_limits(fake: FakeBotApi, chats: list[int]) -> None:
    """Every text the chats show (and showed before an edit) fits in one Telegram message."""
    for chat in chats:
        for msg in fake.messages(chat):
            for text in [msg.text, *(v.text for v in msg.history)]:
                length = utf16_len(text or "")
                assert length <= MessageLimit.MAX_TEXT_LENGTH, (chat, msg.message_id, length)


@pytest.mark.parametrize(("players", "lang", "variants"), GAMES)
async def test_a_seeded_game_of_people_reads_as_its_golden_transcript(
    players: int, lang: str, variants: tuple[str, ...], sqlite_template: Path, tmp_path: Path
) -> None:
    people = list(PEOPLE[:players])
    database = tmp_path / "cuckoo.db"
    shutil.copyfile(sqlite_template, database)
    # Looser than Telegram on purpose: with the group's budget, what the table shows between
    # two moves would depend on timing, and a golden transcript must be the same every run
    # (the bot's own budget is off too, ``bot_settings``); the private chats, edited and sent
    # at the bot's own pace, read the same either way. The flood tests run with the limits on.
    async with FakeBotApi(token=TOKEN, bot_username=BOT_USERNAME, rate_limit=False) as fake:
        await play_game(fake, f"sqlite+aiosqlite:///{database}", people, lang, variants)
        assert_every_call_accepted(fake)
        assert_texts_within_limits(fake, [GROUP, *(p.id for p in people)])
        for person in people:
            assert_results_before_prompts(fake, person.id)
        # Every result told once, where the player looks, and no line left that is no longer
        # true (the transcript review: tests/support/review.py).
        ids = [p.id for p in people]
        read = review(fake, GROUP, ids)
        repeats = {p: repeats_in(fake, p) for p in ids if repeats_in(fake, p)}
        stale = {c: stale_in(fake, c) for c in (GROUP, *ids) if stale_in(fake, c)}
        assert (read.repeats, read.stale) == (0, 0), (repeats, stale)
        compare_with_golden(golden_path(players, lang, variants), transcript(fake, people))


async def test_with_computer_seats_every_private_chat_still_tells_each_round_in_order(
    sqlite_template: Path, tmp_path: Path
) -> None:
    """Computer seats play at once: a person is often the first to be asked in a round, their
    card coming with the prompt; each round's end is still told, in order, in their chat."""
    people = list(PEOPLE[:2])
    ids = [p.id for p in people]
    database = tmp_path / "cuckoo.db"
    shutil.copyfile(sqlite_template, database)
    # Looser than Telegram: four computer seats play at once, and with the group's budget the
    # group's end of the game can wait past the driver's patience; what is checked is each
    # private chat's order, which the limits do not change (the bot's budget is off too).
    async with telegram(token=TOKEN, bot_username=BOT_USERNAME, rate_limit=False) as fake:
        settings = bot_settings(f"sqlite+aiosqlite:///{database}", fake.base_url)
        async with running_bot(settings, random.Random(1)) as runtime:
            for p in people:
                fake.add_user(p.id, p.first_name, p.last_name, p.username, language_code="en")
            fake.add_group(GROUP, GROUP_TITLE, type="supergroup", members=ids, admins=[ids[0]])
            table = TableDriver(fake, GROUP)
            for user in ids:
                await table.say(user, "/start", chat_id=user)
                await fake.wait_for_message(user)
            await table.start_game(ids[0], ids, computers=4)

            async def before_press(prompt: Prompt) -> None:
                await settle(fake, runtime.deps)

            await play_out(table, ids, 6, check=before_press)
            await settle(fake, runtime.deps)
        assert_every_call_accepted(fake)
        for user in ids:
            assert_results_before_prompts(fake, user)


# -- the order check itself, on private chats written by hand ------------------------------------

ANN = 401


class HandWrittenChat:
    """Writes a private chat as the bot would, through the fake's Bot API."""

    def __init__(self, fake: FakeBotApi, session: aiohttp.ClientSession) -> None:
        self.fake = fake
        self.session = session
        self.tr = Translator()

    async def call(self, method: str, **params: Any) -> int:
        url = f"{self.fake.base_url}{TOKEN}/{method}"
        async with self.session.post(url, json={"chat_id": ANN, **params}) as response:
            body = await response.json()
        assert body["ok"], body
        return int(body["result"]["message_id"])

    def head(self, round_no: int) -> str:
        return self.tr.t("en", "private_head", chat="Club", round=round_no)

    async def prompt(self, round_no: int) -> int:
        data = keydata.KeyData(keydata.KEEP, game=1, round=round_no, turn=round_no).encode()
        keys = {"inline_keyboard": [[{"text": "✋ Keep", "callback_data": data}]]}
        card = self.tr.t("en", "prompt_card", card="4♠")
        return await self.call(
            "sendMessage", text=f"{self.head(round_no)}\n{card}", reply_markup=keys
        )

    def ended(self, round_no: int) -> str:
        result = self.tr.t("en", "result_lost", card="4♠", lives="❤️")
        return f"{self.head(round_no)}\n{result}"

    async def tell(self, message_id: int, round_no: int) -> None:
        """How the round ended, over its prompt (the keys go)."""
        await self.call("editMessageText", message_id=message_id, text=self.ended(round_no))


@pytest.fixture
async def chat() -> AsyncIterator[HandWrittenChat]:
    async with (
        # Looser than Telegram: the test plays the bot itself, sending as fast as each case
        # needs; what it checks is the order check, not Telegram's limits.
        telegram(token=TOKEN, bot_username=BOT_USERNAME, rate_limit=False) as fake,
        aiohttp.ClientSession() as session,
    ):
        fake.add_user(ANN, "Ann", started=True)
        yield HandWrittenChat(fake, session)


async def test_the_order_check_passes_rounds_that_end_before_the_next_turn(
    chat: HandWrittenChat,
) -> None:
    first = await chat.prompt(1)
    await chat.tell(first, 1)
    second = await chat.prompt(2)
    await chat.tell(second, 2)
    assert_results_before_prompts(chat.fake, ANN)


async def test_the_order_check_fails_a_turn_asked_before_the_last_round_ended(
    chat: HandWrittenChat,
) -> None:
    first = await chat.prompt(1)
    second = await chat.prompt(2)
    await chat.tell(first, 1)  # reads well at the end, but came after the next prompt
    await chat.tell(second, 2)
    with pytest.raises(AssertionError, match="round 2 asked for a turn"):
        assert_results_before_prompts(chat.fake, ANN)


async def test_the_order_check_fails_an_ending_that_reads_below_the_next_round(
    chat: HandWrittenChat,
) -> None:
    first = await chat.prompt(1)
    await chat.call("editMessageText", message_id=first, text=chat.head(1))
    deal = await chat.call("sendMessage", text=f"{chat.head(2)}\nYour card: 4♠")
    await chat.call("sendMessage", text=chat.ended(1))  # told in time, but below round 2
    await chat.tell(deal, 2)
    with pytest.raises(AssertionError, match="round 1 ended reads below a later round"):
        assert_results_before_prompts(chat.fake, ANN)


async def test_the_order_check_fails_a_round_that_ends_twice(chat: HandWrittenChat) -> None:
    first = await chat.prompt(1)
    await chat.tell(first, 1)
    await chat.call("sendMessage", text=chat.ended(1))
    with pytest.raises(AssertionError, match="round 1 ends 2 times"):
        assert_results_before_prompts(chat.fake, ANN)
