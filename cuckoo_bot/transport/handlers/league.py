"""The league and what was played: /leaderboard, /history, /stats."""

from __future__ import annotations

from telegram import Update
from telegram.constants import ChatType
from telegram.ext import ContextTypes

from cuckoo_bot.app import queries
from cuckoo_bot.app.model import whole_number
from cuckoo_bot.app.results import Reply
from cuckoo_bot.transport.handlers.common import (
    Services,
    group_command,
    language_of,
    say,
    services,
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
    await say(s, update, text)


@group_command
async def cmd_history(
    update: Update, context: ContextTypes.DEFAULT_TYPE, s: Services, lang: str
) -> None:
    """``/history``: the group's last games; ``/history N``: game N round by round."""
    assert update.effective_chat
    chat_id = update.effective_chat.id
    args = context.args or []
    if not args:
        await say(s, update, s.renderer.history(lang, await queries.history(s.deps, chat_id)))
        return
    number = args[0].lstrip("#")
    game_id = whole_number(number, 9)  # game ids are 32-bit in the store
    if game_id is None:
        await say(s, update, s.renderer.reply(lang, Reply("history_usage")))
        return
    story = await queries.story(s.deps, chat_id, game_id)
    if story is None:
        await say(s, update, s.renderer.reply(lang, Reply("history_not_found", {"game": number})))
        return
    for page in s.renderer.story(lang, story):
        await say(s, update, page)


async def cmd_stats(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    s = services(context)
    lang = await language_of(s, update)
    user, chat = update.effective_user, update.effective_chat
    if user is None:
        return
    t = s.renderer.tr.t
    if chat is not None and chat.type != ChatType.PRIVATE:
        link = f"https://t.me/{s.bot_username}"
        await say(s, update, t(lang, "private_only", link=link))
        return
    stats = await queries.personal_stats(s.deps, user.id)
    await say(s, update, s.renderer.stats(lang, stats))
