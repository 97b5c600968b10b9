"""The courier: shows committed notices in Telegram, each chat in its own lane (``courier.py``;
the lanes in ``private.py`` and ``group.py``, the Bot API calls in ``calls.py``)."""

from cuckoo_bot.transport.delivery.calls import Unreachable
from cuckoo_bot.transport.delivery.courier import FRESH, Courier
from cuckoo_bot.transport.delivery.group import MAX_FOLDED

__all__ = ["FRESH", "MAX_FOLDED", "Courier", "Unreachable"]
