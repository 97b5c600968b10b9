"""Use cases: each one is a single unit of work over the store, with the rules engine inside."""
