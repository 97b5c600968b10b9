"""The courier: sends and edits what the outbox holds, after the move was committed."""

from __future__ import annotations

import asyncio
import logging
from collections import defaultdict
from dataclasses import replace

from telegram import Bot, Message
from telegram.error import (
    BadRequest,
    ChatMigrated,
    Forbidden,
    NetworkError,
    RetryAfter,
    TelegramError,
    TimedOut,
)

from cuckoo_bot.app import chats, queries
from cuckoo_bot.app.deps import Deps
from cuckoo_bot.app.model import NoticeKind, Player, supported_language
from cuckoo_bot.app.queries import Delivery
from cuckoo_bot.transport.render import Rendered, Renderer, group_language

log = logging.getLogger(__name__)


def _not_modified(error: BadRequest) -> bool:
    return "message is not modified" in error.message.lower()


def _edit_target_gone(error: BadRequest) -> bool:
    text = error.message.lower()
    return "message to edit not found" in text or "message can't be edited" in text


class Courier:
    """Delivers pending notices in order, game by game. A lock per game keeps two flushes (a
    press and a timer) from sending the same notice twice, while a game throttled by the
    rate limiter does not hold up the others."""

    def __init__(self, deps: Deps, bot: Bot, renderer: Renderer) -> None:
        self.deps = deps
        self.bot = bot
        self.renderer = renderer
        self._locks: dict[int | None, asyncio.Lock] = defaultdict(asyncio.Lock)
        self._tasks: set[asyncio.Task[int]] = set()

    def schedule(self, game_id: int | None) -> None:
        """Flush in the background: a handler answers at once, and a group held back by
        Telegram's rate limit does not hold up the updates of other groups."""
        task = asyncio.get_running_loop().create_task(self.flush(game_id))
        self._tasks.add(task)
        task.add_done_callback(self._done)

    def _done(self, task: asyncio.Task[int]) -> None:
        self._tasks.discard(task)
        if not task.cancelled() and task.exception() is not None:
            log.error("delivery failed; the sweeper retries", exc_info=task.exception())

    async def drain(self) -> None:
        """Wait for the background flushes (at shutdown)."""
        while self._tasks:
            await asyncio.gather(*list(self._tasks), return_exceptions=True)

    async def flush(self, game_id: int | None = None) -> int:
        """Send what is pending for one game, or for all; returns how many were handled."""
        if game_id is not None:
            return await self._flush_game(game_id)
        handled = 0
        for gid in {
            d.notice.game_id for d in await queries.pending_deliveries(self.deps, None, limit=500)
        }:
            lock = self._locks[gid]
            if not lock.locked():  # a flush of that game is under way and will send them
                handled += await self._flush_game(gid)
        return handled

    async def _flush_game(self, game_id: int | None) -> int:
        async with self._locks[game_id]:
            handled = 0
            while True:
                batch = await queries.pending_deliveries(self.deps, game_id, limit=50)
                batch = [d for d in batch if d.notice.game_id == game_id]
                if not batch:
                    return handled
                for delivery in batch:
                    if not await self._deliver(delivery):
                        return handled  # Telegram is unreachable for now; the sweeper retries
                    handled += 1

    async def _deliver(self, d: Delivery) -> bool:
        notice = d.notice
        private = notice.chat_id > 0
        if private:
            reader = d.players.get(notice.chat_id)
            lang = (reader.language if reader else None) or group_language(d.chat, d.game)
        else:
            lang = group_language(d.chat, d.game)
        try:
            rendered = self.renderer.notice(d, lang)
        except Exception:  # a notice that cannot be rendered must not block the ones behind it
            log.exception("cannot render notice %s", notice.id)
            await queries.delivered(self.deps, notice.id, error="render")
            return True
        try:
            await self._send(d, rendered)
            error = None
        except Forbidden as exc:
            error = f"forbidden: {exc.message}"
            if private and (reader := d.players.get(notice.chat_id)) is not None:
                await chats.set_reachable(self.deps, reader, False)
        except ChatMigrated as exc:
            # The group became a supergroup before we heard of it: move the game there; the
            # migration queues the lobby or table anew for the new chat.
            await chats.chat_migrated(self.deps, notice.chat_id, exc.new_chat_id)
            error = f"migrated to {exc.new_chat_id}"
            if notice.kind not in (NoticeKind.LOBBY, NoticeKind.TABLE):
                # One-off messages (a winner, an announcement) go to the new chat as they are.
                await self._post(
                    replace(d, notice=replace(notice, chat_id=exc.new_chat_id)),
                    rendered,
                    None,
                    None,
                )
                error = None
        except BadRequest as exc:
            error = None if _not_modified(exc) else f"bad request: {exc.message}"
            if error:
                log.warning("notice %s refused: %s", notice.id, exc.message)
        except (RetryAfter, TimedOut, NetworkError) as exc:
            log.warning("notice %s not sent yet: %s", notice.id, exc)
            return False
        await queries.delivered(self.deps, notice.id, error=error)
        return True

    async def _send(self, d: Delivery, rendered: Rendered) -> None:
        notice, game = d.notice, d.game
        kind = notice.kind
        if game is not None and kind is NoticeKind.LOBBY and game.lobby_message_id:
            await self._edit_or_send(d, rendered, game.lobby_message_id, "lobby", None)
            return
        if game is not None and kind is NoticeKind.TABLE:
            round_no = int(notice.payload["round"])
            old = game.table_message_id if game.table_round == round_no else None
            if old and notice.payload.get("actor") is None:
                await self._edit_or_send(d, rendered, old, "table", round_no)
                return
            # A new turn is a new message: Telegram notifies a mention only when it is sent,
            # never when it is edited in. The round's previous message goes, so the group
            # still shows one table per round.
            await self._post(d, rendered, "table", round_no)
            if old:
                await self._retract(notice.chat_id, old)
            return
        await self._post(d, rendered, "lobby" if kind is NoticeKind.LOBBY else None, None)

    async def _retract(self, chat_id: int, message_id: int) -> None:
        """Delete a superseded table message; if Telegram refuses, at least drop its keys."""
        try:
            await self.bot.delete_message(chat_id=chat_id, message_id=message_id)
        except TelegramError:
            try:
                await self.bot.edit_message_reply_markup(
                    chat_id=chat_id, message_id=message_id, reply_markup=None
                )
            except TelegramError as exc:
                log.info("old table message %s left as it was: %s", message_id, exc)

    async def _edit_or_send(
        self, d: Delivery, rendered: Rendered, message_id: int, slot: str, round_no: int | None
    ) -> None:
        try:
            await self.bot.edit_message_text(
                chat_id=d.notice.chat_id,
                message_id=message_id,
                text=rendered.text,
                reply_markup=rendered.keyboard,
            )
        except BadRequest as exc:
            if not _edit_target_gone(exc):
                raise
            await self._post(d, rendered, slot, round_no)  # deleted by someone: post it anew

    async def _post(
        self, d: Delivery, rendered: Rendered, slot: str | None, round_no: int | None
    ) -> Message:
        message = await self.bot.send_message(
            chat_id=d.notice.chat_id,
            text=rendered.text,
            reply_markup=rendered.keyboard,
            message_thread_id=d.notice.thread_id,
        )
        if slot is not None and d.game is not None:
            await queries.remember_message(self.deps, d.game.id, slot, round_no, message.message_id)
            if slot == "lobby":
                d.game.lobby_message_id = message.message_id
            else:
                d.game.table_message_id, d.game.table_round = message.message_id, round_no
        return message


def player_of(user: object) -> Player:
    """A ``telegram.User`` as the app's player (names refreshed on every sight)."""
    from telegram import User

    assert isinstance(user, User)
    return Player(
        id=user.id,
        first_name=user.first_name,
        last_name=user.last_name,
        username=user.username,
        language=supported_language(user.language_code),
    )
