"""Test controls for what goes wrong between the bot and Telegram: flood control, lost answers,
messages too old to delete."""

from __future__ import annotations

from .control_read import ReadControls
from .models import JSON, StoredMessage
from .registry import CANONICAL


class FaultControls(ReadControls):
    """429s, chats held back, early retries recorded, answers lost, messages aged."""

    def flood(self, chat_id: int | None = None, retry_after: int = 1, count: int = 1) -> None:
        """The next `count` send/edit calls (to `chat_id`, or any) get 429 retry_after."""
        self.world.flood.arm(chat_id, retry_after, count)

    def flood_chat(self, chat_id: int, seconds: float) -> None:
        """Hold a chat back, as Telegram does a busy group: for the next `seconds`, every counted
        call naming it (a send; in a group also an edit or a delete) gets 429 with retry_after
        the whole seconds left. Other chats go on; works with or without `rate_limit`."""
        if isinstance(seconds, bool) or not isinstance(seconds, int | float) or seconds <= 0:
            raise ValueError("seconds must be a number > 0")
        self.world.flood.hold(int(chat_id), float(seconds))

    def flood_violations(self) -> list[JSON]:
        """Counted calls made before the retry_after a 429 gave their chat had passed, in order:
        `{"chat_id", "method", "early_by"}` (seconds too early). Each got 429 again."""
        return [violation.to_dict() for violation in self.world.flood.violations]

    def drop_answers(self, method: str, chat_id: int | None = None, count: int = 1) -> None:
        """The next `count` successful calls of `method` (naming `chat_id`, if given) are carried
        out in full, but the connection closes without an answer: the bot sees a network error
        ("Server disconnected without sending a response"), not an HTTP status."""
        canonical = CANONICAL.get(str(method).lower())
        if canonical is None:
            raise ValueError(f"no Bot API method {method!r}")
        self.world.lost_answers.add(canonical, None if chat_id is None else int(chat_id), count)

    def age_message(self, chat_id: int, message_id: int, seconds: float) -> StoredMessage:
        """Make a message `seconds` older (its date moves back), e.g. past the 48 hours after
        which Telegram no longer lets a bot delete it."""
        chat = self.world.chats.get(chat_id)
        msg = chat.messages.get(message_id) if chat is not None else None
        if msg is None:
            raise ValueError(f"no message {message_id} in chat {chat_id}")
        msg.date -= int(seconds)
        self.world.changed("age", msg)
        return msg
