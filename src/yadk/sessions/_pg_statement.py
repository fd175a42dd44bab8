"""The statements a turn runs most, prepared on each connection through psycopg's public API.

An append, a turn lock, a session's row, the fetch of its stored event rows and a refresh run
with ``AsyncConnection.execute(..., prepare=True)``: psycopg prepares each text once per
connection (and prepares it again should the server have forgotten it), so the server plans
it once and later runs send only the parameters.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

__all__ = ["Statement"]


class Statement:
    """One SQL text with ``%(name)s`` parameters, run as a prepared statement."""

    def __init__(self, sql: str) -> None:
        self.sql = sql

    async def rows(self, conn: Any, values: Mapping[str, Any]) -> list[tuple[Any, ...]]:
        """Run the statement with ``values`` on ``conn``; every row it returned."""
        cursor = await conn.execute(self.sql, values, prepare=True)
        found: list[tuple[Any, ...]] = await cursor.fetchall()
        return found

    async def scalar(self, conn: Any, values: Mapping[str, Any]) -> Any:
        """The first column of the first row (``None`` for no row or NULL)."""
        found = await self.rows(conn, values)
        return found[0][0] if found else None

    async def first_row(self, conn: Any, values: Mapping[str, Any]) -> tuple[Any, ...] | None:
        """The first row, or ``None`` when the statement returned none."""
        found = await self.rows(conn, values)
        return found[0] if found else None

    async def column(self, conn: Any, values: Mapping[str, Any]) -> list[Any]:
        """The first column of every row."""
        return [row[0] for row in await self.rows(conn, values)]

    async def row_and_column(
        self, conn: Any, values: Mapping[str, Any], column: int
    ) -> tuple[tuple[Any, ...], list[Any]] | None:
        """The first row and ``column`` of every later row (a header row and the rows it heads,
        in one round trip and one snapshot), or ``None`` when there was no row."""
        found = await self.rows(conn, values)
        if not found:
            return None
        return found[0], [row[column] for row in found[1:]]
