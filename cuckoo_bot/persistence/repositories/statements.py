"""The delivery tables' statements that run at every press or every mark, built once (cached):
what a notice showed merged into its message's row by a conditional write (``merge``), the
outbox's mark (``marking``; on PostgreSQL with the merge in one statement), and the messages a
game's later notices may edit (``sent_rows``). Their repositories: ``messages.py`` and
``outbox.py``; the rules: ``app/notices/message.py``."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from functools import cache
from typing import Any

from sqlalchemy import (
    BigInteger,
    Boolean,
    Integer,
    Text,
    and_,
    bindparam,
    case,
    func,
    literal,
    null,
    or_,
    select,
    update,
)
from sqlalchemy.sql import Select

from cuckoo_bot.app.notices import Delivered, NoticeKind
from cuckoo_bot.persistence.models import MessageRow, OutboxRow
from cuckoo_bot.persistence.repositories.store import dialect_insert, table_of
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
def sent_rows() -> Select[Any]:
    """A game's messages that later notices may edit (``SqlMessages.sent``), for the parameter
    ``game_id``: built once, as every press asks it. In Core: rows of plain values, without the
    ORM's loading; the notice's columns under their own names, the message's after ``m_``."""
    m = table_of(MessageRow).c
    game_id = bindparam("game_id", type_=BigInteger)
    newest_here = (
        select(func.max(m.shown))
        # The kinds as plain parameters: a list would be expanded at every run.
        .where(m.game_id == game_id, m.message_id.is_not(None), m.kind.in_(map(literal, EDITED)))
        .group_by(m.kind, m.chat_id)
    )
    other = table_of(MessageRow).alias("other").c
    newest_in_chat = (
        select(func.max(other.message_id)).where(other.chat_id == m.chat_id).scalar_subquery()
    )
    notices = table_of(OutboxRow)
    return (
        select(
            *notices.c,
            m.message_id.label("m_message_id"),
            m["keys"].label("m_keys"),  # ``m.keys`` is the collection's method
            newest_in_chat.label("m_newest"),
        )
        .select_from(table_of(MessageRow).join(notices, notices.c.id == m.shown))
        .where(
            m.game_id == game_id,
            m.message_id.is_not(None),
            or_(m["keys"], m.shown.in_(newest_here)),
        )
        .order_by(m.shown)
    )


@cache
def recording(dialect: str) -> Any:
    """``SqlMessages.record``'s statement in ``dialect``, built once."""
    notices = table_of(OutboxRow)
    # The chat, the game and the kind are the notice's, read in the same statement.
    report = select(*reported(notices.c)).where(notices.c.id == bindparam("n"))
    return merge(dialect, report)


@cache
def marking() -> Any:
    """``SqlOutbox.mark``'s UPDATE, for the parameters ``n`` (the notice), ``at``, ``error``,
    ``tries`` and ``retry_at``: built once."""
    rows = table_of(OutboxRow)
    return (
        update(rows)
        .where(rows.c.id == bindparam("n"))
        .values(
            # A notice to try again is not done: no sent_at, and free for any instance
            # from ``retry_at`` on.
            sent_at=func.coalesce(rows.c.sent_at, bindparam("at", type_=UtcDateTime)),
            error=func.coalesce(bindparam("error", type_=Text), rows.c.error),
            attempts=rows.c.attempts + bindparam("tries", type_=Integer),
            claimed_by=case(
                (bindparam("retry_at", type_=UtcDateTime).is_(None), rows.c.claimed_by),
                else_=null(),
            ),
            claim_until=func.coalesce(bindparam("retry_at", type_=UtcDateTime), rows.c.claim_until),
        )
    )


@cache
def marking_and_merging() -> Any:
    """On PostgreSQL, ``marking`` and the merge of what each notice showed into its
    message's row, one statement."""
    rows = table_of(OutboxRow)
    marked = marking().returning(rows.c.id, rows.c.chat_id, rows.c.game_id, rows.c.kind)
    marked = marked.cte("marked")
    showed = bindparam("message_id", type_=BigInteger).is_not(None)
    return merge("postgresql", select(*reported(marked.c)).where(showed)).add_cte(marked)
