"""A throwaway PostgreSQL database for a benchmark run: made beside the one named, migrated,
and dropped at the end."""

from __future__ import annotations

import os

import asyncpg
from sqlalchemy.engine import make_url

from cuckoo_bot.persistence import migrate


async def fresh_postgres(url: str, prefix: str) -> str:
    """A new empty database beside the one ``url`` names, migrated; its URL."""
    parsed = make_url(url)
    name = f"{prefix}_{os.getpid()}"
    admin = parsed.set(drivername="postgresql").render_as_string(hide_password=False)
    connection = await asyncpg.connect(admin)
    try:
        await connection.execute(f'DROP DATABASE IF EXISTS "{name}"')
        await connection.execute(f'CREATE DATABASE "{name}"')
    finally:
        await connection.close()
    created = parsed.set(database=name).render_as_string(hide_password=False)
    await migrate.upgrade(created)
    return created


async def drop_postgres(url: str, name: str) -> None:
    admin = make_url(url).set(drivername="postgresql").render_as_string(hide_password=False)
    connection = await asyncpg.connect(admin)
    try:
        await connection.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
    finally:
        await connection.close()
