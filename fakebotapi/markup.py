"""reply_markup as Telegram reads it, with its error texts.

Three stages, as on the real path: the Bot API server parses the JSON (telegram-bot-api
Client.cpp `get_reply_markup`, `get_inline_keyboard_button_type`: errors start "can't parse
inline keyboard button: "), tdlib checks each button (td/telegram/ReplyMarkup.cpp: URLs), and
Telegram's servers refuse what depends on the chat or the data (BUTTON_DATA_INVALID,
BUTTON_TYPE_INVALID). Rules and sources: fakebotapi/RULES.md.
"""

from __future__ import annotations

from collections.abc import Collection
from typing import Any

from .errors import BUTTON_TYPE_INVALID, ApiError, bad_request
from .urls import UrlError, check_link, link_error, link_user_id, origin

Markup = dict[str, Any]

# The button's kind is its first field in this order (Client.cpp); later ones are ignored.
_STRING_ACTIONS = ("url", "callback_data")
_PRESENCE_ACTIONS = (
    "callback_game",
    "pay",
    "switch_inline_query",
    "switch_inline_query_chosen_chat",
    "switch_inline_query_current_chat",
    "login_url",
    "web_app",
    "copy_text",
)
MAX_BUTTONS = 100
MAX_CALLBACK_DATA_BYTES = 64


def _parse_error(what: str) -> ApiError:
    return bad_request(f"can't parse inline keyboard button: {what}")


def _string_field(obj: dict[str, Any], name: str, *, required: bool) -> str | None:
    """JsonObject::get_{required,optional}_string_field: numbers are read as strings."""
    if name not in obj:
        if required:
            raise _parse_error(f'Can\'t find field "{name}"')
        return None
    value = obj[name]
    if isinstance(value, bool) or not isinstance(value, str | int | float):
        raise _parse_error(f'Field "{name}" must be of type String')
    return str(value)


def _kind(button: Any) -> tuple[str, str]:
    """(kind, its string argument): the Bot API server's reading of one button."""
    if not isinstance(button, dict):
        raise _parse_error("InlineKeyboardButton must be an Object")
    _string_field(button, "text", required=True)
    for name in _STRING_ACTIONS:
        value = _string_field(button, name, required=False)
        if value:
            return name, value
    for name in _PRESENCE_ACTIONS:
        if name not in button:
            continue
        if name == "web_app":
            info = button["web_app"]
            if not isinstance(info, dict):
                raise _parse_error('Field "web_app" must be of type Object')
            return name, _string_field(info, "url", required=True) or ""
        return name, ""
    raise _parse_error("Text buttons are unallowed in the inline keyboard")


def _check_web_app(url: str, insecure_origins: Collection[str]) -> None:
    """tdlib: a Web App URL is an https:// link with a dotted host (ReplyMarkup.cpp)."""
    if link_user_id(url) is not None:
        raise bad_request("link to a user can't be used in Web App URL buttons")
    if url.lower().startswith("http://") and origin(url) in insecure_origins:
        return  # FakeBotApi(insecure_web_app_origins=...): the local demo's page
    try:
        check_link(url, http_only=True, https_only=True)
    except UrlError as error:
        raise bad_request(f"inline keyboard button Web App {link_error(url, error)}") from None


def _check_button(
    button: dict[str, Any], kind: str, value: str, insecure_origins: Collection[str]
) -> None:
    text = str(button["text"])
    if not text:
        raise bad_request("inline keyboard button text must be non-empty")
    if not text.strip():
        raise bad_request("BUTTON_TEXT_INVALID")
    if kind == "url" and link_user_id(value) is None:
        try:
            check_link(value)
        except UrlError as error:
            raise bad_request(f"inline keyboard button {link_error(value, error)}") from None
    elif kind == "web_app":
        _check_web_app(value, insecure_origins)
    elif kind == "callback_data" and len(value.encode()) > MAX_CALLBACK_DATA_BYTES:
        raise bad_request("BUTTON_DATA_INVALID")


def _rows(markup: Markup, field: str, owner: str) -> list[list[Any]] | None:
    if field not in markup:
        return None
    rows = markup[field]
    if not isinstance(rows, list):
        raise bad_request(f'field "{field}" must be of type Array')
    if not all(isinstance(row, list) for row in rows):
        suffix = f" of the {owner}" if owner else ""
        raise bad_request(f'field "{field}"{suffix} must be an Array of Arrays')
    return rows


def check_reply_markup(
    markup: Any,
    *,
    inline_only: bool = False,
    private: bool = True,
    insecure_web_app_origins: Collection[str] = (),
) -> Markup | None:
    """The markup as Telegram keeps it (None: no markup), else ApiError(400) like Telegram.

    `private`: the chat is a private chat with the bot (web_app buttons work only there).
    """
    if not isinstance(markup, dict):
        raise bad_request("object expected as reply markup")
    keyboard = _rows(markup, "keyboard", "")
    inline = _rows(markup, "inline_keyboard", "InlineKeyboardMarkup")
    kinds = [[_kind(button) for button in row] for row in inline or []]
    if keyboard:
        if inline_only:
            raise bad_request("inline keyboard expected")
        return markup
    if not any(inline or []):
        removes = markup.get("remove_keyboard") is True or markup.get("force_reply") is True
        if removes and inline_only:
            raise bad_request("inline keyboard expected")
        return markup if removes else None
    assert inline is not None
    for row, row_kinds in zip(inline, kinds, strict=True):
        for button, (kind, value) in zip(row, row_kinds, strict=True):
            _check_button(button, kind, value, insecure_web_app_origins)
    if sum(len(row) for row in inline) > MAX_BUTTONS:
        raise bad_request("reply markup is too long")
    if not private and any(kind == "web_app" for row in kinds for kind, _ in row):
        raise bad_request(BUTTON_TYPE_INVALID)
    return markup


def callback_datas(markup: Markup | None) -> list[str]:
    """All callback_data values of an inline keyboard, row by row."""
    if not markup:
        return []
    return [
        button["callback_data"]
        for row in markup.get("inline_keyboard", [])
        for button in row
        if "callback_data" in button
    ]
