"""Who is asking: a Mini App request carries Telegram's ``initData``; it is checked as
Telegram documents it (an HMAC-SHA256 over the sorted fields, keyed by a key derived from the
bot token) by telegram-webapp-auth, a kept library, and must not be older than ``max_age``.
The user comes from the checked data and from nothing else the request says."""

from __future__ import annotations

import time
from dataclasses import dataclass
from datetime import timedelta

from telegram_webapp_auth.auth import TelegramAuthenticator, generate_secret_key
from telegram_webapp_auth.errors import ExpiredInitDataError, InvalidInitDataError

from cuckoo_bot.app.model import supported_language

MAX_AGE = timedelta(hours=1)  # CUCKOO_INIT_DATA_MAX_AGE's default


class Refused(Exception):
    """The request's initData is missing, altered, signed for another bot, or too old."""

    def __init__(self, why: str, *, expired: bool = False) -> None:
        super().__init__(why)
        self.expired = expired


@dataclass(frozen=True)
class Viewer:
    """The Telegram user a checked initData names."""

    signed_at: int  # when Telegram signed it (Unix time): it is good until max_age after
    user_id: int
    first_name: str
    last_name: str | None
    username: str | None
    language: str | None  # one the bot speaks, else None
    start_param: str | None  # the link's ``startapp`` value (a game), if any


class InitDataCheck:
    def __init__(self, token: str, max_age: timedelta = MAX_AGE) -> None:
        self._authenticator = TelegramAuthenticator(generate_secret_key(token))
        self._max_age = max_age

    @property
    def max_age(self) -> float:
        return self._max_age.total_seconds()

    def viewer(self, init_data: str | None, now: float | None = None) -> Viewer:
        """The user of a valid, fresh ``init_data``; ``Refused`` otherwise. The signature is
        checked first: only data Telegram signed can be called too old."""
        if not init_data:
            raise Refused("no initData")
        try:
            data = self._authenticator.validate(init_data)
        except (InvalidInitDataError, ExpiredInitDataError) as exc:
            raise Refused(f"initData refused: {exc}") from exc
        except Exception as exc:  # malformed beyond the library's checks (a non-ASCII hash...)
            raise Refused(f"initData unreadable: {type(exc).__name__}") from exc
        age = (time.time() if now is None else now) - data.auth_date
        if age > self._max_age.total_seconds():
            raise Refused("initData too old", expired=True)
        user = data.user
        if user is None:
            raise Refused("initData names no user")
        return Viewer(
            signed_at=data.auth_date,
            user_id=user.id,
            first_name=user.first_name,
            last_name=user.last_name,
            username=user.username,
            language=supported_language(user.language_code),
            start_param=data.start_param,
        )
