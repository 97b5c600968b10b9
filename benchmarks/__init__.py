"""Speed and memory measured against the fake Bot API: run each as ``python -m benchmarks.NAME``
from the repository's root (the fake and the table driver sit beside the bot, not in it)."""
