"""Chats and players outside a game: private start, reachability, settings, migration, removal."""

from __future__ import annotations

from dataclasses import replace
from datetime import datetime
from enum import Enum

from cuckoo_bot.app.deps import Deps
from cuckoo_bot.app.flow import notices_for, write_notices
from cuckoo_bot.app.lobby import cancel, join, lobby_view
from cuckoo_bot.app.model import (
    Asker,
    Chat,
    Game,
    GameStatus,
    Player,
    supported_language,
    whole_number,
)
from cuckoo_bot.app.outbox import Batch
from cuckoo_bot.app.ports import UnitOfWork
from cuckoo_bot.app.results import Outcome, Reply, ReplyCode, refused
from cuckoo_bot.app.settings import BY_NAME
from cuckoo_bot.app.shared import answered, ensure_chat, first_time
from cuckoo_bot.domain.actions import PlayerId
from cuckoo_bot.domain.errors import InvalidSettings

JOIN_PAYLOAD = "join_"  # /start join_<game id>: the deep link a Join press hands out


STORY_PAYLOAD = "story_"  # /start story_<game id>: the key under a long /history N
STATS_PAYLOAD = "stats"  # /start stats: the key under /stats in a group


def join_payload(game_id: int) -> str:
    return f"{JOIN_PAYLOAD}{game_id}"


def story_payload(game_id: int) -> str:
    return f"{STORY_PAYLOAD}{game_id}"


def story_link_game(payload: str) -> int | None:
    """The game a ``/start story_<id>`` link names, if the payload is one."""
    rest = payload[len(STORY_PAYLOAD) :] if payload.startswith(STORY_PAYLOAD) else ""
    return whole_number(rest, 9)


async def private_start(
    deps: Deps, user: Player, payload: str, update_id: int | None = None
) -> Outcome:
    """/start in the private chat: the bot may now write to the user; a join link joins."""
    async with deps.uow() as uow:
        if not await first_time(uow, update_id):
            return Outcome()
        await uow.players.upsert(replace(user, can_dm=True))
        await uow.commit()
    game_id = join_link_game(payload)
    if game_id is not None:
        return await join(deps, game_id, user)
    return Outcome(reply=Reply(ReplyCode.WELCOME))


def join_link_game(payload: str) -> int | None:
    """The game a ``/start join_<id>`` link names, if the payload is one."""
    rest = payload[len(JOIN_PAYLOAD) :] if payload.startswith(JOIN_PAYLOAD) else ""
    # Game ids are 32-bit in the store: a longer number names no game.
    return whole_number(rest, 9)


async def chat_of_game(deps: Deps, game_id: int) -> int | None:
    async with deps.uow(read_only=True) as uow:
        game = await uow.games.get(game_id)
    return game.chat_id if game is not None else None


async def set_reachable(deps: Deps, user: Player, reachable: bool) -> None:
    """Record whether a private message to ``user`` can be delivered (403 means no)."""
    async with deps.uow() as uow:
        await uow.players.upsert(replace(user, can_dm=reachable))
        await uow.commit()


async def reachable(deps: Deps, user_id: int) -> bool | None:
    async with deps.uow(read_only=True) as uow:
        player = await uow.players.get(user_id)
    return player.can_dm if player else None


async def chat_settings(deps: Deps, chat: Chat) -> Chat:
    async with deps.uow() as uow:
        stored = await ensure_chat(uow, chat)
        await uow.commit()
    return stored


async def set_language(
    deps: Deps, chat: Chat, language: str, update_id: int | None = None
) -> Outcome:
    code = supported_language(language)
    if code is None:
        return refused(ReplyCode.UNKNOWN_LANGUAGE, language=language)
    async with deps.uow() as uow:
        if not await first_time(uow, update_id):
            return Outcome()
        stored = await ensure_chat(uow, chat)
        stored.language = code
        await uow.chats.save(stored)
        game = await uow.games.open_in_chat(stored.id, lock=True)
        if game is not None:
            game.language = code
            await uow.games.save(game)
        await uow.commit()
    return Outcome(reply=Reply(ReplyCode.LANGUAGE_SET, {"language": code}))


async def set_player_language(deps: Deps, user: Player, language: str) -> Outcome:
    code = supported_language(language)
    if code is None:
        return refused(ReplyCode.UNKNOWN_LANGUAGE, language=language)
    async with deps.uow() as uow:
        await uow.players.upsert(user)
        await uow.players.set_language(user.id, code)
        await uow.commit()
    return Outcome(reply=Reply(ReplyCode.LANGUAGE_SET, {"language": code}))


async def change_setting(
    deps: Deps,
    chat: Chat,
    name: str,
    raw: str,
    update_id: int | None = None,
    asker: Asker | None = None,
    admin: PlayerId = 0,
) -> tuple[Outcome, Chat | None]:
    """An admin changes one house rule (or the turn timeout) from a settings key's value, as
    text; takes effect from the next lobby. A redelivered tap changes nothing (it would flip a
    toggle back); a forged value is answered and changes nothing. One transaction, which also
    gives the chat's settings as they now stand (None for a redelivery) and, with an
    ``asker``, the answer's language."""
    async with deps.uow() as uow:
        if not await first_time(uow, update_id):
            return Outcome(), None
        stored = await ensure_chat(uow, chat)
        outcome = _change(stored, name, raw)
        if outcome.reply is not None and outcome.reply.code is ReplyCode.SETTING_CHANGED:
            await uow.chats.save(stored)
        if asker is not None:
            outcome = await answered(uow, outcome, asker, admin)
        await uow.commit()
    return outcome, stored


def _change(stored: Chat, name: str, raw: str) -> Outcome:
    setting = BY_NAME.get(name)
    value = setting.read(raw) if setting is not None else None
    if setting is None or value is None:
        return refused(ReplyCode.INVALID_SETTING, name=name[:20], detail=raw[:20])
    try:
        setting.apply(stored, value)
    except InvalidSettings as error:
        return refused(ReplyCode.INVALID_SETTING, name=name, detail=str(error))
    said = value.value if isinstance(value, Enum) else value
    return Outcome(reply=Reply(ReplyCode.SETTING_CHANGED, {"name": name, "value": said}))


async def chat_migrated(deps: Deps, old_id: int, new_id: int) -> Outcome:
    """The group became a supergroup: its games and league table follow the new id, and an
    open game's lobby or table is posted afresh there (the old group's messages are gone)."""
    async with deps.uow() as uow:
        batch, game = await follow_migration(uow, old_id, new_id)
        await uow.commit()
    if game is None:
        return Outcome()
    return Outcome(game_id=game.id, deadline=game.wake, batch=batch)


async def follow_migration(uow: UnitOfWork, old_id: int, new_id: int) -> tuple[Batch, Game | None]:
    """``chat_migrated`` inside a unit of work: what to post in the new chat, and its game."""
    if await uow.chats.get(old_id, lock=True) is None:
        return Batch([]), None
    await uow.chats.migrate(old_id, new_id)
    game = await uow.games.open_in_chat(new_id, lock=True)
    if game is None:
        return Batch([]), None
    # The old group's messages are gone: the lobby or the round's table is posted there anew
    # (the store looks edit targets up in the game's current chat, which has none yet).
    notices = notices_for(game)
    if game.status is GameStatus.LOBBY or game.state is None:
        notices.lobby(lobby_view(game))
    else:
        notices.table(game.state)
    return await write_notices(uow, game, notices, moved=True), game


async def bot_removed(deps: Deps, chat_id: int) -> Outcome:
    """The bot was removed from the group: cancel its game cleanly, post nothing there."""
    async with deps.uow() as uow:
        stored = await uow.chats.get(chat_id, lock=True)
        if stored is not None:
            stored.active = False
            await uow.chats.save(stored)
        await uow.commit()
    return await cancel(deps, chat_id, None, is_admin=True, reason="bot_removed")


async def bot_added(deps: Deps, chat: Chat) -> None:
    async with deps.uow() as uow:
        stored = await ensure_chat(uow, chat)
        if not stored.active:
            stored.active = True
            await uow.chats.save(stored)
        await uow.commit()


async def hold(deps: Deps, chat_id: int, until: datetime) -> None:
    """Telegram refuses the chat until ``until`` (a 429): every instance waits for it."""
    async with deps.uow(autocommit=True) as uow:
        await uow.chats.hold(chat_id, until)
        await uow.commit()


async def held(deps: Deps) -> dict[int, datetime]:
    """The chats Telegram refuses now, and until when (what any instance was told)."""
    async with deps.uow(read_only=True) as uow:
        return await uow.chats.held(deps.clock.now())
