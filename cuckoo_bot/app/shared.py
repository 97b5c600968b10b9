"""What several use cases do inside their unit of work: skip a redelivered update, make the
stored chat on first sight, and find what an answer needs (its language, the players it
names) without another transaction."""

from __future__ import annotations

from dataclasses import replace

from cuckoo_bot.app.model import (
    Asker,
    Chat,
    Game,
    Player,
    group_language,
    private_language,
    supported_language,
)
from cuckoo_bot.app.ports import UnitOfWork
from cuckoo_bot.app.results import Outcome
from cuckoo_bot.domain.actions import PlayerId


async def first_time(uow: UnitOfWork, update_id: int | None) -> bool:
    """False when this Telegram update was processed before (a redelivery): do nothing."""
    return update_id is None or await uow.updates.first_time(update_id)


async def ensure_chat(uow: UnitOfWork, chat: Chat, founder: Player | None = None) -> Chat:
    """The stored chat, made on first sight. ``founder`` opens a lobby: while the group has no
    language yet, it takes the founder's (when the bot speaks it)."""
    stored = await uow.chats.get(chat.id, lock=True)
    if stored is None:
        await uow.chats.add(chat)
        stored = chat
    changed = False
    if chat.title and stored.title != chat.title:
        stored.title, changed = chat.title, True
    if stored.language is None and founder is not None:
        stored.language = supported_language(founder.language)
        changed = changed or stored.language is not None
    if changed:
        await uow.chats.save(stored)
    return stored


def may_manage(game: Game, user: Player, is_admin: bool) -> bool:
    """Starting, cancelling, skipping a quiet player's turn or taking them out: the game's
    creator's or a group admin's to do."""
    return is_admin or user.id == game.creator_id


async def answered(
    uow: UnitOfWork,
    outcome: Outcome,
    asker: Asker,
    player: PlayerId,
    *,
    game: Game | None = None,
    players: dict[PlayerId, Player] | None = None,
) -> Outcome:
    """``outcome`` with what its answer needs: the language of the chat the key was pressed in
    and the players its reply names, from what the use case read already when it can."""
    known = players or {}
    if asker.chat_id < 0:
        chat = game.chat if game is not None and game.chat_id == asker.chat_id else None
        lang = group_language(chat or await uow.chats.get(asker.chat_id), asker.telegram_language)
    else:
        found = known.get(player) or await uow.players.get(player)
        lang = private_language(found, asker.telegram_language)
    named: dict[PlayerId, Player] = {}
    pid = outcome.reply.params.get("player") if outcome.reply is not None else None
    if isinstance(pid, int):
        named = {pid: known[pid]} if pid in known else await uow.players.get_many([pid])
    return replace(outcome, lang=lang, named=named)
