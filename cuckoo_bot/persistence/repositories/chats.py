"""Chats: a group's language and house rules, a supergroup migration, and until when
Telegram's flood control refuses a chat."""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any

from sqlalchemy import (
    ColumnElement,
    delete,
    exists,
    insert,
    select,
    update,
)
from sqlalchemy.orm import aliased

from cuckoo_bot.app.model import (
    Chat,
)
from cuckoo_bot.persistence.mapping import (
    chat_from_row,
    chat_values,
)
from cuckoo_bot.persistence.models import (
    OPEN_STATUSES,
    ChatRow,
    FloodWaitRow,
    GameRow,
    StandingRow,
)
from cuckoo_bot.persistence.repositories.store import Store

FORGET_HOLDS = timedelta(days=1)  # a flood wait over for this long is deleted


def held_at(now: Any) -> ColumnElement[bool]:
    """A chat Telegram holds back at ``now`` (a time, or a bound parameter): what ``held``
    reads, and what the sweeper asks first (``sweep.py``)."""
    held: ColumnElement[bool] = FloodWaitRow.until > now
    return held


class SqlChats:
    def __init__(self, store: Store) -> None:
        self._s = store

    async def get(self, chat_id: int, *, lock: bool = False) -> Chat | None:
        query = select(ChatRow).where(ChatRow.id == chat_id)
        row = await self._s.row(query.with_for_update() if lock else query)
        return chat_from_row(row) if row is not None else None

    async def add(self, chat: Chat) -> None:
        now = self._s.now()
        await self._s.session.execute(
            insert(ChatRow).values(**chat_values(chat), created_at=now, updated_at=now)
        )

    async def save(self, chat: Chat) -> None:
        await self._s.session.execute(
            update(ChatRow)
            .where(ChatRow.id == chat.id)
            .values(**chat_values(chat), updated_at=self._s.now())
            .execution_options(synchronize_session=False)
        )

    async def take_pot(self, chat_id: int) -> int:
        found = await self._s.session.scalar(
            select(ChatRow.pot).where(ChatRow.id == chat_id).with_for_update()
        )
        return int(found or 0)

    async def put_pot(self, chat_id: int, chips: int) -> None:
        await self._s.session.execute(
            update(ChatRow)
            .where(ChatRow.id == chat_id)
            .values(pot=chips)
            .execution_options(synchronize_session=False)
        )

    async def migrate(self, old_id: int, new_id: int) -> None:
        """Move the chat row, its games and its league rows to ``new_id``.

        A row already stored under ``new_id`` (the supergroup spoke first) takes the old chat's
        settings, as do league rows of the same player and season.
        """
        s = self._s.session
        old = await self._s.row(select(ChatRow).where(ChatRow.id == old_id).with_for_update())
        if old is None:
            return
        chat = chat_from_row(old)
        chat.id, chat.migrated_from = new_id, old_id
        now = self._s.now()
        replaced = await self._s.rowcount(
            update(ChatRow)
            .where(ChatRow.id == new_id)
            .values(**chat_values(chat), pot=old.pot, updated_at=now)
            .execution_options(synchronize_session=False)
        )
        if not replaced:
            await s.execute(
                insert(ChatRow).values(
                    **chat_values(chat), pot=old.pot, created_at=old.created_at, updated_at=now
                )
            )
        await s.execute(
            update(GameRow)
            .where(GameRow.chat_id == old_id)
            .values(chat_id=new_id)
            .execution_options(synchronize_session=False)
        )
        # The open games moved with it: whoever watches them reads them again.
        moved = await s.scalars(
            select(GameRow.id).where(GameRow.chat_id == new_id, GameRow.status.in_(OPEN_STATUSES))
        )
        self._s.changed.update(moved.all())
        older = aliased(StandingRow)
        await s.execute(
            delete(StandingRow)
            .where(
                StandingRow.scope == new_id,
                exists().where(
                    older.scope == old_id,
                    older.season == StandingRow.season,
                    older.player_id == StandingRow.player_id,
                ),
            )
            .execution_options(synchronize_session=False)
        )
        await s.execute(
            update(StandingRow)
            .where(StandingRow.scope == old_id)
            .values(scope=new_id)
            .execution_options(synchronize_session=False)
        )
        await s.execute(
            delete(ChatRow).where(ChatRow.id == old_id).execution_options(synchronize_session=False)
        )

    async def hold(self, chat_id: int, until: datetime) -> None:
        table = FloodWaitRow.__table__
        statement = self._s.insert(table).values(chat_id=chat_id, until=until)
        longer = statement.on_conflict_do_update(
            index_elements=[FloodWaitRow.chat_id],
            set_={"until": until},
            where=FloodWaitRow.until < until,
        )
        await self._s.session.execute(longer)
        # A 429 is rare: that is when holds over for a day are forgotten.
        await self._s.session.execute(
            delete(FloodWaitRow)
            .where(FloodWaitRow.until < until - FORGET_HOLDS)
            .execution_options(synchronize_session=False)
        )

    async def held(self, now: datetime) -> dict[int, datetime]:
        rows = await self._s.session.execute(
            select(FloodWaitRow.chat_id, FloodWaitRow.until).where(held_at(now))
        )
        return {chat_id: until for chat_id, until in rows.all()}
