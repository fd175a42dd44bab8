"""Shared fixtures: a fresh in-memory session per test."""

from __future__ import annotations

import os
import sys
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

import yadk.models
from yadk.sessions import InMemorySessionService, Session

# Markers from the fixtures a test uses, and the check that a test starting a program says so.
pytest_plugins = ["tests.suite_parts"]

# No test may reach a real model service: backends refuse unless a test opts in explicitly.
yadk.models.ALLOW_MODEL_REQUESTS = False


# Agent folders of the repository whose modules tests import (top-level names such as `tools`).
_REPO = Path(__file__).resolve().parent.parent
_AGENT_FOLDERS = tuple(
    str(_REPO / folder) + os.sep
    for folder in (
        "configs",
        "tests/config/fixtures",
        "tests/serve/agents",
        "tests/side_by_side/cases",
        "tests/web/desk",
    )
)


@pytest.fixture(autouse=True)
def _no_stale_agent_modules(tmp_path_factory: pytest.TempPathFactory) -> None:
    """Forget modules (and sys.path entries) an earlier test imported from agent folders (its
    temporary ones, the repository's): tests reuse module names (``my_agent``, ``tools``), and a
    config reaches only its own folder's modules, so another test's ``tools`` must not answer
    for this one's."""
    base = str(tmp_path_factory.getbasetemp())
    prefixes = (base + os.sep, os.path.realpath(base) + os.sep, *_AGENT_FOLDERS)
    for name, module in list(sys.modules.items()):
        places = [getattr(module, "__file__", None), *(getattr(module, "__path__", None) or [])]
        if any(isinstance(p, str) and p.startswith(prefixes) for p in places):
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
