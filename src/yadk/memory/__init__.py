"""Long-term memory across sessions: ``BaseMemoryService`` and its stores (google-adk's API)."""

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
