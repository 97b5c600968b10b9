"""Character references in Telegram HTML: `&lt;`, `&gt;`, `&amp;`, `&quot;` and numeric ones
(tdlib MessageEntity.cpp `decode_html_entity`)."""

from __future__ import annotations

_NAMED = {"lt": "<", "gt": ">", "amp": "&", "quot": '"'}


def decode_entity(s: str, i: int) -> tuple[str, int] | None:
    """Decode `&...;` at s[i]; returns (character, index after `;`) or None."""
    end = s.find(";", i + 1, i + 12)
    if end == -1:
        return None
    body = s[i + 1 : end]
    if body in _NAMED:
        return _NAMED[body], end + 1
    code: int | None = None
    if (
        body[:2] in ("#x", "#X")
        and body[2:]
        and all(c in "0123456789abcdefABCDEF" for c in body[2:])
    ):
        code = int(body[2:], 16)
    elif body[:1] == "#" and body[1:].isdigit() and body[1:].isascii():
        code = int(body[1:])
    if code is None or code == 0 or code > 0x10FFFF or 0xD800 <= code <= 0xDFFF:
        return None
    return chr(code), end + 1


def decode_attribute(value: str) -> str:
    out: list[str] = []
    i = 0
    while i < len(value):
        decoded = decode_entity(value, i) if value[i] == "&" else None
        if decoded:
            out.append(decoded[0])
            i = decoded[1]
        else:
            out.append(value[i])
            i += 1
    return "".join(out)
