"""The outbox: notices come out oldest first, each held by one instance at a time under a
lease it renews; a stopping instance hands them back, a new life takes its own back; a failed
try waits for its retry; marks record what was shown, where, and with keys; old sent notices
nothing edits are pruned."""

from __future__ import annotations

import random
from datetime import UTC, datetime, timedelta
from itertools import permutations

from cuckoo_bot.app import outbox, shown
from cuckoo_bot.app.deps import Deps
from cuckoo_bot.app.model import Game, GameStatus
from cuckoo_bot.app.notices import (
    Announcement,
    CloseNote,
    CloseReason,
    DealNote,
    Delivered,
    Elsewhere,
    GameOverView,
    LobbyView,
    Notice,
    NoticeKind,
    PlayedNote,
    PromptNote,
    TableView,
)
from cuckoo_bot.app.ports import UnitOfWorkFactory
from cuckoo_bot.app.tuning import LEASE, MAX_TRIES, RETENTION
from cuckoo_bot.domain.cards import Card
from tests.contract.conftest import Store
from tests.contract.steps import add, mark, note
from tests.databases import StepClock
from tests.integration.builders import CHAT_ID, PLAYERS, lobby, seed, start

ACE = Card.from_code("AS")
ANN, BEA = PLAYERS[0].id, PLAYERS[1].id


async def _claim(
    factory: UnitOfWorkFactory, chat_id: int | None = None, limit: int = 100
) -> list[int]:
    async with factory() as uow:
        found = await uow.outbox.claim(chat_id, limit)
        await uow.commit()
    return [n.id for n in found]


async def test_outbox_pending_oldest_first_until_marked_and_the_messages_to_edit(
    uow_factory: UnitOfWorkFactory, clock: StepClock
) -> None:
    async with uow_factory() as uow:
        await seed(uow)
        first = await uow.games.add(lobby(status=GameStatus.FINISHED))
        second = await uow.games.add(lobby())
        player = PLAYERS[0].id
        notices = [
            Notice(
                NoticeKind.LOBBY,
                CHAT_ID,
                LobbyView(GameStatus.LOBBY, (1, 2)),
                first.id,
                thread_id=77,
            ),
            Notice(NoticeKind.DEAL, player, DealNote(1, ACE, 2, 1, 3), second.id),
            Notice(NoticeKind.ANNOUNCE, CHAT_ID, Announcement("Misdealt", {"round": 1})),
            Notice(NoticeKind.TABLE, CHAT_ID, TableView(1, 2, (1, 2), (3, 3)), first.id),
            Notice(
                NoticeKind.PROMPT, player, PromptNote(1, 4, ACE, 3, ("keep", "swap"), 2), second.id
            ),
        ]
        await uow.outbox.add_many(notices)
        await uow.commit()
    ids = [n.id for n in notices]
    assert ids == sorted(ids) and len(set(ids)) == 5
    assert all(n.created_at == clock.now() for n in notices)
    async with uow_factory() as uow:
        assert await uow.outbox.claim() == notices  # typed payloads round-trip
        assert await uow.outbox.claim(limit=2) == notices[:2]
        assert await uow.outbox.claim(chat_id=player) == [notices[1], notices[4]]
        assert await uow.outbox.backlog() == 5
    await mark(
        uow_factory,
        Delivered(ids[0], message_id=501, live_keys=True),
        Delivered(ids[2], error="Forbidden: bot was blocked by the user"),
        Delivered(ids[1], message_id=7),
        Delivered(ids[4], message_id=8, live_keys=True),
    )
    async with uow_factory() as uow:
        assert await uow.outbox.claim() == [notices[3]]
        assert await uow.outbox.backlog() == 1
        sent = await uow.messages.sent(second.id)
        # The prompt still has keys, and it is the newest message in the player's chat.
        assert [(s.notice.id, s.message_id, s.live_keys, s.newest) for s in sent] == [
            (ids[4], 8, True, 8)
        ]
        # A later edit of the same message takes its keys off (the row stays sent).
        await uow.outbox.mark([Delivered(ids[4], 8, False, tries=0)])
        await uow.commit()
    async with uow_factory() as uow:
        assert await uow.messages.sent(second.id) == []
        (lobby_message,) = await uow.messages.sent(first.id)
        assert lobby_message.message_id == 501 and lobby_message.notice == notices[0]
        assert await uow.outbox.claim() == [notices[3]]


async def test_claims_come_oldest_first_across_chats_and_by_chat_on_request(
    uow_factory: UnitOfWorkFactory,
) -> None:
    async with uow_factory() as uow:
        await seed(uow)
        await uow.commit()
    # Two chats' notices interleaved: every chat's come in the order they were made.
    a1, b1, a2, b2, a3 = await add(
        uow_factory,
        [note("a1"), note("b1", chat_id=ANN), note("a2"), note("b2", chat_id=ANN), note("a3")],
    )
    assert await _claim(uow_factory) == [a1, b1, a2, b2, a3]
    assert await _claim(uow_factory, limit=3) == [a1, b1, a2]
    assert await _claim(uow_factory, chat_id=CHAT_ID) == [a1, a2, a3]
    assert await _claim(uow_factory, chat_id=ANN, limit=1) == [b1]
    assert await _claim(uow_factory, chat_id=BEA) == []
    async with uow_factory() as uow:
        await uow.outbox.add_many([])  # nothing to add is fine
        assert await uow.outbox.backlog() == 5


async def test_a_notice_is_held_by_the_instance_that_made_it_until_its_lease_runs_out(
    store: Store, clock: StepClock
) -> None:
    one, two = store.instance("one"), store.instance("two")
    async with one() as uow:
        await seed(uow)
        made = [note("a"), note("b")]
        await uow.outbox.add_many(made)
        await uow.commit()
    assert await _claim(two) == []  # "one" is delivering them
    assert await _claim(one) == [n.id for n in made]  # still its own
    # "one" renews what it still has in hand; the other lease runs out (the instance died).
    clock.advance(seconds=LEASE.total_seconds() - 1)
    async with one(autocommit=True) as uow:
        await uow.outbox.renew([made[0].id])
        await uow.commit()
    clock.advance(seconds=2)
    assert await _claim(two) == [made[1].id]
    assert await _claim(one) == [made[0].id]
    # Each now holds one under a running lease: neither takes the other's.
    assert await _claim(two) == [made[1].id]


async def test_when_a_private_chat_was_last_sent_a_message_by_any_instance(
    store: Store, clock: StepClock
) -> None:
    """Telegram takes about one message a second in a private chat, whichever instance sends
    it: a batch learns when each of its private chats was last sent one (not an edit of a
    prompt, not a group's message), if within the pace."""
    one, two = store.instance("one"), store.instance("two")
    async with one() as uow:
        await seed(uow)
        await uow.commit()
    deal = Notice(NoticeKind.DEAL, ANN, DealNote(1, Card.from_code("7H"), 1, 2, 3))
    played = Notice(NoticeKind.PLAYED, BEA, PlayedNote(1, 1, "done_keep"))
    dealt, answered, told = await add(one, [deal, played, note("a")])
    await mark(one, Delivered(answered, 7), Delivered(told, 8))
    clock.advance(seconds=1)
    await mark(one, Delivered(dealt, 5))
    sent_at = clock.now()
    clock.advance(seconds=0.5)
    chats: dict[int, int | None] = {ANN: None, BEA: None, CHAT_ID: None}

    async def sent(
        by: UnitOfWorkFactory, within: float, chats: dict[int, int | None] = chats
    ) -> dict[int, datetime]:
        async with by(read_only=True) as uow:
            paced_since = clock.now() - timedelta(seconds=within)
            return dict((await uow.outbox.elsewhere(chats, paced_since=paced_since)).sent)

    assert await sent(two, 1.0) == {ANN: sent_at}  # the edit and the group's are not paced
    assert await sent(one, 1.0) == {ANN: sent_at}  # its own count too
    assert await sent(two, 0.4) == {}  # longer ago than the pace
    assert await sent(two, 1.0, {ANN: dealt}) == {}  # only notices before the batch's
    assert await sent(two, 1.0, {BEA: None}) == {}  # only the chats asked about
    async with two(read_only=True) as uow:
        assert (await uow.outbox.elsewhere(chats)).sent == {}  # not asked


async def test_where_another_instance_is_showing_something_or_showed_it_since_a_read(
    store: Store, clock: StepClock
) -> None:
    one, two = store.instance("one"), store.instance("two")
    async with one() as uow:
        await seed(uow)
        await uow.commit()
    older, newer = await add(one, [note("a"), note("b", chat_id=ANN)])
    (theirs,) = await add(two, [note("c")])  # "two" holds one in the group too

    async def held(by: UnitOfWorkFactory, before: int | None = None) -> frozenset[int]:
        async with by(read_only=True) as uow:
            found = await uow.outbox.elsewhere({CHAT_ID: before, ANN: before, BEA: None})
            return found.held

    assert await held(two) == {CHAT_ID, ANN}  # "one" holds a notice in each
    assert await held(two, before=newer) == {CHAT_ID}  # only the older one counts then
    assert await held(two, before=older) == frozenset()
    assert await held(one) == {CHAT_ID}  # its own are not "elsewhere"
    read = clock.now()
    clock.advance(seconds=1)
    await mark(one, Delivered(older, 5))
    assert await held(two) == {ANN}  # shown: no longer in hand
    async with two(read_only=True) as uow:  # and shown since a batch read the chats
        found = await uow.outbox.elsewhere({CHAT_ID: None, ANN: None}, since=read)
        assert (found.held, found.told_since) == ({ANN}, {CHAT_ID})
        found = await uow.outbox.elsewhere({CHAT_ID: older, ANN: None}, since=read)
        assert (found.held, found.told_since) == ({ANN}, frozenset())  # not older than the batch's
        found = await uow.outbox.elsewhere({CHAT_ID: None}, since=clock.now())
        assert found.told_since == {CHAT_ID}  # at that very moment counts
    async with one(read_only=True) as uow:  # what an instance showed, it remembers itself
        found = await uow.outbox.elsewhere({CHAT_ID: None, ANN: None}, since=read)
        assert found.told_since == frozenset()
    async with two(read_only=True) as uow:
        found = await uow.outbox.elsewhere(
            {CHAT_ID: None}, since=clock.now() + timedelta(seconds=1)
        )
        assert found.told_since == frozenset()  # not since then
    clock.advance(seconds=LEASE.total_seconds())
    assert await held(two) == frozenset()  # "one" died: its lease ran out
    assert await held(one) == frozenset()  # and "two"'s too
    async with two(read_only=True) as uow:  # left for anyone: a batch takes them first
        found = await uow.outbox.elsewhere({CHAT_ID: None, ANN: None, BEA: None})
        assert (found.held, found.left) == (frozenset(), {ANN})  # its own "c" waits for it
    async with one(read_only=True) as uow:
        found = await uow.outbox.elsewhere({CHAT_ID: None, ANN: None})
        assert found.left == {CHAT_ID}
        found = await uow.outbox.elsewhere({CHAT_ID: theirs})
        assert found.left == frozenset()  # only notices older than the batch's
    await mark(two, Delivered(newer, retry_at=clock.now() + timedelta(seconds=30)))
    async with two(read_only=True) as uow:  # a failed try waits for its retry: not left
        assert (await uow.outbox.elsewhere({ANN: None})).left == frozenset()
    clock.advance(seconds=30)
    async with two(read_only=True) as uow:  # its retry is due: anyone's
        assert (await uow.outbox.elsewhere({ANN: None})).left == {ANN}


async def test_an_instance_is_told_what_other_processes_showed_since_its_read_not_its_own(
    store: Store, clock: StepClock
) -> None:
    """A batch reads its chats' messages again where another process showed something since
    its read: another instance, or this instance's previous life (a mark in its name made
    before this life was born, committed late). What this life showed itself it remembers;
    its own message in a private chat still keeps that chat's pace."""
    one, two = store.instance("one"), store.instance("two")
    async with one() as uow:
        await seed(uow)
        await uow.commit()
    (dealt,) = await add(one, [note("a", chat_id=ANN)])
    read = clock.now()
    await mark(one, Delivered(dealt, 5))
    shown_at = clock.now()
    clock.advance(seconds=0.5)
    paced_since = clock.now() - timedelta(seconds=1)

    async def told(by: UnitOfWorkFactory, born: datetime | None = None) -> Elsewhere:
        async with by(read_only=True) as uow:
            return await uow.outbox.elsewhere({ANN: None}, read, paced_since, born)

    mine = await told(one, born=read - timedelta(seconds=60))
    assert (mine.told_since, dict(mine.sent)) == (frozenset(), {ANN: shown_at})
    assert (await told(two)).told_since == {ANN}
    reborn = await told(one, born=clock.now())  # a new life of "one": the mark is not its own
    assert reborn.told_since == {ANN}


async def test_a_chat_in_doubt_is_known_to_every_instance_until_its_doubt_is_settled(
    store: Store,
) -> None:
    one, two = store.instance("one"), store.instance("two")
    async with one() as uow:
        await uow.messages.doubt(ANN, 40)
        await uow.messages.doubt(ANN, 50)  # a later doubt: the oldest is kept
        await uow.messages.doubt(BEA, 45)
        await uow.commit()
    async with two() as uow:
        assert await uow.messages.doubts() == {ANN: 40, BEA: 45}
        for _ in range(3):  # doubted again at every try
            await uow.messages.doubt(BEA, 45)
        await uow.commit()
    async with two() as uow:  # not committed: only counts the rows
        far = datetime(2100, 1, 1, tzinfo=UTC)
        assert await uow.messages.prune(far) == 2  # one row a chat: its oldest doubt
    async with two() as uow:
        await uow.messages.doubt(ANN, 30)  # an older one replaces it
        await uow.commit()
    async with one() as uow:
        await uow.messages.settle_doubt(ANN, 40)  # cleared since 40: the doubt since 30 stays
        await uow.messages.settle_doubt(BEA, 45)
        await uow.commit()
    async with two() as uow:
        assert await uow.messages.doubts() == {ANN: 30}
        await uow.messages.settle_doubt(ANN, 30)
        await uow.commit()
    async with one(read_only=True) as uow:
        assert await uow.messages.doubts() == {}


async def test_a_running_game_whose_turn_nothing_asks_for_is_found(
    uow_factory: UnitOfWorkFactory, clock: StepClock
) -> None:
    async with uow_factory() as uow:
        await seed(uow, (CHAT_ID, CHAT_ID - 1, CHAT_ID - 2, CHAT_ID - 3))
        games = []
        for offset in range(3):
            game = lobby(chat_id=CHAT_ID - offset)
            start(game, clock.now())
            games.append(await uow.games.add(game))
        waiting = await uow.games.add(lobby(chat_id=CHAT_ID - 3))  # a lobby asks nothing
        await uow.commit()
    asked, shown, lost = games

    def prompt(game_id: int) -> Notice:
        return Notice(NoticeKind.PROMPT, ANN, PromptNote(1, 4, ACE, 3, ("keep",), 2), game_id)

    on_its_way, with_keys, without = prompt(asked.id), prompt(shown.id), prompt(lost.id)
    await add(uow_factory, [on_its_way, with_keys, without])
    await mark(uow_factory, Delivered(with_keys.id, 7, True), Delivered(without.id, 8, False))
    async with uow_factory(read_only=True) as uow:
        assert await uow.outbox.unprompted() == [lost.id]
        assert await uow.outbox.unprompted(lost.id) == [lost.id]
        assert await uow.outbox.unprompted(shown.id) == []
        assert waiting.id not in await uow.outbox.unprompted()
    await mark(uow_factory, Delivered(with_keys.id, 7, False))  # its keys came off
    async with uow_factory(read_only=True) as uow:
        assert await uow.outbox.unprompted() == [shown.id, lost.id]

    # The next turn's prompt: once it is shown and its keys come off (a copy, a lost edit),
    # the older prompt the store still thinks shows keys does not ask for the turn.
    older = prompt(lost.id)
    await add(uow_factory, [older])
    await mark(uow_factory, Delivered(older.id, 9, True))
    async with uow_factory(read_only=True) as uow:
        assert lost.id not in await uow.outbox.unprompted()
    (newer,) = await add(uow_factory, [prompt(lost.id)])  # the turn after
    async with uow_factory(read_only=True) as uow:
        assert lost.id not in await uow.outbox.unprompted()  # on its way
    await mark(uow_factory, Delivered(newer, 10, False))  # shown, its keys lost
    async with uow_factory(read_only=True) as uow:
        assert await uow.outbox.unprompted(lost.id) == [lost.id]


async def test_a_lease_runs_out_at_its_end_for_everyone(store: Store, clock: StepClock) -> None:
    one, two = store.instance("one"), store.instance("two")
    async with one() as uow:
        await seed(uow)
        await uow.commit()
    (made,) = await add(one, [note("a")])
    clock.advance(seconds=LEASE.total_seconds(), microseconds=-1)
    assert await _claim(two) == []
    clock.advance(microseconds=1)  # the very end of the lease: free, and "two" takes it
    assert await _claim(two) == [made]
    assert await _claim(one) == []


async def test_renewing_holds_only_what_the_instance_itself_holds(
    store: Store, clock: StepClock
) -> None:
    one, two = store.instance("one"), store.instance("two")
    async with one() as uow:
        await seed(uow)
        await uow.commit()
    mine, theirs = await add(one, [note("mine"), note("theirs")])
    clock.advance(seconds=LEASE.total_seconds() + 1)
    assert await _claim(two, limit=1) == [mine]  # "one" died; "two" takes the first
    async with one(autocommit=True) as uow:  # "one" was alive after all, and renews both
        # Only the second is still its own: "one" learns it lost the first.
        assert await uow.outbox.renew([mine, theirs]) == {theirs}
        await uow.commit()
    async with one(autocommit=True) as uow:
        assert await uow.outbox.renew([]) == set()  # nothing to renew is fine
        await uow.commit()
    three = store.instance("three")
    assert await _claim(three) == []  # "two" holds the first, "one" renewed the second
    assert await _claim(two) == [mine]
    assert await _claim(one) == [theirs]


async def test_a_failing_notice_waits_longer_each_time_and_is_given_up_without_blocking(
    uow_factory: UnitOfWorkFactory, clock: StepClock
) -> None:
    async with uow_factory() as uow:
        await seed(uow)
        bad, good = note("bad"), note("good")
        await uow.outbox.add_many([bad, good])
        await uow.commit()
    waits = []
    for tries in range(MAX_TRIES):
        async with uow_factory() as uow:
            claimed = await uow.outbox.claim()
            await uow.commit()
        assert claimed and claimed[0].id == bad.id
        assert claimed[0].attempts == tries  # the store counts the failed tries
        done = outbox.failed(claimed[0], "KeyError: 'x'", clock.now())
        await mark(uow_factory, done)
        if done.retry_at is None:
            assert done.error is not None and done.error.startswith(f"gave up after {MAX_TRIES}")
            break
        waits.append((done.retry_at - clock.now()).total_seconds())
        # Waiting for its next try: only the one behind it, until the retry is due.
        assert await _claim(uow_factory) == [good.id]
        clock.advance(seconds=waits[-1], microseconds=-1)
        assert await _claim(uow_factory) == [good.id]
        clock.advance(microseconds=1)
    assert waits == [2, 4, 8, 16, 32]
    assert await _claim(uow_factory) == [good.id]
    async with uow_factory() as uow:
        assert await uow.outbox.backlog() == 1


async def test_a_retry_is_free_for_any_instance_once_due(store: Store, clock: StepClock) -> None:
    one, two = store.instance("one"), store.instance("two")
    async with one() as uow:
        await seed(uow)
        await uow.commit()
    (failing,) = await add(one, [note("failing")])
    await mark(one, Delivered(failing, error="boom", retry_at=clock.now() + timedelta(seconds=4)))
    assert await _claim(one) == [] and await _claim(two) == []
    clock.advance(seconds=4)
    assert await _claim(two) == [failing]
    assert await _claim(one) == []  # "two" holds it now


async def test_a_new_life_of_an_instance_takes_its_own_claims_back_at_once(
    store: Store, clock: StepClock
) -> None:
    async with store.instance("host-a")() as uow:
        await seed(uow)
        made = [note("a"), note("b")]
        await uow.outbox.add_many(made)
        await uow.commit()
    # The process dies at once and starts again under the same name: no lease to wait for.
    again = Deps(uow=store.instance("host-a"), rng=random.Random(1), clock=clock)
    other = Deps(uow=store.instance("host-b"), rng=random.Random(1), clock=clock)
    assert await outbox.take_back(other, everyone=False) == 0  # not "host-b"'s
    assert (await outbox.claim(other)).notices == []
    assert await outbox.take_back(again, everyone=False) == 2
    assert [n.id for n in (await outbox.claim(again)).notices] == [n.id for n in made]


async def test_the_sole_poller_takes_over_every_claim_but_leaves_a_retry_waiting(
    store: Store, clock: StepClock
) -> None:
    async with store.instance("old")() as uow:
        await seed(uow)
        held, failing = note("held"), note("failing")
        await uow.outbox.add_many([held, failing])
        await uow.outbox.mark(
            [Delivered(failing.id, error="boom", retry_at=clock.now() + timedelta(seconds=30))]
        )
        await uow.commit()
    poller = Deps(uow=store.instance("new"), rng=random.Random(1), clock=clock)
    assert await outbox.take_back(poller, everyone=True) == 1
    assert [n.id for n in (await outbox.claim(poller)).notices] == [held.id]
    clock.advance(seconds=31)  # the failed one's retry is due: anyone may take it then
    assert [n.id for n in (await outbox.claim(poller)).notices] == [held.id, failing.id]


async def test_a_stopping_instance_hands_back_what_it_holds(store: Store, clock: StepClock) -> None:
    stopping = Deps(uow=store.instance("stopping"), rng=random.Random(1), clock=clock)
    async with stopping.uow() as uow:
        await seed(uow)
        made = [note("a"), note("b")]
        await uow.outbox.add_many(made)
        await uow.commit()
    await outbox.mark(stopping, [Delivered(made[0].id, message_id=7)])  # one was shown
    successor = Deps(uow=store.instance("next"), rng=random.Random(1), clock=clock)
    assert (await outbox.claim(successor)).notices == []  # held, lease running
    assert await outbox.hand_back(stopping) == 1
    assert await outbox.hand_back(stopping) == 0  # nothing left in its hands
    assert [n.id for n in (await outbox.claim(successor)).notices] == [made[1].id]


async def test_the_messages_later_notices_may_edit(uow_factory: UnitOfWorkFactory) -> None:
    """Per chat: the newest lobby, table and answered prompt, and every message with keys."""
    async with uow_factory() as uow:
        await seed(uow)
        game = await uow.games.add(lobby())
        other = await uow.games.add(lobby(status=GameStatus.FINISHED))
        await uow.commit()
    notes = {
        "old lobby": Notice(NoticeKind.LOBBY, CHAT_ID, LobbyView(GameStatus.LOBBY), game.id),
        "lobby": Notice(NoticeKind.LOBBY, CHAT_ID, LobbyView(GameStatus.LOBBY, (1,)), game.id),
        "table": Notice(NoticeKind.TABLE, CHAT_ID, TableView(1, 2, (1, 2), (3, 3)), game.id),
        "ann played": Notice(NoticeKind.PLAYED, ANN, PlayedNote(1, 2, "done_keep"), game.id),
        "bea played": Notice(NoticeKind.PLAYED, BEA, PlayedNote(1, 3, "done_swap"), game.id),
        "ann prompt": Notice(
            NoticeKind.PROMPT, ANN, PromptNote(1, 4, ACE, 3, ("keep",), 2), game.id
        ),
        "bea deal": Notice(NoticeKind.DEAL, BEA, DealNote(1, ACE, 2, 1, 3), game.id),
        "unsent table": Notice(NoticeKind.TABLE, CHAT_ID, TableView(1, 5, (1, 2), (3, 3)), game.id),
        "other game": Notice(NoticeKind.LOBBY, CHAT_ID, LobbyView(GameStatus.LOBBY), other.id),
    }
    ids = dict(zip(notes, await add(uow_factory, list(notes.values())), strict=True))
    await mark(
        uow_factory,
        Delivered(ids["old lobby"], message_id=10),
        Delivered(ids["lobby"], message_id=11),
        Delivered(ids["table"], message_id=12, live_keys=True),
        Delivered(ids["ann played"], message_id=3),
        Delivered(ids["bea played"], message_id=5),
        Delivered(ids["ann prompt"], message_id=4, live_keys=True),
        Delivered(ids["bea deal"], message_id=6),
        Delivered(ids["other game"], message_id=13),
    )
    async with uow_factory(read_only=True) as uow:
        sent = await uow.messages.sent(game.id)
    assert [(s.notice, s.message_id, s.live_keys, s.newest) for s in sent] == [
        (notes["lobby"], 11, False, 13),
        (notes["table"], 12, True, 13),
        (notes["ann played"], 3, False, 4),
        (notes["bea played"], 5, False, 6),
        (notes["ann prompt"], 4, True, 4),
    ]


async def test_where_a_notice_would_have_shown_in_its_chat(uow_factory: UnitOfWorkFactory) -> None:
    player = PLAYERS[0].id
    async with uow_factory() as uow:
        await seed(uow)
        game = await uow.games.add(lobby())
        notices = [
            Notice(NoticeKind.DEAL, player, DealNote(1, ACE, 2, 1, 3), game.id),
            Notice(NoticeKind.PROMPT, player, PromptNote(1, 4, ACE, 3, ("keep",), 2), game.id),
            Notice(NoticeKind.DEAL, player, DealNote(2, ACE, 2, 1, 3), game.id),
            Notice(NoticeKind.DEAL, CHAT_ID, DealNote(2, ACE, 2, 1, 3), game.id),
        ]
        await uow.outbox.add_many(notices)
        await uow.commit()
    deal, prompt, later, elsewhere = (n.id for n in notices)
    # The prompt's mark was lost: the chat's messages before and after it are known.
    await mark(
        uow_factory,
        Delivered(deal, message_id=4),
        Delivered(later, message_id=9),
        Delivered(elsewhere, message_id=5),
    )
    async with uow_factory(read_only=True) as uow:
        assert await uow.messages.newest_before(player, prompt) == 4
        assert await uow.messages.newest_before(player, later) == 4
        assert await uow.messages.newest_before(player, deal) == 0
        assert await uow.messages.messages_between(player, 4, 9) == frozenset({4, 9})
        assert await uow.messages.messages_between(player, 5, 8) == frozenset()
        assert await uow.messages.messages_between(CHAT_ID, 1, 100) == frozenset({5})
    deps = Deps(uow=uow_factory, rng=random.Random(0), clock=StepClock())
    # Where the prompt would have shown: around 4 (after it first: 9 is accounted for), for an
    # earlier notice shown again after a crash may stand above the prompt's lost copy.
    assert await shown.unaccounted(deps, player, prompt, below=None, span=6) == [
        5, 3, 6, 2, 7, 1, 8, 10
    ]  # fmt: skip
    # In a group, only after it: the ids before are people's messages, and each try costs.
    assert await shown.unaccounted(deps, CHAT_ID, elsewhere + 1, below=None, span=3) == [6, 7, 8]
    # Below the copy sent again, nearest first, never under the earlier notices' newest.
    assert await shown.unaccounted(deps, player, prompt, below=12, span=20) == [
        11,
        10,
        8,
        7,
        6,
        5,
    ]
    assert await shown.unaccounted(deps, player, prompt, below=5, span=20) == []


async def test_sent_notices_nothing_edits_are_pruned_after_the_retention(
    uow_factory: UnitOfWorkFactory, clock: StepClock
) -> None:
    async with uow_factory() as uow:
        await seed(uow)
        over = await uow.games.add(lobby(status=GameStatus.FINISHED))
        running = await uow.games.add(lobby())
        notices = [
            note("over", over.id),
            note("running", running.id),
            note("keys", over.id),
            note("unsent", over.id),
            note("no game"),
        ]
        await uow.outbox.add_many(notices)
        await uow.commit()
    await mark(
        uow_factory,
        Delivered(notices[0].id, message_id=1),
        Delivered(notices[1].id, message_id=2),
        Delivered(notices[2].id, message_id=3, live_keys=True),
        Delivered(notices[4].id, message_id=4),
    )
    deps = Deps(uow=uow_factory, rng=random.Random(0), clock=clock)
    assert await outbox.prune(deps) == 0
    clock.advance(seconds=(RETENTION + timedelta(minutes=1)).total_seconds())
    assert await outbox.prune(deps) == 2
    assert await outbox.prune(deps) == 0
    # Kept: the running game's, the one with keys still on it, the one not sent yet.
    async with uow_factory() as uow:
        assert await uow.messages.messages_between(CHAT_ID, 1, 4) == frozenset({2, 3})
        assert [s.notice.id for s in await uow.messages.sent(over.id)] == [notices[2].id]
        assert [n.id for n in await uow.outbox.claim()] == [notices[3].id]


async def test_a_message_ends_as_its_newest_report_whatever_order_the_marks_come_in(
    uow_factory: UnitOfWorkFactory,
) -> None:
    """Batches are marked as they finish, by any instance: a prompt sent with its keys, its
    keys taken off, the answer edited in, the next prompt edited in with keys. In every
    order those reports can reach the store, the message ends showing the newest (the next
    prompt, with keys), sent by the first; without the last report, the answer, no keys."""
    async with uow_factory() as uow:
        await seed(uow)
        game = await uow.games.add(lobby())
        asked = Notice(NoticeKind.PROMPT, ANN, PromptNote(1, 4, ACE, 3, ("keep",), 2), game.id)
        answer = Notice(NoticeKind.PLAYED, ANN, PlayedNote(1, 4, "done_keep"), game.id)
        again = Notice(NoticeKind.PROMPT, ANN, PromptNote(2, 9, ACE, 3, ("keep",), 2), game.id)
        await uow.outbox.add_many([asked, answer, again])
        await uow.commit()

    def reports(message_id: int, *, last: bool) -> list[Delivered]:
        found = [
            Delivered(asked.id, message_id, live_keys=True),
            Delivered(asked.id, message_id, live_keys=False, tries=0),
            Delivered(answer.id, message_id),
        ]
        return [*found, Delivered(again.id, message_id, live_keys=True)] if last else found

    cases = [(last, order) for last in (True, False) for order in permutations(range(3 + last))]
    for number, (last, order) in enumerate(cases, start=100):
        found = reports(number, last=last)
        for index in order:
            await mark(uow_factory, found[index])
    async with uow_factory(read_only=True) as uow:
        for number, (last, order) in enumerate(cases, start=100):
            row = await uow.messages.get(ANN, number)
            assert row is not None, order
            newest = again if last else answer
            assert (row.shown, row.keys, row.kind, row.sent_by) == (
                newest.id,
                last,
                newest.kind,
                asked.id,
            ), (last, order)


async def _prompt_and_its_answer(uow_factory: UnitOfWorkFactory) -> tuple[Notice, Notice, Game]:
    """A game with a prompt in ANN's chat and the answer to it, both written, neither shown."""
    async with uow_factory() as uow:
        await seed(uow)
        game = await uow.games.add(lobby())
        asked = Notice(NoticeKind.PROMPT, ANN, PromptNote(1, 4, ACE, 3, ("keep",), 2), game.id)
        later = Notice(NoticeKind.PLAYED, ANN, PlayedNote(1, 4, "done_keep"), game.id)
        await uow.outbox.add_many([asked, later])
        await uow.commit()
    return asked, later, game


async def test_a_copy_recorded_as_telegram_answers_leaves_its_notice_to_be_marked(
    uow_factory: UnitOfWorkFactory,
) -> None:
    """A copy sent again is recorded at once (``MessageRepository.record``): its row says what
    it shows, keys and all, while its notice stays unmarked (the batch marks it); the batch's
    mark that follows changes nothing, and a later notice's edit still does."""
    asked, later, _ = await _prompt_and_its_answer(uow_factory)
    async with uow_factory(autocommit=True) as uow:
        await uow.messages.record([Delivered(asked.id, 80, live_keys=True), Delivered(asked.id)])
        await uow.commit()
    async with uow_factory(read_only=True) as uow:
        row = await uow.messages.get(ANN, 80)
        assert row is not None and (row.keys, row.shown, row.sent_by) == (True, asked.id, asked.id)
        assert await uow.messages.doubts() == {}
    assert asked.id in await _claim(uow_factory)  # not marked: still to deliver
    await mark(uow_factory, Delivered(asked.id, 80, live_keys=True))
    await mark(uow_factory, Delivered(later.id, 80, live_keys=False))
    async with uow_factory(read_only=True) as uow:
        row = await uow.messages.get(ANN, 80)
        assert row is not None and (row.keys, row.shown) == (False, later.id)


async def test_a_message_cleared_as_unaccounted_keeps_no_keys_a_late_report_gave_it(
    uow_factory: UnitOfWorkFactory,
) -> None:
    """A prompt shown by an instance that lagged, its keys taken off by another that found
    no row for it as it showed that prompt again: the late report of that prompt (keys on)
    does not give the row its keys back; a later notice's edit does, even one written before
    the clear (a deal shown after it)."""
    asked, later, game = await _prompt_and_its_answer(uow_factory)
    async with uow_factory(autocommit=True) as uow:
        await uow.messages.cleared(ANN, [70, 71], asked.id)
        await uow.commit()
    await mark(uow_factory, Delivered(asked.id, 70, live_keys=True))  # the late report
    async with uow_factory(read_only=True) as uow:
        row = await uow.messages.get(ANN, 70)
        assert row is not None and (row.keys, row.shown, row.kind) == (False, asked.id, None)
    await mark(uow_factory, Delivered(later.id, 70, live_keys=False))  # written before
    again = Notice(NoticeKind.PROMPT, ANN, PromptNote(2, 9, ACE, 3, ("keep",), 2), game.id)
    await add(uow_factory, [again])
    await mark(uow_factory, Delivered(again.id, 71, live_keys=True))  # written after
    async with uow_factory(read_only=True) as uow:
        row = await uow.messages.get(ANN, 70)
        assert row is not None and (row.shown, row.kind) == (later.id, NoticeKind.PLAYED)
        row = await uow.messages.get(ANN, 71)
        assert row is not None and (row.keys, row.shown, row.kind) == (
            True,
            again.id,
            NoticeKind.PROMPT,
        )


async def test_the_newest_table_of_a_running_game_that_no_message_shows_is_found(
    uow_factory: UnitOfWorkFactory, clock: StepClock
) -> None:
    """Passed over by delivery's own judgement with nothing showing it: found (once the table
    is done, before ``before``); refused by Telegram, shown, or followed by a newer table: not."""
    async with uow_factory() as uow:
        await seed(uow, (CHAT_ID, CHAT_ID - 1, CHAT_ID - 2, CHAT_ID - 3))
        games = []
        for offset in range(4):
            game = lobby(chat_id=CHAT_ID - offset)
            start(game, clock.now())
            games.append(await uow.games.add(game))
        await uow.commit()
    passed, refused, shown, newer = games

    def table(game_id: int, chat: int, rnd: int = 1) -> Notice:
        return Notice(NoticeKind.TABLE, chat, TableView(rnd, 2, (1, 2), (3, 3)), game_id)

    tables = {
        "passed": table(passed.id, passed.chat_id),
        "refused": table(refused.id, refused.chat_id),
        "shown": table(shown.id, shown.chat_id),
        "older": table(newer.id, newer.chat_id),
        "newer": table(newer.id, newer.chat_id, rnd=2),
    }
    await add(uow_factory, list(tables.values()))
    async with uow_factory(read_only=True) as uow:
        assert await uow.outbox.untold(clock.now() + timedelta(hours=1)) == []  # on their way
    await mark(
        uow_factory,
        Delivered(tables["passed"].id, error="superseded", tries=0),
        Delivered(tables["refused"].id, error="forbidden: bot was kicked"),
        Delivered(tables["shown"].id, 40),
        Delivered(tables["older"].id, error="superseded", tries=0),
    )
    async with uow_factory(read_only=True) as uow:
        assert await uow.outbox.untold(clock.now() - timedelta(seconds=1)) == []  # too young
        later = clock.now() + timedelta(hours=1)
        assert [n.id for n in await uow.outbox.untold(later)] == [tables["passed"].id]
        assert [n.id for n in await uow.outbox.untold(later, passed.id)] == [tables["passed"].id]
        assert await uow.outbox.untold(later, shown.id) == []
        (found,) = await uow.outbox.untold(later)
        assert (found.kind, found.chat_id, found.payload) == (
            NoticeKind.TABLE,
            passed.chat_id,
            tables["passed"].payload,
        )
    await mark(uow_factory, Delivered(tables["newer"].id, error="superseded", tries=0))
    async with uow_factory(read_only=True) as uow:
        assert [n.id for n in await uow.outbox.untold(later)] == [
            tables["passed"].id,
            tables["newer"].id,
        ]
    # The game's table shown by a later notice (a copy, or a table folded under another):
    # nothing is untold there any more.
    copy = table(passed.id, passed.chat_id)
    await add(uow_factory, [copy])
    await mark(uow_factory, Delivered(copy.id, 41))
    async with uow_factory(read_only=True) as uow:
        assert [n.id for n in await uow.outbox.untold(later)] == [tables["newer"].id]
    async with uow_factory() as uow:
        ended = await uow.games.get(newer.id, lock=True)
        assert ended is not None
        ended.status = GameStatus.FINISHED
        await uow.games.save(ended)
        await uow.commit()
    async with uow_factory(read_only=True) as uow:
        assert await uow.outbox.untold(later) == []  # only running games


async def test_a_second_copy_of_a_notice_that_shows_keys_is_found(
    uow_factory: UnitOfWorkFactory,
) -> None:
    """Two messages sent by one notice (an instance whose lease ran out while it was still
    showing it, another showing it again): the one the store learnt of second, while it shows
    keys, is a copy to take the keys off."""
    async with uow_factory() as uow:
        await seed(uow)
        await uow.commit()
    ask, other = note("ask"), note("other")
    await add(uow_factory, [ask, other])
    await mark(uow_factory, Delivered(ask.id, 10, True), Delivered(other.id, 12, True))
    async with uow_factory(read_only=True) as uow:
        assert await uow.messages.copies() == []
    await mark(uow_factory, Delivered(ask.id, 11, True))  # another copy, learnt of late
    async with uow_factory(read_only=True) as uow:  # the newest message is the one kept
        (copy,) = await uow.messages.copies()
        assert (copy.chat_id, copy.message_id, copy.shown, copy.keys) == (CHAT_ID, 10, ask.id, True)
    later = note("later")
    await add(uow_factory, [later])
    await mark(uow_factory, Delivered(later.id, 10, True))  # a later notice edits copy 10
    async with uow_factory(read_only=True) as uow:  # now the one later notices edit is 10
        (copy,) = await uow.messages.copies()
        assert (copy.message_id, copy.shown) == (11, ask.id)
    await mark(uow_factory, Delivered(ask.id, 11, False, tries=0))  # its keys taken off
    async with uow_factory(read_only=True) as uow:
        assert await uow.messages.copies() == []
    # A copy no notice accounted for, its keys cleared (a row with no kind): it keeps nothing,
    # so it makes no copy of the message that shows the notice with its keys.
    lone = note("lone")
    await add(uow_factory, [lone])
    await mark(uow_factory, Delivered(lone.id, 20, True))
    async with uow_factory() as uow:
        await uow.messages.cleared(CHAT_ID, [21], lone.id)
        await uow.commit()
    async with uow_factory(read_only=True) as uow:
        assert await uow.messages.copies() == []


async def test_a_second_copy_without_keys_showing_what_a_newer_one_shows_is_a_twin(
    uow_factory: UnitOfWorkFactory,
) -> None:
    """A card dealt twice (an instance whose lease ran out while it was still sending, another
    sending again): the older of two keyless messages a notice sent, both still showing it,
    is a twin to delete; once forgotten it is found no more. A message a later notice edited
    is no twin, nor a row a cleared doubt wrote (what it showed is not known)."""
    async with uow_factory() as uow:
        await seed(uow)
        await uow.commit()
    deal, later = note("deal"), note("later")
    await add(uow_factory, [deal, later])
    await mark(uow_factory, Delivered(deal.id, 20, False))
    async with uow_factory(read_only=True) as uow:
        assert await uow.messages.copies() == []
    await mark(uow_factory, Delivered(deal.id, 21, False))  # the same card, dealt again
    async with uow_factory(read_only=True) as uow:
        (twin,) = await uow.messages.copies()
        assert (twin.message_id, twin.shown, twin.keys) == (20, deal.id, False)
    async with uow_factory(autocommit=True) as uow:
        await uow.messages.forget(CHAT_ID, 20)
        await uow.commit()
    async with uow_factory(read_only=True) as uow:
        assert await uow.messages.copies() == []
        assert await uow.messages.get(CHAT_ID, 20) is None
        assert await uow.messages.get(CHAT_ID, 21) is not None
    # Dealt twice again, but a later notice edited the older message: no twin.
    await mark(uow_factory, Delivered(deal.id, 22, False), Delivered(later.id, 22, False))
    await mark(uow_factory, Delivered(deal.id, 23, False))
    async with uow_factory(read_only=True) as uow:
        assert [c.message_id for c in await uow.messages.copies()] == [21]
    async with uow_factory(autocommit=True) as uow:
        await uow.messages.cleared(CHAT_ID, [30], deal.id)  # a doubt cleared: no kind
        await uow.commit()
    async with uow_factory(read_only=True) as uow:
        assert [c.message_id for c in await uow.messages.copies()] == [21]


async def test_a_games_end_read_back_after_a_later_game_showed_is_not_shown_again(
    uow_factory: UnitOfWorkFactory, clock: StepClock
) -> None:
    """A chat's notices are shown in order: a game's end still unmarked when a newer notice of
    a later game has shown a message in its chat was shown by a process that died before its
    mark. Read back, it is passed over, not shown under the new game's lobby; an end whose
    chat has seen no later game, one whose later game's message came from an older notice (a
    player in two groups' games at once), and a Play again key's expiry are still claimed."""
    async with uow_factory() as uow:
        await seed(uow)
        first = await uow.games.add(lobby(status=GameStatus.FINISHED))
        other = await uow.games.add(lobby(status=GameStatus.FINISHED))
        second = await uow.games.add(lobby())
        await uow.commit()
    cid = PLAYERS[2].id
    notes = {
        "cid early": Notice(NoticeKind.DEAL, cid, DealNote(1, ACE, 2, 1, 3), second.id),
        "end": Notice(NoticeKind.GAME_OVER, CHAT_ID, GameOverView(winners=(ANN,)), first.id),
        "close": Notice(NoticeKind.CLOSE, ANN, CloseNote(CloseReason.GAME_OVER, place=1), first.id),
        "expired": Notice(NoticeKind.GAME_OVER, CHAT_ID, GameOverView(expired=True), first.id),
        "elsewhere": Notice(NoticeKind.GAME_OVER, BEA, GameOverView(winners=(BEA,)), other.id),
        "lobby": Notice(NoticeKind.LOBBY, CHAT_ID, LobbyView(GameStatus.LOBBY, (ANN,)), second.id),
        "deal": Notice(NoticeKind.DEAL, ANN, DealNote(1, ACE, 2, 1, 3), second.id),
        "cid close": Notice(
            NoticeKind.CLOSE, cid, CloseNote(CloseReason.GAME_OVER, place=2), first.id
        ),
    }
    ids = dict(zip(notes, await add(uow_factory, list(notes.values())), strict=True))
    await mark(
        uow_factory,
        Delivered(ids["lobby"], message_id=20),
        Delivered(ids["deal"], message_id=7),
        Delivered(ids["cid early"], message_id=4),
    )
    clock.advance(seconds=LEASE.total_seconds() + 1)  # their maker died
    deps = Deps(uow=uow_factory, rng=random.Random(0), clock=clock)
    batch = await outbox.claim(deps)
    kept = [ids["expired"], ids["elsewhere"], ids["cid close"]]
    assert [n.id for n in batch.notices] == kept
    async with uow_factory() as uow:
        assert await uow.messages.later_game_shown(CHAT_ID, first.id, after=ids["end"])
        assert not await uow.messages.later_game_shown(CHAT_ID, second.id, after=ids["end"])
        assert not await uow.messages.later_game_shown(BEA, first.id, after=ids["end"])
        assert not await uow.messages.later_game_shown(cid, first.id, after=ids["cid close"])
    # Passed over for good: no instance claims them again.
    clock.advance(seconds=LEASE.total_seconds() + 1)
    assert set(await _claim(uow_factory)) == set(kept)
