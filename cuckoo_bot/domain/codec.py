"""Turn domain values (state, actions, events) into JSON-ready data and back.

Written by hand because the rules core stays on the standard library: the store keeps
snapshots and the audit log in JSON columns, and replay needs an exact round trip.
"""

from __future__ import annotations

import dataclasses
import types
import typing
from collections.abc import Callable
from datetime import datetime
from enum import Enum
from functools import cache
from typing import Any, TypeVar

from cuckoo_bot.domain import actions, events
from cuckoo_bot.domain.cards import Card
from cuckoo_bot.domain.rules import HouseRules
from cuckoo_bot.domain.state import GameState

T = TypeVar("T")

_ACTION_TYPES: dict[str, type[Any]] = {cls.__name__: cls for cls in typing.get_args(actions.Action)}
_EVENT_TYPES: dict[str, type[Any]] = {cls.__name__: cls for cls in typing.get_args(events.Event)}


def dump(value: Any) -> Any:
    """A dataclass, card, enum, tuple or scalar as JSON-ready data."""
    kind: Any = type(value)
    return _dumper(kind)(value)


def load(cls: type[T], data: Any) -> T:
    """The inverse of ``dump`` for a value of type ``cls``."""
    kind: Any = cls
    return typing.cast(T, _loader(kind)(data))


# Each type's way in and out is worked out once (its fields, their types' own ways) and kept:
# the store loads and writes a game's state and its notices at every press, and asking
# ``typing`` about every field each time cost more than the rest of the work.


@cache
def _dumper(cls: Any) -> Callable[[Any], Any]:
    if issubclass(cls, Card):
        return lambda value: value.code
    if issubclass(cls, datetime):
        return lambda value: value.isoformat()
    if issubclass(cls, Enum):
        return lambda value: value.value
    if issubclass(cls, HouseRules):
        return lambda value: value.to_dict()
    if dataclasses.is_dataclass(cls):
        names = tuple(f.name for f in dataclasses.fields(cls))
        return lambda value: {name: dump(getattr(value, name)) for name in names}
    if issubclass(cls, tuple | list):
        return lambda value: [dump(item) for item in value]
    return _same


def _same(data: Any) -> Any:
    return data  # int, str, bool, float, None, a dict of them: JSON holds them as they are


@cache
def _hints(cls: type[Any]) -> dict[str, Any]:
    return typing.get_type_hints(cls)


@cache
def _loader(tp: Any) -> Callable[[Any], Any]:
    origin = typing.get_origin(tp)
    if origin in (typing.Union, types.UnionType):
        options = [a for a in typing.get_args(tp) if a is not type(None)]
        if len(options) != 1:

            def ambiguous(data: Any) -> Any:
                if data is None:
                    return None
                raise TypeError(f"ambiguous union {tp!r}")

            return ambiguous
        inner = _loader(options[0])
        return lambda data: None if data is None else inner(data)
    if origin is tuple:
        args = typing.get_args(tp)
        if len(args) == 2 and args[1] is Ellipsis:
            each = _loader(args[0])
            return lambda data: tuple(each(item) for item in data)
        loaders = tuple(_loader(a) for a in args)
        return lambda data: tuple(
            load_one(item) for load_one, item in zip(loaders, data, strict=True)
        )
    if tp is Card:
        return Card.from_code
    if tp is datetime:
        return datetime.fromisoformat
    if tp is HouseRules:
        return HouseRules.from_dict
    if isinstance(tp, type) and issubclass(tp, Enum):
        return tp
    if isinstance(tp, type) and dataclasses.is_dataclass(tp):
        return _dataclass_loader(tp)
    return _same


def _dataclass_loader(cls: Any) -> Callable[[Any], Any]:
    # Its fields' loaders are found at the first load, not now: a dataclass may hold its own
    # kind (an announcement and the lines told with it).
    fields: list[tuple[str, Callable[[Any], Any]]] = []

    def load_dataclass(data: Any) -> Any:
        if not fields:
            hints = _hints(cls)
            fields.extend((f.name, _loader(hints[f.name])) for f in dataclasses.fields(cls))
        # Missing keys take the field's default, so snapshots written before a field existed load.
        return cls(**{name: load_one(data[name]) for name, load_one in fields if name in data})

    return load_dataclass


def dump_state(state: GameState) -> dict[str, Any]:
    return typing.cast(dict[str, Any], dump(state))


def load_state(data: dict[str, Any]) -> GameState:
    return load(GameState, data)


def dump_action(action: actions.Action) -> dict[str, Any]:
    return {"type": type(action).__name__, **dump(action)}


def load_action(data: dict[str, Any]) -> actions.Action:
    body = dict(data)
    cls = _ACTION_TYPES[body.pop("type")]
    return typing.cast(actions.Action, load(cls, body))


def event_name(event: events.Event) -> str:
    return type(event).__name__


def dump_event(event: events.Event) -> dict[str, Any]:
    return typing.cast(dict[str, Any], dump(event))


def load_event(name: str, data: dict[str, Any]) -> events.Event:
    return typing.cast(events.Event, load(_EVENT_TYPES[name], data))
