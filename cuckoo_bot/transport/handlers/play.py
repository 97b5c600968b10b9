"""The game's keys: keep, swap or cut, and My card."""

from __future__ import annotations

from cuckoo_bot.app import play
from cuckoo_bot.app.results import Outcome
from cuckoo_bot.transport import callbacks as cb
from cuckoo_bot.transport.handlers.common import Press


async def move_key(press: Press) -> Outcome | None:
    data = press.data
    return await play.act(
        press.s.deps,
        data.game,
        press.user.id,
        cb.MOVES[data.kind],
        data.turn,
        press.update.update_id,
        round_no=data.round,
    )


async def my_card_key(press: Press) -> Outcome | None:
    return await play.show_card(press.s.deps, press.data.game, press.user.id)
