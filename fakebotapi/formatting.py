"""Message text and captions as Telegram takes them: parse_mode or entities, trimming, lengths.

Where each limit comes from (RULES.md has the table):
- telegram-bot-api Client.cpp `get_input_message_text`: an empty `text` parameter is "Message
  text is empty"; `get_formatted_text`: a source over 1 << 15 bytes is "Text is too long";
- tdlib MessageEntity.cpp `fix_formatted_text`: text that is empty once parsed and trimmed is
  "Text must be non-empty" (captions may be empty);
- tdlib MessageContent.cpp: over `message_text_length_max` (4096) / `message_caption_length_max`
  (1024) characters is "Message is too long" / "Message caption is too long". tdlib counts with
  `utf8_length`: Unicode characters, so an emoji outside the BMP counts 1 (entity offsets are
  UTF-16 code units; the length limit is not).
"""

from __future__ import annotations

from typing import Any

from .errors import (
    CAPTION_TOO_LONG,
    SOURCE_TOO_LONG,
    TEXT_EMPTY,
    TEXT_EMPTY_AFTER_PARSING,
    TEXT_TOO_LONG,
    bad_request,
    cant_parse_entities,
)
from .html import UserLookup, parse_html
from .text import Entity, check_explicit_entities, trim

MAX_TEXT_LENGTH = 4096
MAX_CAPTION_LENGTH = 1024
MAX_SOURCE_BYTES = 1 << 15


def telegram_length(text: str) -> int:
    """Length as Telegram limits it: Unicode characters (tdlib's utf8_length), not UTF-16."""
    return len(text)


def format_text(
    source: str | None,
    parse_mode: str | None,
    entities: Any,
    *,
    users: UserLookup,
    strict_ampersand: bool = True,
    caption: bool = False,
) -> tuple[str, list[Entity]]:
    """Apply parse_mode/entities, trim and check the length like Telegram."""
    if source is None or source == "":
        if caption:
            return "", []
        raise bad_request(TEXT_EMPTY)
    if len(source.encode()) > MAX_SOURCE_BYTES:
        raise bad_request(SOURCE_TOO_LONG)
    mode = (parse_mode or "").lower()
    if mode == "html":
        text, parsed = parse_html(source, users, strict_ampersand=strict_ampersand)
    elif mode in ("markdown", "markdownv2"):
        raise cant_parse_entities(f"parse_mode {parse_mode} is not supported by the fake Bot API")
    elif mode and mode != "none":
        raise bad_request("unsupported parse_mode")
    else:
        text, parsed = source, []
    if entities is not None and mode in ("", "none"):  # a parse_mode wins over entities
        parsed = []
        for ent in check_explicit_entities(text, entities):
            if ent["type"] == "text_mention":
                ent["user"] = users(int(ent["user"]["id"]))
                if ent["user"] is None:
                    continue  # a user Telegram cannot show: plain text, as with <a href>
            parsed.append(ent)
    text, parsed = trim(text, parsed)
    if not text and not caption:
        raise bad_request(TEXT_EMPTY_AFTER_PARSING)
    limit = MAX_CAPTION_LENGTH if caption else MAX_TEXT_LENGTH
    if telegram_length(text) > limit:
        raise bad_request(CAPTION_TOO_LONG if caption else TEXT_TOO_LONG)
    return text, parsed
