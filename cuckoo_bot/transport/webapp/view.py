"""The live table as the page receives it: ``live.LiveTable`` in JSON, with the seats' names
and the page's texts in the game's language. The cards in it are the ones ``live_table`` lets
this viewer see; nothing else of the game is written out."""

from __future__ import annotations

from datetime import datetime
from functools import cache
from typing import Any

from cuckoo_bot.app.live import LiveTable, Seen
from cuckoo_bot.i18n.messages import MESSAGES
from cuckoo_bot.i18n.translator import Translator
from cuckoo_bot.transport.render.names import readable

PAGE_PREFIX = "web_"  # the catalogs' texts meant for the page


@cache
def page_keys() -> tuple[str, ...]:
    return tuple(key for key in MESSAGES if key.startswith(PAGE_PREFIX))


def page_strings(tr: Translator, language: str | None) -> dict[str, str]:
    """Every text of the page in ``language``, by its key without the prefix."""
    return {key.removeprefix(PAGE_PREFIX): tr.template(language, key) for key in page_keys()}


def as_json(table: LiveTable, seen: Seen, strings: dict[str, str], now: datetime) -> dict[str, Any]:
    players = seen.players
    fallback = strings.get("player", "?")

    def name(player: int) -> str:
        known = players.get(player)
        # Shown with textContent by the page: no markup can come through; ``readable`` also
        # takes out what would rewrite its line (direction overrides, invisible runs).
        return readable(known.display_name) if known is not None else fallback

    return {
        "game": table.game_id,
        "version": table.version,
        "status": table.status.value,
        "round": table.round,
        "turn": table.turn,
        "actor": table.actor,
        "deadline": table.deadline.isoformat() if table.deadline is not None else None,
        "turn_seconds": seen.game.turn_timeout,  # a whole turn, for the page's clock
        "now": now.isoformat(),
        "revealed": table.revealed,
        "viewer": table.viewer,
        "options": [str(option) for option in table.options],
        "winners": list(table.winners),
        "max_lives": seen.max_lives,
        "seats": [
            {
                "player": seat.player,
                "name": name(seat.player) or fallback,
                "lives": seat.lives,
                "out": seat.out,
                "dealer": seat.dealer,
                "acted": seat.acted.value if seat.acted is not None else None,
                "target": seat.target,
                "shown": seat.shown,
                "card": seat.card,
                "lost": seat.lost,
            }
            for seat in table.seats
        ],
        "lang": seen.language,
        "strings": strings,
    }
