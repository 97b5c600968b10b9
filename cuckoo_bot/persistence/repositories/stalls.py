"""The sweep's questions to the delivery tables, as statements: running games whose current
turn no message shows keys for (``unprompted``), round tables that never reached their group
(``untold``), and second copies of a notice (``copies``). Each is asked now and then by the
periodic sweep, never on a press; their repositories (``outbox.py``, ``messages.py``) run them.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import and_, func, or_, select
from sqlalchemy.orm import aliased

from cuckoo_bot.app.model import GameStatus
from cuckoo_bot.app.notices import PASSED_OVER, NoticeKind
from cuckoo_bot.persistence.models import GameRow, MessageRow, OutboxRow
from cuckoo_bot.persistence.repositories.store import table_of


def unprompted(game_id: int | None, limit: int) -> Any:
    """Running games (all, or ``game_id``) whose current turn's ask is no longer on its way,
    and no message shows keys for it (``OutboxRepository.unprompted``): their ids."""
    asks = [NoticeKind.PROMPT.value, NoticeKind.TURN.value]
    # The game's newest ask is its current turn's (a move writes it with the move): an
    # older prompt the store still thinks shows keys asks for a turn that is over.
    asked = table_of(OutboxRow).alias("asked")
    newest = (
        select(func.max(asked.c.id))
        .where(asked.c.game_id == GameRow.id, asked.c.kind.in_(asks))
        .correlate(GameRow)
        .scalar_subquery()
    )
    on_its_way = (
        select(OutboxRow.id).where(OutboxRow.id == newest, OutboxRow.sent_at.is_(None)).exists()
    )
    showing = (
        select(MessageRow.id)
        .where(
            MessageRow.game_id == GameRow.id,
            MessageRow.kind.in_(asks),
            MessageRow.keys,
            MessageRow.shown >= newest,
        )
        .exists()
    )
    query = select(GameRow.id).where(
        GameRow.status == GameStatus.RUNNING.value, ~on_its_way, ~showing
    )
    if game_id is not None:
        query = query.where(GameRow.id == game_id)
    return query.order_by(GameRow.id).limit(limit)


def untold(before: datetime, game_id: int | None, limit: int) -> Any:
    """The newest round tables of running games (all, or ``game_id``), done at ``before`` or
    earlier, that no message shows (``OutboxRepository.untold``): their notices' rows."""
    table = NoticeKind.TABLE.value
    newer = table_of(OutboxRow).alias("newer")
    newest = ~(
        select(newer.c.id)
        .where(
            newer.c.game_id == OutboxRow.game_id,
            newer.c.kind == table,
            newer.c.id > OutboxRow.id,
        )
        .exists()
    )
    showing = (
        select(MessageRow.id)
        .where(
            MessageRow.game_id == OutboxRow.game_id,
            MessageRow.kind == table,
            MessageRow.shown >= OutboxRow.id,
            MessageRow.message_id.is_not(None),
        )
        .exists()
    )
    query = (
        select(OutboxRow)
        .join(GameRow, GameRow.id == OutboxRow.game_id)
        .where(
            GameRow.status == GameStatus.RUNNING.value,
            OutboxRow.kind == table,
            OutboxRow.sent_at <= before,
            or_(OutboxRow.error.is_(None), OutboxRow.error.in_(PASSED_OVER)),
            newest,
            ~showing,
        )
    )
    if game_id is not None:
        query = query.where(OutboxRow.game_id == game_id)
    return query.order_by(OutboxRow.id).limit(limit)


def copies(limit: int) -> Any:
    """Second copies of a notice (``MessageRepository.copies``): a message showing keys beaten
    by another first sent by the same notice (showing a newer notice, or the same one with a
    later id), and a keyless twin of a later message showing the same notice. Their rows."""
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
    return (
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
