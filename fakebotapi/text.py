"""Text helpers: UTF-16 offsets, Telegram's whitespace trimming and auto-detected entities."""

from __future__ import annotations

import re
from typing import Any

from .errors import cant_parse_entities

Entity = dict[str, Any]

ENTITY_TYPES = frozenset(
    {
        "mention",
        "hashtag",
        "cashtag",
        "bot_command",
        "url",
        "email",
        "phone_number",
        "bold",
        "italic",
        "underline",
        "strikethrough",
        "spoiler",
        "blockquote",
        "expandable_blockquote",
        "code",
        "pre",
        "text_link",
        "text_mention",
        "custom_emoji",
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


def check_explicit_entities(text: str, raw: Any) -> list[Entity]:
    """Validate caller-supplied entities; out-of-range parts are clipped as Telegram does."""
    if not isinstance(raw, list):
        raise cant_parse_entities("entities must be an Array")
    size = utf16_len(text)
    out: list[Entity] = []
    for ent in raw:
        if not isinstance(ent, dict):
            raise cant_parse_entities("MessageEntity must be an Object")
        kind = ent.get("type")
        offset, length = ent.get("offset"), ent.get("length")
        if kind not in ENTITY_TYPES:
            raise cant_parse_entities(f"unsupported entity type {kind!r}")
        if not isinstance(offset, int) or not isinstance(length, int):
            raise cant_parse_entities("entity offset and length must be integers")
        if kind == "text_link" and not ent.get("url"):
            raise cant_parse_entities("text_link entity must have a url")
        if kind == "text_mention" and not isinstance(ent.get("user"), dict):
            raise cant_parse_entities("text_mention entity must have a user")
        if kind == "custom_emoji" and not ent.get("custom_emoji_id"):
            raise cant_parse_entities("custom_emoji entity must have a custom_emoji_id")
        lo, hi = max(offset, 0), min(offset + length, size)
        if hi > lo:
            out.append({**ent, "offset": lo, "length": hi - lo})
    return sort_entities(out)
