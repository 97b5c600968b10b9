"""PTB handlers: parse the update, call the use case, answer, then deliver what it queued."""

from __future__ import annotations

import html
import logging
from dataclasses import dataclass
from typing import Any

from telegram import Chat as TgChat
from telegram import (
    ChatMember,
    ChatMemberUpdated,
    InlineKeyboardButton,
    InlineKeyboardMarkup,
    Update,
)
from telegram.constants import ChatType
from telegram.error import Forbidden, TelegramError
from telegram.ext import (
    Application,
    CallbackQueryHandler,
    ChatMemberHandler,
    CommandHandler,
    ContextTypes,
    MessageHandler,
    filters,
)

from cuckoo_bot.app import chats, lobby, play, queries
from cuckoo_bot.app.deps import Deps
from cuckoo_bot.app.model import Chat, Player
from cuckoo_bot.app.results import Outcome, Reply
from cuckoo_bot.domain.rules import HouseRules
from cuckoo_bot.transport import callbacks as cb
from cuckoo_bot.transport import logfields
from cuckoo_bot.transport.delivery import Courier, player_of
from cuckoo_bot.transport.render import Renderer
from cuckoo_bot.transport.replies import Answer, Replies
from cuckoo_bot.transport.timers import Timers

log = logging.getLogger(__name__)

GROUP_TYPES = (ChatType.GROUP, ChatType.SUPERGROUP)


@dataclass
class Services:
    """What the handlers share; built once by the composition root."""

    deps: Deps
    renderer: Renderer
    courier: Courier
    replies: Replies
    timers: Timers
    bot_username: str = ""

    async def drain(self, within: float | None = None) -> None:
        """At shutdown: deliveries under way get ``within`` seconds; waiting answers go."""
        await self.replies.close()
        await self.courier.drain(within)

    def deep_link(self, payload: str) -> str:
        return f"https://t.me/{self.bot_username}?start={payload}"


def services(context: ContextTypes.DEFAULT_TYPE) -> Services:
    found = context.bot_data["services"]
    assert isinstance(found, Services)
    return found


def chat_of(chat: TgChat) -> Chat:
    return Chat(id=chat.id, title=chat.title or "")


def thread_of(update: Update) -> int | None:
    message = update.effective_message
    if message is not None and message.is_topic_message:
        return message.message_thread_id
    return None


async def _language(s: Services, update: Update) -> str:
    """Groups speak the group's language; private chats the user's."""
    chat, user = update.effective_chat, update.effective_user
    if chat is not None and chat.type in GROUP_TYPES:
        return await queries.group_language(s.deps, chat.id)
    if user is not None:
        return await queries.player_language(s.deps, user.id, user.language_code)
    return "en"


async def _say(
    s: Services,
    update: Update,
    text: str,
    keyboard: InlineKeyboardMarkup | None = None,
) -> None:
    """Answer in the chat (and forum topic) the update came from. A group's answer is counted
    in the group's budget; when it is spent, the answer waits in the group's own queue."""
    message = update.effective_message
    if message is None:
        return
    await s.replies.say(Answer(message.chat.id, thread_of(update), text, keyboard))


async def _after(s: Services, outcome: Outcome) -> None:
    """After the commit: arm the game's timer and deliver what the move queued."""
    if outcome.game_id is not None and outcome.deadline is not None:
        s.timers.arm(outcome.game_id, outcome.deadline)
    s.courier.dispatch(outcome.dispatch)


async def _reply(update: Update, s: Services, lang: str, outcome: Outcome) -> None:
    if outcome.reply is not None:
        players = await _players_named(s, outcome.reply)
        await _say(s, update, s.renderer.reply(lang, outcome.reply, players))
    await _after(s, outcome)


async def _players_named(s: Services, reply: Reply) -> dict[int, Player]:
    pid = reply.params.get("player")
    if not isinstance(pid, int):
        return {}
    return await queries.players(s.deps, [pid])


async def _is_member(context: ContextTypes.DEFAULT_TYPE, chat_id: int, user_id: int) -> bool:
    try:
        member = await context.bot.get_chat_member(chat_id, user_id)
    except TelegramError:
        return False
    return member.status not in (ChatMember.LEFT, ChatMember.BANNED)


async def _is_admin(
    context: ContextTypes.DEFAULT_TYPE, chat_id: int, user_id: int, update: Update | None = None
) -> bool:
    message = update.effective_message if update is not None else None
    if (
        message is not None
        and message.sender_chat is not None
        and message.sender_chat.id == chat_id
    ):
        return True  # an anonymous admin, posting as the group itself
    try:
        member = await context.bot.get_chat_member(chat_id, user_id)
    except TelegramError:
        return False
    return member.status in (ChatMember.ADMINISTRATOR, ChatMember.OWNER)


# -- group commands -----------------------------------------------------------------------------


def group_command(func: Any) -> Any:
    """Run in groups; in a private chat, say where the command works instead of staying silent."""

    async def wrapper(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
        s = services(context)
        chat = update.effective_chat
        if chat is None or update.effective_user is None:
            return
        lang = await _language(s, update)
        if chat.type not in GROUP_TYPES:
            await _say(s, update, s.renderer.tr.t(lang, "group_only"))
            return
        await func(update, context, s, lang)

    wrapper.__name__ = func.__name__
    return wrapper


@group_command
async def cmd_newgame(
    update: Update, context: ContextTypes.DEFAULT_TYPE, s: Services, lang: str
) -> None:
    assert update.effective_chat and update.effective_user
    user = player_of(update.effective_user)
    outcome = await lobby.open_lobby(
        s.deps, chat_of(update.effective_chat), user, thread_of(update), update.update_id
    )
    await _reply(update, s, lang, outcome)


@group_command
async def cmd_join(
    update: Update, context: ContextTypes.DEFAULT_TYPE, s: Services, lang: str
) -> None:
    assert update.effective_chat and update.effective_user
    game_id = await queries.open_game_id(s.deps, update.effective_chat.id)
    if game_id is None:
        await _say(s, update, s.renderer.reply(lang, Reply("no_lobby")))
        return
    user = player_of(update.effective_user)
    if not await _reachable(context, s, user, lang):
        link = s.deep_link(chats.join_payload(game_id))
        keys = InlineKeyboardMarkup(
            [[InlineKeyboardButton(s.renderer.tr.t(lang, "btn_open_private"), url=link)]]
        )
        await _say(s, update, s.renderer.reply(lang, Reply("need_private")), keys)
        return
    outcome = await lobby.join(
        s.deps, game_id, user, update.update_id, chat_id=update.effective_chat.id
    )
    await _reply(update, s, lang, outcome)


@group_command
async def cmd_leave(
    update: Update, context: ContextTypes.DEFAULT_TYPE, s: Services, lang: str
) -> None:
    assert update.effective_chat and update.effective_user
    outcome = await lobby.leave(
        s.deps, update.effective_chat.id, player_of(update.effective_user), update.update_id
    )
    await _reply(update, s, lang, outcome)


@group_command
async def cmd_startgame(
    update: Update, context: ContextTypes.DEFAULT_TYPE, s: Services, lang: str
) -> None:
    assert update.effective_chat and update.effective_user
    chat_id, user = update.effective_chat.id, player_of(update.effective_user)
    admin = await _is_admin(context, chat_id, user.id, update)
    await _reply(update, s, lang, await lobby.start(s.deps, chat_id, user, admin, update.update_id))


@group_command
async def cmd_cancel(
    update: Update, context: ContextTypes.DEFAULT_TYPE, s: Services, lang: str
) -> None:
    assert update.effective_chat and update.effective_user
    chat_id, user = update.effective_chat.id, player_of(update.effective_user)
    admin = await _is_admin(context, chat_id, user.id, update)
    await _reply(
        update,
        s,
        lang,
        await lobby.cancel(s.deps, chat_id, user, admin, update_id=update.update_id),
    )


@group_command
async def cmd_leaderboard(
    update: Update, context: ContextTypes.DEFAULT_TYPE, s: Services, lang: str
) -> None:
    assert update.effective_chat
    chat = update.effective_chat
    args = context.args or []
    is_global = bool(args) and args[0].lower() in ("global", "all", "todos", "tous")
    t = s.renderer.tr.t
    where = t(lang, "league_global") if is_global else (chat.title or "")
    scope = None if is_global else chat.id
    season = await queries.leaderboard(s.deps, scope)
    all_time = await queries.leaderboard(s.deps, scope, season="all")
    text = s.renderer.league(lang, season, where, t(lang, "league_season", season=season.season))
    text += (
        "\n\n"
        + s.renderer.league(lang, all_time, where, t(lang, "league_all_time")).split("\n", 1)[1]
    )
    await _say(s, update, text)


@group_command
async def cmd_history(
    update: Update, context: ContextTypes.DEFAULT_TYPE, s: Services, lang: str
) -> None:
    """``/history``: the group's last games; ``/history N``: game N round by round."""
    assert update.effective_chat
    chat_id = update.effective_chat.id
    args = context.args or []
    if not args:
        await _say(s, update, s.renderer.history(lang, await queries.history(s.deps, chat_id)))
        return
    number = args[0].lstrip("#")
    if not number.isdigit() or len(number) > 9:
        await _say(s, update, s.renderer.reply(lang, Reply("history_usage")))
        return
    story = await queries.story(s.deps, chat_id, int(number))
    if story is None:
        await _say(s, update, s.renderer.reply(lang, Reply("history_not_found", {"game": number})))
        return
    for page in s.renderer.story(lang, story):
        await _say(s, update, page)


@group_command
async def cmd_settings(
    update: Update, context: ContextTypes.DEFAULT_TYPE, s: Services, lang: str
) -> None:
    assert update.effective_chat and update.effective_user
    if not await _is_admin(context, update.effective_chat.id, update.effective_user.id, update):
        await _say(s, update, s.renderer.reply(lang, Reply("not_admin")))
        return
    chat = await chats.chat_settings(s.deps, chat_of(update.effective_chat))
    rendered = s.renderer.settings(lang, chat, s.deps.turn_timeout)
    await _say(s, update, rendered.text, rendered.keyboard)


# -- commands for any chat ----------------------------------------------------------------------


async def cmd_help(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    s = services(context)
    lang = await _language(s, update)
    chat = update.effective_chat
    key = "help_group" if chat is not None and chat.type in GROUP_TYPES else "help_private"
    await _say(s, update, s.renderer.tr.t(lang, key))


async def cmd_rules(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    s = services(context)
    lang = await _language(s, update)
    chat = update.effective_chat
    if chat is not None and chat.type in GROUP_TYPES:
        stored = await chats.chat_settings(s.deps, chat_of(chat))
        text = s.renderer.rules(lang, stored.rules, stored.turn_timeout or s.deps.turn_timeout)
    else:
        text = s.renderer.rules(lang, HouseRules(), s.deps.turn_timeout)
    await _say(s, update, text)


async def cmd_language(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    s = services(context)
    lang = await _language(s, update)
    chat, user = update.effective_chat, update.effective_user
    if chat is None or user is None:
        return
    if context.args:
        choice = context.args[0]
        if chat.type in GROUP_TYPES:
            if not await _is_admin(context, chat.id, user.id, update):
                await _say(s, update, s.renderer.reply(lang, Reply("not_admin")))
                return
            outcome = await chats.set_language(s.deps, chat_of(chat), choice)
        else:
            outcome = await chats.set_player_language(s.deps, player_of(user), choice)
        new_lang = outcome.reply.params.get("language", lang) if outcome.reply else lang
        if outcome.reply is not None:
            await _say(s, update, s.renderer.reply(new_lang, outcome.reply))
        return
    rendered = s.renderer.languages(lang)
    await _say(s, update, rendered.text, rendered.keyboard)


# -- private commands ---------------------------------------------------------------------------


async def cmd_start(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    s = services(context)
    chat, user = update.effective_chat, update.effective_user
    if chat is None or user is None:
        return
    lang = await _language(s, update)
    if chat.type != ChatType.PRIVATE:
        await _say(s, update, s.renderer.tr.t(lang, "help_group"))
        return
    payload = context.args[0] if context.args else ""
    player = player_of(user)
    game_id = chats.join_link_game(payload)
    if game_id is not None:
        # A join link works only for members of that game's group: ids are easy to guess.
        chat_id = await chats.chat_of_game(s.deps, game_id)
        if chat_id is None or not await _is_member(context, chat_id, user.id):
            await chats.private_start(s.deps, player, "", update.update_id)
            await _say(s, update, s.renderer.reply(lang, Reply("not_member")))
            return
    outcome = await chats.private_start(s.deps, player, payload, update.update_id)
    if outcome.reply is not None and outcome.reply.code == "welcome":
        await _say(s, update, s.renderer.tr.t(lang, "welcome", name=player_name(player)))
        await _after(s, outcome)
        return
    await _reply(update, s, lang, outcome)


def player_name(player: Player) -> str:
    return html.escape(player.display_name)


async def cmd_stats(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    s = services(context)
    lang = await _language(s, update)
    user, chat = update.effective_user, update.effective_chat
    if user is None:
        return
    t = s.renderer.tr.t
    if chat is not None and chat.type != ChatType.PRIVATE:
        link = f"https://t.me/{s.bot_username}"
        await _say(s, update, t(lang, "private_only", link=link))
        return
    stats = await queries.personal_stats(s.deps, user.id)
    lines = [t(lang, "stats_title")]
    for label_key, row in (("league_season", stats["season"]), ("league_all_time", stats["all"])):
        if row is None:
            continue
        label = t(lang, label_key, season=row.season)
        lines.append(
            t(
                lang,
                "stats_line",
                label=label,
                games=row.games,
                wins=row.wins + row.shared_wins,
                shared=row.shared_wins,
                rating=row.points,
                lives=row.lives_lost,
            )
        )
    if len(lines) == 1:
        lines.append(t(lang, "stats_none"))
    await _say(s, update, "\n".join(lines))


# -- buttons ------------------------------------------------------------------------------------


async def on_button(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    s = services(context)
    query = update.callback_query
    if query is None:
        return
    lang = await _language(s, update)
    user = player_of(query.from_user)
    try:
        data = cb.decode(query.data)
    except cb.BadCallback:
        await query.answer(s.renderer.popup(lang, Reply("unknown_button")))
        return
    chat = update.effective_chat
    logfields.bind(chat_id=chat.id if chat else None, game_id=data.game or None)
    outcome: Outcome
    if data.kind in cb.MOVES:
        outcome = await play.act(
            s.deps,
            data.game,
            user.id,
            cb.MOVES[data.kind],
            data.turn,
            update.update_id,
            round_no=data.round,
        )
    elif data.kind == cb.MY_CARD:
        outcome = await play.show_card(s.deps, data.game, user.id)
    elif data.kind == cb.JOIN:
        if not await _reachable(context, s, user, lang):
            await chats.set_reachable(s.deps, user, False)
            await query.answer(
                s.renderer.popup(lang, Reply("need_private")),
                url=s.deep_link(chats.join_payload(data.game)),
            )
            return
        chat_id = query.message.chat.id if query.message else 0
        outcome = await lobby.join(s.deps, data.game, user, update.update_id, chat_id=chat_id)
    elif data.kind == cb.AGAIN:
        chat_id = query.message.chat.id if query.message else 0
        reachable = await _reachable(context, s, user, lang)
        outcome = await lobby.play_again(
            s.deps, data.game, chat_id, user, reachable, update.update_id
        )
        if not reachable and outcome.reply and outcome.reply.code == "need_private":
            assert outcome.game_id is not None
            await query.answer(
                s.renderer.popup(lang, outcome.reply),
                url=s.deep_link(chats.join_payload(outcome.game_id)),
            )
            await _after(s, outcome)
            return
    elif data.kind == cb.LEAVE:
        chat_id = query.message.chat.id if query.message else 0
        outcome = await lobby.leave(s.deps, chat_id, user, update.update_id)
    elif data.kind == cb.COMPUTER:
        chat_id = query.message.chat.id if query.message else 0
        admin = await _is_admin(context, chat_id, user.id)
        outcome = await lobby.add_computer(
            s.deps, data.game, chat_id, user, admin, update.update_id
        )
    elif data.kind in (cb.START, cb.CANCEL):
        chat_id = query.message.chat.id if query.message else 0
        admin = await _is_admin(context, chat_id, user.id)
        if data.kind == cb.START:
            outcome = await lobby.start(s.deps, chat_id, user, admin, update.update_id)
        else:
            outcome = await lobby.cancel(s.deps, chat_id, user, admin, update_id=update.update_id)
    elif data.kind == cb.SETTING:
        outcome = await _setting(update, context, s, lang, data.arg)
    elif data.kind == cb.LANGUAGE:
        outcome = await _language_button(update, context, s, data.arg)
        lang = data.arg if outcome.reply and outcome.reply.code == "language_set" else lang
    else:
        outcome = Outcome(reply=Reply("unknown_button"))
    reply = outcome.reply
    text = s.renderer.popup(lang, reply, await _players_named(s, reply)) if reply else None
    try:
        await query.answer(text, show_alert=bool(reply and reply.alert))
    except TelegramError as exc:  # an answer after Telegram's deadline: the move still counts
        log.info("callback answer failed: %s", exc)
    await _after(s, outcome)


async def _reachable(
    context: ContextTypes.DEFAULT_TYPE, s: Services, user: Player, lang: str
) -> bool:
    """Can the bot write to ``user`` privately? Known yes, or a greeting gets through."""
    if await chats.reachable(s.deps, user.id):
        return True
    try:
        greeting = await context.bot.send_message(
            user.id, s.renderer.tr.t(lang, "welcome", name=player_name(user))
        )
    except Forbidden:
        return False
    s.courier.saw(user.id, greeting.message_id)
    await chats.set_reachable(s.deps, user, True)
    return True


async def _setting(
    update: Update, context: ContextTypes.DEFAULT_TYPE, s: Services, lang: str, arg: str
) -> Outcome:
    query = update.callback_query
    chat = update.effective_chat
    assert query is not None
    if chat is None or not await _is_admin(context, chat.id, query.from_user.id):
        return Outcome(reply=Reply("not_admin"))
    name, _, raw = arg.partition("=")
    value: Any = raw
    if name in ("lives", "max_players"):
        if not raw.isdigit() or len(raw) > 4:  # a forged key: answer, change nothing
            return Outcome(reply=Reply("invalid_setting", {"name": name, "detail": raw[:20]}))
        value = int(raw)
    elif name in ("kings_block", "double_cut", "fast_turns"):
        value = raw == "1"
    outcome = await chats.change_setting(s.deps, chat_of(chat), name, value, update.update_id)
    stored = await chats.chat_settings(s.deps, chat_of(chat))
    rendered = s.renderer.settings(lang, stored, s.deps.turn_timeout)
    if query.message is not None:
        s.courier.budget.spend(chat.id)
        try:
            await query.edit_message_text(rendered.text, reply_markup=rendered.keyboard)
        except TelegramError as exc:
            log.info("settings message not edited: %s", exc)
    return outcome


async def _language_button(
    update: Update, context: ContextTypes.DEFAULT_TYPE, s: Services, code: str
) -> Outcome:
    chat, user = update.effective_chat, update.effective_user
    if chat is None or user is None:
        return Outcome()
    if chat.type in GROUP_TYPES:
        if not await _is_admin(context, chat.id, user.id):
            return Outcome(reply=Reply("not_admin"))
        return await chats.set_language(s.deps, chat_of(chat), code, update.update_id)
    return await chats.set_player_language(s.deps, player_of(user), code)


# -- membership and migration -------------------------------------------------------------------


async def on_my_membership(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    s = services(context)
    change: ChatMemberUpdated | None = update.my_chat_member
    if change is None or change.chat.type not in GROUP_TYPES:
        return
    status = change.new_chat_member.status
    if status in (ChatMember.LEFT, ChatMember.BANNED):
        await _after(s, await chats.bot_removed(s.deps, change.chat.id))
    elif status in (ChatMember.MEMBER, ChatMember.ADMINISTRATOR):
        await chats.bot_added(s.deps, chat_of(change.chat))


async def on_migrate(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    s = services(context)
    message = update.effective_message
    if message is None:
        return
    if message.migrate_to_chat_id:
        await _after(
            s, await chats.chat_migrated(s.deps, message.chat.id, message.migrate_to_chat_id)
        )
    elif message.migrate_from_chat_id:
        await _after(
            s, await chats.chat_migrated(s.deps, message.migrate_from_chat_id, message.chat.id)
        )


async def on_error(update: object, context: ContextTypes.DEFAULT_TYPE) -> None:
    """Nothing goes unanswered: whoever pressed or typed hears to try again in a moment (the
    move was not made: its transaction never committed). The next update starts afresh."""
    log.error("error while handling an update", exc_info=context.error)
    if not isinstance(update, Update):
        return
    s = services(context)
    chat = update.effective_chat
    lang = "en"
    try:
        lang = await _language(s, update)
    except Exception:  # the database may be what failed: answer in English then
        log.debug("no language for the answer", exc_info=True)
    text = s.renderer.reply(lang, Reply("try_again"))
    try:
        if update.callback_query is not None:
            await update.callback_query.answer(s.renderer.popup(lang, Reply("try_again")))
        elif update.effective_message is not None and chat is not None:
            await _say(s, update, text)
    except TelegramError as exc:
        log.info("could not answer after an error: %s", exc)


def install(application: Application[Any, Any, Any, Any, Any, Any]) -> None:
    """Register every handler. Commands work with ``@botname`` too (PTB matches it)."""
    for name, callback in (
        ("newgame", cmd_newgame),
        ("join", cmd_join),
        ("leave", cmd_leave),
        ("startgame", cmd_startgame),
        ("cancel", cmd_cancel),
        ("leaderboard", cmd_leaderboard),
        ("history", cmd_history),
        ("settings", cmd_settings),
        ("help", cmd_help),
        ("rules", cmd_rules),
        ("language", cmd_language),
        ("start", cmd_start),
        ("stats", cmd_stats),
    ):
        # Edited messages are not commands again: an edited old /leave must not resign twice.
        application.add_handler(CommandHandler(name, callback, filters.UpdateType.MESSAGE))
    application.add_handler(CallbackQueryHandler(on_button))
    application.add_handler(ChatMemberHandler(on_my_membership, ChatMemberHandler.MY_CHAT_MEMBER))
    application.add_handler(MessageHandler(filters.StatusUpdate.MIGRATE, on_migrate))
    application.add_error_handler(on_error)
