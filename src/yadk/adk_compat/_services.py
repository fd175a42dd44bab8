"""google-adk's ``DatabaseSessionService(db_url)``: its SQLAlchemy URLs mapped to yadk's stores."""

from __future__ import annotations

from typing import Any

from yadk.sessions import BaseSessionService, open_session_service

__all__ = ["DatabaseSessionService", "session_store_url"]

_SQLITE = ("sqlite", "sqlite+aiosqlite", "sqlite+pysqlite")
_POSTGRES = (
    "postgresql",
    "postgres",
    "postgresql+asyncpg",
    "postgresql+psycopg",
    "postgresql+psycopg2",
    "postgresql+pg8000",
)


def session_store_url(db_url: str) -> str:
    """The yadk store URL for google-adk's database URL: SQLite (``sqlite:///PATH``, with any
    SQLAlchemy driver) -> yadk's SQLite store; PostgreSQL (any driver) -> yadk's PostgreSQL
    store; ``sqlite:///:memory:`` -> in memory. Other databases raise ``ValueError``."""
    scheme, sep, rest = db_url.partition("://")
    if not sep:
        raise ValueError(
            f"Invalid database URL {db_url!r}: expected sqlite:///PATH or postgresql://..."
        )
    scheme = scheme.lower()
    if scheme in _SQLITE:
        path = rest[1:] if rest.startswith("/") else rest
        path = path.split("?", 1)[0]
        return ":memory:" if path in ("", ":memory:") else f"sqlite:///{path}"
    if scheme in _POSTGRES:
        return f"postgresql://{rest}"
    raise ValueError(
        f"DatabaseSessionService({db_url!r}): yadk stores sessions in SQLite or PostgreSQL, not"
        f" {scheme.split('+')[0]}; use a sqlite:///PATH or postgresql:// URL."
    )


def DatabaseSessionService(db_url: str, **engine_kwargs: Any) -> BaseSessionService:
    """google-adk's ``DatabaseSessionService(db_url)``: yadk's SQLite or PostgreSQL session
    service for the same URL (SQLAlchemy engine arguments are not used)."""
    return open_session_service(session_store_url(db_url))
