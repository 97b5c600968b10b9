"""The outbox's bookkeeping: notices written, claimed, marked, handed back and pruned.

A move writes its notices in its own transaction (``write``) and hands them over with the game,
the players and the messages already in the chats (a ``Batch``), so the press is delivered
without reading anything again. Notices left over (a crash, a chat waiting on Telegram's
limits) are claimed back under a lease by ``claim``. What became of a batch is settled in one
transaction by ``settle``.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta

from cuckoo_bot.app import shown
from cuckoo_bot.app.deps import Deps
from cuckoo_bot.app.model import Game, Player
from cuckoo_bot.app.notices import (
    AnswerNote,
    Notice,
    NoticeKind,
)
from cuckoo_bot.app.notices.row import Delivered, Elsewhere, SentMessage
from cuckoo_bot.app.ports import UnitOfWork
from cuckoo_bot.app.tuning import MAX_TRIES, RETENTION, RETRY_AT_MOST
from cuckoo_bot.domain.actions import PlayerId


@dataclass
class Batch:
    """Committed notices with what rendering and sending them needs."""

    notices: list[Notice]
    games: dict[int, Game] = field(default_factory=dict)  # each with its ``chat`` loaded
    players: dict[PlayerId, Player] = field(default_factory=dict)
    sent: list[SentMessage] = field(default_factory=list)
    read_at: datetime | None = None  # when ``sent`` was read from the store
    # Claimed back from the outbox: its claims run for a lease from this moment (or later).
    # Written by this process: each notice is held from its ``created_at``.
    claimed_at: datetime | None = None

    def __bool__(self) -> bool:
        return bool(self.notices)

    def extend(self, other: Batch) -> None:
        self.notices += other.notices
        self.games.update(other.games)
        self.players.update(other.players)
        self.sent += other.sent
        reads = [t for t in (self.read_at, other.read_at) if t is not None]
        self.read_at = min(reads, default=None)
        claims = [t for t in (self.claimed_at, other.claimed_at) if t is not None]
        self.claimed_at = min(claims, default=None)


def people(game: Game) -> list[PlayerId]:
    """Everyone a game's messages may name: its seats, its creator, the players it invited."""
    return sorted({*game.seats, game.creator_id, *game.offered})


async def write(
    uow: UnitOfWork,
    game: Game,
    notices: list[Notice],
    players: dict[PlayerId, Player] | None = None,
) -> Batch:
    """Write ``notices`` to the outbox and gather what delivering them needs (same transaction)."""
    if not notices:
        return Batch([])
    await uow.outbox.add_many(notices)
    if players is None:
        players = await uow.players.get_many(people(game))
    sent = await uow.messages.sent(game.id)
    return Batch(
        notices=notices,
        games={game.id: game},
        players=players,
        sent=sent,
        read_at=notices[0].created_at,
    )


# Several instances share the outbox: a notice is held by one at a time, under a lease
# (``tuning.py`` has the figures and why). A new life of the same instance (same name) takes
# its own back at once, and a stopping one hands back what it holds. A notice whose send fails
# for an unexpected reason is tried again later, less often each time, and given up after
# ``MAX_TRIES`` with its reason kept; the notices behind it go on.


def retry_delay(attempts: int) -> timedelta:
    """How long a notice that failed ``attempts`` times waits: 2 s, 4 s, 8 s ... at most 5 min."""
    return min(timedelta(seconds=2 ** max(attempts, 1)), RETRY_AT_MOST)


def failed(notice: Notice, reason: str, now: datetime) -> Delivered:
    """A try that failed: again later, or given up for good after ``MAX_TRIES``."""
    tries = notice.attempts + 1
    if tries >= MAX_TRIES:
        return Delivered(notice.id, error=f"gave up after {tries} tries: {reason}"[:500])
    return Delivered(notice.id, error=reason[:500], retry_at=now + retry_delay(tries))


async def claim(
    deps: Deps,
    chat_id: int | None = None,
    skip: Collection[int] = (),
    keep: Callable[[Notice], bool] | None = None,
) -> Batch:
    """Claim the notices not delivered yet that no other instance holds, oldest first (one
    chat's, or everyone's), with their context: of those not in ``skip`` that ``keep`` keeps
    (the context of the others is not read)."""
    read_at = deps.clock.now()
    async with deps.uow() as uow:
        # The claims run for a lease from this moment or later: what the lanes hold them by.
        claimed_at = deps.clock.now()
        claimed = await uow.outbox.claim(chat_id, limit=500)
        notices = [n for n in claimed if n.id not in skip and (keep is None or keep(n))]
        notices = await shown.drop_outlived(uow, notices)
        if not notices:
            await uow.commit()
            return Batch([])
        games: dict[int, Game] = {}
        sent: list[SentMessage] = []
        for game_id in sorted({n.game_id for n in notices if n.game_id is not None}):
            game = await uow.games.get(game_id)
            if game is not None:
                games[game_id] = game
                sent += await uow.messages.sent(game_id)
        ids = {pid for game in games.values() for pid in people(game)}
        ids |= {n.chat_id for n in notices if n.kind.private}
        players = await uow.players.get_many(sorted(ids))
        await uow.commit()
    return Batch(
        notices=notices,
        games=games,
        players=players,
        sent=sent,
        read_at=read_at,
        claimed_at=claimed_at,
    )


async def renew(deps: Deps, ids: Collection[int]) -> set[int]:
    """Keep holding the notices still in this instance's hands: those it still held, each
    now for a lease from the moment returned or later."""
    if not ids:
        return set()
    async with deps.uow(autocommit=True) as uow:
        renewed = await uow.outbox.renew(ids)
        await uow.commit()
    return renewed


async def take_back(deps: Deps, *, everyone: bool) -> int:
    """At start: this instance's unfinished claims are its own again at once (a new life of
    the same instance); with ``everyone`` (polling, where only one process can poll a token),
    the claims of every other name too. How many notices that makes."""
    async with deps.uow(autocommit=True) as uow:
        taken = await uow.outbox.take_back(everyone=everyone)
        await uow.commit()
    return taken


async def elsewhere(
    deps: Deps,
    chats: Mapping[int, int | None],
    since: datetime | None = None,
    paced_since: datetime | None = None,
    born: datetime | None = None,
) -> Elsewhere:
    """What other deliveries are doing or did in these chats (one statement): where another
    instance still holds notices older than the id given for the chat (they are shown first;
    and a message there that no notice accounts for may be that instance's, not an orphan),
    and where another process (another instance, or this one's life before ``born``) showed a
    notice older than that at ``since`` or later (a batch that read the chats' messages at
    ``since`` reads them again there), and when a private chat was last sent a message, if at
    ``paced_since`` or later (its pace is kept across instances)."""
    if not chats:
        return Elsewhere()
    async with deps.uow(autocommit=True) as uow:  # one statement: no transaction to begin
        return await uow.outbox.elsewhere(chats, since, paced_since, born)


async def keep_answer(
    deps: Deps, chat_id: int, thread_id: int | None, answer: AnswerNote, *, maybe_shown: bool
) -> Batch:
    """A command's answer that could not be shown at once, kept to be tried again like any
    notice (the batch to deliver). ``maybe_shown``: its send's answer was lost, so Telegram may
    have shown it, keys and all: the chat is in doubt, and the next sweep (or the next message
    there once every instance knows the doubt) clears the keys of the first."""
    notice = Notice(NoticeKind.ANSWER, chat_id, answer, thread_id=thread_id)
    async with deps.uow() as uow:
        await uow.outbox.add_many([notice])
        if maybe_shown:
            await uow.messages.doubt(chat_id, notice.id)
        await uow.commit()
    return Batch([notice], read_at=notice.created_at)


async def hand_back(deps: Deps) -> int:
    """At a graceful stop: what this instance still holds is free for the next one, now."""
    async with deps.uow(autocommit=True) as uow:
        freed = await uow.outbox.hand_back()
        await uow.commit()
    return freed


async def mark(deps: Deps, delivered: Sequence[Delivered]) -> None:
    """Record what was sent, refused, superseded or failed, and merge what it showed into
    ``messages``: one statement for the batch (two on SQLite)."""
    if not delivered:
        return
    async with deps.uow(autocommit=True) as uow:
        await uow.outbox.mark(delivered)
        await uow.commit()


async def prune(deps: Deps) -> int:
    """Delete notices done and messages last changed over ``RETENTION`` ago that nothing
    edits any more."""
    async with deps.uow(autocommit=True) as uow:
        before = deps.clock.now() - RETENTION
        gone = await uow.outbox.prune(before)
        await uow.messages.prune(before)
        await uow.commit()
    return gone
