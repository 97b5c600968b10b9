"""The handlers' typed PTB context: ``context.services`` instead of a dict lookup and a cast."""

from __future__ import annotations

from typing import Any

from telegram.ext import Application, CallbackContext, ContextTypes, ExtBot, JobQueue

from cuckoo_bot.transport.services import Services


class BotData:
    """The application's ``bot_data``: the services, set once by the composition root."""

    def __init__(self) -> None:
        self._services: Services | None = None

    @property
    def services(self) -> Services:
        if self._services is None:
            raise RuntimeError("the bot's services are not installed yet")
        return self._services

    @services.setter
    def services(self, services: Services) -> None:
        self._services = services


class CuckooContext(CallbackContext[ExtBot[None], dict[Any, Any], dict[Any, Any], BotData]):
    """What every handler gets besides the update."""

    @property
    def services(self) -> Services:
        return self.bot_data.services


CONTEXT_TYPES = ContextTypes(context=CuckooContext, bot_data=BotData)

# The bot's application, typed by its context and bot data (PTB's builder leaves the bot's
# and the job queue's parameters loose; chat and user data are unused dicts).
CuckooApp = Application[
    ExtBot[Any], CuckooContext, dict[Any, Any], dict[Any, Any], BotData, JobQueue[Any]
]
