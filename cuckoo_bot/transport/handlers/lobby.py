"""The lobby: open, join (by command, key or private link), leave, add computer seats, start,
cancel, and play again."""

from __future__ import annotations

from telegram import InlineKeyboardButton, InlineKeyboardMarkup, Update
from telegram.constants import ChatType

from cuckoo_bot.app import chats, lobby, queries
from cuckoo_bot.app.model import Player
from cuckoo_bot.app.results import Outcome, Reply, ReplyCode
from cuckoo_bot.transport.context import CuckooContext
from cuckoo_bot.transport.handlers.common import (
    Press,
    chat_of,
    group_command,
    group_help,
    is_admin,
    is_member,
    language_of,
    player_of,
    reachable,
    reply,
    say,
    thread_of,
)
from cuckoo_bot.transport.handlers.league import show_stats, tell_story
from cuckoo_bot.transport.services import Services


@group_command
async def cmd_newgame(update: Update, context: CuckooContext, s: Services, lang: str) -> None:
    assert update.effective_chat and update.effective_user
    user = player_of(update.effective_user)
    outcome = await lobby.open_lobby(
        s.deps, chat_of(update.effective_chat), user, thread_of(update), update.update_id
    )
    await reply(update, s, lang, outcome)


@group_command
async def cmd_join(update: Update, context: CuckooContext, s: Services, lang: str) -> None:
    assert update.effective_chat and update.effective_user
    game_id = await queries.open_game_id(s.deps, update.effective_chat.id)
    if game_id is None:
        await say(s, update, s.renderer.reply(lang, Reply(ReplyCode.NO_LOBBY)))
        return
    user = player_of(update.effective_user)
    if not await reachable(context, s, user, lang):
        link = s.deep_link(chats.join_payload(game_id))
        keys = InlineKeyboardMarkup(
            [[InlineKeyboardButton(s.renderer.tr.t(lang, "btn_open_private"), url=link)]]
        )
        await say(s, update, s.renderer.reply(lang, Reply(ReplyCode.NEED_PRIVATE)), keys)
        return
    outcome = await lobby.join(
        s.deps, game_id, user, update.update_id, chat_id=update.effective_chat.id
    )
    await reply(update, s, lang, outcome)


@group_command
async def cmd_leave(update: Update, context: CuckooContext, s: Services, lang: str) -> None:
    assert update.effective_chat and update.effective_user
    outcome = await lobby.leave(
        s.deps, update.effective_chat.id, player_of(update.effective_user), update.update_id
    )
    await reply(update, s, lang, outcome)


@group_command
async def cmd_startgame(update: Update, context: CuckooContext, s: Services, lang: str) -> None:
    assert update.effective_chat and update.effective_user
    chat_id, user = update.effective_chat.id, player_of(update.effective_user)
    admin = await is_admin(context, chat_id, user.id, update)
    await reply(update, s, lang, await lobby.start(s.deps, chat_id, user, admin, update.update_id))


@group_command
async def cmd_cancel(update: Update, context: CuckooContext, s: Services, lang: str) -> None:
    assert update.effective_chat and update.effective_user
    chat_id, user = update.effective_chat.id, player_of(update.effective_user)
    admin = await is_admin(context, chat_id, user.id, update)
    await reply(
        update,
        s,
        lang,
        await lobby.cancel(s.deps, chat_id, user, admin, update_id=update.update_id),
    )


async def cmd_start(update: Update, context: CuckooContext) -> None:
    s = context.services
    chat, user = update.effective_chat, update.effective_user
    if chat is None or user is None:
        return
    lang = await language_of(s, update)
    if chat.type != ChatType.PRIVATE:
        await say(s, update, await group_help(s, chat_of(chat), lang))
        return
    payload = context.args[0] if context.args else ""
    player = player_of(user)
    game_id = chats.join_link_game(payload)
    told = chats.story_link_game(payload)
    if told is not None:
        await story_link(update, context, s, player, told, lang)
        return
    if payload == chats.STATS_PAYLOAD:
        await chats.private_start(s.deps, player, "", update.update_id)
        await show_stats(s, update, player.id, lang)
        return
    if game_id is not None:
        # A join link works only for members of that game's group: ids are easy to guess.
        chat_id = await chats.chat_of_game(s.deps, game_id)
        if chat_id is None or not await is_member(context, chat_id, user.id):
            await chats.private_start(s.deps, player, "", update.update_id)
            await say(s, update, s.renderer.reply(lang, Reply(ReplyCode.NOT_MEMBER)))
            return
    outcome = await chats.private_start(s.deps, player, payload, update.update_id)
    if outcome.reply is not None and outcome.reply.code == "welcome":
        await say(s, update, s.renderer.welcome(lang, player))
        await s.after(outcome)
        return
    await reply(update, s, lang, outcome)


async def story_link(
    update: Update,
    context: CuckooContext,
    s: Services,
    player: Player,
    game_id: int,
    lang: str,
) -> None:
    """``/start story_<id>``: the story of a game of the user's group, in this private chat.
    Only members of that group may read it (ids are easy to guess)."""
    await chats.private_start(s.deps, player, "", update.update_id)
    chat_id = await chats.chat_of_game(s.deps, game_id)
    story = await queries.story(s.deps, chat_id, game_id) if chat_id is not None else None
    if chat_id is None or not await is_member(context, chat_id, player.id):
        await say(s, update, s.renderer.reply(lang, Reply(ReplyCode.NOT_MEMBER)))
    elif story is None:
        await say(
            s, update, s.renderer.reply(lang, Reply(ReplyCode.HISTORY_NOT_FOUND, {"game": game_id}))
        )
    else:
        await tell_story(s, player, story)


async def join_key(press: Press) -> Outcome | None:
    s, user = press.services, press.user
    if not await reachable(press.context, s, user, await press.language()):
        await chats.set_reachable(s.deps, user, False)
        await press.query.answer(
            s.renderer.popup(await press.language(), Reply(ReplyCode.NEED_PRIVATE)),
            url=s.deep_link(chats.join_payload(press.data.game)),
        )
        return None
    return await lobby.join(
        s.deps, press.data.game, user, press.update.update_id, chat_id=press.chat_id
    )


async def again_key(press: Press) -> Outcome | None:
    s, user = press.services, press.user
    able = await reachable(press.context, s, user, await press.language())
    outcome = await lobby.play_again(
        s.deps, press.data.game, press.chat_id, user, able, press.update.update_id
    )
    if not able and outcome.reply and outcome.reply.code == "need_private":
        assert outcome.game_id is not None
        await press.query.answer(
            s.renderer.popup(await press.language(), outcome.reply),
            url=s.deep_link(chats.join_payload(outcome.game_id)),
        )
        await s.after(outcome)
        return None
    return outcome


async def leave_key(press: Press) -> Outcome | None:
    return await lobby.leave(press.services.deps, press.chat_id, press.user, press.update.update_id)


async def computer_key(press: Press) -> Outcome | None:
    # Admin rights are asked in the chat the key was pressed in; the use case refuses a key
    # whose game is not that chat's.
    admin = await is_admin(press.context, press.chat_id, press.user.id)
    return await lobby.add_computer(
        press.services.deps,
        press.data.game,
        press.chat_id,
        press.user,
        admin,
        press.update.update_id,
    )


async def start_key(press: Press) -> Outcome | None:
    admin = await is_admin(press.context, press.chat_id, press.user.id)
    return await lobby.start(
        press.services.deps, press.chat_id, press.user, admin, press.update.update_id
    )


async def cancel_key(press: Press) -> Outcome | None:
    admin = await is_admin(press.context, press.chat_id, press.user.id)
    return await lobby.cancel(
        press.services.deps, press.chat_id, press.user, admin, update_id=press.update.update_id
    )
