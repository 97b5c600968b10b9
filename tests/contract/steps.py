"""Steps the outbox's contract tests take: a notice, written, and marked as a courier would."""

from __future__ import annotations

from cuckoo_bot.app.notices import Announcement, Delivered, Notice, NoticeKind
from cuckoo_bot.app.ports import UnitOfWorkFactory
from tests.integration.builders import CHAT_ID


def note(text: str, game_id: int | None = None, chat_id: int = CHAT_ID) -> Notice:
    return Notice(NoticeKind.ANNOUNCE, chat_id, Announcement(text, {}), game_id)


async def add(factory: UnitOfWorkFactory, notices: list[Notice]) -> list[int]:
    """The notices written in one unit of work: their ids."""
    async with factory() as uow:
        await uow.outbox.add_many(notices)
        await uow.commit()
    return [n.id for n in notices]


async def mark(factory: UnitOfWorkFactory, *delivered: Delivered) -> None:
    async with factory(autocommit=True) as uow:
        await uow.outbox.mark(delivered)
        await uow.commit()
