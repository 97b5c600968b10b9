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
    message = press.query.message
    private = message is not None and message.chat.id > 0
    outcome = await play.act(
        press.services.deps,
        data.game,
        press.user.id,
        keydata.MOVES[data.kind],
        data.turn,
        press.update.update_id,
        round_no=data.round,
        asker=press.asker,
        # The answer goes on the message pressed, known to the store or not (a prompt shown by
        # a process that died before it recorded it): its keys come off with the answer, from
        # the outbox, whichever instance delivers it.
        pressed=message.message_id if private and message is not None else None,
    )
    stale = outcome.reply is not None and outcome.reply.code is ReplyCode.STALE_TURN
    if private and message is not None and stale:
        # Keys of a turn long over, pressed: nothing else would clear them (no notice is
        # written for a refused press; pressed again, they are cleared again).
        press.services.courier.clear_keys_later(message.chat.id, message.message_id)
    return outcome


async def my_card_key(press: Press) -> Outcome | None:
    return await play.show_card(press.services.deps, press.data.game, press.user.id)
