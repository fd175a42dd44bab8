"""PostgresArtifactService: versioned artifacts in PostgreSQL, shared by every replica.

A new version is ``max(version) + 1`` inserted in one statement; two replicas saving the same
name at once cannot both get a version (the primary key refuses the second, which retries).
Each version is at most ``max_bytes`` of JSON (the Part, bytes as base64).

psycopg (the ``postgres`` extra) is imported inside the method that uses it, so this module imports
without the driver.
"""

from __future__ import annotations

from typing import Any

from yadk.artifacts._base import BaseArtifactService, check_filename, is_user_scoped
from yadk.errors import ArtifactError
from yadk.sessions import PgDatabase
from yadk.types import Part

__all__ = ["PostgresArtifactService"]


class PostgresArtifactService(BaseArtifactService):
    """Artifacts in the same database (and schema) as ``PostgresSessionService``."""

    def __init__(
        self,
        url: str,
        *,
        max_bytes: int = 32 * 1024 * 1024,
        database: PgDatabase | None = None,
    ) -> None:
        self.db = database or PgDatabase(url)
        self.max_bytes = max_bytes
        self._table = self.db.table("artifacts")

    async def aclose(self) -> None:
        await self.db.close()

    @staticmethod
    def _scope(filename: str, session_id: str | None) -> str:
        check_filename(filename)
        return "user" if is_user_scoped(filename) else f"session/{session_id or ''}"

    async def save_artifact(
        self,
        *,
        app_name: str,
        user_id: str,
        filename: str,
        artifact: Part,
        session_id: str | None = None,
    ) -> int:
        from psycopg import errors

        scope = self._scope(filename, session_id)
        payload = Part.model_validate(artifact).model_dump_json(exclude_none=True)
        if len(payload) > self.max_bytes:
            raise ArtifactError(
                f"Artifact {filename!r} is {len(payload):,} bytes stored, over the limit of"
                f" {self.max_bytes:,}; save a smaller file or raise max_bytes."
            )
        sql = f"""
            INSERT INTO {self._table}
            SELECT %s, %s, %s, %s, coalesce(max(version) + 1, 0), %s FROM {self._table}
            WHERE app_name = %s AND user_id = %s AND scope = %s AND filename = %s
            RETURNING version"""
        key = (app_name, user_id, scope, filename)

        async def save(conn: Any) -> int:
            for _ in range(20):
                try:
                    row = await (await conn.execute(sql, (*key, payload, *key))).fetchone()
                    return int(row[0])
                except errors.UniqueViolation:
                    continue  # another replica took this version number: take the next
            raise ArtifactError(f"Too many concurrent saves of artifact {filename!r}; try again.")

        return await self.db.run(save)

    async def load_artifact(
        self,
        *,
        app_name: str,
        user_id: str,
        filename: str,
        session_id: str | None = None,
        version: int | None = None,
    ) -> Part | None:
        key = (app_name, user_id, self._scope(filename, session_id), filename)
        where = "app_name = %s AND user_id = %s AND scope = %s AND filename = %s"
        if version is None:
            sql = f"SELECT data FROM {self._table} WHERE {where} ORDER BY version DESC LIMIT 1"
            params: tuple[Any, ...] = key
        else:
            sql = f"SELECT data FROM {self._table} WHERE {where} AND version = %s"
            params = (*key, version)

        async def load(conn: Any) -> str | None:
            row = await (await conn.execute(sql, params)).fetchone()
            return None if row is None else str(row[0])

        data = await self.db.run(load)
        return None if data is None else Part.model_validate_json(data)

    async def list_artifact_keys(
        self, *, app_name: str, user_id: str, session_id: str | None = None
    ) -> list[str]:
        sql = (
            f"SELECT DISTINCT filename FROM {self._table} WHERE app_name = %s AND user_id = %s"
            " AND scope IN ('user', %s) ORDER BY filename"
        )

        async def keys(conn: Any) -> list[str]:
            rows = await (
                await conn.execute(sql, (app_name, user_id, f"session/{session_id or ''}"))
            ).fetchall()
            return [str(r[0]) for r in rows]

        return await self.db.run(keys)

    async def delete_artifact(
        self, *, app_name: str, user_id: str, filename: str, session_id: str | None = None
    ) -> None:
        key = (app_name, user_id, self._scope(filename, session_id), filename)

        async def delete(conn: Any) -> None:
            await conn.execute(
                f"DELETE FROM {self._table} WHERE app_name = %s AND user_id = %s AND scope = %s"
                " AND filename = %s",
                key,
            )

        await self.db.run(delete)

    async def list_versions(
        self, *, app_name: str, user_id: str, filename: str, session_id: str | None = None
    ) -> list[int]:
        key = (app_name, user_id, self._scope(filename, session_id), filename)

        async def versions(conn: Any) -> list[int]:
            rows = await (
                await conn.execute(
                    f"SELECT version FROM {self._table} WHERE app_name = %s AND user_id = %s"
                    " AND scope = %s AND filename = %s ORDER BY version",
                    key,
                )
            ).fetchall()
            return [int(r[0]) for r in rows]

        return await self.db.run(versions)
