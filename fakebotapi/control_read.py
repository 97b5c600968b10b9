"""Test controls that read the fake world and wait for the bot (the base of ``Controls``)."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Callable
from typing import TypeVar

from .api_commands import scope_key
from .models import JSON, CallRecord, DeliveryRecord, StoredMessage
from .state import Listener, TelegramState

T = TypeVar("T")
_POLLING = "getUpdates"


class ReadControls:
    """Reading chats and calls, waiting for the bot, and webhook delivery controls."""

    def __init__(self, world: TelegramState) -> None:
        self.world = world

    # -- reading state -----------------------------------------------------------------

    def messages(self, chat_id: int, include_deleted: bool = True) -> list[StoredMessage]:
        """Messages of a chat in order (live objects; deleted ones are flagged)."""
        chat = self.world.chats.get(chat_id)
        if chat is None:
            return []
        return [m for m in chat.messages.values() if include_deleted or not m.deleted]

    def last_message(self, chat_id: int, from_bot: bool | None = None) -> StoredMessage | None:
        """The newest visible message (optionally only the bot's or only users')."""
        for msg in reversed(self.messages(chat_id, include_deleted=False)):
            if from_bot is None or msg.from_bot == from_bot:
                return msg
        return None

    def dm(self, user_id: int) -> list[StoredMessage]:
        """Messages of the private chat with a user."""
        return self.messages(user_id)

    def calls(self, method: str | None = None, include_polling: bool = False) -> list[CallRecord]:
        """Recorded Bot API calls; getUpdates is left out unless asked for or named."""
        if method is not None:
            return [c for c in self.world.call_log if c.method.lower() == method.lower()]
        return [c for c in self.world.call_log if include_polling or c.method != _POLLING]

    def call_count(self, method: str | None = None, include_polling: bool = False) -> int:
        return len(self.calls(method, include_polling))

    def commands(self, scope: str | JSON | None = None, language_code: str = "") -> list[JSON]:
        """Commands set with setMyCommands for a scope ("default", {"type": "chat", ...})."""
        return list(self.world.bot_commands.get((scope_key(self.world, scope), language_code), []))

    def bot_texts(self) -> dict[str, str]:
        """setMyDescription/ShortDescription/Name values as "field" or "field:lang"."""
        return {f"{f}:{lang}" if lang else f: v for (f, lang), v in self.world.bot_texts.items()}

    def pending_updates(self) -> list[JSON]:
        """Updates not yet confirmed by the bot."""
        return [update for _, _, update in self.world.updates]

    def transcript(self, chat_id: int) -> str:
        """The chat as a human would read it: one line per message, buttons underneath."""
        lines = []
        for msg in self.messages(chat_id):
            sender = self.world.user(msg.sender_id).full_name if msg.sender_id else "?"
            body = msg.text if msg.text is not None else f"[{', '.join(msg.extra) or 'empty'}]"
            flags = (" (edited)" if msg.edit_count else "") + (" [deleted]" if msg.deleted else "")
            sound = ("🔕 " if msg.silent else "") + ("🎉 " if msg.effect_id else "")
            lines.append(f"#{msg.message_id} {sound}{sender}: {body}{flags}")
            for row in msg.buttons():
                lines.append("    " + " ".join(f"[{b.get('text')}]" for b in row))
        return "\n".join(lines)

    def subscribe(self, listener: Listener) -> Callable[[], None]:
        """Call `listener(event, obj)` on every change; returns an unsubscribe function."""
        self.world.listeners.append(listener)
        return lambda: self.world.listeners.remove(listener)

    # -- waiting -----------------------------------------------------------------------

    async def wait_for(
        self,
        predicate: Callable[[], T | None],
        timeout: float = 10.0,  # noqa: ASYNC109 - the test-facing API takes plain timeouts
    ) -> T:
        """Re-check `predicate` on every change; return its first truthy value."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout
        while True:
            signal = self.world.change_signal()
            value = predicate()
            if value:
                return value
            remaining = deadline - loop.time()
            if remaining <= 0:
                raise TimeoutError(f"condition not met within {timeout}s")
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(signal.wait(), remaining)

    async def wait_for_message(
        self,
        chat_id: int,
        contains: str | None = None,
        timeout: float = 10.0,  # noqa: ASYNC109
        from_bot: bool = True,
        after: int | None = None,
    ) -> StoredMessage:
        """First visible message (by default the bot's) with id > `after` containing `contains`."""

        def find() -> StoredMessage | None:
            for msg in self.messages(chat_id, include_deleted=False):
                if msg.from_bot != from_bot or msg.message_id <= (after or 0):
                    continue
                if contains is None or contains in (msg.text or ""):
                    return msg
            return None

        try:
            return await self.wait_for(find, timeout)
        except TimeoutError:
            raise TimeoutError(
                f"no message containing {contains!r} in chat {chat_id} within {timeout}s; "
                f"chat shows:\n{self.transcript(chat_id)}"
            ) from None

    async def wait_idle(self, quiet: float = 0.3, timeout: float = 10.0) -> None:  # noqa: ASYNC109
        """Wait until the bot made no Bot API call except getUpdates for `quiet` seconds."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout
        while loop.time() < deadline:
            before = self.call_count()
            await asyncio.sleep(quiet)  # a quiet period is inherently time based
            if self.call_count() == before:
                return
        raise TimeoutError(f"bot still busy after {timeout}s")

    # -- webhook delivery ----------------------------------------------------------------

    def webhook_targets(self, urls: list[str] | None = None) -> None:
        """Send updates to these URLs in turn instead of the webhook's URL (None: back to it).

        A load balancer in front of several bot instances: each new update goes to the next
        URL of the list, in the order updates are sent (one chat's updates wait for each
        other). An update a target does not take (refused connection, timeout, non-2xx
        answer) goes to the target after it when it is sent again.
        """
        self.world.delivery.set_targets(urls)

    def webhook_duplicate(self, every: int) -> None:
        """Deliver every `every`-th update twice, as Telegram does when it misses an answer.

        Of the updates taken from this call on, every `every`-th is sent again to the target
        after the one that took it (the same URL when there is only one), once that one
        answered 2xx and before the chat's next update; it is retried like any other until
        a target takes it. 0 switches duplicates off.
        """
        self.world.delivery.set_duplicate(every)

    def webhook_deliveries(self, update_id: int | None = None) -> list[DeliveryRecord]:
        """Every POST to a webhook so far (or those of one update), in the order answered."""
        records = self.world.delivery.records
        return [r for r in records if update_id is None or r.update_id == update_id]

    def delivered_update_ids(self) -> list[int]:
        """Ids of the updates a webhook took (2xx), once each, in the order taken."""
        return list(self.world.delivery.delivered)

    def webhook_pending(self) -> int:
        """Updates not yet delivered (in flight or waiting) plus duplicates not yet made."""
        return self.world.delivery.pending()

    async def wait_webhook_idle(self, timeout: float = 10.0) -> None:  # noqa: ASYNC109
        """Wait until every update was delivered (duplicates too) and nothing is in flight."""
        delivery = self.world.delivery
        try:
            await self.wait_for(delivery.idle, timeout)
        except TimeoutError:
            state = "no webhook is set" if delivery.config is None else "webhook set"
            raise TimeoutError(
                f"webhook delivery not idle after {timeout}s ({state}): "
                f"{delivery.pending()} pending; last error: {delivery.last_error_message!r}"
            ) from None
