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


# Telegram's words for the rules the fake enforces, one place for each (RULES.md says where each
# is documented). bad_request() adds the "Bad Request: " prefix.
WEBHOOK_URL_INVALID = "invalid webhook URL specified"
WEBHOOK_NEEDS_HTTPS = "bad webhook: An HTTPS URL must be provided for webhook"
WEBHOOK_PORT = "bad webhook: Webhook can be set up only on ports 80, 88, 443 or 8443"
SECRET_TOO_LONG = "secret token is too long"
SECRET_CHARACTERS = "secret token contains unallowed characters"
BUTTON_TYPE_INVALID = "BUTTON_TYPE_INVALID"
EFFECT_IN_GROUP = "can't use message effects in the chat"
EFFECT_ID_INVALID = "EFFECT_ID_INVALID"
CANT_DELETE = "message can't be deleted"
CANT_DELETE_FOR_EVERYONE = "message can't be deleted for everyone"
TEXT_EMPTY = "message text is empty"
TEXT_EMPTY_AFTER_PARSING = "text must be non-empty"
SOURCE_TOO_LONG = "text is too long"
TEXT_TOO_LONG = "message is too long"
CAPTION_TOO_LONG = "message caption is too long"
ANSWER_TOO_LONG = "MESSAGE_TOO_LONG"
DATE_FORMAT_INVALID = "Invalid date format used"
