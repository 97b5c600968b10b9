"""The league table (rank, name, points, games, wins and win rate, aligned in a monospace
block) and a player's own figures."""

from __future__ import annotations

import html

from cuckoo_bot.app.model import Standing
from cuckoo_bot.app.queries import League
from cuckoo_bot.transport.render.common import Part, fit
from cuckoo_bot.transport.render.names import FSI, PDI, graphemes, readable, user_text

NAME_WIDTH = 15  # graphemes in the table's name column


class LeaguePart(Part):
    def league(self, lang: str, league: League, where: str, season_label: str) -> str:
        t = self.tr.t
        lines = [
            t(lang, "league_title", where=user_text(where, "—")),
            f"<i>{html.escape(season_label)}</i>",
            "",
        ]
        if not league.rows:
            lines.append(t(lang, "league_empty"))
            return "\n".join(lines)
        table = [t(lang, "league_header")]
        for row in league.rows:
            s = row.standing
            wins = s.wins + s.shared_wins
            pct = round(100 * wins / s.games) if s.games else 0
            name = readable(row.player.display_name, NAME_WIDTH) or t(lang, "player_n", n=row.rank)
            name = FSI + name + PDI + " " * max(0, NAME_WIDTH - graphemes(name))
            table.append(f"{row.rank:<3} {name} {s.points:>6d} {s.games:>5} {wins:>4} {pct:>4}%")
        lines.append("<pre>" + html.escape("\n".join(table)) + "</pre>")
        return fit("\n".join(lines))

    def stats(self, lang: str, stats: dict[str, Standing | None]) -> str:
        """``/stats``: this month's and all-time figures of the player, wherever they played."""
        t = self.tr.t
        lines = [t(lang, "stats_title")]
        for label_key, row in (
            ("league_season", stats["season"]),
            ("league_all_time", stats["all"]),
        ):
            if row is None:
                continue
            lines.append(
                t(
                    lang,
                    "stats_line",
                    label=t(lang, label_key, season=row.season),
                    games=self.tr.count(lang, "count_games", row.games),
                    wins=self.tr.count(lang, "count_wins", row.wins + row.shared_wins),
                    shared=self.tr.count(lang, "count_shared", row.shared_wins),
                    rating=row.points,
                    lives=self.tr.count(lang, "count_lives_lost", row.lives_lost),
                )
            )
        if len(lines) == 1:
            lines.append(t(lang, "stats_none"))
        return "\n".join(lines)
