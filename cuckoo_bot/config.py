"""Settings from the environment (prefix ``CUCKOO_``) or a ``.env`` file."""

from __future__ import annotations

import re
from typing import Literal

from pydantic import Field, SecretStr, field_validator
from pydantic_settings import BaseSettings, SettingsConfigDict

DEFAULT_DATABASE_URL = "sqlite+aiosqlite:///cuckoo.db"
DEFAULT_API_BASE_URL = "https://api.telegram.org/bot"
TOKEN_PATTERN = re.compile(r"^\d{1,20}:[A-Za-z0-9_-]{20,}$")
TOKEN_HELP = (
    "CUCKOO_BOT_TOKEN {problem}: talk to @BotFather in Telegram (https://t.me/BotFather),"
    " send /newbot, and put the token it gives you in CUCKOO_BOT_TOKEN or in a .env file"
)


class SettingsError(ValueError):
    """A setting is missing or malformed; the message is one line meant for the operator."""


class Settings(BaseSettings):
    """Everything an operator can set. Only the bot token is required to run."""

    model_config = SettingsConfigDict(env_prefix="CUCKOO_", env_file=".env", extra="ignore")

    bot_token: SecretStr | None = None
    database_url: str = DEFAULT_DATABASE_URL
    api_base_url: str = DEFAULT_API_BASE_URL
    turn_timeout: float = Field(default=90.0, gt=0, le=86_400)
    lobby_timeout: float = Field(default=600.0, gt=0, le=86_400)
    # Telegram lets a bot post about 20 messages a minute to one group; edits count too.
    group_rate: int = Field(default=20, ge=1, le=100_000)
    # Seconds between two messages to one private chat (Telegram asks for about one a second).
    private_interval: float = Field(default=1.0, ge=0, le=60)
    # Seeds the shuffle so a game can be replayed (tests, demos). Unset in production, where
    # the cards come from the operating system's CSPRNG.
    seed: int | None = None
    log_level: Literal["DEBUG", "INFO", "WARNING", "ERROR", "CRITICAL"] = "INFO"

    @field_validator("log_level", mode="before")
    @classmethod
    def _upper(cls, value: object) -> object:
        return value.upper() if isinstance(value, str) else value

    def token(self) -> str:
        """The bot token, or a ``SettingsError`` naming the variable and where to get one."""
        if self.bot_token is None or not self.bot_token.get_secret_value().strip():
            raise SettingsError(TOKEN_HELP.format(problem="is not set"))
        token = self.bot_token.get_secret_value().strip()
        if not TOKEN_PATTERN.match(token):
            raise SettingsError(
                TOKEN_HELP.format(problem="does not look like a bot token (123456:ABC...)")
            )
        return token
