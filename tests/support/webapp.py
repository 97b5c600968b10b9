"""A development signer for a Mini App's ``initData``, as Telegram signs it: the fields sorted
into ``key=value`` lines, an HMAC-SHA256 keyed by the bot token's derived key. Tests, the
benchmark and ``cuckoo-bot demo --web`` use it; the bot itself never signs."""

from __future__ import annotations

import contextlib
import hashlib
import hmac
import json
import time
from collections.abc import AsyncIterator
from typing import Any
from urllib.parse import urlencode

import aiohttp
from telegram_webapp_auth.auth import generate_secret_key


def sign_init_data(
    token: str,
    user_id: int,
    first_name: str = "Ann",
    *,
    language: str = "en",
    auth_date: float | None = None,
    start_param: str | None = None,
) -> str:
    user = {"id": user_id, "first_name": first_name, "language_code": language}
    fields = {
        "auth_date": str(int(time.time() if auth_date is None else auth_date)),
        "query_id": f"AAH{user_id}",
        "user": json.dumps(user, separators=(",", ":")),
    }
    if start_param is not None:
        fields["start_param"] = start_param
    check = "\n".join(f"{key}={value}" for key, value in sorted(fields.items()))
    digest = hmac.new(generate_secret_key(token), check.encode(), hashlib.sha256).hexdigest()
    return urlencode({**fields, "hash": digest})


class TablePage:
    """What the live table's page asks of the bot's server, over real HTTP, as one user."""

    def __init__(self, session: aiohttp.ClientSession, base: str, init_data: str | None) -> None:
        self.session = session
        self.base = base.rstrip("/")
        self.init_data = init_data

    @property
    def headers(self) -> dict[str, str]:
        return {"Authorization": f"tma {self.init_data}"} if self.init_data is not None else {}

    async def get(self, game: int | str) -> tuple[int, dict[str, Any]]:
        url = f"{self.base}/app/api/table"
        async with self.session.get(url, params={"game": str(game)}, headers=self.headers) as r:
            return r.status, await r.json()

    async def post(self, path: str, body: dict[str, Any]) -> tuple[int, dict[str, Any]]:
        async with self.session.post(
            f"{self.base}/app/api/{path}", json=body, headers=self.headers
        ) as response:
            return response.status, await response.json()

    async def move(self, view: dict[str, Any], move: str) -> tuple[int, dict[str, Any]]:
        body = {"game": view["game"], "move": move, "turn": view["turn"], "round": view["round"]}
        return await self.post("move", body)

    @contextlib.asynccontextmanager
    async def events(
        self, game: int, after: int | None = None
    ) -> AsyncIterator[AsyncIterator[dict[str, Any]]]:
        """The page's event stream: the views it pushes, one by one."""
        params = {"game": str(game)}
        if after is not None:
            params["after"] = str(after)
        async with self.session.get(
            f"{self.base}/app/api/events", params=params, headers=self.headers
        ) as response:
            assert response.status == 200, await response.text()

            async def views() -> AsyncIterator[dict[str, Any]]:
                data: list[str] = []
                async for raw in response.content:
                    line = raw.decode().rstrip("\n")
                    if line.startswith("data: "):
                        data.append(line[6:])
                    elif not line and data:
                        yield json.loads("\n".join(data))
                        data = []

            yield views()


def hidden_cards_shown(view: dict[str, Any]) -> list[str]:
    """The cards of other seats ``view`` carries before its reveal (there must be none)."""
    if view.get("revealed"):
        return []
    shown = []
    for seat in view["seats"]:
        if seat["card"] is not None and seat["player"] != view["viewer"]:
            shown.append(seat["card"])
    return shown
