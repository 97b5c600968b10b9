"""Alembic's environment and revisions, shipped in the wheel as ``cuckoo_bot.migrations``."""
