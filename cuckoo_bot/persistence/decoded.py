"""What was decoded from the store's JSON, kept while that JSON is unchanged.

A press reads its game's state, which the previous press wrote, and the notices of the
messages later notices may edit, most of which an earlier press wrote or read. Decoding them
into the domain's values (``codec.load``: a dataclass a field at a time) cost more than reading
them. What this process writes is kept as it writes it, what it reads as it decodes it. Their
JSON comes back from the database as plain data at every read, so the store is still asked
each time and stays the truth: a kept value is used only while the JSON read now equals the
JSON it was kept with (a dict's equality, in C: about 3 µs for a state of six seats, against
260 µs to decode it).

Only immutable values may be kept (the domain's frozen dataclasses and tuples): the caller
receives the very value another caller received. No library keeps a value by a key and checks
it against its source before giving it back; cachetools' LRU does the keeping.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable
from typing import Any, Generic, TypeVar

from cachetools import LRUCache

V = TypeVar("V")


class Decoded(Generic[V]):
    """Values decoded from JSON data, by a key that names where the data was read (a game's
    id, a notice's id), at most ``size`` of them, the least recently read dropped first.
    ``hits`` and ``misses`` count the reads that found a value kept and those that decoded
    (``docs/development.md`` has what a demo game found)."""

    def __init__(self, size: int) -> None:
        self._kept: LRUCache[Hashable, tuple[Any, V]] = LRUCache(size)
        self.hits = 0
        self.misses = 0

    def get(self, key: Hashable, data: Any, decode: Callable[[Any], V]) -> V:
        kept = self._kept.get(key)
        if kept is not None and kept[0] == data:
            self.hits += 1
            return kept[1]
        self.misses += 1
        value = decode(data)
        self._kept[key] = (data, value)
        return value

    def keep(self, key: Hashable, data: Any, value: V) -> None:
        """``value``, written now as ``data``: read back as that JSON, it is ``value`` (the
        codec's round trip is exact). Kept whether or not the write commits: a read compares
        the JSON it finds, so a state another instance wrote, or the one left by a rollback,
        is decoded."""
        self._kept[key] = (data, value)
