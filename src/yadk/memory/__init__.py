"""Long-term memory across sessions: ``BaseMemoryService`` and its stores (google-adk's API)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from yadk._lazy import lazy_facade

if TYPE_CHECKING:
    from yadk.memory._base import BaseMemoryService, MemoryEntry, SearchMemoryResponse
    from yadk.memory._memory import InMemoryMemoryService
    from yadk.memory._postgres import PostgresMemoryService
    from yadk.memory._sqlite import SqliteMemoryService

__all__ = [
    "BaseMemoryService",
    "InMemoryMemoryService",
    "MemoryEntry",
    "PostgresMemoryService",
    "SearchMemoryResponse",
    "SqliteMemoryService",
]

# Loaded on first use: the in-memory store needs neither sqlite3 nor psycopg.
__getattr__, __dir__ = lazy_facade(
    globals(),
    {
        "BaseMemoryService": "yadk.memory._base",
        "MemoryEntry": "yadk.memory._base",
        "SearchMemoryResponse": "yadk.memory._base",
        "InMemoryMemoryService": "yadk.memory._memory",
        "PostgresMemoryService": "yadk.memory._postgres",
        "SqliteMemoryService": "yadk.memory._sqlite",
    },
)
