"""The outbox: notices claimed by one instance at a time, marked once shown, pruned."""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from datetime import datetime
from functools import cache
from typing import Any

from sqlalchemy import (
    BigInteger,
    Integer,
    Text,
    and_,
    bindparam,
    delete,
    func,
    insert,
    or_,
    select,
    update,
)

from cuckoo_bot.app.notices import Delivered, Elsewhere, Notice
from cuckoo_bot.persistence.mapping import (
    PAYLOADS,
    notice_from_row,
    notice_values,
)
from cuckoo_bot.persistence.models import (
    OPEN_GAME,
    GameRow,
    MessageRow,
    OutboxRow,
)
from cuckoo_bot.persistence.repositories import stalls
from cuckoo_bot.persistence.repositories.messages import SqlMessages
from cuckoo_bot.persistence.repositories.statements import marking, marking_and_merging, reports
from cuckoo_bot.persistence.repositories.store import Store, table_of
from cuckoo_bot.persistence.types import UtcDateTime


@cache
def _adding() -> Any:
    """``add_many``'s INSERT, the new rows' ids returned: built once."""
    rows = table_of(OutboxRow)
    return insert(rows).returning(rows.c.id)


@cache
def _claiming(one_chat: bool) -> Any:
    """``claim``'s statement (of one chat's notices: the parameter ``chat``), for the
    parameters ``now``, ``me`` (this instance), ``until`` and ``most``: built once, as every
    delivery and every sweep claims."""
    rows = table_of(OutboxRow)
    now = bindparam("now", type_=UtcDateTime)
    me = bindparam("me", type_=Text)
    free = or_(
        rows.c.claim_until.is_(None),
        rows.c.claim_until <= now,  # a lease or a retry runs out at claim_until
        and_(rows.c.claimed_by == me, rows.c.claim_until > now),
    )
    choice = select(rows.c.id).where(rows.c.sent_at.is_(None), free)
    if one_chat:
        choice = choice.where(rows.c.chat_id == bindparam("chat", type_=BigInteger))
    # PostgreSQL: rows another instance is claiming right now are skipped, not waited for.
    # SQLite has one writer at a time (BEGIN IMMEDIATE) and ignores the clause.
    most = bindparam("most", type_=Integer)
    choice = choice.order_by(rows.c.id).limit(most).with_for_update(skip_locked=True)
    return (
        update(rows)
        .where(rows.c.id.in_(choice.scalar_subquery()))
        .values(claimed_by=me, claim_until=bindparam("until", type_=UtcDateTime))
        .returning(*rows.c)
    )


class SqlOutbox:
    def __init__(self, store: Store) -> None:
        self._s = store

    async def add_many(self, notices: Sequence[Notice]) -> None:
        if not notices:
            return
        now = self._s.now()
        # Claimed by this instance from the start: the press that made them delivers them.
        claim = {"claimed_by": self._s.instance, "claim_until": now + self._s.lease}
        values = [{**notice_values(n, n.created_at or now), **claim} for n in notices]
        # One statement for the whole batch (SQLAlchemy's "insertmanyvalues" joins the rows into
        # one INSERT), compiled once and cached: a list in ``.values()`` would be compiled again
        # at every press. Both engines number the rows of one INSERT in the order of its VALUES,
        # so the ids, sorted, follow the notices (``sort_by_parameter_order`` would cost SQLite
        # one statement a row).
        added = await self._s.fetch(_adding(), values)
        for notice, new_id, row in zip(notices, sorted(a.id for a in added), values, strict=True):
            notice.id = new_id
            notice.created_at = notice.created_at or now
            PAYLOADS.keep((notice.kind, new_id), row["payload"], notice.payload)

    async def claim(self, chat_id: int | None = None, limit: int = 100) -> list[Notice]:
        now = self._s.now()
        params = {"now": now, "me": self._s.instance, "until": now + self._s.lease}
        params |= {"most": limit, "chat": chat_id}
        found = await self._s.fetch(_claiming(chat_id is not None), params)
        return [notice_from_row(row) for row in sorted(found, key=lambda row: row.id)]

    async def renew(self, ids: Collection[int]) -> set[int]:
        if not ids:
            return set()
        rows = table_of(OutboxRow)
        # PostgreSQL: a row another transaction holds is skipped, not waited for. The only
        # writers of this instance's claimed rows are its own marks (the notice is done: no
        # lease left to renew) and another instance taking over a lease that ran out (no
        # longer this one's). Waiting instead locked the rows in another order than the marks
        # do, and the two deadlocked (seen at 20 games at once: a second lost, a batch failed).
        # SQLite has one writer at a time and ignores the clause.
        mine = (
            select(rows.c.id)
            .where(
                rows.c.id.in_(sorted(ids)),
                rows.c.claimed_by == self._s.instance,
                rows.c.sent_at.is_(None),
            )
            .order_by(rows.c.id)
            .with_for_update(skip_locked=True)
        )
        result = await self._s.session.execute(
            update(rows)
            .where(rows.c.id.in_(mine.scalar_subquery()))
            .values(claim_until=self._s.now() + self._s.lease)
            .returning(rows.c.id)
        )
        return set(result.scalars().all())

    async def take_back(self, *, everyone: bool) -> int:
        held = (
            OutboxRow.claimed_by.is_not(None)
            if everyone
            else (OutboxRow.claimed_by == self._s.instance)
        )
        # A failed try waiting for its retry has no holder (``claimed_by`` is NULL): untouched.
        return await self._s.rowcount(
            update(OutboxRow)
            .where(OutboxRow.sent_at.is_(None), held)
            .values(claimed_by=self._s.instance, claim_until=self._s.now() + self._s.lease)
            .execution_options(synchronize_session=False)
        )

    async def hand_back(self) -> int:
        return await self._s.rowcount(
            update(OutboxRow)
            .where(OutboxRow.sent_at.is_(None), OutboxRow.claimed_by == self._s.instance)
            .values(claimed_by=None, claim_until=None)
            .execution_options(synchronize_session=False)
        )

    async def elsewhere(
        self,
        chats: Mapping[int, int | None],
        since: datetime | None = None,
        paced_since: datetime | None = None,
        born: datetime | None = None,
    ) -> Elsewhere:
        if not chats:
            return Elsewhere()
        older = [
            OutboxRow.chat_id == chat
            if before is None
            else and_(OutboxRow.chat_id == chat, OutboxRow.id < before)
            for chat, before in sorted(chats.items())
        ]
        now = self._s.now()
        held = and_(
            OutboxRow.sent_at.is_(None),
            OutboxRow.claimed_by.is_not(None),
            OutboxRow.claimed_by != self._s.instance,
            OutboxRow.claim_until > now,
        )
        # Nobody's: handed back, a failed try whose retry is due, or held by another instance
        # whose lease ran out. (This instance's own, its lease run out, wait for it: a chat it
        # left for a later run.)
        left = and_(
            OutboxRow.sent_at.is_(None),
            or_(OutboxRow.claim_until.is_(None), OutboxRow.claim_until <= now),
            or_(OutboxRow.claimed_by.is_(None), OutboxRow.claimed_by != self._s.instance),
        )
        either = [held, left]
        told = OutboxRow.error.is_(None)  # done, and not refused or superseded
        # Shown by another process: this one remembers what it showed itself (a marked notice
        # keeps its holder's name), not what its previous life marked late.
        others = [OutboxRow.claimed_by.is_(None), OutboxRow.claimed_by != self._s.instance]
        if born is not None:
            others.append(OutboxRow.sent_at < born)
        theirs = or_(*others)
        if since is not None:
            either.append(and_(OutboxRow.sent_at >= since, told, theirs))
        if paced_since is not None:
            either.append(and_(OutboxRow.chat_id > 0, OutboxRow.sent_at >= paced_since))
        rows = await self._s.session.execute(
            select(OutboxRow.chat_id, OutboxRow.sent_at, OutboxRow.kind, told, held, theirs).where(
                or_(*older), or_(*either)
            )
        )
        return Elsewhere.of(rows.all(), since, paced_since)

    async def unprompted(self, game_id: int | None = None, limit: int = 50) -> list[int]:
        found = await self._s.session.scalars(
            stalls.unprompted(game_id is not None, limit), {"game_id": game_id}
        )
        return [int(g) for g in found]

    async def untold(
        self, before: datetime, game_id: int | None = None, limit: int = 50
    ) -> list[Notice]:
        found = await self._s.session.scalars(
            stalls.untold(game_id is not None, limit), {"before": before, "game_id": game_id}
        )
        return [notice_from_row(row) for row in found]

    async def mark(self, delivered: Sequence[Delivered]) -> None:
        if not delivered:
            return
        now = self._s.now()
        # In the order of the notices' ids, as every statement locking several notices takes
        # them (claims, renewals): two transactions never wait for each other in a circle.
        delivered = sorted(delivered, key=lambda d: d.notice_id)
        marks = [
            {
                "n": d.notice_id,
                "at": None if d.retry_at is not None else now,
                "error": d.error,
                "tries": d.tries,
                "retry_at": d.retry_at,
            }
            for d in delivered
        ]
        if self._s.dialect != "postgresql":
            # The messages first: killed in between, a notice is shown again, and no message
            # stands that the store does not know of.
            await SqlMessages(self._s).record(delivered)
            await self._s.write(marking(), marks)
            return
        # One statement: the notices marked (a data-modifying WITH), and what each showed
        # merged into its message's row.
        await self._s.write(
            marking_and_merging(),
            [
                {**mark, **report}
                for mark, report in zip(marks, reports(delivered, now), strict=True)
            ],
        )

    async def prune(self, before: datetime) -> int:
        """Delete notices done before ``before`` that nothing edits any more: their game over
        (or none), and no message showing them with keys."""
        open_games = select(GameRow.id).where(OPEN_GAME)
        keyed = select(MessageRow.shown).where(MessageRow.keys, MessageRow.message_id.is_not(None))
        return await self._s.rowcount(
            delete(OutboxRow)
            .where(
                OutboxRow.sent_at < before,
                OutboxRow.id.not_in(keyed),
                or_(OutboxRow.game_id.is_(None), OutboxRow.game_id.not_in(open_games)),
            )
            .execution_options(synchronize_session=False)
        )

    async def backlog(self) -> int:
        found = await self._s.session.scalar(
            select(func.count()).select_from(OutboxRow).where(OutboxRow.sent_at.is_(None))
        )
        return int(found or 0)
