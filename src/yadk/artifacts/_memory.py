"""InMemoryArtifactService: versioned artifacts in process memory."""

from __future__ import annotations

from yadk.artifacts._base import BaseArtifactService, check_filename, is_user_scoped
from yadk.types import Part

__all__ = ["InMemoryArtifactService"]

_Key = tuple[str, str, str, str]


class InMemoryArtifactService(BaseArtifactService):
    def __init__(self) -> None:
        self._store: dict[_Key, list[Part]] = {}

    @staticmethod
    def _key(app_name: str, user_id: str, filename: str, session_id: str | None) -> _Key:
        check_filename(filename)
        scope = "user" if is_user_scoped(filename) else f"session/{session_id or ''}"
        return (app_name, user_id, scope, filename)

    async def save_artifact(
        self,
        *,
        app_name: str,
        user_id: str,
        filename: str,
        artifact: Part,
        session_id: str | None = None,
    ) -> int:
        return self.save_artifact_sync(
            app_name=app_name,
            user_id=user_id,
            filename=filename,
            artifact=artifact,
            session_id=session_id,
        )

    def save_artifact_sync(
        self,
        *,
        app_name: str,
        user_id: str,
        filename: str,
        artifact: Part,
        session_id: str | None = None,
    ) -> int:
        """``save_artifact`` without a coroutine, for test fixtures built outside a loop."""
        versions = self._store.setdefault(self._key(app_name, user_id, filename, session_id), [])
        versions.append(Part.model_validate(artifact))
        return len(versions) - 1

    async def load_artifact(
        self,
        *,
        app_name: str,
        user_id: str,
        filename: str,
        session_id: str | None = None,
        version: int | None = None,
    ) -> Part | None:
        versions = self._store.get(self._key(app_name, user_id, filename, session_id))
        if not versions:
            return None
        if version is None:
            return versions[-1]
        return versions[version] if 0 <= version < len(versions) else None

    async def list_artifact_keys(
        self, *, app_name: str, user_id: str, session_id: str | None = None
    ) -> list[str]:
        scopes = {"user", f"session/{session_id or ''}"}
        return sorted(
            name
            for (app, user, scope, name), versions in self._store.items()
            if app == app_name and user == user_id and scope in scopes and versions
        )

    async def delete_artifact(
        self, *, app_name: str, user_id: str, filename: str, session_id: str | None = None
    ) -> None:
        self._store.pop(self._key(app_name, user_id, filename, session_id), None)

    async def list_versions(
        self, *, app_name: str, user_id: str, filename: str, session_id: str | None = None
    ) -> list[int]:
        versions = self._store.get(self._key(app_name, user_id, filename, session_id), [])
        return list(range(len(versions)))
