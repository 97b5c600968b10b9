"""Counting Bot API calls: every HTTP request the bot makes, by method."""

from __future__ import annotations

from collections import Counter
from typing import Any

from telegram.request import HTTPXRequest, RequestData


class Metrics:
    def __init__(self) -> None:
        self.api_calls: Counter[str] = Counter()

    def api_call(self, method: str) -> None:
        self.api_calls[method] += 1

    def total_calls(self, include_polling: bool = False) -> int:
        """Calls made so far; long polling's getUpdates only when asked for."""
        return sum(n for m, n in self.api_calls.items() if include_polling or m != "getUpdates")


class CountingRequest(HTTPXRequest):
    """PTB's HTTP client, counting each Bot API call by its method name."""

    def __init__(self, metrics: Metrics, **kwargs: object) -> None:
        super().__init__(**kwargs)  # type: ignore[arg-type]
        self.metrics = metrics

    async def do_request(
        self,
        url: str,
        method: str,
        request_data: RequestData | None = None,
        read_timeout: Any = None,  # PTB's DefaultValue-or-float; passed through untouched
        write_timeout: Any = None,
        connect_timeout: Any = None,
        pool_timeout: Any = None,
    ) -> tuple[int, bytes]:
        self.metrics.api_call(url.rsplit("/", 1)[-1])
        return await super().do_request(
            url,
            method,
            request_data,
            read_timeout=read_timeout,
            write_timeout=write_timeout,
            connect_timeout=connect_timeout,
            pool_timeout=pool_timeout,
        )
