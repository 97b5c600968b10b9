"""Telegram's HTML parse_mode, written by hand.

No library reproduces Telegram's subset and its error rules, so this follows the algorithm of
tdlib's `parse_html` (same tags, same error wording, byte offsets in UTF-8), with one deliberate
difference: a bare `&` that does not start a supported entity is an error here (Telegram keeps it
literally), so a bot that forgets to escape user text fails loudly in tests.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from .errors import DATE_FORMAT_INVALID, cant_parse_entities
from .html_escapes import decode_attribute, decode_entity
from .text import Entity, sort_entities, utf16_len
from .urls import UrlError, check_link, link_user_id

UserLookup = Callable[[int], dict[str, Any] | None]

_SIMPLE = {
    "b": "bold",
    "strong": "bold",
    "i": "italic",
    "em": "italic",
    "u": "underline",
    "ins": "underline",
    "s": "strikethrough",
    "strike": "strikethrough",
    "del": "strikethrough",
    "tg-spoiler": "spoiler",
}
_TAGS = frozenset({*_SIMPLE, "a", "tg-emoji", "tg-time", "span", "pre", "code", "blockquote"})
# Bot API "Date-time entity formatting" (https://core.telegram.org/bots/api#date-time-entity-formatting):
# "r" (relative), or optionally "w" (day of the week), then "d"/"D" (short/long date), then
# "t"/"T" (short/long time); empty shows the text as it is.
TIME_FORMAT = re.compile(r"r|w?[dD]?[tT]?")
_SPACES = " \t\r\n\v\f"


@dataclass
class _Open:
    tag: str
    argument: str
    offset: int  # UTF-16 offset in the result
    begin: int  # index in the result string, for <a> without href


def _link_entity(url: str, users: UserLookup) -> Entity | None:
    """Entity for `<a href=url>` (tdlib parse_html): a mention for `tg://user?id=N`, a link
    for what LinkManager::get_checked_link accepts, nothing for the rest.

    A mention Telegram cannot show (the user is unknown to it, or their privacy settings forbid
    it) is sent as plain text: no entity. The fake knows a user once a test added them.
    """
    user_id = link_user_id(url)
    if user_id is not None:
        user = users(user_id)
        return {"type": "text_mention", "user": user} if user is not None else None
    try:
        return {"type": "text_link", "url": check_link(url)}
    except UrlError:
        return None  # Telegram silently drops links it cannot open


def _int32(text: str) -> int:
    """td::to_integer<int32>: leading digits (0 if none), wrapped to 32 bits as C++ does."""
    sign, digits = (-1, text[1:]) if text.startswith("-") else (1, text)
    end = next((i for i, c in enumerate(digits) if not "0" <= c <= "9"), len(digits))
    value = (sign * int(digits[:end]) if end else 0) & 0xFFFFFFFF
    return value - (1 << 32) if value >= 1 << 31 else value


def _int64(text: str) -> int | None:
    """td::to_integer_safe<int64>: the whole text is a number, else None."""
    digits = text[1:] if text.startswith("-") else text
    if not (digits.isdigit() and digits.isascii()) or not -(1 << 63) <= int(text) < 1 << 63:
        return None
    return int(text)


class _Parser:
    def __init__(self, s: str, users: UserLookup, strict_ampersand: bool) -> None:
        self.s = s
        self.users = users
        self.strict_ampersand = strict_ampersand
        self.out: list[str] = []
        self.length = 0  # UTF-16 length of the result so far
        self.chars = 0  # str length of the result so far
        self.open: list[_Open] = []
        self.entities: list[Entity] = []

    def at(self, i: int) -> str:
        return self.s[i] if i < len(self.s) else ""

    def byte_offset(self, i: int) -> int:
        return len(self.s[:i].encode())

    def emit(self, text: str) -> None:
        self.out.append(text)
        self.length += utf16_len(text)
        self.chars += len(text)

    def run(self) -> tuple[str, list[Entity]]:
        i = 0
        while i < len(self.s):
            c = self.s[i]
            if c == "&":
                decoded = decode_entity(self.s, i)
                if decoded:
                    self.emit(decoded[0])
                    i = decoded[1]
                    continue
                if self.strict_ampersand:
                    raise cant_parse_entities(
                        f'Character "&" at byte offset {self.byte_offset(i)} does not start '
                        'a supported entity; escape it as "&amp;"'
                    )
            if c != "<":
                self.emit(c)
                i += 1
                continue
            i = self.end_tag(i) if self.at(i + 1) == "/" else self.start_tag(i)
        if self.open:
            raise cant_parse_entities(
                f'Can\'t find end tag corresponding to start tag "{self.open[-1].tag}"'
            )
        for entity in self.entities:
            entity.pop("_language", None)
        return "".join(self.out), sort_entities(self.entities)

    def start_tag(self, begin: int) -> int:
        i = begin + 1
        while i < len(self.s) and self.s[i] not in _SPACES and self.s[i] != ">":
            i += 1
        if i >= len(self.s):
            raise cant_parse_entities(
                f"Unclosed start tag at byte offset {self.byte_offset(begin)}"
            )
        tag = self.s[begin + 1 : i].lower()
        where = f"at byte offset {self.byte_offset(begin)}"
        if tag not in _TAGS:
            raise cant_parse_entities(f'Unsupported start tag "{tag}" {where}')
        argument = ""
        while self.at(i) != ">":
            while self.at(i) and self.at(i) in _SPACES:
                i += 1
            if self.at(i) == ">":
                break
            name_start = i
            while self.at(i) and self.at(i) not in _SPACES and self.at(i) not in "=>":
                i += 1
            name = self.s[name_start:i]
            if not name:
                raise cant_parse_entities(f'Empty attribute name in the tag "{tag}" {where}')
            while self.at(i) and self.at(i) in _SPACES:
                i += 1
            if self.at(i) != "=":
                if tag == "blockquote" and name == "expandable":
                    argument = "1"  # a bare boolean attribute is allowed here
                    continue
                raise cant_parse_entities(
                    f'Expected equal sign in declaration of an attribute of the tag "{tag}" {where}'
                )
            i += 1
            while self.at(i) and self.at(i) in _SPACES:
                i += 1
            if not self.at(i):
                raise cant_parse_entities(f"Unclosed start tag {where}")
            value, i = self.attribute_value(i)
            argument = self.tag_argument(tag, name, value, argument)
        if tag == "span" and argument != "spoiler":
            raise cant_parse_entities(f'Tag "span" must have class "tg-spoiler" {where}')
        self.open.append(_Open(tag, argument, self.length, self.chars))
        return i + 1

    def attribute_value(self, i: int) -> tuple[str, int]:
        quote = self.at(i)
        if quote not in ("'", '"'):
            start = i
            while self.at(i) and (self.at(i).isalnum() or self.at(i) in ".-"):
                i += 1
            if not self.at(i) or (self.at(i) not in _SPACES and self.at(i) != ">"):
                raise cant_parse_entities(
                    f"Unexpected end of name token at byte offset {self.byte_offset(start)}"
                )
            return self.s[start:i].lower(), i
        end = self.s.find(quote, i + 1)
        if end == -1:
            raise cant_parse_entities(
                f"Unclosed end of attribute value at byte offset {self.byte_offset(i)}"
            )
        return decode_attribute(self.s[i + 1 : end]), end + 1

    @staticmethod
    def tag_argument(tag: str, name: str, value: str, current: str) -> str:
        if tag == "a" and name == "href":
            return value
        if tag == "code" and name == "class" and value.startswith("language-"):
            return value[len("language-") :]
        if tag == "span" and name == "class" and value.startswith("tg-"):
            return value[len("tg-") :]
        if tag == "tg-emoji" and name == "emoji-id":
            return value
        if tag == "blockquote" and name == "expandable":
            return "1"
        if tag == "tg-time" and name in ("unix", "format"):
            unix, _, form = current.partition("|")  # kept as "unix|format"
            return f"{value}|{form}" if name == "unix" else f"{unix}|{value}"
        return current

    def end_tag(self, begin: int) -> int:
        where = f"at byte offset {self.byte_offset(begin)}"
        if not self.open:
            raise cant_parse_entities(f"Unexpected end tag {where}")
        i = begin + 2
        while self.at(i) and self.at(i) not in _SPACES and self.at(i) != ">":
            i += 1
        name = self.s[begin + 2 : i]
        while self.at(i) and self.at(i) in _SPACES:
            i += 1
        if self.at(i) != ">":
            raise cant_parse_entities(f"Unclosed end tag {where}")
        top = self.open.pop()
        if name and name != top.tag:
            raise cant_parse_entities(
                f'Unmatched end tag {where}, expected "</{top.tag}>", found "</{name}>"'
            )
        if self.length > top.offset:
            self.close(top)
        return i + 1

    def close(self, top: _Open) -> None:
        span = {"offset": top.offset, "length": self.length - top.offset}
        last = self.entities[-1] if self.entities else None
        if top.tag in _SIMPLE:
            self.entities.append({"type": _SIMPLE[top.tag], **span})
        elif top.tag == "span":
            self.entities.append({"type": "spoiler", **span})
        elif top.tag == "a":
            url = top.argument or "".join(self.out)[top.begin :]
            link = _link_entity(url, self.users)
            if link is not None:
                self.entities.append({**link, **span})
        elif top.tag == "tg-emoji":
            emoji_id = _int64(top.argument)
            if not emoji_id:
                raise cant_parse_entities("Invalid custom emoji identifier specified")
            self.entities.append({"type": "custom_emoji", **span, "custom_emoji_id": str(emoji_id)})
        elif top.tag == "tg-time":
            unix, _, form = top.argument.partition("|")
            if not TIME_FORMAT.fullmatch(form):
                raise cant_parse_entities(DATE_FORMAT_INVALID)
            date = _int32(unix)
            if date > 0:  # tdlib keeps no entity for a missing or bad unix time
                self.entities.append(
                    {"type": "date_time", **span, "unix_time": date, "date_time_format": form}
                )
        elif top.tag == "blockquote":
            kind = "expandable_blockquote" if top.argument else "blockquote"
            self.entities.append({"type": kind, **span})
        elif top.tag == "code":
            entity: Entity = {"type": "code", **span}
            if top.argument:
                entity["_language"] = top.argument  # only kept if a <pre> wraps it
            self.entities.append(entity)
        elif (
            last is not None
            and last["type"] == "code"
            and last["offset"] == span["offset"]
            and last["length"] == span["length"]
            and "_language" in last
        ):
            # <pre><code class="language-x"> is one pre entity with a language
            self.entities[-1] = {"type": "pre", **span, "language": last["_language"]}
        else:
            self.entities.append({"type": "pre", **span})


def parse_html(
    source: str, users: UserLookup, *, strict_ampersand: bool = True
) -> tuple[str, list[Entity]]:
    """Parse Telegram HTML into (plain text, entities); raises ApiError(400) like Telegram."""
    return _Parser(source, users, strict_ampersand).run()
