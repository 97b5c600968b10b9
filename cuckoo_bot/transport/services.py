"""What the handlers share, built once by the composition root."""

from __future__ import annotations

from dataclasses import dataclass

from cuckoo_bot.app.deps import Deps
from cuckoo_bot.app.results import Outcome
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

    async def after(self, outcome: Outcome, *, wait: bool = False) -> None:
        """The step after every use case's commit, wherever it ran (a key, a command, the
        live table, a clock): arm the game's timer, and deliver what the use case wrote, in
        the background (a press is answered at once) or, ``wait``, before going on."""
        if outcome.game_id is not None and outcome.deadline is not None:
            self.timers.arm(outcome.game_id, outcome.deadline)
        if wait:
            if outcome.batch:
                await self.courier.deliver(outcome.batch)
        else:
            self.courier.post(outcome.batch)

    async def drain(self, within: float | None = None) -> None:
        """At shutdown: deliveries under way get ``within`` seconds; waiting answers go; what
        is left undelivered is handed back for the next instance."""
        await self.replies.close()
        await self.courier.drain(within)
        await self.courier.hand_back()

    def deep_link(self, payload: str) -> str:
        return f"https://t.me/{self.bot_username}?start={payload}"
