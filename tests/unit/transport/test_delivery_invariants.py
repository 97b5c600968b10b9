"""Delivery's rules, checked over random interleavings (issue 27's property test).

Several instances deliver one game to the fake Bot API over real HTTP, sharing one store.
Hypothesis interleaves presses handled by any instance (delivered in the background or
awaited), moments of real time in which those deliveries run, the sweeps and clocks each
instance runs, answers Telegram never sends back (the call was carried out), instances killed
as by SIGKILL (their store connection dies with them, their calls in flight are cut) and
either restarted under their name or replaced by a new one. After each step:

(d) what anyone sees never goes back to an older state: no message shows again a version it
    had left (the fake keeps every message's earlier versions);

and once every instance alive has swept and the store holds nothing undelivered and no chat in
doubt (``settle``):

(a) the live turn's prompt shows its keys, in the actor's chat, for that turn;
(b) no other message of the game shows move keys;
(c) a message shown twice (a lost answer, a crash) shows its keys once: no two messages in a
    chat show the same keys.
"""

from __future__ import annotations

import asyncio
import contextlib
import random
from collections.abc import Callable, Coroutine
from functools import partial
from typing import Any

import pytest
from hypothesis import HealthCheck, Phase, settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, invariant, precondition, rule
from telegram.constants import ParseMode
from telegram.ext import Defaults, ExtBot

from cuckoo_bot.app import lobby, outbox, play, sweep
from cuckoo_bot.app.deps import Deps
from cuckoo_bot.app.model import Chat, GameStatus, Player
from cuckoo_bot.domain.engine import legal_actions
from cuckoo_bot.domain.rules import HouseRules
from cuckoo_bot.i18n.translator import Translator
from cuckoo_bot.transport.delivery import Courier
from cuckoo_bot.transport.pacing import GroupBudget, PrivatePacer
from cuckoo_bot.transport.render import Renderer
from fakebotapi import FakeBotApi
from tests.support.driver import TableDriver
from tests.unit.app.fakes import FailingStore, FakeClock, StoreDown, World

TOKEN = "781:delivery-rules-token-0123456789ab"
GROUP = -100781
PEOPLE = (1, 2, 3)
NAMES = ("a", "b", "c")


def _sent_id(call: Any) -> str:
    result = call.result if isinstance(call.result, dict) else {}
    return f"(#{result.get('message_id', '?')})"


class Instance:
    """One bot process: its store connection and its courier."""

    def __init__(self, machine: DeliveryMachine, name: str) -> None:
        self.name = name
        self.store = FailingStore(machine.world, machine.clock, instance=name)
        self.deps = Deps(uow=self.store, rng=machine.rng, clock=machine.clock, turn_timeout=60)
        budget = GroupBudget(1000, clock=lambda: machine.clock.now().timestamp())
        self.courier = Courier(
            self.deps, machine.bot, Renderer(Translator()), budget, PrivatePacer(0)
        )

    async def start(self) -> None:
        """As ``post_init``: this name's unfinished claims are its own again; then a sweep."""
        await outbox.take_back(self.deps, everyone=False)
        self.courier.schedule(None)

    def kill(self) -> None:
        """SIGKILL: the store connection dies first (nothing more is written), then every
        delivery under way stops where it stands, its calls in flight cut."""
        self.store.down = True
        self.store.flow()  # what waited for the store fails now
        self.courier.kill()


class DeliveryMachine(RuleBasedStateMachine):
    keyed_chats: tuple[int, ...] = (*PEOPLE, GROUP)  # where (c) is checked

    def __init__(self) -> None:
        super().__init__()
        self.loop = asyncio.new_event_loop()
        self.clock = FakeClock()
        self.world = World()
        self.rng = random.Random(0)
        self.fake = FakeBotApi(token=TOKEN)
        self.run(self.fake.__aenter__())
        self.fake.world.clock = lambda: self.clock.now().timestamp()
        for user in PEOPLE:
            self.fake.add_user(user, f"P{user}", started=True)
        self.fake.add_group(GROUP, "Club", type="supergroup", members=list(PEOPLE), admins=[1])
        self.driver = TableDriver(self.fake, GROUP)
        self.bot = ExtBot(
            TOKEN, base_url=self.fake.base_url, defaults=Defaults(parse_mode=ParseMode.HTML)
        )
        self.run(self.bot.initialize())
        self.lives = 0
        self.instances: dict[str, Instance] = {}
        self.dead: list[Instance] = []
        self.pressing: set[asyncio.Task[None]] = set()  # presses an instance lagging handles
        for name in NAMES[:2]:
            self.instances[name] = Instance(self, name)
        self.game_id = self.run(self.open_game())

    def run(self, work: Coroutine[Any, Any, Any]) -> Any:
        return self.loop.run_until_complete(work)

    def teardown(self) -> None:
        try:
            for instance in [*self.instances.values(), *self.dead]:
                instance.kill()
            self.run(asyncio.sleep(0.01))
            self.run(self.bot.shutdown())
            self.run(self.fake.__aexit__(None, None, None))
        finally:
            self.loop.close()

    async def open_game(self) -> int:
        first = self.instances[NAMES[0]]
        people = [Player(id=i, first_name=f"P{i}", can_dm=True) for i in PEOPLE]
        chat = Chat(id=GROUP, title="Club", rules=HouseRules(max_players=10))
        opened = await lobby.open_lobby(first.deps, chat, people[0], thread_id=None)
        assert opened.game_id is not None and opened.batch is not None
        await first.courier.deliver(opened.batch)
        for person in people[1:]:
            joined = await lobby.join(first.deps, opened.game_id, person)
            assert joined.batch is not None
            await first.courier.deliver(joined.batch)
        started = await lobby.start(first.deps, GROUP, people[0], is_admin=False)
        assert started.batch is not None
        await first.courier.deliver(started.batch)
        return opened.game_id

    # -- what the world does -------------------------------------------------------------

    def running(self) -> bool:
        return self.world.games[self.game_id].status is GameStatus.RUNNING

    @precondition(lambda self: self.running())
    @rule(name=st.sampled_from(NAMES), move=st.integers(0, 1), wait=st.booleans())
    def press(self, name: str, move: int, wait: bool) -> None:
        """The actor presses a key; the instance ``name`` handles it (if it lives)."""
        instance = self.instances.get(name)
        if instance is None:
            return
        state = self.world.games[self.game_id].state
        assert state is not None and state.actor is not None
        actions = legal_actions(state)
        action = actions[min(move, len(actions) - 1)]
        kind = type(action).__name__.lower()

        async def press() -> None:
            outcome = await play.act(instance.deps, self.game_id, state.actor, kind, state.turn)
            if outcome.batch is None:
                return
            if wait:
                await instance.courier.deliver(outcome.batch)
            else:
                instance.courier.post(outcome.batch)

        if instance.store.flowing.is_set():
            self.run(press())
        else:  # its store lags: the press is handled when it catches up
            task = self.loop.create_task(press())
            self.pressing.add(task)
            task.add_done_callback(self.pressing.discard)

    @rule(ms=st.sampled_from([0, 1, 5, 20, 60]))
    def moment(self, ms: int) -> None:
        """Real time passes: deliveries in the background get on."""
        self.run(asyncio.sleep(ms / 1000))

    @rule(name=st.sampled_from(NAMES), seconds=st.sampled_from([1, 2, 4, 7]))
    def time_passes(self, name: str, seconds: int) -> None:
        """The clock moves on; the instance ``name`` runs its sweeper (turns that ran out,
        then what the outbox holds)."""
        self.run(self.advance(seconds))
        instance = self.instances.get(name)
        if instance is not None and instance.store.flowing.is_set():
            self.run(self.sweep(instance))

    @rule(
        method=st.sampled_from(["sendMessage", "editMessageText", "editMessageReplyMarkup"]),
        chat=st.sampled_from([*PEOPLE, GROUP]),
    )
    def lose_answer(self, method: str, chat: int) -> None:
        """Telegram carries out the next such call but its answer never comes back."""
        self.fake.drop_answers(method, chat, 1)

    @rule(name=st.sampled_from(NAMES), same_name=st.booleans())
    def kill(self, name: str, same_name: bool) -> None:
        """The instance dies; a new one starts: a new life under its name, or another name
        (its claims then wait for their lease to run out)."""
        instance = self.instances.pop(name, None)
        if instance is None:
            return
        instance.kill()
        self.dead.append(instance)
        if same_name:
            reborn = Instance(self, name)
        else:
            self.lives += 1
            reborn = Instance(self, f"{name}{self.lives}")
        self.instances[name] = reborn
        self.run(reborn.start())

    # -- the rules -----------------------------------------------------------------------

    async def advance(self, seconds: int) -> None:
        """The clock moves on; every instance alive renews its claims every 2 s meanwhile (as
        its renewer does), so only a dead instance's claims run out."""
        for _ in range(seconds // 2):
            self.clock.advance(2)
            await self.renew()
        self.clock.advance(seconds % 2)
        await self.renew()

    async def renew(self) -> None:
        for instance in list(self.instances.values()):
            if not instance.store.flowing.is_set():
                continue  # a lagging instance renews late: its claims may run out
            with contextlib.suppress(StoreDown):
                await instance.courier.renew()

    async def sweep(self, instance: Instance) -> None:
        try:
            found = await sweep.look(instance.deps)  # as ``Upkeep.sweep`` reads and acts
            for game_id, _ in found.due:
                outcome = await play.expire(instance.deps, game_id)
                if outcome.batch:
                    await instance.courier.deliver(outcome.batch)
            if found.due:
                found = await sweep.look(instance.deps)
            await instance.courier.sweep(look=found)
        except StoreDown:
            pass

    async def settle_all(self) -> None:
        """Every instance alive sweeps, leases run out, until nothing is left undelivered."""
        for instance in self.instances.values():
            instance.store.flow()
        await asyncio.gather(*list(self.pressing), return_exceptions=True)
        for _ in range(40):
            await asyncio.sleep(0.01)
            for instance in list(self.instances.values()):
                await instance.courier.drain(within=5)
                instance.courier.reopen()
            await self.advance(7)  # past any lease of an instance that died
            for instance in list(self.instances.values()):
                await instance.courier.sweep()
            pending = [i for i in self.world.outbox if i not in self.world.sent]
            busy = any(i.courier.busy for i in self.instances.values())
            if not pending and not busy and not self.world.doubts():
                return
        raise AssertionError(f"left undelivered: {pending}; in doubt: {self.world.doubts()}")

    @rule()
    def settle(self) -> None:
        self.run(self.settle_all())
        self.check_keys()

    def check_keys(self) -> None:
        game = self.world.games[self.game_id]
        prompts = self.driver.prompts()
        shown = [(p.actor, p.order, p.message.chat_id, p.message.message_id) for p in prompts]
        if game.status is GameStatus.RUNNING:
            state = game.state
            assert state is not None
            # (a) the live turn's prompt shows its keys; (b) nothing else shows move keys.
            assert [(p.actor, p.order) for p in prompts] == [
                (state.actor, (self.game_id, state.turn))
            ], f"{shown}\n{self.transcripts()}"
        else:
            assert prompts == [], f"{shown}\n{self.transcripts()}"
        # (c) no two messages of a chat show the same keys.
        for chat in self.keyed_chats:
            keyed = [
                tuple(m.callback_datas)
                for m in self.fake.messages(chat, include_deleted=False)
                if m.from_bot and m.callback_datas
            ]
            assert len(keyed) == len(set(keyed)), f"{chat}\n{self.transcripts()}"
        # The store knows what the chats show: a message the store says has keys has them.
        for row in self.world.messages.values():
            if row.message_id is None or not row.keys:
                continue
            (message,) = [
                m for m in self.fake.messages(row.chat_id) if m.message_id == row.message_id
            ]
            assert message.callback_datas, f"{row}\n{self.transcripts()}"

    def transcripts(self) -> str:
        """Each chat as people read it, and the calls that named it."""
        chats = []
        for chat in [GROUP, *PEOPLE]:
            calls = [
                f"{c.method} {c.params.get('message_id') or _sent_id(c)}: {c.status}"
                for c in self.fake.calls()
                if str(c.params.get("chat_id")) == str(chat)
            ]
            notices = [
                f"{i} {n.kind.value} t{getattr(n.payload, 'turn', '')}"
                f" m{self.world.shows(i)[0]}"
                f"{' keys' if self.world.shows(i)[1] else ''}"
                f"{'' if i in self.world.sent else ' UNSENT'} {self.world.errors.get(i, '')}"
                for i, n in sorted(self.world.outbox.items())
                if n.chat_id == chat
            ]
            chats.append(
                f"== {chat}\n{self.fake.transcript(chat)}\n-- calls: {calls}\n-- notices: {notices}"
            )
        return "\n\n".join(chats)

    def check_never_back(self) -> None:
        """(d) No message shows again a version it had left."""
        for chat in [*PEOPLE, GROUP]:
            for message in self.fake.messages(chat):
                versions = [(v.text, repr(v.reply_markup)) for v in message.history]
                versions.append((message.text, repr(message.reply_markup)))
                for i in range(2, len(versions)):
                    left = versions[: i - 1]
                    assert versions[i] == versions[i - 1] or versions[i] not in left, (
                        chat,
                        message.message_id,
                        versions,
                    )

    @invariant()
    def never_back(self) -> None:
        self.check_never_back()


DeliveryMachine.TestCase.settings = settings(
    max_examples=30,
    stateful_step_count=40,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
    # Real HTTP and background deliveries: a step's interleaving is not replayed exactly, so
    # a failure is reported as found, with its steps, not shrunk.
    phases=[Phase.explicit, Phase.generate],
    database=None,
)


def test_delivery_keeps_its_rules_over_random_interleavings() -> None:
    """(a)-(d) after every step, across presses, sweeps, lost answers and killed instances."""
    DeliveryMachine.TestCase().runTest()


def test_a_table_a_killed_instance_showed_and_a_newer_view_passed_over_loses_its_keys() -> None:
    """Found by the machine above: an instance shows a round's table (My card) and is killed
    before its mark; the next one passes that view over for a newer one, which it sends as a
    new message. The copy above the known messages lost no keys: two tables of the round
    offered My card. Now a notice passed over that another process may have shown makes the
    next message sent look below itself. (Timing-dependent: before, it failed 6 to 10 runs in
    10 on a loaded machine, 1 in 3 on a quieter one.)"""
    machine = DeliveryMachine()
    steps: list[Callable[[], object]] = [
        machine.settle,
        partial(machine.kill, name="a", same_name=True),
        partial(machine.press, move=1, name="b", wait=False),
        partial(machine.lose_answer, chat=GROUP, method="editMessageReplyMarkup"),
        partial(machine.press, move=0, name="a", wait=False),
        machine.settle,
        partial(machine.press, move=1, name="a", wait=False),
        partial(machine.moment, ms=20),
        partial(machine.lose_answer, chat=GROUP, method="editMessageReplyMarkup"),
        partial(machine.kill, name="a", same_name=False),
        partial(machine.press, move=0, name="b", wait=True),
        partial(machine.press, move=0, name="c", wait=True),
        partial(machine.kill, name="a", same_name=False),
        machine.settle,
    ]
    try:
        machine.never_back()
        for step in steps:
            step()
            machine.never_back()
    finally:
        machine.teardown()


class LaggingDeliveryMachine(DeliveryMachine):
    """Besides: an instance's connection to the store lags past its lease, while it goes on
    showing what it holds."""

    @rule(name=st.sampled_from(NAMES), slow=st.booleans())
    def lag(self, name: str, slow: bool) -> None:
        """The instance's connection to the store lags (what it reads and marks reaches the
        store after what others did since; its claims are not renewed meanwhile), or catches
        up."""
        instance = self.instances.get(name)
        if instance is not None:
            instance.store.slow() if slow else instance.store.flow()


LaggingDeliveryMachine.TestCase.settings = DeliveryMachine.TestCase.settings


@pytest.mark.slow
def test_delivery_keeps_its_rules_when_a_store_connection_lags_past_its_lease() -> None:
    LaggingDeliveryMachine.TestCase().runTest()
