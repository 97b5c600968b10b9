"""The bot's words in English, Spanish and French: a message registry and gettext catalogs."""
