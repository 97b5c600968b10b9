"""The league table (rank, name, points, games and wins, aligned in a monospace block that
fits a phone's line) and a player's own figures."""

from __future__ import annotations

import html

from cuckoo_bot.app.model import Standing
from cuckoo_bot.app.queries import League
from cuckoo_bot.transport.render.common import Part, fit
from cuckoo_bot.transport.render.names import FSI, PDI, graphemes, readable, user_text

NAME_WIDTH = 12  # graphemes in the table's name column
LINE_WIDTH = 32  # a phone's monospace line: no row of the table is wider


def _figures(league: League) -> list[tuple[int, ...]]:
    """What a table shows of each row: who, points, games, wins (shared ones counted), chips."""
    return [
        (
            r.player.id,
            r.standing.points,
            r.standing.games,
            r.standing.wins + r.standing.shared_wins,
            r.standing.chips,
        )
        for r in league.rows
    ]


class LeaguePart(Part):
    def leagues(self, lang: str, season: League, all_time: League, where: str) -> str:
        """``/leaderboard``: this month's table and the all-time one, or one table for both
        while they are the same (a first month)."""
        t = self.tr.t
        month = t(lang, "league_season", season=season.season)
        if _figures(season) == _figures(all_time):
            return self.league(lang, season, where, t(lang, "league_same", label=month))
        both = self.league(lang, all_time, where, t(lang, "league_all_time"))
        return self.league(lang, season, where, month) + "\n\n" + both.split("\n", 1)[1]

    def league(self, lang: str, league: League, where: str, season_label: str) -> str:
        """One table: rank, name, points, games and wins, aligned in a monospace block no wider
        than ``LINE_WIDTH`` (a phone's line: nothing wraps)."""
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
            name = readable(row.player.display_name, NAME_WIDTH) or t(lang, "player_n", n=row.rank)
            name = FSI + name + PDI + " " * max(0, NAME_WIDTH - graphemes(name))
            table.append(f"{row.rank:<2} {name} {s.points:>5d} {s.games:>5} {wins:>4}")
        lines.append("<pre>" + html.escape("\n".join(table)) + "</pre>")
        chips = [(row, row.standing.chips) for row in league.rows if row.standing.chips]
        if chips:  # a group that plays for stakes: each player's chips, won less paid
            each = [
                f"{user_text(row.player.display_name, t(lang, 'player_n', n=row.rank))}"
                f" {'+' if n > 0 else '−'}{abs(n)}"
                for row, n in chips
            ]
            lines.append(t(lang, "league_chips", chips=" · ".join(each)))
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
                    points=self.tr.count(lang, "count_points", row.points, sign=""),
                    lives=self.tr.count(lang, "count_lives_lost", row.lives_lost),
                )
            )
        if len(lines) == 1:
            lines.append(t(lang, "stats_none"))
        return "\n".join(lines)
