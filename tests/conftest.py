"""Fixtures for every test folder: the databases (SQLite, and PostgreSQL when available)."""

pytest_plugins = ["tests.databases"]
