"""The ``messages`` table: one row per message the bot has shown, merged by conditional writes
(the rules: ``app/notices/message.py``)."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from functools import cache
from typing import Any

from sqlalchemy import (
    BigInteger,
    Boolean,
    and_,
    bindparam,
    case,
    delete,
    false,
    func,
    literal,
    null,
    or_,
    select,
    true,
)
from sqlalchemy.orm import aliased
from sqlalchemy.sql import Select

from cuckoo_bot.app.notices import Delivered, NoticeKind, SentMessage
from cuckoo_bot.app.notices.message import Message
from cuckoo_bot.persistence.mapping import notice_from_row
from cuckoo_bot.persistence.models import OPEN_GAME, GameRow, MessageRow, OutboxRow
from cuckoo_bot.persistence.repositories.store import Store, dialect_insert, table_of
from cuckoo_bot.persistence.types import UtcDateTime

# The kinds whose newest message in a chat later notices edit (besides any with keys).
EDITED = (NoticeKind.LOBBY.value, NoticeKind.TABLE.value, NoticeKind.PLAYED.value)


def reported(notice: Any) -> list[Any]:
    """The columns of a report about a message, from the notice (``notice``: its columns)
    and the parameters ``message_id``, ``keys`` and ``now``."""
    return [
        notice.chat_id,
        bindparam("message_id", type_=BigInteger),
        notice.game_id,
        notice.kind,
        notice.id,
        notice.id,
        bindparam("keys", type_=Boolean),
        bindparam("now", type_=UtcDateTime),
    ]


def reports(delivered: Sequence[Delivered], now: datetime) -> list[dict[str, Any]]:
    return [
        {"n": d.notice_id, "message_id": d.message_id, "keys": d.live_keys, "now": now}
        for d in delivered
    ]


def _message(row: MessageRow) -> Message:
    return Message(
        chat_id=row.chat_id,
        message_id=row.message_id,
        game_id=row.game_id,
        kind=NoticeKind(row.kind) if row.kind else None,
        sent_by=row.sent_by,
        shown=row.shown,
        keys=row.keys,
        at=row.updated_at,
    )


def merge(dialect: str, report: Select[Any]) -> Any:
    """INSERT the reports ``report`` selects (``reported``'s columns), each merged into the row
    of its message if there is one: ``Message.after``, as a conditional write. The report
    replaces the row's state only if it is newer, in the order (shown, keys gone);
    whichever comes later, the row keeps its earliest sender."""
    rows = table_of(MessageRow)
    insert = dialect_insert(dialect, rows).from_select([*COLUMNS], report)
    new = insert.excluded
    newer = or_(
        new.shown > rows.c.shown,
        and_(new.shown == rows.c.shown, rows.c["keys"], ~new["keys"]),
    )

    def chosen(column: str) -> Any:
        return case((newer, new[column]), else_=rows.c[column])

    return insert.on_conflict_do_update(
        index_elements=[rows.c.chat_id, rows.c.message_id],
        set_={
            **{c: chosen(c) for c in ("game_id", "kind", "shown", "keys", "updated_at")},
            "sent_by": case((new.sent_by < rows.c.sent_by, new.sent_by), else_=rows.c.sent_by),
        },
    )


COLUMNS = ("chat_id", "message_id", "game_id", "kind", "sent_by", "shown", "keys", "updated_at")


@cache
def _sent() -> Select[Any]:
    """A game's messages that later notices may edit (``SqlMessages.sent``), for the parameter
    ``game_id``: built once, as every press asks it."""
    m = MessageRow
    game_id = bindparam("game_id", type_=BigInteger)
    newest_here = (
        select(func.max(m.shown))
        .where(m.game_id == game_id, m.message_id.is_not(None), m.kind.in_(EDITED))
        .group_by(m.kind, m.chat_id)
    )
    other = aliased(MessageRow)
    newest_in_chat = (
        select(func.max(other.message_id)).where(other.chat_id == m.chat_id).scalar_subquery()
    )
    return (
        select(OutboxRow, m.message_id, m.keys, newest_in_chat)
        .join(OutboxRow, OutboxRow.id == m.shown)
        .where(
            m.game_id == game_id,
            m.message_id.is_not(None),
            or_(m.keys, m.shown.in_(newest_here)),
        )
        .order_by(m.shown)
    )


@cache
def _record(dialect: str) -> Any:
    """``SqlMessages.record``'s statement in ``dialect``, built once."""
    notices = table_of(OutboxRow)
    # The chat, the game and the kind are the notice's, read in the same statement.
    report = select(*reported(notices.c)).where(notices.c.id == bindparam("n"))
    return merge(dialect, report)


class SqlMessages:
    def __init__(self, store: Store) -> None:
        self._s = store

    async def record(self, delivered: Sequence[Delivered]) -> None:
        """Merge what the notices showed into their messages' rows (one statement)."""
        sent = [d for d in delivered if d.message_id is not None]
        if not sent:
            return
        await self._s.session.execute(_record(self._s.dialect), reports(sent, self._s.now()))

    async def get(self, chat_id: int, message_id: int) -> Message | None:
        row = await self._s.row(
            select(MessageRow).where(
                MessageRow.chat_id == chat_id, MessageRow.message_id == message_id
            )
        )
        return None if row is None else _message(row)

    async def copies(self, limit: int = 20) -> list[Message]:
        kept = aliased(MessageRow)
        beaten = (
            select(kept.id)
            .where(
                kept.chat_id == MessageRow.chat_id,
                kept.sent_by == MessageRow.sent_by,
                kept.message_id.is_not(None),
                kept.kind.is_not(None),  # a cleared copy (no kind) keeps nothing
                or_(
                    kept.shown > MessageRow.shown,
                    and_(kept.shown == MessageRow.shown, kept.message_id > MessageRow.message_id),
                ),
            )
            .exists()
        )
        twin = aliased(MessageRow)
        twinned = (
            select(twin.id)
            .where(
                twin.chat_id == MessageRow.chat_id,
                twin.sent_by == MessageRow.sent_by,
                twin.shown == MessageRow.shown,
                twin.kind == MessageRow.kind,
                twin.message_id > MessageRow.message_id,
            )
            .exists()
        )
        found = await self._s.session.scalars(
            select(MessageRow)
            .where(
                MessageRow.message_id.is_not(None),
                or_(
                    and_(MessageRow.keys, beaten),
                    and_(~MessageRow.keys, MessageRow.kind.is_not(None), twinned),
                ),
            )
            .order_by(MessageRow.id)
            .limit(limit)
        )
        return [_message(row) for row in found]

    async def forget(self, chat_id: int, message_id: int) -> None:
        await self._s.session.execute(
            delete(MessageRow).where(
                MessageRow.chat_id == chat_id, MessageRow.message_id == message_id
            )
        )

    async def sent(self, game_id: int) -> list[SentMessage]:
        result = await self._s.session.execute(_sent(), {"game_id": game_id})
        return [
            SentMessage(
                notice=notice_from_row(row),
                message_id=message_id or 0,
                live_keys=keys,
                newest=newest or 0,
            )
            for row, message_id, keys, newest in result.all()
        ]

    async def doubt(self, chat_id: int, since: int) -> None:
        def of_notice(column: Any) -> Any:
            return select(column).where(OutboxRow.id == since).scalar_subquery()

        # A lane doubts its chat again at every try while another instance shows there: one
        # row, the oldest doubt, whatever the number of tries.
        older = (
            select(MessageRow.id)
            .where(
                MessageRow.chat_id == chat_id,
                MessageRow.message_id.is_(None),
                MessageRow.sent_by <= since,
            )
            .exists()
        )
        row = select(
            literal(chat_id, BigInteger),
            null(),
            of_notice(OutboxRow.game_id),
            of_notice(OutboxRow.kind),
            literal(since, BigInteger),
            literal(since, BigInteger),
            true(),
            literal(self._s.now(), UtcDateTime),
        ).where(~older)
        await self._s.session.execute(
            self._s.insert(MessageRow).from_select(
                [*COLUMNS],
                row,
            )
        )

    async def cleared(self, chat_id: int, message_ids: Sequence[int], shown: int) -> None:
        if not message_ids:
            return
        columns: list[Any] = [
            literal(chat_id, BigInteger),
            bindparam("message_id", type_=BigInteger),
            null(),
            null(),
            literal(shown, BigInteger),
            literal(shown, BigInteger),
            false(),
            literal(self._s.now(), UtcDateTime),
        ]
        report = select(*columns).where(true())  # SQLite: INSERT ... SELECT needs a WHERE
        await self._s.session.execute(
            merge(self._s.dialect, report), [{"message_id": m} for m in sorted(set(message_ids))]
        )

    async def doubts(self) -> dict[int, int]:
        rows = await self._s.session.execute(
            select(MessageRow.chat_id, func.min(MessageRow.sent_by))
            .where(MessageRow.message_id.is_(None))
            .group_by(MessageRow.chat_id)
        )
        return {int(chat): int(since) for chat, since in rows.all()}

    async def settle_doubt(self, chat_id: int, since: int) -> None:
        await self._s.session.execute(
            delete(MessageRow)
            .where(
                MessageRow.chat_id == chat_id,
                MessageRow.message_id.is_(None),
                MessageRow.sent_by >= since,
            )
            .execution_options(synchronize_session=False)
        )

    async def newest_before(self, chat_id: int, notice_id: int) -> int:
        found = await self._s.session.scalar(
            select(func.max(MessageRow.message_id)).where(
                MessageRow.chat_id == chat_id, MessageRow.sent_by < notice_id
            )
        )
        return int(found or 0)

    async def messages_between(self, chat_id: int, low: int, high: int) -> frozenset[int]:
        found = await self._s.session.scalars(
            select(MessageRow.message_id).where(
                MessageRow.chat_id == chat_id, MessageRow.message_id.between(low, high)
            )
        )
        return frozenset(int(m) for m in found if m is not None)

    async def later_game_shown(self, chat_id: int, game_id: int, after: int) -> bool:
        found = await self._s.session.scalar(
            select(MessageRow.id)
            .where(
                MessageRow.chat_id == chat_id,
                MessageRow.game_id > game_id,
                MessageRow.sent_by > after,
                MessageRow.message_id.is_not(None),
            )
            .limit(1)
        )
        return found is not None

    async def prune(self, before: datetime) -> int:
        open_games = select(GameRow.id).where(OPEN_GAME)
        return await self._s.rowcount(
            delete(MessageRow)
            .where(
                MessageRow.updated_at < before,
                MessageRow.keys.is_(False) | MessageRow.message_id.is_(None),
                or_(MessageRow.game_id.is_(None), MessageRow.game_id.not_in(open_games)),
            )
            .execution_options(synchronize_session=False)
        )
