"""Players: Telegram users and computer seats, and whether the bot may write to them."""

from __future__ import annotations

from collections.abc import Sequence
from functools import cache
from typing import Any

from sqlalchemy import (
    Select,
    bindparam,
    func,
    select,
    update,
)

from cuckoo_bot.app.model import (
    Player,
)
from cuckoo_bot.domain.actions import PlayerId
from cuckoo_bot.domain.rules import MAX_PLAYERS_LIMIT
from cuckoo_bot.persistence.mapping import (
    player_from_row,
    player_values,
)
from cuckoo_bot.persistence.models import (
    PlayerRow,
)
from cuckoo_bot.persistence.repositories.store import Store, table_of


@cache
def _players_in(count: int) -> Select[Any]:
    """``get_many``'s query for ``count`` ids, the parameters ``p0``, ``p1``...: built once for
    each number of players up to a game's most (``MAX_PLAYERS_LIMIT``), as every press reads
    the players of its game (an expanding parameter would be compiled again at each run). In
    Core: rows of plain values."""
    players = table_of(PlayerRow)
    ids = [bindparam(f"p{n}", type_=players.c.id.type) for n in range(count)]
    return select(players).where(players.c.id.in_(ids))


@cache
def _players_among() -> Select[Any]:
    """``get_many``'s query for more ids than a game seats (the league's tables, a chat's
    history), the list expanded at each run (the parameter ``ids``)."""
    players = table_of(PlayerRow)
    return select(players).where(players.c.id.in_(bindparam("ids", expanding=True)))


class SqlPlayers:
    def __init__(self, store: Store) -> None:
        self._s = store

    async def get(self, player_id: PlayerId) -> Player | None:
        found = await self.get_many([player_id])
        return found.get(player_id)

    async def get_many(self, player_ids: Sequence[PlayerId]) -> dict[PlayerId, Player]:
        if not player_ids:
            return {}
        ids = sorted(set(player_ids))
        if len(ids) <= MAX_PLAYERS_LIMIT:
            rows = await self._s.fetch(
                _players_in(len(ids)), {f"p{n}": i for n, i in enumerate(ids)}
            )
        else:  # one statement kept for any longer list, not one for each length
            rows = await self._s.fetch(_players_among(), {"ids": ids})
        return {row.id: player_from_row(row) for row in rows}

    async def upsert(self, player: Player) -> Player:
        now = self._s.now()
        statement = self._s.insert(PlayerRow).values(
            **player_values(player), created_at=now, updated_at=now
        )
        new = statement.excluded
        statement = statement.on_conflict_do_update(
            index_elements=[PlayerRow.id],
            set_={
                "first_name": new.first_name,
                "last_name": new.last_name,
                "username": new.username,
                # Telegram's language only counts on first sight; ``set_language`` changes it.
                "language": func.coalesce(PlayerRow.language, new.language),
                # Unknown (None) keeps what the store knew.
                "can_dm": func.coalesce(new.can_dm, PlayerRow.can_dm),
                "is_computer": new.is_computer,
                "updated_at": new.updated_at,
            },
        ).returning(PlayerRow)
        result = await self._s.session.execute(
            statement, execution_options={"populate_existing": True}
        )
        return player_from_row(result.scalar_one())

    async def set_language(self, player_id: PlayerId, language: str) -> None:
        await self._s.session.execute(
            update(PlayerRow)
            .where(PlayerRow.id == player_id)
            .values(language=language, updated_at=self._s.now())
            .execution_options(synchronize_session=False)
        )

    async def set_reachable(self, player_id: PlayerId, reachable: bool) -> None:
        await self._s.session.execute(
            update(PlayerRow)
            .where(PlayerRow.id == player_id)
            .values(can_dm=reachable, updated_at=self._s.now())
            .execution_options(synchronize_session=False)
        )
