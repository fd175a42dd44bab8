"""Shared fixtures: a fresh in-memory session per test."""

from __future__ import annotations

import pytest

import yadk.models
from yadk.sessions import InMemorySessionService, Session

# No test may reach a real model service: backends refuse unless a test opts in explicitly.
yadk.models.ALLOW_MODEL_REQUESTS = False


@pytest.fixture
def session_service() -> InMemorySessionService:
    return InMemorySessionService()


@pytest.fixture
async def session(session_service: InMemorySessionService) -> Session:
    return await session_service.create_session(app_name="app", user_id="user")
