"""The courier: shows committed notices in Telegram, each chat in its own lane (``courier.py``;
what each chat needs is planned in ``plan_private.py`` and ``plan_group.py``, carried out by
the lanes in ``private.py`` and ``group.py``, through the Bot API calls in ``calls.py``)."""

from cuckoo_bot.transport.delivery.calls import Unreachable
from cuckoo_bot.transport.delivery.courier import Courier
from cuckoo_bot.transport.delivery.plan_group import MAX_FOLDED

__all__ = ["MAX_FOLDED", "Courier", "Unreachable"]
