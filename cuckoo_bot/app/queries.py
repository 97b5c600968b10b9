"""Read-only views: league tables, personal stats, languages, names."""

from __future__ import annotations

from dataclasses import dataclass

from cuckoo_bot.app.deps import Deps
from cuckoo_bot.app.league import season_of
from cuckoo_bot.app.model import (
    ALL_TIME,
    GLOBAL_SCOPE,
    Game,
    GameStatus,
    LogEntry,
    Player,
    Standing,
    group_language,
    private_language,
    shared_places,
)


@dataclass(frozen=True)
class LeagueRow:
    rank: int
    player: Player
    standing: Standing


@dataclass(frozen=True)
class League:
    scope: int
    season: str
    rows: list[LeagueRow]


async def leaderboard(
    deps: Deps, chat_id: int | None, season: str | None = None, limit: int = 20
) -> League:
    """A league table: ``chat_id=None`` is the global one; ``season=None`` this month's."""
    scope = GLOBAL_SCOPE if chat_id is None else chat_id
    season = season or season_of(deps.clock.now())
    async with deps.uow(read_only=True) as uow:
        standings = await uow.standings.table(scope, season, limit)
        players = await uow.players.get_many([s.player_id for s in standings])
    rows = [
        LeagueRow(
            rank=place,
            player=players.get(s.player_id) or Player(id=s.player_id, first_name="?"),
            standing=s,
        )
        for place, s in zip(shared_places(standings), standings, strict=True)
    ]
    return League(scope=scope, season=season, rows=rows)


async def personal_stats(deps: Deps, player_id: int) -> dict[str, Standing | None]:
    """The player's global line this season and all time."""
    season = season_of(deps.clock.now())
    async with deps.uow(read_only=True) as uow:
        rows = await uow.standings.of_player(player_id, season)
        rows += await uow.standings.of_player(player_id, ALL_TIME)
    mine = {r.season: r for r in rows if r.scope == GLOBAL_SCOPE}
    return {"season": mine.get(season), "all": mine.get(ALL_TIME)}


async def chat_language(deps: Deps, chat_id: int, asker_language: str | None = None) -> str:
    """A group speaks one language: its own, or until a lobby or /language sets it, the asker's
    (``model.group_language``)."""
    async with deps.uow(read_only=True) as uow:
        return group_language(await uow.chats.get(chat_id), asker_language)


async def player_language(deps: Deps, player_id: int, telegram_language: str | None) -> str:
    """A private chat speaks the player's chosen language, else their Telegram one."""
    async with deps.uow(read_only=True) as uow:
        return private_language(await uow.players.get(player_id), telegram_language)


async def players(deps: Deps, player_ids: list[int]) -> dict[int, Player]:
    async with deps.uow(read_only=True) as uow:
        return await uow.players.get_many(player_ids)


async def open_game_id(deps: Deps, chat_id: int) -> int | None:
    """The chat's lobby or running game, if any."""
    async with deps.uow(read_only=True) as uow:
        game = await uow.games.open_in_chat(chat_id)
    return game.id if game else None


@dataclass(frozen=True)
class History:
    """A group's last finished games, with the names they need."""

    games: list[Game]
    players: dict[int, Player]


@dataclass(frozen=True)
class Story:
    """One finished game of a group, as its stored log tells it."""

    game: Game
    log: list[LogEntry]
    players: dict[int, Player]


async def history(deps: Deps, chat_id: int, limit: int = 10) -> History:
    async with deps.uow(read_only=True) as uow:
        games = await uow.games.finished_in_chat(chat_id, limit)
        ids = sorted({p for g in games for p in g.seats})
        return History(games=games, players=await uow.players.get_many(ids))


async def story(deps: Deps, chat_id: int, game_id: int) -> Story | None:
    """The game's log, only if the game was played in this chat and is over."""
    async with deps.uow(read_only=True) as uow:
        game = await uow.games.get(game_id)
        if game is None or game.chat_id != chat_id or game.status.open or game.state is None:
            return None
        log = await uow.games.log(game_id)
        return Story(game=game, log=log, players=await uow.players.get_many(game.seats))


@dataclass(frozen=True)
class Vitals:
    """What an operator watches: the outbox backlog and the games, as the database has them."""

    backlog: int
    lobbies: int
    running: int
    finished: int


async def backlog(deps: Deps) -> int:
    """Notices waiting to be shown (an index lookup: the health check's question)."""
    async with deps.uow(read_only=True) as uow:
        return await uow.outbox.backlog()


async def vitals(deps: Deps) -> Vitals:
    async with deps.uow(read_only=True) as uow:
        backlog = await uow.outbox.backlog()
        games = await uow.games.count_by_status()
    return Vitals(
        backlog=backlog,
        lobbies=games.get(GameStatus.LOBBY, 0),
        running=games.get(GameStatus.RUNNING, 0),
        finished=games.get(GameStatus.FINISHED, 0),
    )
