"""Artifacts: named, versioned files attached to a session or a user."""

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
