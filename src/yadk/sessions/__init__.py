"""Sessions: state with scopes, and the services that store conversations."""

from yadk.errors import AlreadyExistsError, SessionNotFoundError, StaleSessionError
from yadk.sessions._base import BaseSessionService, GetSessionConfig, ListSessionsResponse
from yadk.sessions._memory import InMemorySessionService
from yadk.sessions._open import open_session_service
from yadk.sessions._postgres import PostgresSessionService
from yadk.sessions._session import Session
from yadk.sessions._sqlite import SqliteSessionService
from yadk.sessions._state import State

__all__ = [
    "AlreadyExistsError",
    "BaseSessionService",
    "GetSessionConfig",
    "InMemorySessionService",
    "ListSessionsResponse",
    "PostgresSessionService",
    "Session",
    "SessionNotFoundError",
    "SqliteSessionService",
    "StaleSessionError",
    "State",
    "open_session_service",
]
