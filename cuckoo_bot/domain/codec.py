"""Turn domain values (state, actions, events) into JSON-ready data and back.

Written by hand because the rules core stays on the standard library: the store keeps
snapshots and the audit log in JSON columns, and replay needs an exact round trip.
"""

from __future__ import annotations

import dataclasses
import types
import typing
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
    if isinstance(value, Card):
        return value.code
    if isinstance(value, datetime):
        return value.isoformat()
    if isinstance(value, Enum):
        return value.value
    if isinstance(value, HouseRules):
        return value.to_dict()
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {f.name: dump(getattr(value, f.name)) for f in dataclasses.fields(value)}
    if isinstance(value, tuple | list):
        return [dump(item) for item in value]
    return value


def load(cls: type[T], data: Any) -> T:
    """The inverse of ``dump`` for a value of type ``cls``."""
    return typing.cast(T, _load(cls, data))


@cache
def _hints(cls: type[Any]) -> dict[str, Any]:
    return typing.get_type_hints(cls)


def _load(tp: Any, data: Any) -> Any:
    origin = typing.get_origin(tp)
    if origin in (typing.Union, types.UnionType):
        options = [a for a in typing.get_args(tp) if a is not type(None)]
        if data is None:
            return None
        if len(options) == 1:
            return _load(options[0], data)
        raise TypeError(f"ambiguous union {tp!r}")
    if origin is tuple:
        args = typing.get_args(tp)
        if len(args) == 2 and args[1] is Ellipsis:
            return tuple(_load(args[0], item) for item in data)
        return tuple(_load(a, item) for a, item in zip(args, data, strict=True))
    if tp is Card:
        return Card.from_code(data)
    if tp is datetime:
        return datetime.fromisoformat(data)
    if tp is HouseRules:
        return HouseRules.from_dict(data)
    if isinstance(tp, type) and issubclass(tp, Enum):
        return tp(data)
    if isinstance(tp, type) and dataclasses.is_dataclass(tp):
        hints = _hints(tp)
        # Missing keys take the field's default, so snapshots written before a field existed load.
        kwargs = {
            f.name: _load(hints[f.name], data[f.name])
            for f in dataclasses.fields(tp)
            if f.name in data
        }
        return tp(**kwargs)
    return data  # int, str, bool, float: JSON already holds them as they are


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
