"""The SQL implementations of the app's repositories, one module each. One ``AsyncSession``
is one transaction (``uow.py``)."""

from cuckoo_bot.persistence.repositories.chats import SqlChats
from cuckoo_bot.persistence.repositories.games import SqlGames
from cuckoo_bot.persistence.repositories.messages import SqlMessages
from cuckoo_bot.persistence.repositories.outbox import SqlOutbox
from cuckoo_bot.persistence.repositories.players import SqlPlayers
from cuckoo_bot.persistence.repositories.standings import SqlStandings
from cuckoo_bot.persistence.repositories.store import Store
from cuckoo_bot.persistence.repositories.sweep import SqlSweep
from cuckoo_bot.persistence.repositories.updates import (
    UPDATE_RETENTION,
    UPDATES_PRUNE_EVERY,
    SqlUpdateLog,
)

__all__ = [
    "UPDATES_PRUNE_EVERY",
    "UPDATE_RETENTION",
    "SqlChats",
    "SqlGames",
    "SqlMessages",
    "SqlOutbox",
    "SqlPlayers",
    "SqlStandings",
    "SqlSweep",
    "SqlUpdateLog",
    "Store",
]
