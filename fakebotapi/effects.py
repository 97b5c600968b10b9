"""Message effects (`message_effect_id`): private chats only, and only effects Telegram has.

The fake knows the six effects of the free reactions, the ids Telegram's getAvailableEffects
gives for them. Each id as published, in two independent sources:
- kondaurovDev/effect-ak, packages/tg-bot/src/internal/message-effect.ts (`messageEffectIdCodesMap`)
- Alagunto/tb, telegram/effects.go (`EffectFire` ... `EffectPoop`)
Premium (sticker) effects are real too but their ids are not published; the fake refuses them.
"""

from __future__ import annotations

from .errors import EFFECT_ID_INVALID, EFFECT_IN_GROUP, bad_request

KNOWN_EFFECTS = {
    "5104841245755180586": "🔥",
    "5107584321108051014": "👍",
    "5104858069142078462": "👎",
    "5159385139981059251": "❤️",
    "5046509860389126442": "🎉",
    "5046589136895476101": "💩",
}


def _td_integer(text: str) -> int:
    """td::to_integer<int64>, as the Bot API reads message_effect_id: leading digits, else 0."""
    sign, digits = (-1, text[1:]) if text.startswith("-") else (1, text)
    end = next((i for i, c in enumerate(digits) if not ("0" <= c <= "9")), len(digits))
    return sign * int(digits[:end]) if end else 0


def check_effect(raw: str | None, *, private: bool) -> str | None:
    """The effect a message gets (None: none), or ApiError(400) as Telegram answers."""
    effect_id = _td_integer(raw or "")
    if effect_id == 0:
        return None  # the Bot API reads an empty or non-numeric id as "no effect"
    if not private:
        raise bad_request(EFFECT_IN_GROUP)  # tdlib MessageSendOptions.cpp
    if str(effect_id) not in KNOWN_EFFECTS:
        raise bad_request(EFFECT_ID_INVALID)  # the server's error for messages.sendMessage
    return str(effect_id)
