"""The live table as the page receives it: ``live.LiveTable`` in JSON, with the seats' names
and, when the page needs them, its texts in the game's language. The cards in it are the ones
``live_table`` lets each viewer see; nothing else of the game is written out.

A ``Snapshot`` is one read of a game, shared by every page watching it on this instance
(``hub.py``): the names are cleaned once, and each view is built and encoded once per seat
(all spectators share one), however many pages show it.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import datetime
from functools import cache

from cuckoo_bot.app import live
from cuckoo_bot.app.deps import Deps
from cuckoo_bot.app.league import pot_so_far
from cuckoo_bot.app.live import Seen
from cuckoo_bot.domain.state import ActKind
from cuckoo_bot.i18n.messages import MESSAGES
from cuckoo_bot.i18n.translator import Translator
from cuckoo_bot.transport.render.common import rules_line
from cuckoo_bot.transport.render.names import readable
from cuckoo_bot.transport.webapp.contract import (
    Acted,
    SeatJson,
    TableJson,
    TableView,
)
from cuckoo_bot.transport.webapp.faces import faces

PAGE_PREFIX = "web_"  # the catalogs' texts meant for the page


@cache
def page_keys() -> tuple[str, ...]:
    return tuple(key for key in MESSAGES if key.startswith(PAGE_PREFIX))


def page_strings(tr: Translator, language: str | None) -> dict[str, str]:
    """Every text of the page in ``language``, by its key without the prefix."""
    return {key.removeprefix(PAGE_PREFIX): tr.template(language, key) for key in page_keys()}


@dataclass
class Snapshot:
    """One read of a game, as the pages of this instance show it."""

    seen: Seen
    names: dict[int, str]  # each seat's name, readable
    rules: str = ""  # the rules in force in one line, in the game's language
    _views: dict[int | None, TableJson] = field(default_factory=dict)
    _events: dict[int | None, bytes] = field(default_factory=dict)

    @property
    def version(self) -> int:
        return self.seen.game.version

    def view(self, seat: int | None, now: datetime) -> TableView:
        """The table as ``seat`` sees it (None: a spectator), at ``now`` (the page counts the
        turn's time down from it), without the page's texts."""
        if seat not in self._views:
            self._views[seat] = as_json(live.live_table(self.seen.game, seat), self)
        return {**self._views[seat], "now": now.isoformat()}

    def event(self, seat: int | None, now: datetime) -> bytes:
        """The view as one Server-Sent Event (its id: the game's version), encoded once per
        seat: events go out as the change is read, so its first ``now`` is everyone's."""
        if seat not in self._events:
            self._events[seat] = encode_event(self.version, self.view(seat, now))
        return self._events[seat]


async def snapshot(deps: Deps, game_id: int, tr: Translator) -> Snapshot | None:
    """The game ``game_id`` read for the pages (None: no such game), its rules told once."""
    seen = await live.seen(deps, game_id)
    if seen is None:
        return None
    # Shown with textContent by the page, so no markup can come through; ``readable`` also
    # takes out what would rewrite its line (direction overrides, invisible runs).
    names = {pid: readable(player.display_name) for pid, player in seen.players.items()}
    game = seen.game
    return Snapshot(seen, names, rules_line(tr, seen.language, game.rules, game.turn_timeout))


def encode_event(version: int, view: Mapping[str, object]) -> bytes:
    data = json.dumps(view, ensure_ascii=False, separators=(",", ":"))
    return f"id: {version}\nevent: table\ndata: {data}\n\n".encode()


def as_json(table: live.LiveTable, shot: Snapshot) -> TableJson:
    """The table as the page reads it (``contract.TableJson``)."""
    seen = shot.seen
    return {
        "game": table.game_id,
        "version": table.version,
        "status": table.status.value,
        "round": table.round,
        "turn": table.turn,
        "actor": table.actor,
        "deadline": table.deadline.isoformat() if table.deadline is not None else None,
        "turn_seconds": seen.game.turn_timeout,  # a whole turn, for the page's clock
        "revealed": table.revealed,
        "viewer": table.viewer,
        "options": [option.value for option in table.options],
        "winners": list(table.winners),
        "max_lives": seen.max_lives,
        "seats": [_seat(seat, shot) for seat in table.seats],
        # the faces of the cards this viewer may see (``live_table`` chose them), no other
        "faces": faces(
            (code for seat in table.seats for code in (seat.card, seat.shown, seat.via_shown)),
            seen.language,
        ),
        "lang": seen.language,
        "name": seen.game.rules.name.value,
        "pot": pot_so_far(seen.game),
        "rules": shot.rules,
    }


def _acted(seat: live.LiveSeat) -> Acted | None:
    if seat.acted is None:
        return None
    if seat.by_queen:
        return "queen_blocked"
    return ACTED[seat.acted]


# What a seat did, as the page names it (a block by a card that would have sent the ask on,
# a Queen, an Inn, a Cavalier, has its own name).
ACTED: dict[ActKind, Acted] = {
    ActKind.KEEP: "keep",
    ActKind.SWAP: "swap",
    ActKind.BLOCKED: "blocked",
    ActKind.CUT: "cut",
    ActKind.STRUCK: "struck",
    ActKind.STOPPED: "stopped",
    ActKind.CUT_BLOCKED: "cut_blocked",
    ActKind.TIMEOUT: "timeout",
    ActKind.PASSED: "swap",  # never a seat's last act: how the ask ended follows it
}


def _seat(seat: live.LiveSeat, shot: Snapshot) -> SeatJson:
    return {
        "player": seat.player,
        "name": shot.names.get(seat.player, ""),  # "": the page says "Player"
        "lives": seat.lives,
        "out": seat.out,
        "dealer": seat.dealer,
        "acted": _acted(seat),
        "target": seat.target,
        "shown": seat.shown,
        "via": seat.via,
        "via_shown": seat.via_shown,
        "card": seat.card,
        "spent": seat.spent,
        "lost": seat.lost,
        "place": seat.place,  # once the game is over
    }
