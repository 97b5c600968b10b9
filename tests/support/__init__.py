"""What the tests, the benchmarks and the demo share: playing as users, running the bot."""
