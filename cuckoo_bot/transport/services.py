"""What the handlers share, built once by the composition root."""

from __future__ import annotations

from dataclasses import dataclass

from cuckoo_bot.app.deps import Deps
from cuckoo_bot.transport.answers import AnswerQueue
from cuckoo_bot.transport.delivery import Courier
from cuckoo_bot.transport.render import Renderer
from cuckoo_bot.transport.timers import Timers


@dataclass
class Services:
    """What the handlers share; built once by the composition root."""

    deps: Deps
    renderer: Renderer
    courier: Courier
    replies: AnswerQueue
    timers: Timers
    bot_username: str = ""

    async def drain(self, within: float | None = None) -> None:
        """At shutdown: deliveries under way get ``within`` seconds; waiting answers go; what
        is left undelivered is handed back for the next instance."""
        await self.replies.close()
        await self.courier.drain(within)
        await self.courier.hand_back()

    def deep_link(self, payload: str) -> str:
        return f"https://t.me/{self.bot_username}?start={payload}"
