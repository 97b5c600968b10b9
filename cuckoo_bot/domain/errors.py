"""Typed rule errors. The transport turns each stable ``code`` into words."""

from __future__ import annotations


class RuleError(Exception):
    """An action the rules do not allow; ``code`` is stable and translatable."""

    code = "rule_error"

    def __init__(self, detail: str = "") -> None:
        super().__init__(detail or self.code)
        self.detail = detail


class NotYourTurn(RuleError):
    code = "not_your_turn"


class StaleTurn(RuleError):
    code = "stale_turn"


class NotInGame(RuleError):
    code = "not_in_game"


class IllegalAction(RuleError):
    code = "illegal_action"


class GameOver(RuleError):
    code = "game_over"


class InvalidDeck(RuleError):
    code = "invalid_deck"


class InvalidSettings(RuleError):
    code = "invalid_settings"


class InvalidTable(RuleError):
    code = "invalid_table"
