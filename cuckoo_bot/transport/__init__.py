"""The Telegram layer: the only place that imports python-telegram-bot."""
