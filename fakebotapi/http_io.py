"""Reading Bot API requests and writing JSON answers, as Telegram's server does."""

from __future__ import annotations

import json
from typing import Any

from aiohttp import web

from .errors import bad_request


def dumps(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False)


def jsonable(value: Any) -> Any:
    if hasattr(value, "to_dict"):
        return value.to_dict()
    if isinstance(value, list | tuple):
        return [jsonable(v) for v in value]
    return value


def query_value(raw: str) -> Any:
    """GET control arguments: JSON literals (numbers, true, null, objects) or plain strings."""
    try:
        return json.loads(raw)
    except ValueError:
        return raw


async def read_params(request: web.Request) -> dict[str, Any]:
    """Query string plus a JSON, urlencoded or multipart body, as Telegram accepts."""
    params: dict[str, Any] = dict(request.query)
    if not request.body_exists:
        return params
    if request.content_type == "application/json":
        try:
            body = await request.json()
        except ValueError:
            raise bad_request("can't parse JSON body") from None
        if not isinstance(body, dict):
            raise bad_request("JSON body must be an object")
        params.update(body)
        return params
    form = await request.post()
    for key, value in form.items():
        if isinstance(value, web.FileField):
            params[key] = {"file_name": value.filename, "content_type": value.content_type}
        else:
            params[key] = value
    return params
