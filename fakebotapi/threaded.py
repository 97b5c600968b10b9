"""Run a FakeBotApi in a background thread for synchronous callers."""

from __future__ import annotations

import asyncio
import inspect
import threading
from collections.abc import Callable
from types import TracebackType
from typing import Any, Self, TypeVar

from .server import FakeBotApi

T = TypeVar("T")


class FakeBotApiThread:
    """Owns an event loop thread running the server; `call` runs control methods on it."""

    def __init__(self, **kwargs: Any) -> None:
        self.server = FakeBotApi(**kwargs)
        self._loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self._loop.run_forever, daemon=True)

    def start(self) -> FakeBotApi:
        self._thread.start()
        asyncio.run_coroutine_threadsafe(self.server.start(), self._loop).result(timeout=10)
        return self.server

    def call(self, func: Callable[..., T], *args: Any, **kwargs: Any) -> T:
        """Run `func(*args, **kwargs)` (awaited if it is a coroutine) in the server's loop."""

        async def run() -> T:
            result = func(*args, **kwargs)
            if inspect.isawaitable(result):
                awaited: T = await result
                return awaited
            return result

        return asyncio.run_coroutine_threadsafe(run(), self._loop).result()

    def stop(self) -> None:
        asyncio.run_coroutine_threadsafe(self.server.stop(), self._loop).result(timeout=10)
        self._loop.call_soon_threadsafe(self._loop.stop)
        self._thread.join(timeout=10)
        self._loop.close()

    def __enter__(self) -> Self:
        self.start()
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.stop()
