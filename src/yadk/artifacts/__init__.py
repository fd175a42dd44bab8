"""Artifacts: named, versioned files attached to a session or a user."""

from __future__ import annotations

from typing import TYPE_CHECKING

from yadk._lazy import lazy_facade

if TYPE_CHECKING:
    from yadk.artifacts._base import BaseArtifactService
    from yadk.artifacts._file import FileArtifactService
    from yadk.artifacts._memory import InMemoryArtifactService
    from yadk.artifacts._postgres import PostgresArtifactService

__all__ = [
    "BaseArtifactService",
    "FileArtifactService",
    "InMemoryArtifactService",
    "PostgresArtifactService",
]

# Loaded on first use: the in-memory store needs neither the file nor the PostgreSQL store.
__getattr__, __dir__ = lazy_facade(
    globals(),
    {
        "BaseArtifactService": "yadk.artifacts._base",
        "FileArtifactService": "yadk.artifacts._file",
        "InMemoryArtifactService": "yadk.artifacts._memory",
        "PostgresArtifactService": "yadk.artifacts._postgres",
    },
)
