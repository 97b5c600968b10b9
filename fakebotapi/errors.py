"""Telegram-shaped API errors raised by method handlers and turned into HTTP responses."""

from __future__ import annotations

from typing import Any

JSON = dict[str, Any]


class ApiError(Exception):
    """An error answered as `{"ok": false, "error_code": N, "description": ...}`."""

    def __init__(self, code: int, description: str, parameters: JSON | None = None) -> None:
        super().__init__(description)
        self.code = code
        self.description = description
        self.parameters = parameters

    def body(self) -> JSON:
        """The JSON body Telegram would send for this error."""
        out: JSON = {"ok": False, "error_code": self.code, "description": self.description}
        if self.parameters:
            out["parameters"] = self.parameters
        return out


def bad_request(what: str) -> ApiError:
    """400 with Telegram's `Bad Request: ` prefix."""
    return ApiError(400, f"Bad Request: {what}")


def forbidden(what: str) -> ApiError:
    """403 with Telegram's `Forbidden: ` prefix."""
    return ApiError(403, f"Forbidden: {what}")


def unauthorized() -> ApiError:
    return ApiError(401, "Unauthorized")


def method_not_found() -> ApiError:
    return ApiError(404, "Not Found: method not found")


def too_many_requests(retry_after: int) -> ApiError:
    return ApiError(
        429, f"Too Many Requests: retry after {retry_after}", {"retry_after": retry_after}
    )


def conflict(what: str) -> ApiError:
    return ApiError(409, f"Conflict: {what}")


def chat_migrated(new_chat_id: int) -> ApiError:
    return ApiError(
        400,
        "Bad Request: group chat was upgraded to a supergroup chat",
        {"migrate_to_chat_id": new_chat_id},
    )


def cant_parse_entities(what: str) -> ApiError:
    return bad_request(f"can't parse entities: {what}")
