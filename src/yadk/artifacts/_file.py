"""FileArtifactService: versioned artifacts as files under one root folder.

Layout: ``ROOT/<app>/<user>/<scope>/<quoted name>/<version>.json`` where scope is ``user`` or
``sessions/<session id>``; every path component is percent-quoted, so no name can leave ROOT.
Each version is one JSON file holding the Part (bytes as base64), written atomically.
"""

from __future__ import annotations

import asyncio
import os
import tempfile
from pathlib import Path
from urllib.parse import quote, unquote

from yadk.artifacts._base import BaseArtifactService, check_filename, is_user_scoped
from yadk.types import Part

__all__ = ["FileArtifactService"]


def _q(component: str) -> str:
    quoted = quote(component, safe="")
    # quote() leaves dots alone; "." and ".." must not become path components.
    return quoted.replace(".", "%2E") if quoted in (".", "..") else quoted


class FileArtifactService(BaseArtifactService):
    """Artifacts as files; every file operation runs in a worker thread, off the event loop."""

    def __init__(self, root: str | os.PathLike[str]) -> None:
        self.root = Path(root)

    def _dir(self, app_name: str, user_id: str, filename: str, session_id: str | None) -> Path:
        check_filename(filename)
        base = self.root / _q(app_name) / _q(user_id)
        scope = (
            base / "user" if is_user_scoped(filename) else base / "sessions" / _q(session_id or "")
        )
        return scope / _q(filename)

    def _versions(self, folder: Path) -> list[int]:
        if not folder.is_dir():
            return []
        found = []
        for entry in folder.iterdir():
            stem, _, ext = entry.name.partition(".")
            if ext == "json" and stem.isdigit():
                found.append(int(stem))
        return sorted(found)

    async def save_artifact(
        self,
        *,
        app_name: str,
        user_id: str,
        filename: str,
        artifact: Part,
        session_id: str | None = None,
    ) -> int:
        folder = self._dir(app_name, user_id, filename, session_id)
        payload = Part.model_validate(artifact).model_dump_json(exclude_none=True)
        return await asyncio.to_thread(self._write_next, folder, payload)

    def _write_next(self, folder: Path, payload: str) -> int:
        folder.mkdir(parents=True, exist_ok=True)
        existing = self._versions(folder)
        version = existing[-1] + 1 if existing else 0
        fd, tmp = tempfile.mkstemp(dir=folder, prefix=".tmp-")
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            fh.write(payload)
        os.replace(tmp, folder / f"{version}.json")
        return version

    async def load_artifact(
        self,
        *,
        app_name: str,
        user_id: str,
        filename: str,
        session_id: str | None = None,
        version: int | None = None,
    ) -> Part | None:
        folder = self._dir(app_name, user_id, filename, session_id)
        text = await asyncio.to_thread(self._read, folder, version)
        return None if text is None else Part.model_validate_json(text)

    def _read(self, folder: Path, version: int | None) -> str | None:
        versions = self._versions(folder)
        if not versions:
            return None
        chosen = versions[-1] if version is None else version
        path = folder / f"{chosen}.json"
        if not path.is_file():
            return None
        return path.read_text(encoding="utf-8")

    async def list_artifact_keys(
        self, *, app_name: str, user_id: str, session_id: str | None = None
    ) -> list[str]:
        base = self.root / _q(app_name) / _q(user_id)
        return await asyncio.to_thread(self._keys, base, session_id)

    def _keys(self, base: Path, session_id: str | None) -> list[str]:
        names: set[str] = set()
        for scope in (base / "user", base / "sessions" / _q(session_id or "")):
            if scope.is_dir():
                names.update(unquote(d.name) for d in scope.iterdir() if self._versions(d))
        return sorted(names)

    async def delete_artifact(
        self, *, app_name: str, user_id: str, filename: str, session_id: str | None = None
    ) -> None:
        folder = self._dir(app_name, user_id, filename, session_id)
        await asyncio.to_thread(self._delete, folder)

    def _delete(self, folder: Path) -> None:
        for version in self._versions(folder):
            (folder / f"{version}.json").unlink(missing_ok=True)

    async def list_versions(
        self, *, app_name: str, user_id: str, filename: str, session_id: str | None = None
    ) -> list[int]:
        folder = self._dir(app_name, user_id, filename, session_id)
        return await asyncio.to_thread(self._versions, folder)
