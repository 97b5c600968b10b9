"""Column types that behave the same on SQLite and PostgreSQL."""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any

from sqlalchemy import JSON, DateTime
from sqlalchemy.dialects.postgresql import JSONB
from sqlalchemy.engine import Dialect
from sqlalchemy.types import TypeDecorator, TypeEngine


class UtcDateTime(TypeDecorator[datetime]):
    """A timezone-aware instant stored in UTC.

    PostgreSQL keeps ``timestamptz``; SQLite has no time zones, so the value is written as UTC
    without an offset (text comparison then orders instants) and read back as UTC.
    """

    impl = DateTime(timezone=True)
    cache_ok = True

    def process_bind_param(self, value: datetime | None, dialect: Dialect) -> datetime | None:
        if value is None:
            return None
        value = _aware(value).astimezone(UTC)
        return value.replace(tzinfo=None) if dialect.name == "sqlite" else value

    def process_result_value(self, value: datetime | None, dialect: Dialect) -> datetime | None:
        if value is None:
            return None
        if value.tzinfo is None:
            return value.replace(tzinfo=UTC)
        return value.astimezone(UTC)

    # On SQLite the text is written and read by ``datetime``'s own ISO functions (in C), not by
    # SQLAlchemy's ``DATETIME`` processors (a format string and a regular expression in
    # Python): the same text, "2026-11-29 18:30:15.654321", at a fraction of the cost of every
    # instant a press writes and reads. PostgreSQL keeps SQLAlchemy's.

    def bind_processor(self, dialect: Dialect) -> Callable[[Any], Any] | None:
        if dialect.name == "sqlite":
            return _sqlite_text
        return super().bind_processor(dialect)

    def result_processor(self, dialect: Dialect, coltype: Any) -> Callable[[Any], Any] | None:
        if dialect.name == "sqlite":
            return _sqlite_instant
        return super().result_processor(dialect, coltype)


def _sqlite_text(value: datetime | None) -> str | None:
    """An aware instant as SQLite keeps it: UTC, without an offset, to the microsecond."""
    if value is None:
        return None
    return _aware(value).astimezone(UTC).replace(tzinfo=None).isoformat(" ", "microseconds")


def _aware(value: datetime) -> datetime:
    """``value``, refused if it is naive: the store keeps aware instants only."""
    if value.tzinfo is None:
        raise ValueError(f"naive datetime {value!r}: the store keeps aware instants only")
    return value


def _sqlite_instant(value: str | None) -> datetime | None:
    """SQLite's text of an instant, read back as UTC."""
    if value is None:
        return None
    return datetime.fromisoformat(value).replace(tzinfo=UTC)


def json_type() -> TypeEngine[Any]:
    """JSON everywhere, JSONB on PostgreSQL; Python ``None`` is SQL NULL, not JSON ``null``."""
    return JSON(none_as_null=True).with_variant(JSONB(none_as_null=True), "postgresql")
