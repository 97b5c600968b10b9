"""The courier against the fake Bot API over real HTTP, on a controlled clock: the lobby is
edited in place, a player the bot cannot write to is asked in the group, the group's budget is
never exceeded and a round of instant taps costs at most 3 group calls, and at every prompt the
player's private chat already shows the card the store says they hold."""

from __future__ import annotations

import asyncio
import contextlib
import random
import re
from collections.abc import AsyncIterator
from dataclasses import replace

import pytest
from telegram import Bot, InlineKeyboardButton, InlineKeyboardMarkup, Message, ReplyParameters
from telegram.constants import ParseMode
from telegram.ext import Defaults, ExtBot

from cuckoo_bot.app import lobby, outbox, play
from cuckoo_bot.app.delivery import Report
from cuckoo_bot.app.deps import Deps
from cuckoo_bot.app.model import Chat, Game, GameStatus, Player
from cuckoo_bot.app.notices import (
    Announcement,
    AnswerNote,
    CloseNote,
    CloseReason,
    DealNote,
    Delivered,
    Notice,
    NoticeKind,
    PromptNote,
)
from cuckoo_bot.app.outbox import Batch
from cuckoo_bot.app.tuning import LEASE, MAX_TRIES
from cuckoo_bot.domain.actions import Move
from cuckoo_bot.domain.cards import Card
from cuckoo_bot.domain.rules import HouseRules
from cuckoo_bot.i18n.translator import Translator
from cuckoo_bot.transport import keydata
from cuckoo_bot.transport.bot import DEFAULTS
from cuckoo_bot.transport.delivery import Courier
from cuckoo_bot.transport.delivery import courier as courier_module
from cuckoo_bot.transport.delivery.calls import Calls, Unreachable
from cuckoo_bot.transport.delivery.known import Known
from cuckoo_bot.transport.delivery.results import Marks
from cuckoo_bot.transport.pacing import GroupBudget, PrivatePacer
from cuckoo_bot.transport.render import Players, Rendered, Renderer
from fakebotapi import FakeBotApi, StoredMessage
from fakebotapi.limits import GROUP_MESSAGES_PER_MINUTE
from tests.support.driver import TableDriver, told_rounds
from tests.unit.app.fakes import FakeClock, FakeUnitOfWorkFactory, World

TOKEN = "777:courier-test-token-0123456789"
GROUP = -100777
GROUP_METHODS = {"sendMessage", "editMessageText", "editMessageReplyMarkup", "deleteMessage"}


class Table:
    """A game driven through the use cases, delivered by a real courier to the fake server."""

    def __init__(self, fake: FakeBotApi, bot: Bot, players: int, rate: int) -> None:
        self.fake = fake
        self.clock = FakeClock()
        fake.world.clock = lambda: self.clock.now().timestamp()
        self.world = World()
        self.deps = Deps(
            uow=FakeUnitOfWorkFactory(self.world, self.clock),
            rng=random.Random(players),
            clock=self.clock,
            turn_timeout=60,
        )
        budget = GroupBudget(rate, clock=lambda: self.clock.now().timestamp())
        self.courier = Courier(self.deps, bot, Renderer(Translator()), budget, PrivatePacer(0))
        self.people = [Player(id=i, first_name=f"P{i}", can_dm=True) for i in range(1, players + 1)]
        self.driver = TableDriver(fake, GROUP)

    async def start(self) -> int:
        chat = Chat(id=GROUP, title="Club", rules=HouseRules(max_players=20))
        opened = await lobby.open_lobby(self.deps, chat, self.people[0], thread_id=None)
        assert opened.game_id is not None
        await self.courier.deliver(opened.batch)  # type: ignore[arg-type]
        for person in self.people[1:]:
            await self.courier.deliver((await lobby.join(self.deps, opened.game_id, person)).batch)  # type: ignore[arg-type]
        started = await lobby.start(self.deps, GROUP, self.people[0], is_admin=False)
        assert started.batch is not None
        await self.courier.deliver(started.batch)
        return opened.game_id

    async def play(self, game_id: int, seconds_per_tap: float) -> int:
        """Tap as soon as prompted; returns the number of presses."""
        for presses in range(5000):
            game = self.world.games[game_id]
            if game.status is not GameStatus.RUNNING:
                return presses
            state = game.state
            assert state is not None and state.round is not None and state.actor is not None
            prompt = self.driver.prompt()
            assert prompt is not None and prompt.actor == state.actor
            assert prompt.order[1] == state.turn
            held = state.round.card_of(state.actor)
            assert self.driver.card_of(state.actor) == _label(held.code), self.fake.transcript(
                state.actor
            )
            move = "cut" if prompt.data("c") else ("swap" if held.rank <= 5 else "keep")
            self.clock.advance(seconds_per_tap)
            outcome = await play.act(self.deps, game_id, state.actor, move, state.turn)
            if outcome.batch:
                await self.courier.deliver(outcome.batch)
        raise AssertionError("the game did not end")

    async def settle(self) -> None:
        """Time passes until everything waiting for the group's budget is shown."""
        for _ in range(20):
            self.clock.advance(60)
            await self.courier.sweep()
        await self.courier.drain()

    def group_calls(self) -> list[float]:
        return [
            c.time
            for c in self.fake.calls()
            if c.method in GROUP_METHODS and c.params.get("chat_id") in (GROUP, str(GROUP))
        ]


def _label(code: str) -> str:
    from cuckoo_bot.transport.render import card_label

    return card_label(code)


@pytest.fixture
async def fake() -> AsyncIterator[FakeBotApi]:
    async with FakeBotApi(token=TOKEN, rate_limit=True) as server:
        for user in range(1, 21):
            server.add_user(user, f"P{user}", started=True)
        server.add_group(GROUP, "Club", type="supergroup", members=list(range(1, 21)), admins=[1])
        yield server


@pytest.fixture
async def bot(fake: FakeBotApi) -> AsyncIterator[Bot]:
    defaults = Defaults(parse_mode=ParseMode.HTML)
    async with ExtBot(TOKEN, base_url=fake.base_url, defaults=defaults) as client:
        yield client


async def test_the_lobby_is_one_message_edited_in_place(fake: FakeBotApi, bot: Bot) -> None:
    table = Table(fake, bot, players=3, rate=1000)
    await table.start()
    lobbies = [m for m in fake.messages(GROUP) if m.from_bot and "Cuckoo" in (m.text or "")]
    assert len(lobbies) == 1 and "started" in (lobbies[0].text or "")
    assert lobbies[0].edit_count >= 1


@pytest.mark.parametrize("players", [3, 6, pytest.param(10, marks=pytest.mark.slow)])
async def test_instant_taps_stay_within_the_group_budget_and_cost_at_most_three_group_calls_a_round(
    fake: FakeBotApi, bot: Bot, players: int
) -> None:
    table = Table(fake, bot, players=players, rate=GROUP_MESSAGES_PER_MINUTE)
    game_id = await table.start()
    # Players tap at once; one second passes per press (the pace of one message a second in a
    # private chat, which the fake server enforces as Telegram does).
    presses = await table.play(game_id, seconds_per_tap=1.0)
    await table.settle()
    game = table.world.games[game_id]
    assert game.status is GameStatus.FINISHED and game.state is not None
    rounds = game.state.rounds_dealt
    calls = table.group_calls()
    # Never more than the budget in any minute, and Telegram never had to refuse a call.
    for i, start in enumerate(calls):
        assert sum(1 for t in calls[i:] if t < start + 60) <= GROUP_MESSAGES_PER_MINUTE
    assert not [c for c in fake.calls() if c.status == 429]
    assert len(calls) / rounds <= 3, (len(calls), rounds, presses)
    # Nothing is lost: every round's reveal reached the group, and the winner.
    texts = "\n".join(m.text or "" for m in fake.messages(GROUP, include_deleted=False))
    assert told_rounds(texts) == set(range(1, rounds + 1))
    assert "won the game" in texts
    # Every prompt's keys are gone once the game is over.
    assert table.driver.prompt() is None
    # Each private chat reads in order: a round's result comes before the next round's
    # messages, never after them.
    for person in table.people:
        assert_results_come_first(fake, person.id)


ROUND = re.compile(r"· round (\d+)")
TOLD = re.compile(r"· round (\d+)\n(?:[^\n]*You held|The cards were gathered)")
# A prompt's first line: how the player's last round ended, above the new round.
RECALLED = re.compile(r"^↩️ Round (\d+): ", re.M)


def assert_results_come_first(fake: FakeBotApi, chat_id: int) -> None:
    """In the order the calls reached Telegram: for every new message about round r, the edit
    telling how round r - 1 ended (when there is one) came before it."""
    calls = [
        c for c in fake.calls() if str(c.params.get("chat_id")) == str(chat_id) and c.status == 200
    ]
    told: dict[int, int] = {}
    for index, call in enumerate(calls):
        text = str(call.params.get("text") or "")
        for number in [*TOLD.findall(text), *RECALLED.findall(text)]:
            told.setdefault(int(number), index)
    checked = 0
    for index, call in enumerate(calls):
        if call.method != "sendMessage":
            continue
        first = ROUND.search(str(call.params.get("text") or ""))
        if first is None or int(first.group(1)) - 1 not in told:
            continue
        # (Told by an earlier call, or atop this very message.)
        assert told[int(first.group(1)) - 1] <= index, (chat_id, first.group(0))
        checked += 1
    assert checked or len(told) < 2, chat_id  # a chat of several rounds was checked


async def test_a_player_the_bot_cannot_write_to_is_asked_in_the_group(
    fake: FakeBotApi, bot: Bot
) -> None:
    table = Table(fake, bot, players=3, rate=GROUP_MESSAGES_PER_MINUTE)
    fake.block_bot(2)
    game_id = await table.start()
    for _ in range(200):
        game = table.world.games[game_id]
        if game.status is not GameStatus.RUNNING:
            break
        state = game.state
        assert state is not None and state.actor is not None
        prompt = table.driver.prompt()
        assert prompt is not None and prompt.actor == state.actor, fake.transcript(GROUP)
        if state.actor == 2:
            # Asked in the group, with a mention and the keys (and My card for the card).
            assert prompt.message.chat_id == GROUP
            assert "My card" in " ".join(b["text"] for row in prompt.message.buttons() for b in row)
        else:
            assert prompt.message.chat_id == state.actor
        table.clock.advance(6.0)  # people take a few seconds to decide
        outcome = await play.act(table.deps, game_id, state.actor, "keep", state.turn)
        if outcome.batch:
            await table.courier.deliver(outcome.batch)
    assert table.world.games[game_id].status is GameStatus.FINISHED
    assert table.world.players[2].can_dm is False
    # An ask in the group goes once its turn is over: no live keys are left behind.
    await table.courier.drain()
    assert table.driver.prompt() is None


async def test_private_chats_never_wait_for_a_group_out_of_budget(
    fake: FakeBotApi, bot: Bot
) -> None:
    table = Table(fake, bot, players=4, rate=GROUP_MESSAGES_PER_MINUTE)
    game_id = await table.start()
    calls_before = len(table.group_calls())
    # The group's budget is spent (say, by a burst of commands): every call it allows is gone.
    for _ in range(GROUP_MESSAGES_PER_MINUTE):
        await table.courier.budget.spend(GROUP)
    presses = await table.play(game_id, seconds_per_tap=1.0)  # checks each private prompt
    assert presses > 0 and table.world.games[game_id].status is GameStatus.FINISHED
    # The game was played out in private chats while the group waited for its budget...
    game = table.world.games[game_id]
    assert game.state is not None
    shown = [m for m in fake.messages(GROUP) if "Cards on the table" in (m.text or "")]
    assert len(table.group_calls()) - calls_before < game.state.rounds_dealt
    assert not shown or len(shown) < game.state.rounds_dealt
    # ...and the group catches up once its budget allows, with every reveal and the winner.
    await table.settle()
    texts = "\n".join(m.text or "" for m in fake.messages(GROUP, include_deleted=False))
    assert told_rounds(texts) == set(range(1, game.state.rounds_dealt + 1))
    # Rounds that ended while the group waited came together, under one table.
    assert any((m.text or "").count("🃏 Round ") > 1 for m in fake.messages(GROUP)), texts
    assert "won the game" in texts


async def test_a_game_cancelled_mid_round_tells_every_player_and_leaves_no_live_keys(
    fake: FakeBotApi, bot: Bot
) -> None:
    table = Table(fake, bot, players=4, rate=1000)
    await table.start()
    prompt = table.driver.prompt()
    assert prompt is not None
    table.clock.advance(2)  # a second later: one new message a second to a private chat
    cancelled = await lobby.cancel(table.deps, GROUP, table.people[0], is_admin=True)
    assert cancelled.batch is not None
    await table.courier.deliver(cancelled.batch)
    assert table.driver.prompt() is None  # the prompt's keys are gone
    for person in table.people:  # the one asked and those still waiting to be asked
        last = fake.last_message(person.id, from_bot=True)
        assert last is not None and "cancelled" in (last.text or ""), fake.transcript(person.id)


class FlakyDeals(Renderer):
    """Rendering the first card dealt fails ``failures`` times (a fault nobody expected), then
    works; the other cards render as usual."""

    def __init__(self, failures: int) -> None:
        super().__init__(Translator())
        self.failures = failures
        self.victim: DealNote | None = None

    def deal(
        self, note: DealNote, game: Game, players: Players, lang: str, with_result: bool
    ) -> Rendered:
        self.victim = self.victim or note
        if note == self.victim and self.failures > 0:
            self.failures -= 1
            raise KeyError("a fault while rendering")
        return super().deal(note, game, players, lang, with_result)


@pytest.mark.parametrize("failures", [1, MAX_TRIES])
async def test_a_notice_that_fails_is_tried_again_later_or_given_up_and_never_holds_others(
    fake: FakeBotApi, bot: Bot, failures: int, caplog: pytest.LogCaptureFixture
) -> None:
    table = Table(fake, bot, players=3, rate=1000)
    table.courier.tools.renderer = FlakyDeals(failures)
    await table.start()
    (failed,) = table.world.waiting()  # one deal failed; everything else of the start went out
    notice = table.world.outbox[failed]
    assert notice.kind is NoticeKind.DEAL
    unsent = [i for i in table.world.outbox if i not in table.world.sent]
    assert unsent == [failed]
    assert table.driver.card_of(notice.chat_id) is None
    assert all(table.driver.card_of(p.id) for p in table.people if p.id != notice.chat_id)

    for _ in range(MAX_TRIES + 1):  # the sweeper's later runs
        table.clock.advance(seconds=400)
        await table.courier.sweep()
        await table.courier.drain()
    if failures < MAX_TRIES:
        assert failed in table.world.sent and table.driver.card_of(notice.chat_id)
    else:
        assert failed in table.world.sent and table.driver.card_of(notice.chat_id) is None
        assert f"gave up after {MAX_TRIES} tries: KeyError" in caplog.text


class WatchedPacer(PrivatePacer):
    """A pacer that says when a lane begins to wait for a chat's pace."""

    def __init__(self, interval: float) -> None:
        super().__init__(interval)
        self.waiting = asyncio.Event()

    async def wait(self, chat_id: int) -> None:
        if self.delay(chat_id) > 0:
            self.waiting.set()
        await super().wait(chat_id)


async def _paced(fake: FakeBotApi, bot: Bot) -> tuple[Table, Game, Courier, WatchedPacer]:
    """A started game of three and a second courier whose private chats wait 30 s between
    two messages, saying when a lane begins that wait."""
    table = Table(fake, bot, players=3, rate=1000)
    game_id = await table.start()
    game = table.world.games[game_id]  # the store's game as the start left it
    pacer = WatchedPacer(30)
    courier = Courier(table.deps, bot, Renderer(Translator()), table.courier.budget, pacer)
    return table, game, courier, pacer


async def test_a_table_asking_a_turn_the_game_has_left_behind_is_never_shown(
    fake: FakeBotApi, bot: Bot
) -> None:
    """A table view claimed late (an instance died holding it, and the chat's other notices
    went on without it) asks a turn the game has left behind. Whatever the chat's messages
    say about it, it is not shown: the table would go back and ask that turn again."""
    table = Table(fake, bot, players=3, rate=1000)
    game_id = await table.start()
    first = table.driver.table()
    assert first is not None and "⁨P1⁩ ❤️❤️❤️ · ⏳ playing" in (first.text or "")
    asked = next(
        n.payload
        for n in reversed(table.world.outbox.values())
        if n.kind is NoticeKind.TABLE and n.game_id == game_id
    )
    state = table.world.games[game_id].state
    assert state is not None and state.actor is not None
    outcome = await play.act(table.deps, game_id, state.actor, "keep", state.turn)
    assert outcome.batch is not None
    await table.courier.deliver(outcome.batch)
    table.clock.advance(60)
    await table.courier.sweep()
    await table.courier.drain()
    now = table.driver.table()
    assert now is not None and "⁨P2⁩ ❤️❤️❤️ · ⏳ playing" in (now.text or "")
    # The first turn's view, written before and claimed only now (its id is the newest).
    late = Notice(NoticeKind.TABLE, GROUP, asked, game_id)
    async with table.deps.uow() as uow:
        game = table.world.games[game_id]
        await outbox.write(uow, game, [late])
        await uow.commit()
    table.clock.advance(LEASE.total_seconds() + 60)
    calls = len(fake.calls())
    restarted = _restarted(table, bot)
    await restarted.sweep()
    await restarted.drain()
    texts = [str(c.params.get("text", "")) for c in fake.calls()[calls:]]
    assert not [t for t in texts if "⁨P1⁩ ❤️❤️❤️ · ⏳ playing" in t], texts
    shown = table.driver.table()
    assert shown is not None and "⁨P2⁩ ❤️❤️❤️ · ⏳ playing" in (shown.text or "")


async def test_what_a_lane_showed_is_marked_before_it_waits_for_the_chats_pace(
    fake: FakeBotApi, bot: Bot
) -> None:
    """A crash while a private lane waits for its pace would otherwise send again what it had
    already shown: it is marked in the store before the wait."""
    table, game, courier, pacer = await _paced(fake, bot)
    game_id, player = game.id, table.people[1].id
    notices = [
        Notice(NoticeKind.DEAL, player, DealNote(1, Card.from_code("7H"), 1, 2, 3), game_id),
        Notice(NoticeKind.CLOSE, player, CloseNote(CloseReason.CANCELLED), game_id),
    ]
    async with table.deps.uow() as uow:
        batch = await outbox.write(uow, game, notices)
        await uow.commit()
    # Past the chat's pace (30 s here) since the game's last message, on the store's clock
    table.clock.advance(31)
    before = len(fake.dm(player))
    delivering = asyncio.create_task(courier.deliver(batch))
    await fake.wait_for(lambda: len(fake.dm(player)) > before, 10)
    # The probe: the lane has begun its 30 s wait for the chat's pace, before the second.
    await asyncio.wait_for(pacer.waiting.wait(), 10)
    assert notices[0].id in table.world.sent and notices[1].id not in table.world.sent
    delivering.cancel()
    await asyncio.gather(delivering, return_exceptions=True)


async def test_a_private_chat_keeps_its_pace_across_instances(fake: FakeBotApi, bot: Bot) -> None:
    """Telegram takes about one message a second in a private chat, whichever instance sends
    it: a courier that never wrote to the chat waits the pace of another's message, read in
    the store with the batch's other questions (no statement more)."""
    table, game, courier, pacer = await _paced(fake, bot)
    game_id, player = game.id, table.people[1].id
    table.clock.advance(31)  # past the pace (30 s here) since the start's messages
    deal = Notice(NoticeKind.DEAL, player, DealNote(1, Card.from_code("7H"), 1, 2, 3), game_id)
    async with table.deps.uow() as uow:
        dealt = await outbox.write(uow, game, [deal])
        await uow.commit()
    await table.courier.deliver(dealt)  # another instance (its pacer knows nothing of this one)
    assert deal.id in table.world.sent
    table.clock.advance(5)
    close = Notice(NoticeKind.CLOSE, player, CloseNote(CloseReason.CANCELLED), game_id)
    async with table.deps.uow() as uow:
        closing = await outbox.write(uow, game, [close])
        await uow.commit()
    before = len(fake.dm(player))
    delivering = asyncio.create_task(courier.deliver(closing))
    await asyncio.wait_for(pacer.waiting.wait(), 10)  # 25 s left of the 30
    assert len(fake.dm(player)) == before
    assert pacer.delay(player) > 20
    delivering.cancel()
    await asyncio.gather(delivering, return_exceptions=True)


async def test_what_the_group_showed_is_marked_when_a_private_lane_of_its_batch_waits(
    fake: FakeBotApi, bot: Bot
) -> None:
    """A batch is settled once all its lanes are done; a private lane waiting for its pace
    marks what the quicker lanes showed too, or a crash during that wait would show the
    group's message again (after a restart, the last game's winner after the new table)."""
    table, game, courier, pacer = await _paced(fake, bot)
    game_id, player = game.id, table.people[1].id
    news = Announcement("Misdealt", {"round": 1, "next_dealer": table.people[2].id})
    notices = [
        Notice(NoticeKind.ANNOUNCE, GROUP, news, game_id),
        Notice(NoticeKind.DEAL, player, DealNote(1, Card.from_code("7H"), 1, 2, 3), game_id),
        Notice(NoticeKind.CLOSE, player, CloseNote(CloseReason.CANCELLED), game_id),
    ]
    table.clock.advance(31)
    async with table.deps.uow() as uow:
        batch = await outbox.write(uow, game, notices)
        await uow.commit()
    in_group = len(fake.messages(GROUP))
    delivering = asyncio.create_task(courier.deliver(batch))
    # The private lane begins its 30 s wait; the group's lane is done before or during it.
    await asyncio.wait_for(pacer.waiting.wait(), 10)
    await fake.wait_for(lambda: notices[0].id in table.world.sent, 10)
    assert len(fake.messages(GROUP)) == in_group + 1
    assert notices[1].id in table.world.sent and notices[2].id not in table.world.sent
    assert not delivering.done()  # still waiting: the batch is not settled yet
    delivering.cancel()
    await asyncio.gather(delivering, return_exceptions=True)


class HeldCalls(Calls):
    """The Bot API calls, with sends to one chat held until the test lets them go."""

    def __init__(self, bot: Bot, chat_id: int) -> None:
        super().__init__(bot)
        self.chat_id = chat_id
        self.gate = asyncio.Event()

    async def send(self, notice: Notice, rendered: Rendered) -> int:
        if notice.chat_id == self.chat_id:
            await self.gate.wait()
        return await super().send(notice, rendered)


async def test_a_later_batch_that_takes_a_prompts_keys_off_is_not_undone_by_an_earlier_one(
    fake: FakeBotApi, bot: Bot
) -> None:
    """A batch is marked once all its chats are done: the player can press (and the next batch
    take the prompt's keys off and be marked) while the group's message of the batch that
    showed the prompt is still on its way. The earlier batch's mark must not record the
    prompt as showing keys again."""
    table = Table(fake, bot, players=3, rate=1000)
    game_id = await table.start()
    game = table.world.games[game_id]
    assert game.state is not None and game.state.actor is not None
    player = game.state.actor
    held = HeldCalls(bot, GROUP)
    table.courier.tools.calls = held
    prompt = PromptNote(1, game.state.turn, Card.from_code("7H"), 3, (Move.KEEP, Move.SWAP))
    news = Announcement("Misdealt", {"round": 1, "next_dealer": table.people[2].id})
    shown = [
        Notice(NoticeKind.PROMPT, player, prompt, game_id),
        Notice(NoticeKind.ANNOUNCE, GROUP, news, game_id),
    ]
    table.clock.advance(5)  # Telegram's own pace for the chat (the fake's clock) is kept
    async with table.deps.uow() as uow:
        first = await outbox.write(uow, game, shown)
        await uow.commit()
    before = len(fake.dm(player))
    delivering = asyncio.create_task(table.courier.deliver(first))
    await fake.wait_for(lambda: len(fake.dm(player)) > before, 10)
    message = fake.dm(player)[-1]
    assert message.callback_datas  # the prompt's keys
    closing = [Notice(NoticeKind.CLOSE, player, CloseNote(CloseReason.CANCELLED), game_id)]
    async with table.deps.uow() as uow:
        second = await outbox.write(uow, game, closing)
        await uow.commit()
    await table.courier.deliver(second)
    assert not message.callback_datas  # taken off in the chat
    row = table.world.message(player, message.message_id)
    assert row is not None and row.keys is False and row.shown > shown[0].id
    assert shown[1].id not in table.world.sent  # the first batch is not marked yet
    held.gate.set()
    await delivering
    assert shown[1].id in table.world.sent
    # The earlier batch, marked last, still says the prompt's keys are gone.
    assert table.world.message(player, message.message_id) == row


def _forget(table: Table, notice_id: int) -> None:
    """The process crashed after Telegram showed the notice and before its mark was written."""
    table.world.sent.pop(notice_id, None)
    for key, row in list(table.world.messages.items()):
        if notice_id in (row.shown, row.sent_by):
            del table.world.messages[key]


def _restarted(table: Table, bot: Bot) -> Courier:
    """A new life of the only process delivering: it knows nothing of what the last one sent."""
    budget = GroupBudget(1000, clock=lambda: table.clock.now().timestamp())
    renderer = Renderer(Translator())
    return Courier(table.deps, bot, renderer, budget, PrivatePacer(0), alone=True)


class _Killed(BaseException):
    """SIGKILL: the process stops where it is (not a cancellation, which marks what it did)."""


def _live_move_keys(fake: FakeBotApi, chat_id: int) -> list[int]:
    return [
        m.message_id
        for m in fake.messages(chat_id)
        if any(d.split(":")[1] in keydata.MOVES for d in m.callback_datas)
    ]


async def test_a_prompt_shown_before_a_crash_loses_its_keys_when_it_is_shown_again(
    fake: FakeBotApi, bot: Bot
) -> None:
    table = Table(fake, bot, players=3, rate=1000)
    game_id = await table.start()
    # Play on until someone's prompt comes after a message of theirs the store knows (a deal).
    while True:
        state = table.world.games[game_id].state
        prompts = [n for n in table.world.outbox.values() if n.kind is NoticeKind.PROMPT]
        deals = {n.chat_id for n in table.world.outbox.values() if n.kind is NoticeKind.DEAL}
        if prompts[-1].chat_id in deals and prompts[-1].payload.turn == state.turn:
            break
        outcome = await play.act(table.deps, game_id, state.actor, "keep", state.turn)
        table.clock.advance(1.0)  # (the chat's pace: a message a second)
        await table.courier.deliver(outcome.batch)  # type: ignore[arg-type]
    prompt = prompts[-1]
    shown = _live_move_keys(fake, prompt.chat_id)
    assert len(shown) == 1
    _forget(table, prompt.id)
    courier = _restarted(table, bot)
    table.clock.advance(2)  # (the chat's pace: a message a second)
    await courier.sweep()
    await courier.drain()
    # Shown again (the turn is still on); the copy from before the crash has no keys left.
    again = _live_move_keys(fake, prompt.chat_id)
    assert len(again) == 1 and again != shown, fake.transcript(prompt.chat_id)


async def test_a_prompt_shown_before_a_crash_loses_its_keys_once_its_turn_is_over(
    fake: FakeBotApi, bot: Bot
) -> None:
    table = Table(fake, bot, players=3, rate=1000)
    game_id = await table.start()
    (prompt,) = [n for n in table.world.outbox.values() if n.kind is NoticeKind.PROMPT]
    assert _live_move_keys(fake, prompt.chat_id)
    _forget(table, prompt.id)
    # The process that died still held it for a while (its claim's lease): the new life plays
    # the round on first, so that player's next card is a message the store knows.
    table.world.claims[prompt.id] = ("the process that died", table.clock.now() + LEASE)
    courier = _restarted(table, bot)
    while table.world.games[game_id].state.rounds_dealt == 1:
        state = table.world.games[game_id].state
        outcome = await play.act(table.deps, game_id, state.actor, "keep", state.turn)
        table.clock.advance(1.0)
        await courier.deliver(outcome.batch)  # type: ignore[arg-type]
    assert prompt.id not in table.world.sent
    table.clock.advance(7)  # the dead process's claim has run out
    await courier.sweep()
    await courier.drain()
    # The leftover's turn is over: the copy shown before the crash has no keys left.
    stale = [
        m.message_id
        for m in fake.messages(prompt.chat_id)
        if any(
            d.split(":")[1] in keydata.MOVES and int(d.split(":")[4]) == prompt.payload.turn
            for d in m.callback_datas
        )
    ]
    assert not stale, fake.transcript(prompt.chat_id)


async def test_a_lost_prompt_under_an_earlier_notice_shown_again_loses_its_keys_at_its_turns_end(
    fake: FakeBotApi, bot: Bot
) -> None:
    """After crashes, an earlier notice (the player's card dealt) is shown again as a new
    message below a prompt whose mark was lost: once the prompt's turn is over, the prompt's
    copy above the card loses its keys all the same."""
    table = Table(fake, bot, players=3, rate=1000)
    game_id = await table.start()
    state = table.world.games[game_id].state
    first = await play.act(table.deps, game_id, state.actor, "keep", state.turn)
    table.clock.advance(1.0)
    await table.courier.deliver(first.batch)  # type: ignore[arg-type]
    prompt = [n for n in table.world.outbox.values() if n.kind is NoticeKind.PROMPT][-1]
    (dealt,) = [
        n
        for n in table.world.outbox.values()
        if n.kind is NoticeKind.DEAL and n.chat_id == prompt.chat_id
    ]
    _forget(table, prompt.id)
    table.clock.advance(1.0)  # (the chat's pace: a message a second)
    again = await bot.send_message(prompt.chat_id, "the card dealt, shown again")
    await outbox.mark(table.deps, [Delivered(dealt.id, again.message_id, False)])
    table.world.claims[prompt.id] = ("the process that died", table.clock.now() + LEASE)
    courier = _restarted(table, bot)
    state = table.world.games[game_id].state
    outcome = await play.act(table.deps, game_id, state.actor, "keep", state.turn)
    table.clock.advance(1.0)
    await courier.deliver(outcome.batch)  # type: ignore[arg-type]
    table.clock.advance(7)  # the dead process's claim has run out
    await courier.sweep()
    await courier.drain()
    assert _live_move_keys(fake, prompt.chat_id) == [], fake.transcript(prompt.chat_id)


async def test_an_instance_killed_right_after_showing_a_prompt_it_took_over_leaves_a_doubt(
    fake: FakeBotApi, bot: Bot
) -> None:
    """Instance "one" shows a prompt and lags; its lease runs out and instance "two" takes the
    prompt over, shows it again and is killed the moment Telegram answers, before its mark.
    "One" then marks its own copy. Only the doubt "two" wrote before its call says a second
    copy with keys may stand there: the next instance clears it, and one prompt asks."""
    table = Table(fake, bot, players=3, rate=1000)
    await table.start()
    (prompt,) = [n for n in table.world.outbox.values() if n.kind is NoticeKind.PROMPT]
    (first,) = _live_move_keys(fake, prompt.chat_id)
    _forget(table, prompt.id)  # "one" has not marked it yet
    table.clock.advance(7)  # "one"'s lease has run out
    budget = GroupBudget(1000, clock=lambda: table.clock.now().timestamp())
    two = Courier(table.deps, bot, Renderer(Translator()), budget, PrivatePacer(0))
    shown = two.tools.calls.send

    async def killed_after(notice: Notice, rendered: Rendered) -> int:
        await shown(notice, rendered)
        raise asyncio.CancelledError  # SIGKILL: Telegram showed it, nothing more happens

    two.tools.calls.send = killed_after  # type: ignore[method-assign]
    with pytest.raises(asyncio.CancelledError):
        await two.sweep()
    assert len(_live_move_keys(fake, prompt.chat_id)) == 2
    assert prompt.chat_id in table.world.doubts()
    await outbox.mark(table.deps, [Delivered(prompt.id, first, True)])  # "one"'s late mark
    three = Courier(table.deps, bot, Renderer(Translator()), budget, PrivatePacer(0))
    table.clock.advance(2)
    await three.sweep()
    await three.drain()
    assert _live_move_keys(fake, prompt.chat_id) == [first], fake.transcript(prompt.chat_id)


async def test_lives_killed_one_after_another_as_they_show_a_prompt_again_leave_one_to_press(
    fake: FakeBotApi, bot: Bot
) -> None:
    """Polling (one process): the first prompt's mark is lost, and six lives in a row are
    each killed as they start taking an old copy's keys off. The first shows the prompt again,
    recorded the moment Telegram answered (a doubt written before its call); the next ones
    find it shown, not one more copy each (lives killed like that once left a copy per life,
    more than the search for lost ones reaches, one of them keeping its keys). In the end one
    copy asks, and once it is pressed, none."""
    table = Table(fake, bot, players=3, rate=1000)
    game_id = await table.start()
    (prompt,) = [n for n in table.world.outbox.values() if n.kind is NoticeKind.PROMPT]
    _forget(table, prompt.id)
    sends = len(fake.calls("sendMessage"))
    for _ in range(6):
        life = _restarted(table, bot)

        async def killed(chat_id: int, message_id: int) -> bool:
            raise _Killed  # as an old copy's keys come off: nothing more happens

        life.tools.calls.remove_keys = killed  # type: ignore[method-assign]
        table.clock.advance(2)  # (the chat's pace: a message a second)
        with contextlib.suppress(_Killed):
            await life.sweep()
    assert len(fake.calls("sendMessage")) == sends + 1  # shown again once, not once a life
    last = _restarted(table, bot)
    for _ in range(2):  # the doubt is looked into at the sweep after the one that read it
        table.clock.advance(2)
        await last.sweep()
    await last.drain()
    live = _live_move_keys(fake, prompt.chat_id)
    assert len(live) == 1, fake.transcript(prompt.chat_id)
    state = table.world.games[game_id].state
    pressed = await play.act(table.deps, game_id, state.actor, "keep", state.turn, pressed=live[0])
    assert pressed.batch
    await last.deliver(pressed.batch)
    await last.drain()
    assert _live_move_keys(fake, prompt.chat_id) == [], fake.transcript(prompt.chat_id)


@pytest.mark.parametrize("refusals", [1, 2])
async def test_a_delivery_the_store_refused_to_record_leaves_one_prompt_to_press(
    fake: FakeBotApi, bot: Bot, monkeypatch: pytest.MonkeyPatch, refusals: int
) -> None:
    """The store refuses to record a delivery (two instances' marks deadlocked on PostgreSQL):
    once, it is recorded at the second try; twice, the next prompt stands in the chat, keys
    and all, with no row. The next sweep shows it again as another process's notice: the copy
    it cannot see loses its keys, one prompt asks."""
    table = Table(fake, bot, players=3, rate=1000)
    game_id = await table.start()
    real = courier_module.settle
    left = [refusals]

    async def refusing(deps: Deps, report: Report) -> Batch:
        if left[0] > 0:
            left[0] -= 1
            raise RuntimeError("deadlock detected")
        return await real(deps, report)

    monkeypatch.setattr(courier_module, "settle", refusing)
    state = table.world.games[game_id].state
    pressed = await play.act(table.deps, game_id, state.actor, "keep", state.turn)
    assert pressed.batch
    (asked,) = [n for n in pressed.batch.notices if n.kind is NoticeKind.PROMPT]
    table.clock.advance(1.0)  # (the chat's pace: a message a second)
    with contextlib.suppress(RuntimeError):
        await table.courier.deliver(pressed.batch)
    assert len(_live_move_keys(fake, asked.chat_id)) == 1
    assert (asked.id in table.world.sent) is (refusals == 1)
    for _ in range(2):
        table.clock.advance(2)
        await table.courier.sweep()
    await table.courier.drain()
    assert len(_live_move_keys(fake, asked.chat_id)) == 1, fake.transcript(asked.chat_id)
    assert asked.id in table.world.sent


async def test_a_press_on_a_prompt_no_notice_accounts_for_is_answered_there_by_the_next_life(
    fake: FakeBotApi, bot: Bot
) -> None:
    """A copy of a prompt the store never learnt of (a process showed it and died before its
    mark) is pressed; the process that took the press dies before delivering its answer. The
    next life answers on the message pressed, keys gone, and the known copy loses its keys:
    the press's notice names the message, so no process's memory has to."""
    table = Table(fake, bot, players=3, rate=1000)
    game_id = await table.start()
    (prompt,) = [n for n in table.world.outbox.values() if n.kind is NoticeKind.PROMPT]
    (known,) = [m for m in fake.messages(prompt.chat_id) if m.callback_datas]
    keys = InlineKeyboardMarkup.de_json(known.reply_markup, bot)
    table.clock.advance(1.0)  # (the chat's pace: a message a second)
    copy = await bot.send_message(prompt.chat_id, known.text or "", reply_markup=keys)
    state = table.world.games[game_id].state
    pressed = await play.act(
        table.deps, game_id, state.actor, "keep", state.turn, pressed=copy.message_id
    )
    assert pressed.batch  # ... and the process that wrote it died before showing it
    table.clock.advance(7)  # its claims have run out
    courier = _restarted(table, bot)
    await courier.sweep()
    await courier.drain()
    assert _live_move_keys(fake, prompt.chat_id) == [], fake.transcript(prompt.chat_id)
    (answered,) = [m for m in fake.messages(prompt.chat_id) if m.message_id == copy.message_id]
    assert answered.text != copy.text, fake.transcript(prompt.chat_id)


async def test_an_answer_kept_after_its_send_was_lost_is_shown_and_the_first_copy_loses_its_keys(
    fake: FakeBotApi, bot: Bot
) -> None:
    """A command's answer whose send got no answer (Telegram showed it) is kept in the outbox:
    the courier shows it again, as it was written, with its keys; the copy Telegram had shown
    loses its keys (the chat was in doubt), so one message asks."""
    table = Table(fake, bot, players=3, rate=20)
    keys = InlineKeyboardMarkup([[InlineKeyboardButton("English", callback_data="1:l:en")]])
    first = await bot.send_message(GROUP, "Choose the group's language", reply_markup=keys)
    note = AnswerNote(first.text or "", keys.to_dict())
    await outbox.keep_answer(table.deps, GROUP, None, note, maybe_shown=True)
    await table.courier.sweep()  # shows it, and learns the chat is in doubt
    await table.courier.sweep()  # nothing left to show there: what no notice shows is tidied
    await table.courier.drain()
    shown = [m for m in fake.messages(GROUP) if m.text == first.text]
    assert [m.message_id for m in shown] == [first.message_id, shown[-1].message_id]
    assert shown[0].callback_datas == [] and shown[-1].callback_datas == ["1:l:en"]
    (row,) = [r for r in table.world.messages.values() if r.kind is NoticeKind.ANSWER]
    assert (row.message_id, row.keys) == (shown[-1].message_id, True)
    assert table.world.doubts() == {}


async def test_notices_an_instance_left_when_it_died_are_shown_before_a_newer_batch(
    fake: FakeBotApi, bot: Bot
) -> None:
    """A chat's notices are shown in order across instances: once the lease of an instance
    that died runs out, what it held is nobody's, and the next batch to that chat takes it and
    shows it first (not the next sweep, after the newer message)."""
    table = Table(fake, bot, players=3, rate=20)
    game_id = await table.start()
    game = table.world.games[game_id]
    gone = Deps(
        uow=FakeUnitOfWorkFactory(table.world, table.clock, instance="gone"),
        rng=random.Random(1),
        clock=table.clock,
        turn_timeout=60,
    )

    def news(round_no: int) -> Notice:
        data = {"round": round_no, "next_dealer": table.people[2].id}
        return Notice(NoticeKind.ANNOUNCE, GROUP, Announcement("Misdealt", data), game_id)

    left = news(1)
    async with gone.uow() as uow:  # written and claimed by an instance, which then died
        await outbox.write(uow, game, [left])
        await uow.commit()
    table.clock.advance(LEASE.total_seconds() + 1)
    async with table.deps.uow() as uow:
        batch = await outbox.write(uow, game, [news(2)])
        await uow.commit()
    await table.courier.deliver(batch)
    first, _ = table.world.shows(left.id)
    second, _ = table.world.shows(batch.notices[0].id)
    assert first is not None and second is not None and first < second
    assert all(n in table.world.sent for n in table.world.outbox)


async def test_a_second_copy_of_a_notice_loses_its_keys_at_the_next_sweep(
    fake: FakeBotApi, bot: Bot
) -> None:
    """An instance whose lease ran out while it was still showing a notice, and another that
    showed it again: two messages with the same keys. The sweep takes them off one; the newest
    keeps them (later notices edit the newest)."""
    table = Table(fake, bot, players=3, rate=20)
    keys = InlineKeyboardMarkup([[InlineKeyboardButton("Join", callback_data="1:j:9")]])
    first = await bot.send_message(GROUP, "Join the game", reply_markup=keys)
    late = await bot.send_message(GROUP, "Join the game", reply_markup=keys)
    note = AnswerNote("Join the game", keys.to_dict())
    notice = Notice(NoticeKind.ANSWER, GROUP, note)
    await _shown_twice(table, notice, first, late, keys=True)
    await table.courier.sweep()
    shown = {m.message_id: m.callback_datas for m in fake.messages(GROUP)}
    assert shown[first.message_id] == [] and shown[late.message_id] == ["1:j:9"]
    assert table.world.message(GROUP, first.message_id).keys is False  # type: ignore[union-attr]
    assert table.world.message(GROUP, late.message_id).keys is True  # type: ignore[union-attr]


async def _shown_twice(
    table: Table, notice: Notice, first: Message, late: Message, *, keys: bool
) -> None:
    """``notice`` written, shown as ``first`` by one instance, then as ``late`` by another."""
    async with table.deps.uow() as uow:
        await uow.outbox.add_many([notice])
        await uow.commit()
    async with table.deps.uow() as uow:  # shown by one instance, then its late mark
        await uow.outbox.mark([Delivered(notice.id, first.message_id, keys)])
        await uow.outbox.mark([Delivered(notice.id, late.message_id, keys)])
        await uow.commit()


async def test_a_second_copy_without_keys_is_deleted_at_the_next_sweep(
    fake: FakeBotApi, bot: Bot
) -> None:
    """The same answer sent twice (an instance whose lease ran out while its send was still on
    the wire, another sending it again): the sweep deletes the older message and forgets its
    row; the newest stays. A message a later notice edited is no twin and stays."""
    table = Table(fake, bot, players=3, rate=20)
    first = await bot.send_message(GROUP, "Round 2: your card")
    late = await bot.send_message(GROUP, "Round 2: your card")
    notice = Notice(NoticeKind.ANSWER, GROUP, AnswerNote("Round 2: your card"))
    await _shown_twice(table, notice, first, late, keys=False)
    await table.courier.sweep()
    kept = [m.message_id for m in fake.messages(GROUP, include_deleted=False)]
    assert first.message_id not in kept and late.message_id in kept
    assert table.world.message(GROUP, first.message_id) is None
    assert table.world.message(GROUP, late.message_id) is not None
    deletes = [c for c in fake.calls() if c.method == "deleteMessage"]
    assert len(deletes) == 1 and deletes[0].ok
    await table.courier.sweep()  # nothing more to do: no second deletion
    assert len([c for c in fake.calls() if c.method == "deleteMessage"]) == 1


class SlowCalls(HeldCalls):
    """Held sends that take a second of the clock each (Telegram's pace for the chat)."""

    def __init__(self, bot: Bot, chat_id: int, clock: FakeClock) -> None:
        super().__init__(bot, chat_id)
        self.clock = clock

    async def send(self, notice: Notice, rendered: Rendered) -> int:
        sent = await super().send(notice, rendered)
        self.clock.advance(1.1)
        return sent


@pytest.mark.parametrize("renewed", [False, True])
async def test_a_holder_makes_no_call_once_its_claims_may_have_run_out(
    fake: FakeBotApi, bot: Bot, renewed: bool
) -> None:
    """A lane that waited (here: on its first call) longer than ``HOLD`` since its notices
    were last known to be its own makes no further call: the lease may have run out, and
    another instance may be showing them. The renewer keeps them its own."""
    table = Table(fake, bot, players=3, rate=1000)
    game_id = await table.start()
    game = table.world.games[game_id]
    player = table.people[1].id
    held = SlowCalls(bot, player, table.clock)
    table.courier.tools.calls = held
    answers = [
        Notice(NoticeKind.ANSWER, player, AnswerNote(text), game_id) for text in ("one", "two")
    ]
    table.clock.advance(5)
    async with table.deps.uow() as uow:
        batch = await outbox.write(uow, game, answers)
        await uow.commit()
    before = len(fake.dm(player))
    delivering = asyncio.create_task(table.courier.deliver(batch))
    await asyncio.sleep(0.05)  # the first send waits at the gate
    for _ in range(3):  # the process stalls for 3 s, its renewer running or not
        table.clock.advance(1.5)
        if renewed:
            await table.courier.renew()
    held.gate.set()
    await delivering
    texts = [m.text for m in fake.dm(player)[before:]]
    if renewed:
        assert texts == ["one", "two"]
        return
    assert texts == ["one"]  # begun before the claims ran out: the second is left
    assert answers[1].id not in table.world.sent
    other = Courier(
        Deps(
            uow=FakeUnitOfWorkFactory(table.world, table.clock, instance="other"),
            rng=random.Random(1),
            clock=table.clock,
            turn_timeout=60,
        ),
        bot,
        Renderer(Translator()),
        table.courier.budget,
        PrivatePacer(0),
    )
    table.clock.advance(LEASE.total_seconds())
    await other.sweep()  # another instance takes it over once the lease ran out
    assert [m.text for m in fake.dm(player)[before:]] == ["one", "two"]


async def test_an_edit_whose_answer_was_lost_is_made_again_at_once_and_a_send_is_not(
    fake: FakeBotApi, bot: Bot
) -> None:
    """Telegram carried the edit out but its answer never came: the same edit again says "not
    modified", so the message is in the state delivery records (a later plan could otherwise
    take it back). A send is not made again: it would show a second message."""
    clock = FakeClock()
    fake.world.clock = lambda: clock.now().timestamp()
    fake.add_user(5, "P5", started=True)
    calls = Calls(bot)
    first = await bot.send_message(5, "before")
    fake.drop_answers("editMessageText", 5, 1)
    assert await calls.edit(5, first.message_id, Rendered("after", None))
    edits = [c.status for c in fake.calls("editMessageText")]
    assert edits == [0, 400]  # lost, then "message is not modified"
    assert [m.text for m in fake.dm(5)] == ["after"]
    fake.drop_answers("sendMessage", 5, 1)
    clock.advance(2)  # Telegram's pace for the chat
    notice = Notice(NoticeKind.ANSWER, 5, AnswerNote("hello"))
    with pytest.raises(Unreachable) as unsure:
        await calls.send(notice, Rendered("hello", None))
    assert unsure.value.maybe_sent
    assert [m.text for m in fake.dm(5)] == ["after", "hello"]  # shown once
    assert fake.call_count("sendMessage") == 2


async def test_a_group_message_with_keys_shown_before_a_crash_loses_them_when_shown_again(
    fake: FakeBotApi, bot: Bot
) -> None:
    """A group's table (its My card key) sent just before the process died, its mark lost:
    the next life shows it again and the copy loses its keys, so one message offers them."""
    table = Table(fake, bot, players=3, rate=1000)
    await table.start()
    tables = [n for n in table.world.outbox.values() if n.kind is NoticeKind.TABLE]
    shown = [m.message_id for m in fake.messages(GROUP) if m.callback_datas]
    assert len(shown) == 1
    _forget(table, tables[-1].id)
    table.clock.advance(1)  # the next life starts a moment later
    courier = _restarted(table, bot)
    await courier.sweep()
    await courier.drain()
    keyed = [m.message_id for m in fake.messages(GROUP) if m.callback_datas]
    assert len(keyed) == 1 and keyed != shown, fake.transcript(GROUP)


class RenewingCalls(Calls):
    """Sends that take 1.5 s of the clock each, the instance's renewer running meanwhile."""

    def __init__(self, bot: Bot, clock: FakeClock, courier: Courier) -> None:
        super().__init__(bot)
        self.clock = clock
        self.courier = courier

    async def send(self, notice: Notice, rendered: Rendered) -> int:
        sent = await super().send(notice, rendered)
        self.clock.advance(1.5)
        await self.courier.renew()
        return sent


async def test_a_long_paced_lane_whose_claims_are_renewed_shows_every_notice(
    fake: FakeBotApi, bot: Bot
) -> None:
    """A private lane waiting for its pace marks what it showed first; those notices are done
    (their claims no longer renewed), and must not stop the fence for the rest."""
    table = Table(fake, bot, players=3, rate=1000)
    game_id = await table.start()
    game = table.world.games[game_id]
    player = table.people[1].id
    budget = GroupBudget(1000, clock=lambda: table.clock.now().timestamp())
    courier = Courier(table.deps, bot, Renderer(Translator()), budget, PrivatePacer(0.3))
    courier.tools.calls = RenewingCalls(bot, table.clock, courier)
    texts = ("one", "two", "three", "four", "five", "six")
    answers = [Notice(NoticeKind.ANSWER, player, AnswerNote(text), game_id) for text in texts]
    table.clock.advance(5)
    async with table.deps.uow() as uow:
        batch = await outbox.write(uow, game, answers)
        await uow.commit()
    before = len(fake.dm(player))
    await courier.deliver(batch)
    assert [m.text for m in fake.dm(player)[before:]] == list(texts)
    assert all(n.id in table.world.sent for n in answers)


async def test_a_lobby_another_instance_marked_as_a_batch_read_is_edited_not_shown_again(
    fake: FakeBotApi, bot: Bot
) -> None:
    """A mark is stamped before it commits. One instance shows the lobby and stamps its mark;
    another reads the game's messages for a join just after that moment but before the mark
    commits, so it finds no lobby message, and the lobby's notice is no longer held when it
    asks who is showing what. The lobby is read again and edited, not sent a second time
    (which left the first copy, its Join key still live, under a second lobby)."""
    table = Table(fake, bot, players=3, rate=20)
    other = Deps(
        uow=FakeUnitOfWorkFactory(table.world, table.clock, instance="other"),
        rng=random.Random(1),
        clock=table.clock,
        turn_timeout=60,
    )
    budget = GroupBudget(20, clock=lambda: table.clock.now().timestamp())
    elsewhere = Courier(other, bot, Renderer(Translator()), budget, PrivatePacer(0))
    game_id, opening = await _open_lobby(other, table)
    await elsewhere.deliver(opening)  # shown, and its mark stamped now
    (shown,) = [m for m in fake.messages(GROUP) if m.from_bot]
    lobbies = await _join_read_before_the_mark(table, game_id, shown.message_id)
    assert [m.message_id for m in lobbies] == [shown.message_id], fake.transcript(GROUP)
    assert "P2" in (lobbies[0].text or "")


async def test_what_a_lane_showed_is_remembered_when_its_mark_fails(
    fake: FakeBotApi, bot: Bot, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The store tells a batch only what other processes showed since its read: this one
    remembers what it showed itself, a lane whose mark failed too (the batch's settling marks
    it later). A join read before that mark committed edits the lobby, not sends another."""
    table = Table(fake, bot, players=3, rate=20)

    async def refused(self: Marks, tools: object) -> None:
        raise RuntimeError("deadlock detected")

    monkeypatch.setattr(Marks, "lane_done", refused)
    game_id, opening = await _open_lobby(table.deps, table)
    await table.courier.deliver(opening)
    monkeypatch.undo()
    (shown,) = [m for m in fake.messages(GROUP) if m.from_bot]
    remembered = table.courier.chats.recall(GROUP, Known(Batch([])))
    lobby_shown = remembered.newest_kind(opening.notices[0], NoticeKind.LOBBY)
    assert lobby_shown is not None and lobby_shown.message_id == shown.message_id
    lobbies = await _join_read_before_the_mark(table, game_id, shown.message_id)
    assert [m.message_id for m in lobbies] == [shown.message_id], fake.transcript(GROUP)


async def _open_lobby(deps: Deps, table: Table) -> tuple[int, Batch]:
    """A lobby opened (by the instance of ``deps``): its game and the batch that shows it."""
    chat = Chat(id=GROUP, title="Club", rules=HouseRules(max_players=20))
    opened = await lobby.open_lobby(deps, chat, table.people[0], thread_id=None)
    assert opened.game_id is not None and opened.batch is not None
    return opened.game_id, opened.batch


async def _join_read_before_the_mark(
    table: Table, game_id: int, lobby_message: int
) -> list[StoredMessage]:
    """A join whose read came before the lobby's mark committed, so it did not see the
    lobby's message, delivered by ``table``'s courier: the bot's messages in the group after."""
    table.clock.advance(0.2)
    joined = await lobby.join(table.deps, game_id, table.people[1])
    assert joined.batch is not None
    joined.batch.sent = [s for s in joined.batch.sent if s.message_id != lobby_message]
    await table.courier.deliver(joined.batch)
    return [m for m in table.fake.messages(GROUP) if m.from_bot]


@pytest.mark.parametrize("quiet", [False, True])
async def test_calls_send_what_ptbs_methods_send(fake: FakeBotApi, quiet: bool) -> None:
    """The courier's sends and edits skip PTB's parsing of Telegram's answer (``Calls._post``),
    not any of what PTB's ``send_message`` and ``edit_message_text`` put in the call: the
    bot's defaults (HTML, no link preview), the keys, the thread, the sound, the effect, the
    reply. Each is made both ways; Telegram receives the same parameters."""
    clock = FakeClock()
    fake.world.clock = lambda: clock.now().timestamp()
    async with ExtBot(TOKEN, base_url=fake.base_url, defaults=DEFAULTS) as client:
        calls = Calls(client)
        keys = InlineKeyboardMarkup([[InlineKeyboardButton("Keep", callback_data="k")]])
        rendered = Rendered("<b>7♠</b> https://example.org", keys, quiet=quiet, effect=None)
        notice = Notice(NoticeKind.ANSWER, 5, AnswerNote("x"))
        first = await client.send_message(
            5, rendered.text, reply_markup=keys, disable_notification=quiet
        )
        clock.advance(2)  # Telegram's pace for a private chat
        second = await calls.send(notice, rendered)
        assert second == first.message_id + 1
        group = Notice(NoticeKind.ANSWER, GROUP, AnswerNote("x"), thread_id=None)
        replying = replace(rendered, reply_to=first.message_id)
        await client.send_message(
            GROUP,
            rendered.text,
            reply_markup=keys,
            disable_notification=quiet,
            reply_parameters=ReplyParameters(first.message_id, allow_sending_without_reply=True),
        )
        clock.advance(2)
        await calls.send(group, replying)
        await client.edit_message_text("<i>after</i>", 5, second, reply_markup=keys)
        clock.advance(2)
        assert await calls.edit(5, second, Rendered("<i>again</i>", keys))
    sends = [c.params for c in fake.calls("sendMessage")]
    assert sends[0] == sends[1] and sends[2] == sends[3], sends
    assert sends[0]["parse_mode"] == "HTML" and sends[0]["link_preview_options"]
    edits = [dict(c.params, text=None) for c in fake.calls("editMessageText")]
    assert edits[0] == edits[1], edits
    assert [m.text for m in fake.dm(5)][-1] == "again"
