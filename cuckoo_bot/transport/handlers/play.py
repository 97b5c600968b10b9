"""The game's keys: keep, swap or cut, and My card."""

from __future__ import annotations

from cuckoo_bot.app import play
from cuckoo_bot.app.results import Outcome, ReplyCode
from cuckoo_bot.transport import keydata
from cuckoo_bot.transport.handlers.common import (
    Press,
)


async def move_key(press: Press) -> Outcome | None:
    data = press.data
    outcome = await play.act(
        press.services.deps,
        data.game,
        press.user.id,
        keydata.MOVES[data.kind],
        data.turn,
        press.update.update_id,
        round_no=data.round,
        asker=press.asker,
    )
    message = press.query.message
    if message is not None and message.chat.id > 0:
        # Keys pressed on a prompt the store does not know (shown by a process that died
        # before it recorded the message), or on a turn long over, come off that message:
        # nothing else would ever clear them.
        stale = outcome.reply is not None and outcome.reply.code is ReplyCode.STALE_TURN
        orphan = outcome.batch is not None and not press.services.courier.knows(
            message.chat.id, message.message_id, outcome.batch
        )
        if stale or orphan:
            press.services.courier.clear_keys_later(message.chat.id, message.message_id)
    return outcome


async def my_card_key(press: Press) -> Outcome | None:
    return await play.show_card(press.services.deps, press.data.game, press.user.id)
