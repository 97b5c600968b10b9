"""The ``messages`` table: one row per message the bot has shown, merged by conditional writes
(the rules: ``app/notices/message.py``)."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Any

from sqlalchemy import (
    BigInteger,
    bindparam,
    delete,
    false,
    func,
    literal,
    null,
    or_,
    select,
    true,
)

from cuckoo_bot.app.notices import Delivered, NoticeKind, SentMessage
from cuckoo_bot.app.notices.message import Message
from cuckoo_bot.persistence.mapping import notice_from_row
from cuckoo_bot.persistence.models import OPEN_GAME, GameRow, MessageRow, OutboxRow
from cuckoo_bot.persistence.repositories import stalls
from cuckoo_bot.persistence.repositories.statements import (
    COLUMNS,
    merge,
    recording,
    reports,
    sent_rows,
)
from cuckoo_bot.persistence.repositories.store import Store
from cuckoo_bot.persistence.types import UtcDateTime


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


# A chat in doubt: a row of a message whose id is not known (``doubt``). What ``doubts``
# reads, and what the sweeper asks first (``sweep.py``).
IN_DOUBT = MessageRow.message_id.is_(None)


class SqlMessages:
    def __init__(self, store: Store) -> None:
        self._s = store

    async def record(self, delivered: Sequence[Delivered]) -> None:
        """Merge what the notices showed into their messages' rows (one statement)."""
        sent = [d for d in delivered if d.message_id is not None]
        if not sent:
            return
        await self._s.write(recording(self._s.dialect), reports(sent, self._s.now()))

    async def get(self, chat_id: int, message_id: int) -> Message | None:
        row = await self._s.row(
            select(MessageRow).where(
                MessageRow.chat_id == chat_id, MessageRow.message_id == message_id
            )
        )
        return None if row is None else _message(row)

    async def copies(self, limit: int = 20) -> list[Message]:
        return [_message(row) for row in await self._s.session.scalars(stalls.copies(limit))]

    async def forget(self, chat_id: int, message_id: int) -> None:
        await self._s.session.execute(
            delete(MessageRow).where(
                MessageRow.chat_id == chat_id, MessageRow.message_id == message_id
            )
        )

    async def sent(self, game_id: int) -> list[SentMessage]:
        return [
            SentMessage(
                notice=notice_from_row(row),
                message_id=row.m_message_id or 0,
                live_keys=row.m_keys,
                newest=row.m_newest or 0,
            )
            for row in await self._s.fetch(sent_rows(), {"game_id": game_id})
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
            .where(IN_DOUBT)
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
