"""Typed access to request parameters, which arrive as JSON values or as form strings."""

from __future__ import annotations

import json
from typing import Any

from .errors import bad_request


class Params:
    """Coerces each parameter the way Telegram does, per parameter, and remembers the result."""

    def __init__(self, raw: dict[str, Any], method: str = "") -> None:
        self.raw = raw
        self.method = method  # the Bot API method these parameters were sent to
        self.used: dict[str, Any] = {}

    def recorded(self) -> dict[str, Any]:
        """Raw parameters with every value a handler read replaced by its typed form."""
        return {**self.raw, **self.used}

    def has(self, name: str) -> bool:
        return self.raw.get(name) not in (None, "")

    def get_str(self, name: str, *, required: bool = False) -> str | None:
        value = self.raw.get(name)
        if value is None:
            if required:
                raise bad_request(f"{name} is empty")
            return None
        if isinstance(value, bool | int | float):
            value = json.dumps(value)
        if not isinstance(value, str):
            raise bad_request(f'field "{name}" must be of type String')
        self.used[name] = value
        return value

    def get_int(self, name: str, *, required: bool = False) -> int | None:
        value = self.raw.get(name)
        if value in (None, ""):
            if required:
                raise bad_request(f"{name} is empty")
            return None
        if isinstance(value, str):
            try:
                value = int(value.strip())
            except ValueError:
                raise bad_request(f'field "{name}" must be of type Integer') from None
        if isinstance(value, bool) or not isinstance(value, int):
            raise bad_request(f'field "{name}" must be of type Integer')
        self.used[name] = value
        return value

    def get_float(self, name: str) -> float | None:
        value = self.raw.get(name)
        if value in (None, ""):
            return None
        try:
            result = float(value)
        except (TypeError, ValueError):
            raise bad_request(f'field "{name}" must be of type Float') from None
        self.used[name] = result
        return result

    def get_bool(self, name: str, default: bool = False) -> bool:
        value = self.raw.get(name)
        if value in (None, ""):
            return default
        if isinstance(value, str):
            value = value.strip().lower() in ("true", "1", "yes")
        result = bool(value)
        self.used[name] = result
        return result

    def get_json(self, name: str) -> Any:
        """A nested object; forms carry it as a JSON string."""
        value = self.raw.get(name)
        if value in (None, ""):
            return None
        if isinstance(value, str):
            try:
                value = json.loads(value)
            except ValueError:
                raise bad_request(f"can't parse {name} JSON object") from None
        self.used[name] = value
        return value

    def chat_id(self, name: str = "chat_id") -> int | str:
        """An integer chat id or an "@username"."""
        value = self.raw.get(name)
        if isinstance(value, str) and value.startswith("@"):
            self.used[name] = value
            return value
        result = self.get_int(name, required=True)
        assert result is not None
        return result
