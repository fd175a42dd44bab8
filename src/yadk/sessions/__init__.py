"""Sessions: state with scopes, and the services that store conversations."""

from __future__ import annotations

from typing import TYPE_CHECKING

from yadk._lazy import lazy_facade
from yadk.errors import AlreadyExistsError, SessionNotFoundError, StaleSessionError

if TYPE_CHECKING:
    from yadk.sessions._base import BaseSessionService, GetSessionConfig, ListSessionsResponse
    from yadk.sessions._memory import InMemorySessionService
    from yadk.sessions._open import open_session_service, upgrade_local_store
    from yadk.sessions._postgres import PostgresSessionService
    from yadk.sessions._session import Session
    from yadk.sessions._sqlite import SqliteSessionService
    from yadk.sessions._state import State
    from yadk.sessions._turns import SessionBusy, SessionLocks

__all__ = [
    "AlreadyExistsError",
    "BaseSessionService",
    "GetSessionConfig",
    "InMemorySessionService",
    "ListSessionsResponse",
    "PostgresSessionService",
    "Session",
    "SessionBusy",
    "SessionLocks",
    "SessionNotFoundError",
    "SqliteSessionService",
    "StaleSessionError",
    "State",
    "open_session_service",
    "upgrade_local_store",
]

# For yadk's own packages; not part of the public contract (``__all__``). Loaded on first
# use (table below), as the names above are.
if TYPE_CHECKING:
    from yadk.sessions._base import SessionKey as SessionKey
    from yadk.sessions._export import EXPORT_FORMAT as EXPORT_FORMAT
    from yadk.sessions._export import export_document as export_document
    from yadk.sessions._export import initial_state as initial_state
    from yadk.sessions._export import state_scopes as state_scopes
    from yadk.sessions._open import upgrade_schema as upgrade_schema
    from yadk.sessions._pg import PgDatabase as PgDatabase
    from yadk.sessions._turns import Clock as Clock

# Loaded on first use: an in-memory session (yadk inspect) needs neither sqlite3 nor psycopg.
__getattr__, __dir__ = lazy_facade(
    globals(),
    {
        "BaseSessionService": "yadk.sessions._base",
        "GetSessionConfig": "yadk.sessions._base",
        "ListSessionsResponse": "yadk.sessions._base",
        "InMemorySessionService": "yadk.sessions._memory",
        "open_session_service": "yadk.sessions._open",
        "upgrade_local_store": "yadk.sessions._open",
        "PostgresSessionService": "yadk.sessions._postgres",
        "Session": "yadk.sessions._session",
        "SqliteSessionService": "yadk.sessions._sqlite",
        "State": "yadk.sessions._state",
        "SessionBusy": "yadk.sessions._turns",
        "SessionLocks": "yadk.sessions._turns",
        # for yadk's own packages; not part of the public contract
        "EXPORT_FORMAT": "yadk.sessions._export",
        "export_document": "yadk.sessions._export",
        "initial_state": "yadk.sessions._export",
        "state_scopes": "yadk.sessions._export",
        "upgrade_schema": "yadk.sessions._open",
        "PgDatabase": "yadk.sessions._pg",
        "Clock": "yadk.sessions._turns",
        "SessionKey": "yadk.sessions._base",
    },
)
