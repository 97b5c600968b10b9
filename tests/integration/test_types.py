"""``UtcDateTime`` on SQLite writes and reads an instant by ``datetime``'s own ISO functions:
the very text SQLAlchemy's ``DATETIME`` wrote before (rows already stored read the same, and
text order stays time order), and the same instant back."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta, timezone

import pytest
from hypothesis import given
from hypothesis import strategies as st
from sqlalchemy.dialects.sqlite import DATETIME
from sqlalchemy.dialects.sqlite.aiosqlite import dialect as aiosqlite_dialect

from cuckoo_bot.persistence.types import UtcDateTime

SQLITE = aiosqlite_dialect()
WRITE = UtcDateTime().dialect_impl(SQLITE).bind_processor(SQLITE)
READ = UtcDateTime().dialect_impl(SQLITE).result_processor(SQLITE, None)
SQLALCHEMY_WRITES = DATETIME().bind_processor(SQLITE)
SQLALCHEMY_READS = DATETIME().result_processor(SQLITE, None)

zones = st.sampled_from(
    [UTC, timezone(timedelta(hours=-9, minutes=-30)), timezone(timedelta(hours=14))]
)
instants = st.builds(
    lambda naive, zone: naive.replace(tzinfo=zone),
    st.datetimes(min_value=datetime(2, 1, 1), max_value=datetime(9998, 12, 31)),
    zones,
)


@given(instants)
def test_the_text_is_sqlalchemys_and_reads_back_as_the_same_instant(instant: datetime) -> None:
    assert WRITE is not None and READ is not None
    assert SQLALCHEMY_WRITES is not None and SQLALCHEMY_READS is not None
    text = WRITE(instant)
    assert text == SQLALCHEMY_WRITES(instant.astimezone(UTC).replace(tzinfo=None))
    assert READ(text) == instant and READ(text).tzinfo == UTC
    assert SQLALCHEMY_READS(text).replace(tzinfo=UTC) == instant


@given(instants, instants)
def test_text_order_is_time_order(first: datetime, second: datetime) -> None:
    """SQLite compares the texts (deadlines due, notices older than a moment)."""
    assert WRITE is not None
    assert (WRITE(first) < WRITE(second)) == (first < second)


def test_a_naive_datetime_and_nothing() -> None:
    assert WRITE is not None and READ is not None
    with pytest.raises(ValueError, match="naive"):
        WRITE(datetime(2026, 12, 7, 12, 0))
    assert WRITE(None) is None and READ(None) is None
    assert READ("2026-12-07 12:00:00") == datetime(2026, 12, 7, 12, tzinfo=UTC)  # no fraction
