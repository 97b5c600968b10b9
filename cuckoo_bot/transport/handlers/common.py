"""What every handler shares: the services, answering in the chat an update came from, the
language to answer in, and the few Bot API questions a handler asks (admin, member, reachable)."""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable, Coroutine
from dataclasses import dataclass, replace

from telegram import CallbackQuery, ChatMember, InlineKeyboardMarkup, Update, User
from telegram import Chat as TgChat
from telegram.constants import ChatType
from telegram.error import Forbidden, TelegramError

from cuckoo_bot.app import chats, queries
from cuckoo_bot.app.model import DEFAULT_LANGUAGE, Asker, Chat, Player, supported_language
from cuckoo_bot.app.results import Outcome, Reply, ReplyCode
from cuckoo_bot.transport.answers import Answer
from cuckoo_bot.transport.context import CuckooContext
from cuckoo_bot.transport.keydata import KeyData
from cuckoo_bot.transport.services import Services

log = logging.getLogger(__name__)

GROUP_TYPES = (ChatType.GROUP, ChatType.SUPERGROUP)


def chat_of(chat: TgChat) -> Chat:
    return Chat(id=chat.id, title=chat.title or "")


async def group_help(s: Services, chat: Chat, lang: str) -> str:
    """/help in a group (and /start there): by the group's name for the game and its rules."""
    stored = await chats.chat_settings(s.deps, chat)
    return s.renderer.help_group(lang, stored.rules)


def thread_of(update: Update) -> int | None:
    message = update.effective_message
    if message is not None and message.is_topic_message:
        return message.message_thread_id
    return None


async def language_of(s: Services, update: Update) -> str:
    """Groups speak the group's language (the asker's until it has one); private chats the
    user's."""
    chat, user = update.effective_chat, update.effective_user
    if chat is not None and chat.type in GROUP_TYPES:
        asker = user.language_code if user is not None else None
        return await queries.chat_language(s.deps, chat.id, asker)
    if user is not None:
        return await queries.player_language(s.deps, user.id, user.language_code)
    return DEFAULT_LANGUAGE


async def say(
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


# Answers a group's own announcement already tells (``🚪 Ann left the game.``): to a command in
# the group they would say it twice, the second time in the second person to everyone.
TOLD_BY_THE_GAME = frozenset({ReplyCode.RESIGNED})


async def reply(update: Update, s: Services, lang: str, outcome: Outcome) -> None:
    chat = update.effective_chat
    in_group = chat is not None and chat.type != ChatType.PRIVATE
    if outcome.reply is not None and in_group and outcome.reply.code in TOLD_BY_THE_GAME:
        outcome = replace(outcome, reply=None)
    if outcome.reply is not None:
        players = await players_named(s, outcome.reply)
        await say(s, update, s.renderer.reply(lang, outcome.reply, players))
    await s.after(outcome)


async def players_named(s: Services, reply: Reply) -> dict[int, Player]:
    pid = reply.params.get("player")
    if not isinstance(pid, int):
        return {}
    return await queries.players(s.deps, [pid])


async def is_member(context: CuckooContext, chat_id: int, user_id: int) -> bool:
    try:
        member = await context.bot.get_chat_member(chat_id, user_id)
    except TelegramError:
        return False
    return member.status not in (ChatMember.LEFT, ChatMember.BANNED)


async def is_admin(
    context: CuckooContext, chat_id: int, user_id: int, update: Update | None = None
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


async def reachable(context: CuckooContext, s: Services, user: Player, lang: str) -> bool:
    """Can the bot write to ``user`` privately? Known yes, or a greeting gets through."""
    if await chats.reachable(s.deps, user.id):
        return True
    try:
        greeting = await context.bot.send_message(user.id, s.renderer.welcome(lang, user))
    except Forbidden:
        return False
    s.courier.saw(user.id, greeting.message_id)
    s.courier.pacer.sent(user.id)  # the deal that follows keeps the chat's pace
    await chats.set_reachable(s.deps, user, True)
    return True


# A command's handler as PTB calls it, and one that runs in groups only (``group_command``),
# which also gets the services and the group's language.
Handler = Callable[[Update, CuckooContext], Coroutine[object, object, None]]
GroupHandler = Callable[[Update, CuckooContext, Services, str], Coroutine[object, object, None]]


def group_command(func: GroupHandler) -> Handler:
    """Run in groups; in a private chat, say where the command works instead of staying silent."""

    async def wrapper(update: Update, context: CuckooContext) -> None:
        s = context.services
        chat = update.effective_chat
        if chat is None or update.effective_user is None:
            return
        lang = await language_of(s, update)
        if chat.type not in GROUP_TYPES:
            await say(s, update, s.renderer.tr.t(lang, "group_only"))
            return
        await func(update, context, s, lang)

    wrapper.__name__ = getattr(func, "__name__", "group_command")
    return wrapper


@dataclass
class Press:
    """A key pressed: who, on which message, with what data. The answer's language is asked
    of the store only when the key's use case did not say it (``Outcome.lang``)."""

    update: Update
    context: CuckooContext
    services: Services
    user: Player
    data: KeyData
    query: CallbackQuery
    lang: str | None = None  # the answer's language, once known

    async def language(self) -> str:
        if self.lang is None:
            self.lang = await language_of(self.services, self.update)
        return self.lang

    @property
    def chat_id(self) -> int:
        """The chat the key was pressed in (0: an inline message, no chat)."""
        message = self.query.message
        return message.chat.id if message is not None else 0

    @property
    def asker(self) -> Asker:
        """Who pressed, where: for a use case that finds the answer's language itself."""
        return Asker(self.chat_id, self.query.from_user.language_code)


# A key's handler: the use case's outcome to answer with, or None when it answered itself.
KeyHandler = Callable[[Press], Awaitable[Outcome | None]]


def player_of(user: User) -> Player:
    """A ``telegram.User`` as the app's player (names refreshed on every sight)."""
    return Player(
        id=user.id,
        first_name=user.first_name,
        last_name=user.last_name,
        username=user.username,
        language=supported_language(user.language_code),
    )
