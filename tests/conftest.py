"""Shared fixtures: a fresh in-memory session per test."""

from __future__ import annotations

import pytest

from yadk.sessions import InMemorySessionService, Session


@pytest.fixture
def session_service() -> InMemorySessionService:
    return InMemorySessionService()


@pytest.fixture
async def session(session_service: InMemorySessionService) -> Session:
    return await session_service.create_session(app_name="app", user_id="user")
