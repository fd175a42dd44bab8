"""The PostgreSQL connection layer the session and artifact stores share: URL parsing, a pool
per database, the schema (created and versioned by yadk), and what each failure means.

The tables live in their own schema (``yadk`` unless the URL says ``?schema=NAME``), so several
apps or test runs share one database without colliding. Schema versions are rows of
``<schema>.yadk_schema``; a database written by a newer yadk is refused, an older one until
``yadk db upgrade``.
"""

from __future__ import annotations

import asyncio
import re
from collections.abc import Awaitable, Callable
from typing import Any, TypeVar
from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

from yadk.errors import (
    SessionError,
    SessionStoreBusyError,
    SessionStoreError,
    SessionStoreSchemaError,
)

__all__ = ["SCHEMA_VERSION", "PgDatabase", "is_postgres_url"]

T = TypeVar("T")
SCHEMA_VERSION = 1
_NAME = re.compile(r"^[a-z_][a-z0-9_]{0,62}$")

_CREATE = """
CREATE TABLE IF NOT EXISTS {s}.app_states (
    app_name text PRIMARY KEY,
    state jsonb NOT NULL
);
CREATE TABLE IF NOT EXISTS {s}.user_states (
    app_name text NOT NULL,
    user_id text NOT NULL,
    state jsonb NOT NULL,
    PRIMARY KEY (app_name, user_id)
);
CREATE TABLE IF NOT EXISTS {s}.sessions (
    app_name text NOT NULL,
    user_id text NOT NULL,
    id text NOT NULL,
    state jsonb NOT NULL,
    create_time double precision NOT NULL,
    update_time double precision NOT NULL,
    version bigint NOT NULL,
    PRIMARY KEY (app_name, user_id, id)
);
CREATE TABLE IF NOT EXISTS {s}.events (
    app_name text NOT NULL,
    user_id text NOT NULL,
    session_id text NOT NULL,
    seq bigint NOT NULL,
    event_id text NOT NULL,
    timestamp double precision NOT NULL,
    data text NOT NULL,
    PRIMARY KEY (app_name, user_id, session_id, seq),
    UNIQUE (app_name, user_id, session_id, event_id),
    FOREIGN KEY (app_name, user_id, session_id)
        REFERENCES {s}.sessions (app_name, user_id, id) ON DELETE CASCADE
);
CREATE TABLE IF NOT EXISTS {s}.artifacts (
    app_name text NOT NULL,
    user_id text NOT NULL,
    scope text NOT NULL,
    filename text NOT NULL,
    version integer NOT NULL,
    data text NOT NULL,
    PRIMARY KEY (app_name, user_id, scope, filename, version)
)
"""


def is_postgres_url(url: str) -> bool:
    return url.startswith(("postgresql://", "postgres://"))


def _split_url(url: str) -> tuple[str, str]:
    """(libpq conninfo URL, schema name): ``?schema=`` is yadk's, not libpq's."""
    parts = urlsplit(url)
    query = parse_qsl(parts.query, keep_blank_values=True)
    schema = next((v for k, v in query if k == "schema"), "yadk")
    if not _NAME.match(schema):
        raise SessionError(
            f"Invalid ?schema={schema!r} in the database URL: use lowercase letters, digits and"
            " underscores (at most 63, not starting with a digit)."
        )
    rest = urlencode([(k, v) for k, v in query if k != "schema"])
    return urlunsplit(parts._replace(query=rest)), schema


def _redact(url: str) -> str:
    parts = urlsplit(url)
    if parts.password:
        netloc = parts.netloc.replace(f":{parts.password}@", ":***@")
        return urlunsplit(parts._replace(netloc=netloc))
    return url


class PgDatabase:
    """A connection pool to one PostgreSQL database and yadk schema, opened on first use.

    ``pool_size`` connections at most; a caller waits up to ``pool_timeout`` seconds for one,
    then gets ``SessionStoreBusyError``. Statements are cancelled after ``statement_timeout``
    seconds. A connection the server dropped (restart, ``pg_terminate_backend``) is replaced
    and the operation retried once, which is safe because every write yadk makes is idempotent
    or checked against a version.
    """

    def __init__(
        self,
        url: str,
        *,
        pool_size: int = 10,
        pool_timeout: float = 10.0,
        statement_timeout: float = 30.0,
        migrate: bool = False,
    ) -> None:
        try:
            import psycopg  # noqa: F401
            import psycopg_pool  # noqa: F401
        except ImportError:
            raise SessionError(
                "PostgreSQL stores need the postgres extra: pip install 'yadk[postgres]'."
            ) from None
        self.url = url
        self.display = _redact(url)
        self.conninfo, self.schema = _split_url(url)
        self.pool_size = pool_size
        self.pool_timeout = pool_timeout
        self.statement_timeout = statement_timeout
        self.migrate = migrate
        self._pool: Any = None
        self._opening = asyncio.Lock()

    def table(self, name: str) -> str:
        return f"{self.schema}.{name}"

    async def close(self) -> None:
        if self._pool is not None:
            await self._pool.close()
            self._pool = None

    async def _open(self) -> Any:
        from psycopg import AsyncConnection
        from psycopg_pool import AsyncConnectionPool

        async with self._opening:
            if self._pool is not None:
                return self._pool
            # One direct connection first: its failure says why (refused, auth, no database),
            # where a pool would only time out; it also creates or checks the schema.
            try:
                conn = await AsyncConnection.connect(self.conninfo, **self._connect_kwargs())
            except Exception as exc:
                raise SessionStoreError(
                    f"Cannot connect to PostgreSQL at {self.display} ({_first_line(exc)})."
                    " Check that the server is running and that the URL (host, port, user,"
                    " database) is right."
                ) from None
            try:
                await self._prepare(conn)
            except Exception as exc:
                raise self.translate(exc) from None
            finally:
                await conn.close()
            pool = AsyncConnectionPool(
                self.conninfo,
                min_size=1,
                max_size=self.pool_size,
                timeout=self.pool_timeout,
                open=False,
                kwargs=self._connect_kwargs(),
            )
            await pool.open(wait=False)
            self._pool = pool
            return pool

    def _connect_kwargs(self) -> dict[str, Any]:
        return {
            "autocommit": True,
            "application_name": f"yadk:{self.schema}",
            "options": f"-c statement_timeout={int(self.statement_timeout * 1000)}",
        }

    async def _prepare(self, conn: Any) -> None:
        async with conn.transaction():
            # One creator at a time, across processes: the others then see the tables.
            await conn.execute(
                "SELECT pg_advisory_xact_lock(hashtext(%s))", (f"yadk-schema:{self.schema}",)
            )
            await conn.execute(f"CREATE SCHEMA IF NOT EXISTS {self.schema}")
            await conn.execute(
                f"CREATE TABLE IF NOT EXISTS {self.schema}.yadk_schema (version integer NOT NULL)"
            )
            row = await (
                await conn.execute(f"SELECT max(version) FROM {self.schema}.yadk_schema")
            ).fetchone()
            version = row[0] if row and row[0] is not None else 0
            if version > SCHEMA_VERSION:
                raise SessionStoreSchemaError(
                    f"The PostgreSQL schema {self.schema!r} at {self.display} was written by a"
                    f" newer yadk (schema version {version}; this yadk knows up to"
                    f" {SCHEMA_VERSION}). Upgrade yadk (pip install -U yadk) to use it."
                )
            if version == SCHEMA_VERSION:
                return
            if version and not self.migrate:
                raise SessionStoreSchemaError(
                    f"The PostgreSQL schema {self.schema!r} at {self.display} uses session schema"
                    f" version {version}; this yadk needs {SCHEMA_VERSION}. Back it up, then run"
                    f" `yadk db upgrade --db {self.display}`."
                )
            for statement in _CREATE.format(s=self.schema).split(";"):
                await conn.execute(statement)
            await conn.execute(f"DELETE FROM {self.schema}.yadk_schema")
            await conn.execute(
                f"INSERT INTO {self.schema}.yadk_schema VALUES (%s)", (SCHEMA_VERSION,)
            )

    async def upgrade(self) -> tuple[int, int]:
        """Create or migrate the schema; (version before, version after)."""
        from psycopg import AsyncConnection

        try:
            conn = await AsyncConnection.connect(self.conninfo, autocommit=True)
        except Exception as exc:
            raise self.translate(exc) from None
        try:
            exists = await (
                await conn.execute("SELECT to_regclass(%s)", (f"{self.schema}.yadk_schema",))
            ).fetchone()
            before = 0
            if exists and exists[0] is not None:
                row = await (
                    await conn.execute(f"SELECT max(version) FROM {self.schema}.yadk_schema")
                ).fetchone()
                before = row[0] if row and row[0] is not None else 0
            self.migrate = True
            await self._prepare(conn)
        except Exception as exc:
            raise self.translate(exc) from None
        finally:
            await conn.close()
        return before, SCHEMA_VERSION

    async def run(self, operation: Callable[[Any], Awaitable[T]]) -> T:
        """Run ``operation(conn)`` on a pooled connection; retried once on a dropped one."""
        pool = self._pool or await self._open()
        for attempt in (1, 2):
            try:
                async with pool.connection() as conn:
                    return await operation(conn)
            except Exception as exc:
                if attempt == 1 and _connection_lost(exc):
                    # The server dropped connections (a restart?): test the idle ones, so the
                    # retry gets a live connection rather than the next dead one.
                    await pool.check()
                    continue
                raise self.translate(exc) from None
        raise AssertionError("unreachable")  # pragma: no cover

    def translate(self, exc: BaseException) -> BaseException:
        """A ``SessionStoreError`` that says what went wrong and what to do (yadk errors pass)."""
        from psycopg import OperationalError, errors
        from psycopg_pool import PoolTimeout

        if isinstance(exc, SessionError):
            return exc
        where = f"PostgreSQL at {self.display}"
        if isinstance(exc, PoolTimeout):
            return SessionStoreBusyError(
                f"All {self.pool_size} connections to {where} stayed busy for more than"
                f" {self.pool_timeout:g} s. Raise the pool size, or run fewer turns at once."
            )
        if isinstance(exc, errors.QueryCanceled):
            return SessionStoreBusyError(
                f"A statement on {where} ran past the {self.statement_timeout:g} s statement"
                " timeout (a long lock held by another client?) and was cancelled; nothing was"
                " written. Try again, or find the blocking session in pg_stat_activity."
            )
        if isinstance(exc, errors.InsufficientPrivilege):
            return SessionStoreError(
                f"{where} refused access ({exc}). Grant the user rights on schema"
                f" {self.schema!r}, or use another ?schema=."
            )
        if isinstance(exc, errors.DiskFull):
            return SessionStoreError(f"{where} is out of disk space; nothing was written.")
        if isinstance(exc, OperationalError):
            return SessionStoreError(
                f"Lost the connection to {where} ({_first_line(exc)}); nothing was written. Check"
                " that the server is running and reachable; the next request reconnects."
            )
        return SessionStoreError(f"{where} failed: {_first_line(exc)}.")


def _connection_lost(exc: BaseException) -> bool:
    from psycopg import OperationalError, errors
    from psycopg_pool import PoolTimeout

    return isinstance(exc, OperationalError) and not isinstance(
        exc, errors.QueryCanceled | errors.DiskFull | PoolTimeout
    )


def _first_line(exc: BaseException) -> str:
    text = str(exc).strip()
    return text.splitlines()[0] if text else type(exc).__name__
