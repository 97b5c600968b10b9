"""Text helpers: UTF-16 offsets, Telegram's whitespace trimming and auto-detected entities."""

from __future__ import annotations

import re
from typing import Any

from .errors import ApiError, bad_request

Entity = dict[str, Any]

# The types a bot may set in `entities` (Client.cpp `get_text_entity_type`); others are skipped.
INPUT_ENTITY_TYPES = frozenset(
    {
        "bold",
        "italic",
        "underline",
        "strikethrough",
        "spoiler",
        "code",
        "pre",
        "text_link",
        "text_mention",
        "custom_emoji",
        "blockquote",
        "expandable_blockquote",
        "date_time",
    }
)
_COMMAND = re.compile(r"(?<![\w/])/[A-Za-z0-9_]{1,32}(?:@[A-Za-z0-9_]{3,32})?(?![\w/])")
_MENTION = re.compile(r"(?<![\w@/])@[A-Za-z0-9_]{5,32}(?!\w)")


def utf16_len(text: str) -> int:
    """Length in UTF-16 code units, the unit of Telegram entity offsets."""
    return len(text.encode("utf-16-le")) // 2


def sort_entities(entities: list[Entity]) -> list[Entity]:
    """Telegram's order: by offset, longer (outer) entities first."""
    return sorted(entities, key=lambda e: (e["offset"], -e["length"]))


def trim(text: str, entities: list[Entity]) -> tuple[str, list[Entity]]:
    """Strip leading/trailing whitespace like Telegram and clip entities to what is left."""
    stripped_left = text.lstrip()
    start = utf16_len(text) - utf16_len(stripped_left)
    result = stripped_left.rstrip()
    end = start + utf16_len(result)
    out: list[Entity] = []
    for ent in entities:
        lo = max(ent["offset"], start)
        hi = min(ent["offset"] + ent["length"], end)
        if hi > lo:
            out.append({**ent, "offset": lo - start, "length": hi - lo})
    return result, sort_entities(out)


def detect_entities(text: str) -> list[Entity]:
    """Entities a Telegram client marks in plain user text: bot commands and @mentions."""
    found: list[Entity] = []
    taken: list[tuple[int, int]] = []
    for kind, pattern in (("bot_command", _COMMAND), ("mention", _MENTION)):
        for m in pattern.finditer(text):
            if any(a < m.end() and m.start() < b for a, b in taken):
                continue
            taken.append((m.start(), m.end()))
            offset = utf16_len(text[: m.start()])
            found.append({"type": kind, "offset": offset, "length": utf16_len(m.group())})
    return sort_entities(found)


def _entity_error(what: str) -> ApiError:
    return bad_request(f"can't parse MessageEntity: {what}")


def _int_field(ent: dict[str, Any], name: str, *, long: bool = False) -> int:
    """tdlib JsonObject::get_required_int_field (numbers or numeric strings)."""
    if name not in ent:
        raise _entity_error(f'Can\'t find field "{name}"')
    value = ent[name]
    if isinstance(value, bool) or not isinstance(value, int | float | str):
        raise _entity_error(f'Field "{name}" must be a Number')
    bits = 63 if long else 31
    try:
        number = int(str(value))
    except ValueError:
        number = None
    if number is None or not -(1 << bits) <= number < 1 << bits:
        raise _entity_error(f'Field "{name}" must be a valid Number')
    return number


def check_explicit_entities(text: str, raw: Any) -> list[Entity]:
    """Caller-supplied entities as telegram-bot-api Client.cpp reads them (`get_text_entity`):
    a value that is not an Array is ignored, types other than the ones a bot may set are
    skipped, a missing field is an error; out-of-range parts are clipped as tdlib does."""
    if not isinstance(raw, list):
        return []
    size = utf16_len(text)
    out: list[Entity] = []
    for ent in raw:
        if not isinstance(ent, dict):
            raise _entity_error("expected an Object")
        offset, length = _int_field(ent, "offset"), _int_field(ent, "length")
        kind = ent.get("type")
        if "type" not in ent:
            raise _entity_error('Can\'t find field "type"')
        if not isinstance(kind, str | int | float) or isinstance(kind, bool):
            raise _entity_error('Field "type" must be of type String')
        if kind == "":
            raise _entity_error("Type is not specified")
        if kind not in INPUT_ENTITY_TYPES:
            continue
        if kind == "text_link" and not isinstance(ent.get("url"), str):
            raise _entity_error('Can\'t find field "url"')
        if kind == "text_mention":
            user = ent.get("user")
            if not isinstance(user, dict):
                raise _entity_error('Can\'t find field "user"')
            _int_field(user, "id", long=True)
        if kind == "custom_emoji":
            _int_field(ent, "custom_emoji_id", long=True)
        if kind == "date_time":
            _int_field(ent, "unix_time")
        lo, hi = max(offset, 0), min(offset + length, size)
        if hi > lo:
            out.append({**ent, "offset": lo, "length": hi - lo})
    return sort_entities(out)
