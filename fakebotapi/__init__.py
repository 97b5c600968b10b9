"""A fake Telegram Bot API server for tests, demos and black-box testing.

Start it with `async with FakeBotApi() as server:` and give the bot `server.base_url`.
Updates reach the bot through getUpdates, or POSTed to its webhook once it calls setWebhook.
What it refuses, with Telegram's words and the documentation each rule follows: RULES.md.
"""

from .errors import ApiError
from .models import (
    CallbackQueryRecord,
    CallRecord,
    DeliveryRecord,
    StoredMessage,
    User,
    Version,
)
from .server import CONTROL_ACTIONS, FakeBotApi
from .threaded import FakeBotApiThread

__all__ = [
    "CONTROL_ACTIONS",
    "ApiError",
    "CallRecord",
    "CallbackQueryRecord",
    "DeliveryRecord",
    "FakeBotApi",
    "FakeBotApiThread",
    "StoredMessage",
    "User",
    "Version",
]
