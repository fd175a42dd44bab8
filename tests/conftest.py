"""Shared fixtures: a fresh in-memory session per test."""

from __future__ import annotations

import os
import sys
import uuid
from collections.abc import Iterator

import pytest

import yadk.models
from yadk.sessions import InMemorySessionService, Session

# No test may reach a real model service: backends refuse unless a test opts in explicitly.
yadk.models.ALLOW_MODEL_REQUESTS = False


@pytest.fixture(autouse=True)
def _no_stale_agent_modules(tmp_path_factory: pytest.TempPathFactory) -> None:
    """Forget modules (and sys.path entries) an earlier test imported from its temporary agent
    folders: tests reuse folder names (``my_agent``, ``weather``), and a config reaches only its
    own folder's modules, so another test's ``weather.tools`` must not answer for this one's."""
    base = str(tmp_path_factory.getbasetemp())
    prefixes = (base + os.sep, os.path.realpath(base) + os.sep)
    for name, module in list(sys.modules.items()):
        file = getattr(module, "__file__", None)
        if isinstance(file, str) and file.startswith(prefixes):
            del sys.modules[name]
    sys.path[:] = [entry for entry in sys.path if not (entry + os.sep).startswith(prefixes)]


@pytest.fixture
def session_service() -> InMemorySessionService:
    return InMemorySessionService()


@pytest.fixture
async def session(session_service: InMemorySessionService) -> Session:
    return await session_service.create_session(app_name="app", user_id="user")


# The PostgreSQL server every machine of this project runs (trust auth, database `test`); CI
# starts it before the suite, so a missing server fails the tests that need it, never skips them.
POSTGRES_URL = os.environ.get("YADK_TEST_POSTGRES_URL", "postgresql://postgres@127.0.0.1:5432/test")


@pytest.fixture
def postgres_url() -> Iterator[str]:
    """A database URL with a schema of its own (``?schema=``), dropped after the test, so
    parallel runs and tests never see each other's rows."""
    import psycopg

    schema = f"t_{os.getpid()}_{uuid.uuid4().hex[:10]}"
    try:
        psycopg.connect(POSTGRES_URL, connect_timeout=5).close()
    except psycopg.OperationalError as exc:
        pytest.fail(f"PostgreSQL at {POSTGRES_URL} is needed by this test and unreachable: {exc}")
    yield f"{POSTGRES_URL}?schema={schema}"
    with psycopg.connect(POSTGRES_URL, autocommit=True) as conn:
        conn.execute(
            "SELECT pg_terminate_backend(pid) FROM pg_stat_activity"
            " WHERE application_name = %s AND pid <> pg_backend_pid()",
            (f"yadk:{schema}",),
        )
        conn.execute(f"DROP SCHEMA IF EXISTS {schema} CASCADE")
