"""The store: SQLAlchemy models, repositories, the unit of work and migrations."""

from cuckoo_bot.persistence.engine import make_engine
from cuckoo_bot.persistence.migrate import check, downgrade, upgrade
from cuckoo_bot.persistence.uow import SqlUnitOfWork, sql_uow_factory

__all__ = ["SqlUnitOfWork", "check", "downgrade", "make_engine", "sql_uow_factory", "upgrade"]
