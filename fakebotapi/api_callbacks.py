"""answerCallbackQuery: the popup (or alert) a button press shows."""

from __future__ import annotations

import time
from urllib.parse import urlsplit

from .errors import ANSWER_TOO_LONG, bad_request
from .params import Params
from .registry import handler
from .state import TelegramState
from .text import utf16_len

QUERY_TOO_OLD = "query is too old and response timeout expired or query ID is invalid"
# Bot API answerCallbackQuery: "text ... 0-200 characters". Counted in UTF-16 code units, as
# the Bot API counts entity offsets: no source says which unit Telegram's servers count here,
# and a popup within 200 units is within 200 characters too (RULES.md: the stricter reading).
MAX_ANSWER_LENGTH = 200


@handler("answerCallbackQuery")
async def answer_callback_query(world: TelegramState, p: Params) -> bool:
    """Never subject to flood control: the call names no chat."""
    query_id = p.get_str("callback_query_id", required=True)
    query = world.queries.get(query_id or "")
    expired = (
        query is not None
        and world.callback_query_timeout is not None
        and time.monotonic() - query.created > world.callback_query_timeout
    )
    if query is None or query.answered or expired:
        raise bad_request(QUERY_TOO_OLD)
    text = p.get_str("text")
    if text is not None and utf16_len(text) > MAX_ANSWER_LENGTH:
        raise bad_request(ANSWER_TOO_LONG)
    url = p.get_str("url")
    if url and urlsplit(url if "://" in url else "https://" + url).netloc not in (
        "t.me",
        "telegram.me",
    ):
        raise bad_request("URL_INVALID")  # only game URLs and t.me deep links are allowed
    query.answered = True
    query.text = text or None
    query.show_alert = p.get_bool("show_alert")
    query.url = url or None
    query.cache_time = p.get_int("cache_time")
    world.changed("callback_answer", query)
    return True
