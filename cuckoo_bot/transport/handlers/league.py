"""The league and what was played: /leaderboard, /history, /stats."""

from __future__ import annotations

from telegram import InlineKeyboardButton, InlineKeyboardMarkup, Update
from telegram.constants import ChatType
from telegram.error import Forbidden

from cuckoo_bot.app import chats, queries
from cuckoo_bot.app.model import Player, whole_number
from cuckoo_bot.app.queries import Story
from cuckoo_bot.app.results import Reply, ReplyCode
from cuckoo_bot.transport.context import CuckooContext
from cuckoo_bot.transport.handlers.common import (
    group_command,
    language_of,
    player_of,
    say,
)
from cuckoo_bot.transport.render import user_text
from cuckoo_bot.transport.render.story import collapsed
from cuckoo_bot.transport.services import Services


@group_command
async def cmd_leaderboard(update: Update, context: CuckooContext, s: Services, lang: str) -> None:
    assert update.effective_chat
    chat = update.effective_chat
    args = context.args or []
    is_global = bool(args) and args[0].lower() in ("global", "all", "todos", "tous")
    t = s.renderer.tr.t
    where = t(lang, "league_global") if is_global else (chat.title or "")
    scope = None if is_global else chat.id
    season = await queries.leaderboard(s.deps, scope)
    all_time = await queries.leaderboard(s.deps, scope, season="all")
    await say(s, update, s.renderer.leagues(lang, season, all_time, where))


@group_command
async def cmd_history(update: Update, context: CuckooContext, s: Services, lang: str) -> None:
    """``/history``: the group's last games; ``/history N``: game N round by round, folded
    into one message in the group when it fits, else in the asker's private chat (the group
    gets one line, or a key to ask for it privately): a long story never spends the group's
    budget of about 20 messages a minute, so the group's next command is answered at once."""
    assert update.effective_chat and update.effective_user
    chat_id = update.effective_chat.id
    args = context.args or []
    if not args:
        await say(s, update, s.renderer.history(lang, await queries.history(s.deps, chat_id)))
        return
    number = args[0].lstrip("#")
    game_id = whole_number(number, 9)  # game ids are 32-bit in the store
    if game_id is None:
        await say(s, update, s.renderer.reply(lang, Reply(ReplyCode.HISTORY_USAGE)))
        return
    story = await queries.story(s.deps, chat_id, game_id)
    if story is None:
        await say(
            s, update, s.renderer.reply(lang, Reply(ReplyCode.HISTORY_NOT_FOUND, {"game": number}))
        )
        return
    t = s.renderer.tr.t
    folded = collapsed(s.renderer.story(lang, story))
    if folded is not None:
        await say(s, update, folded)
        return
    user = player_of(update.effective_user)
    if await chats.reachable(s.deps, user.id) and await tell_story(s, user, story):
        blank = t(lang, "player_n", n="").strip()
        name = user_text(user.display_name, blank)
        await say(s, update, t(lang, "history_sent", name=name, game=game_id))
        return
    link = s.deep_link(chats.story_payload(game_id))
    key = InlineKeyboardButton(t(lang, "btn_history_private"), url=link)
    await say(s, update, t(lang, "history_private", game=game_id), InlineKeyboardMarkup([[key]]))


async def tell_story(s: Services, user: Player, story: Story) -> bool:
    """A game's story in ``user``'s private chat, in their language; False if the bot may not
    write to them (recorded, so the next ask offers the key at once)."""
    lang = await queries.player_language(s.deps, user.id, user.language)
    try:
        await s.replies.say_privately(user.id, s.renderer.story(lang, story))
    except Forbidden:
        await chats.set_reachable(s.deps, user, False)
        return False
    return True


async def cmd_stats(update: Update, context: CuckooContext) -> None:
    s = context.services
    lang = await language_of(s, update)
    user, chat = update.effective_user, update.effective_chat
    if user is None:
        return
    t = s.renderer.tr.t
    if chat is not None and chat.type != ChatType.PRIVATE:
        # A record is the player's own: a key opens the private chat and shows it there.
        key = InlineKeyboardButton(t(lang, "btn_stats"), url=s.deep_link(chats.STATS_PAYLOAD))
        await say(s, update, t(lang, "stats_private"), InlineKeyboardMarkup([[key]]))
        return
    await show_stats(s, update, user.id, lang)


async def show_stats(s: Services, update: Update, user_id: int, lang: str) -> None:
    stats = await queries.personal_stats(s.deps, user_id)
    await say(s, update, s.renderer.stats(lang, stats))
