"""Tests of the store: the protocol contract on both implementations, SQLite durability."""
