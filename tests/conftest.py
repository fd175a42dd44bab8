"""Shared fixtures: a fresh in-memory session per test."""

from __future__ import annotations

import os
import uuid
from collections.abc import Iterator

import pytest

import yadk.models
from yadk.sessions import InMemorySessionService, Session

# Markers from the fixtures a test uses, and the check that a test starting a program says so.
pytest_plugins = ["tests.suite_parts"]

# No test may reach a real model service: backends refuse unless a test opts in explicitly.
yadk.models.ALLOW_MODEL_REQUESTS = False


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
def postgres_url(request: pytest.FixtureRequest) -> Iterator[str]:
    """A database URL with a schema of its own (``?schema=``), dropped after the test, so
    parallel runs and tests never see each other's rows."""
    import psycopg

    if request.node.get_closest_marker("postgres") is None:
        pytest.fail(
            f"{request.node.nodeid} uses PostgreSQL without the `postgres` marker: add"
            " @pytest.mark.postgres (or pytest.param(..., marks=pytest.mark.postgres))."
        )

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
