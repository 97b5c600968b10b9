"""Settings from the environment (prefix ``CUCKOO_``) or a ``.env`` file."""

from __future__ import annotations

import re
import socket
from typing import Literal
from urllib.parse import urlsplit

from pydantic import Field, SecretStr, ValidationInfo, field_validator
from pydantic_settings import BaseSettings, SettingsConfigDict
from telegram.constants import FloodLimit

from cuckoo_bot.app.deps import LOBBY_TIMEOUT, REVEAL_PAUSE, TURN_TIMEOUT, TURN_WARNING

DEFAULT_DATABASE_URL = "sqlite+aiosqlite:///cuckoo.db"
DEFAULT_API_BASE_URL = "https://api.telegram.org/bot"
TOKEN_PATTERN = re.compile(r"^\d{1,20}:[A-Za-z0-9_-]{20,}$")
INSTANCE_PATTERN = re.compile(r"^[A-Za-z0-9._:-]{1,64}$")
APP_NAME_PATTERN = re.compile(r"^[A-Za-z0-9_]{3,64}$")  # a Mini App's short name
SECRET_PATTERN = re.compile(r"^[A-Za-z0-9_-]{1,256}$")  # what Telegram accepts as secret_token
# Bot API, setWebhook: "Ports currently supported for webhooks: 443, 80, 88, 8443."
WEBHOOK_PORTS = (443, 80, 88, 8443)
TOKEN_HELP = (
    "CUCKOO_BOT_TOKEN {problem}: talk to @BotFather in Telegram (https://t.me/BotFather),"
    " send /newbot, and put the token it gives you in CUCKOO_BOT_TOKEN or in a .env file"
)


class SettingsError(ValueError):
    """A setting is missing or malformed; the message is one line meant for the operator."""


class TokenRejected(SettingsError):
    """Telegram refused the bot token at start."""


class TelegramUnreachable(SettingsError):
    """Telegram did not answer at start for ``CUCKOO_START_TIMEOUT`` seconds."""


class TelegramRefused(SettingsError):
    """Telegram answered a start-up call with an error (a 400: a setting it will not take)."""


def public_base_url(value: str, *, local: bool = False) -> str:
    """The live table's public base, as Telegram accepts it for a Mini App's button: HTTPS on
    a host with a dot (Telegram refuses the key otherwise, and with it the whole prompt).
    ``local``: plain http on this machine's loopback too (the demo, with its own fake
    Telegram; nothing else)."""
    parts = urlsplit(value.strip())
    host = parts.hostname or ""
    loopback = local and parts.scheme == "http" and host == "127.0.0.1"
    if parts.scheme not in ("https", "http") or not host or parts.query:
        raise ValueError("must be a URL such as https://bot.example.org")
    if not loopback and (parts.scheme != "https" or "." not in host.strip(".")):
        raise ValueError(
            "must be an HTTPS URL on a public host name, such as https://bot.example.org:"
            " Telegram opens the live table only from such a URL"
        )
    return value.strip().rstrip("/")


class Settings(BaseSettings):
    """Everything an operator can set. Only the bot token is required to run."""

    model_config = SettingsConfigDict(env_prefix="CUCKOO_", env_file=".env", extra="ignore")

    bot_token: SecretStr | None = None
    database_url: str = DEFAULT_DATABASE_URL
    api_base_url: str = DEFAULT_API_BASE_URL
    turn_timeout: float = Field(default=TURN_TIMEOUT, gt=0, le=86_400)
    lobby_timeout: float = Field(default=LOBBY_TIMEOUT, gt=0, le=86_400)
    # Seconds the reveal stays on its own before the next deal (the next turn's clock starts
    # after it); 0 deals at once.
    reveal_pause: float = Field(default=REVEAL_PAUSE, ge=0, le=60)
    # Seconds before a turn runs out when the player is nudged privately; none for a turn
    # shorter than twice this, and 0 never nudges.
    turn_warning: float = Field(default=TURN_WARNING, ge=0, le=3_600)
    # Telegram lets a bot post about 20 messages a minute to one group; edits count too.
    group_rate: int = Field(default=FloodLimit.MESSAGES_PER_MINUTE_PER_GROUP, ge=1, le=100_000)
    # Seconds between two messages to one private chat (Telegram asks for about one a second).
    private_interval: float = Field(
        default=1 / FloodLimit.MESSAGES_PER_SECOND_PER_CHAT, ge=0, le=60
    )
    # Seconds the bot keeps trying to reach Telegram at start (a network hiccup, a proxy still
    # starting) before it gives up with one line and exit code 2.
    start_timeout: float = Field(default=300.0, gt=0, le=86_400)
    # Seeds the shuffle so a game can be replayed (tests, demos). Unset in production, where
    # the cards come from the operating system's CSPRNG.
    seed: int | None = None
    log_level: Literal["DEBUG", "INFO", "WARNING", "ERROR", "CRITICAL"] = "INFO"
    # "json": one JSON object per line (chat and game ids as fields), for log collectors.
    log_format: Literal["text", "json"] = "text"
    # Webhook mode: set the public HTTPS URL Telegram posts updates to (behind a TLS proxy);
    # unset, the bot polls. The secret is required with it: Telegram sends it back in the
    # X-Telegram-Bot-Api-Secret-Token header of every update.
    webhook_url: str | None = None
    webhook_secret: SecretStr | None = None
    # Where the bot's own HTTP server listens: the webhook (if any), /healthz and /metrics.
    # Unset: every address in webhook mode or with a public URL (Telegram, or the live
    # table's players, must reach it), only this host's loopback otherwise.
    listen: str | None = None
    port: int = Field(default=8080, ge=0, le=65_535)
    # Set, /metrics answers only requests with "Authorization: Bearer <token>".
    metrics_token: SecretStr | None = None
    # This instance's name among those sharing a database: stable across restarts (a
    # container keeps its host name), so a new life of the instance takes its own unfinished
    # deliveries back at once instead of waiting for their lease to run out.
    instance: str = Field(default_factory=lambda: socket.gethostname()[:64] or "cuckoo")
    # The live table (a Telegram Mini App): the public HTTPS base this bot's HTTP server is
    # reached at (the page is served at <base>/app). In webhook mode it defaults to the webhook
    # URL's origin; unset when polling, there is no app and the chat game is unchanged.
    public_url: str | None = None
    # The Mini App's short name, as registered with @BotFather (/newapp): the group's table
    # links to https://t.me/<bot>/<name>?startapp=<game>. Unset, only the private prompt
    # opens the table (with a Mini App button, which needs no registration).
    webapp_name: str | None = None
    # Seconds a Mini App's signed initData is accepted after Telegram issued it.
    init_data_max_age: float = Field(default=3600.0, gt=0, le=7 * 86_400)

    @field_validator("instance")
    @classmethod
    def _instance_name(cls, value: str) -> str:
        value = value.strip()
        if not INSTANCE_PATTERN.match(value):
            raise ValueError("must be 1-64 characters A-Z, a-z, 0-9, and . _ : -")
        return value

    @field_validator("log_level", "log_format", mode="before")
    @classmethod
    def _case(cls, value: object, info: ValidationInfo) -> object:
        if not isinstance(value, str):
            return value
        return value.upper() if info.field_name == "log_level" else value.lower()

    @field_validator("public_url", "webapp_name", mode="before")
    @classmethod
    def _blank_is_absent(cls, value: object) -> object:
        return None if isinstance(value, str) and not value.strip() else value

    @field_validator("public_url")
    @classmethod
    def _public_base(cls, value: str | None) -> str | None:
        if value is None:
            return None
        return public_base_url(value)

    @field_validator("webapp_name")
    @classmethod
    def _app_name(cls, value: str | None) -> str | None:
        if value is not None and not APP_NAME_PATTERN.match(value.strip()):
            raise ValueError("must be the app's short name: 3-64 characters A-Z, a-z, 0-9, _")
        return value.strip() if value is not None else None

    def public_base(self) -> str | None:
        """Where the bot's HTTP server is reached from outside: as set, else the webhook URL's
        origin; None when neither is known (no live table)."""
        if self.public_url is not None:
            return self.public_url
        if self.webhook_url is not None:
            parts = urlsplit(self.webhook_url)
            return f"{parts.scheme}://{parts.netloc}"
        return None

    @field_validator("listen", "metrics_token", mode="before")
    @classmethod
    def _blank_is_none(cls, value: object) -> object:
        return None if isinstance(value, str) and not value.strip() else value

    def listen_address(self) -> str:
        """Where the HTTP server listens: as set, else by mode (see ``listen``)."""
        if self.listen is not None:
            return self.listen.strip()
        outside = self.webhook_url is not None or self.public_url is not None
        return "0.0.0.0" if outside else "127.0.0.1"

    def metrics_secret(self) -> str | None:
        return self.metrics_token.get_secret_value().strip() if self.metrics_token else None

    @field_validator("webhook_url", mode="before")
    @classmethod
    def _blank_is_unset(cls, value: object) -> object:
        return None if isinstance(value, str) and not value.strip() else value

    @field_validator("webhook_url")
    @classmethod
    def _https_url(cls, value: str | None) -> str | None:
        if value is None:
            return None
        parts = urlsplit(value.strip())
        try:
            port = parts.port
        except ValueError:
            port = -1
        if parts.scheme != "https" or not parts.hostname or port == -1:
            raise ValueError(
                "must be the public HTTPS URL Telegram posts to, such as"
                " https://bot.example.org/telegram (Telegram takes no other scheme)"
            )
        if port is not None and port not in WEBHOOK_PORTS:
            raise ValueError(
                f"Telegram sends webhooks only to ports 443, 80, 88 or 8443, not {port}:"
                " put the bot behind a proxy on one of them (CUCKOO_PORT stays the bot's own)"
            )
        return value.strip()

    def webhook(self) -> tuple[str, str, str] | None:
        """Webhook mode's (URL, path served, secret), or None when the bot polls; a
        ``SettingsError`` if the URL is set without a usable secret."""
        if self.webhook_url is None:
            return None
        secret = self.webhook_secret.get_secret_value().strip() if self.webhook_secret else ""
        if not secret:
            raise SettingsError(
                "CUCKOO_WEBHOOK_SECRET is not set: webhook mode needs a secret of 1-256"
                " characters A-Z, a-z, 0-9, _ and - (for example: openssl rand -hex 32)"
            )
        if not SECRET_PATTERN.match(secret):
            raise SettingsError(
                "CUCKOO_WEBHOOK_SECRET may only hold 1-256 characters A-Z, a-z, 0-9, _ and -"
            )
        return self.webhook_url, urlsplit(self.webhook_url).path or "/", secret

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
