"""The league: standings per chat and global, claimed with row locks when games end."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from sqlalchemy import (
    Select,
    select,
)

from cuckoo_bot.app.model import (
    Standing,
)
from cuckoo_bot.domain.actions import PlayerId
from cuckoo_bot.persistence.mapping import (
    standing_from_row,
    standing_values,
)
from cuckoo_bot.persistence.models import (
    StandingRow,
)
from cuckoo_bot.persistence.repositories.store import Store, table_of


class SqlStandings:
    def __init__(self, store: Store) -> None:
        self._s = store

    async def get_many(
        self, scope: int, season: str, player_ids: Sequence[PlayerId]
    ) -> dict[PlayerId, Standing]:
        if not player_ids:
            return {}
        rows = await self._s.rows(
            select(StandingRow).where(
                StandingRow.scope == scope,
                StandingRow.season == season,
                StandingRow.player_id.in_(set(player_ids)),
            )
        )
        return {row.player_id: standing_from_row(row) for row in rows}

    async def claim(
        self, scope: int, season: str, player_ids: Sequence[PlayerId]
    ) -> dict[PlayerId, Standing]:
        # Rows that do not exist yet cannot be locked: insert them first (a concurrent insert
        # of the same row waits for the other transaction, then does nothing), then lock them
        # all in one order, so two games ending at once queue instead of losing an update.
        ids = sorted(set(player_ids))
        if not ids:
            return {}
        fresh = [standing_values(Standing(player_id=p, scope=scope, season=season)) for p in ids]
        await self._s.session.execute(
            self._s.insert(table_of(StandingRow)).on_conflict_do_nothing(
                index_elements=["scope", "season", "player_id"]
            ),
            fresh,
        )
        rows = await self._s.rows(
            select(StandingRow)
            .where(
                StandingRow.scope == scope,
                StandingRow.season == season,
                StandingRow.player_id.in_(ids),
            )
            .order_by(StandingRow.player_id)
            .with_for_update()
        )
        return {row.player_id: standing_from_row(row) for row in rows}

    async def save(self, standing: Standing) -> None:
        values = standing_values(standing)
        statement = self._s.insert(StandingRow).values(**values)
        await self._s.session.execute(
            statement.on_conflict_do_update(
                index_elements=[StandingRow.scope, StandingRow.season, StandingRow.player_id],
                set_={k: v for k, v in values.items() if k not in ("scope", "season", "player_id")},
            )
        )

    @staticmethod
    def _ranked(scope: int, season: str) -> Select[Any]:
        rating = StandingRow.rating_mu - 3 * StandingRow.rating_sigma
        return (
            select(StandingRow)
            .where(StandingRow.scope == scope, StandingRow.season == season)
            .order_by(rating.desc(), StandingRow.wins.desc(), StandingRow.player_id)
        )

    async def table(self, scope: int, season: str, limit: int | None = 20) -> list[Standing]:
        rows = await self._s.rows(self._ranked(scope, season).limit(limit))
        return [standing_from_row(row) for row in rows]

    async def of_player(self, player_id: PlayerId, season: str) -> list[Standing]:
        rows = await self._s.rows(
            select(StandingRow)
            .where(StandingRow.player_id == player_id, StandingRow.season == season)
            .order_by(StandingRow.scope)
        )
        return [standing_from_row(row) for row in rows]
