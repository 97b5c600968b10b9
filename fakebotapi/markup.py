"""Validation of reply_markup objects with Telegram's error texts."""

from __future__ import annotations

from typing import Any
from urllib.parse import urlsplit

from .errors import bad_request

Markup = dict[str, Any]

# Exactly one of these must accompany a button's text (Bot API InlineKeyboardButton).
_ACTIONS = (
    "callback_data",
    "url",
    "web_app",
    "login_url",
    "switch_inline_query",
    "switch_inline_query_current_chat",
    "switch_inline_query_chosen_chat",
    "copy_text",
    "callback_game",
    "pay",
)
MAX_BUTTONS = 100


def _button_error(what: str) -> Exception:
    return bad_request(f"can't parse inline keyboard button: {what}")


def valid_button_url(url: str) -> bool:
    """Telegram accepts http(s), tg:// and scheme-less t.me style links with a host."""
    parts = urlsplit(url if "://" in url else "http://" + url)
    if parts.scheme.lower() == "tg":
        return bool(parts.netloc)
    return parts.scheme.lower() in ("http", "https") and "." in parts.netloc


def _check_button(button: Any) -> None:
    if not isinstance(button, dict):
        raise _button_error("InlineKeyboardButton must be an Object")
    text = button.get("text")
    if not isinstance(text, str):
        raise _button_error('Field "text" must be of type String')
    if not text.strip():
        raise bad_request("BUTTON_TEXT_INVALID")
    actions = [name for name in _ACTIONS if name in button]
    if not actions:
        raise _button_error("Text buttons are unallowed in the inline keyboard")
    if len(actions) > 1:
        raise _button_error("exactly one of the optional fields must be used")
    if "callback_data" in button:
        data = button["callback_data"]
        if not isinstance(data, str) or not 1 <= len(data.encode()) <= 64:
            raise bad_request("BUTTON_DATA_INVALID")
    if "url" in button:
        url = button["url"]
        if not isinstance(url, str) or not valid_button_url(url):
            raise bad_request("BUTTON_URL_INVALID")


def check_reply_markup(markup: Any, *, inline_only: bool = False) -> Markup:
    """Return the markup if Telegram would accept it, else raise ApiError(400)."""
    if not isinstance(markup, dict):
        raise bad_request("can't parse reply keyboard markup JSON object")
    if "inline_keyboard" in markup:
        rows = markup["inline_keyboard"]
        if not isinstance(rows, list) or not all(isinstance(row, list) for row in rows):
            raise bad_request(
                'field "inline_keyboard" of the InlineKeyboardMarkup should be an Array of Arrays'
            )
        if sum(len(row) for row in rows) > MAX_BUTTONS:
            raise bad_request("reply markup is too long")
        for row in rows:
            for button in row:
                _check_button(button)
        return markup
    if inline_only:
        raise bad_request("inline keyboard expected")
    if "keyboard" in markup:
        rows = markup["keyboard"]
        if not isinstance(rows, list) or not all(isinstance(row, list) for row in rows):
            raise bad_request(
                'field "keyboard" of the ReplyKeyboardMarkup should be an Array of Arrays'
            )
        return markup
    if markup.get("remove_keyboard") is True or markup.get("force_reply") is True:
        return markup
    raise bad_request('can\'t find field "inline_keyboard"')


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
