"""Fair scheduling of updates: a chat's flood waits in that chat's lane, holding none of the
shared handler slots; a repeated command is handled once; a lane's backlog is bounded."""

from __future__ import annotations

import asyncio
from typing import Any

from telegram import Update

from cuckoo_bot.transport.admission import BACKLOG, PER_CHAT, FairUpdates
from cuckoo_bot.transport.metrics import Metrics

FLOODED, CALM = -100, -200


def command(update_id: int, chat: int, user: int, text: str) -> Update:
    return Update.de_json(
        {
            "update_id": update_id,
            "message": {
                "message_id": update_id,
                "date": 0,
                "chat": {"id": chat, "type": "supergroup", "title": "g"},
                "from": {"id": user, "is_bot": False, "first_name": "u"},
                "text": text,
            },
        },
        None,
    )


class Handlers:
    """Stands in for PTB's handlers: records when each update starts and ends."""

    def __init__(self, seconds: float) -> None:
        self.seconds = seconds
        self.started: list[int] = []
        self.running = 0
        self.most = 0

    async def handle(self, update: Update) -> None:
        self.started.append(update.update_id)
        self.running += 1
        self.most = max(self.most, self.running)
        await asyncio.sleep(self.seconds)
        self.running -= 1


async def feed(processor: FairUpdates, handlers: Handlers, updates: list[Update]) -> None:
    async def one(update: Update) -> None:
        await processor.process_update(update, handlers.handle(update))

    tasks: list[asyncio.Task[Any]] = []
    for update in updates:
        tasks.append(asyncio.create_task(one(update)))
        await asyncio.sleep(0)
    await asyncio.gather(*tasks)


async def test_a_flooded_chat_never_holds_back_another() -> None:
    processor = FairUpdates(Metrics(), slots=4)
    handlers = Handlers(seconds=0.02)
    flood = [command(i, FLOODED, user=i, text="/newgame") for i in range(1, 41)]
    calm = command(1000, CALM, user=1, text="/help")
    await feed(processor, handlers, [*flood, calm])
    # The calm group's update started among the first the flood allowed, not behind all 40.
    assert handlers.started.index(1000) <= PER_CHAT
    assert handlers.most <= PER_CHAT + 1  # the flood used its own share of the slots only


async def test_a_command_sent_again_before_its_answer_is_handled_once() -> None:
    processor = FairUpdates(Metrics(), slots=4)
    handlers = Handlers(seconds=0.05)
    same = [command(i, FLOODED, user=7, text="/newgame") for i in range(1, 6)]
    others = [command(10, FLOODED, user=8, text="/newgame"), command(11, FLOODED, 7, "/join")]
    await feed(processor, handlers, [*same, *others])
    assert sorted(handlers.started) == [1, 10, 11]
    # Answered: the same command again (a retry) is a new one.
    await feed(processor, handlers, [command(12, FLOODED, user=7, text="/newgame")])
    assert handlers.started[-1] == 12


async def test_a_lane_holds_a_bounded_backlog() -> None:
    processor = FairUpdates(Metrics(), slots=32)
    handlers = Handlers(seconds=0.05)
    flood = [command(i, FLOODED, user=i, text=f"/join {i}") for i in range(1, 201)]
    await feed(processor, handlers, flood)
    assert len(handlers.started) == PER_CHAT + BACKLOG
    assert handlers.started == sorted(handlers.started)  # in the order they came
