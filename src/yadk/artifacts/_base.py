"""The artifact service interface: named, versioned Parts per session (or per user)."""

from __future__ import annotations

import abc

from yadk.errors import ArtifactError
from yadk.types import Part

__all__ = ["BaseArtifactService", "check_filename", "is_user_scoped"]

USER_SCOPE_PREFIX = "user:"


def is_user_scoped(filename: str) -> bool:
    """``user:``-prefixed artifacts belong to the user, visible from all their sessions."""
    return filename.startswith(USER_SCOPE_PREFIX)


def check_filename(filename: str) -> str:
    if not isinstance(filename, str) or not filename.strip():
        raise ArtifactError("An artifact name must be a non-empty string.")
    if filename in (".", "..") or "\x00" in filename:
        raise ArtifactError(f"Invalid artifact name {filename!r}.")
    return filename


class BaseArtifactService(abc.ABC):
    """Saves and loads versioned artifacts; versions start at 0 and grow by one per save."""

    async def aclose(self) -> None:
        """Release connections and threads; the service is unusable afterwards."""
        return None

    @abc.abstractmethod
    async def save_artifact(
        self,
        *,
        app_name: str,
        user_id: str,
        filename: str,
        artifact: Part,
        session_id: str | None = None,
    ) -> int:
        """Store a new version and return its number."""

    @abc.abstractmethod
    async def load_artifact(
        self,
        *,
        app_name: str,
        user_id: str,
        filename: str,
        session_id: str | None = None,
        version: int | None = None,
    ) -> Part | None:
        """The given version (the latest by default), or ``None`` if there is none."""

    @abc.abstractmethod
    async def list_artifact_keys(
        self, *, app_name: str, user_id: str, session_id: str | None = None
    ) -> list[str]:
        """Names of the session's artifacts and the user's ``user:`` artifacts, sorted."""

    @abc.abstractmethod
    async def delete_artifact(
        self, *, app_name: str, user_id: str, filename: str, session_id: str | None = None
    ) -> None:
        """Delete every version of an artifact."""

    @abc.abstractmethod
    async def list_versions(
        self, *, app_name: str, user_id: str, filename: str, session_id: str | None = None
    ) -> list[int]:
        """The stored version numbers, ascending."""
