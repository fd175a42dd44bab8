"""One contract for every memory service: what is remembered, for whom, and how it is found."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from yadk.events import Event
from yadk.memory import (
    BaseMemoryService,
    InMemoryMemoryService,
    PostgresMemoryService,
    SqliteMemoryService,
)
from yadk.sessions import InMemorySessionService, Session
from yadk.types import Content, Part


@pytest.fixture(params=["memory", "sqlite", "postgres"])
async def service(
    request: pytest.FixtureRequest, tmp_path: Path
) -> AsyncIterator[BaseMemoryService]:
    made: BaseMemoryService
    if request.param == "memory":
        made = InMemoryMemoryService()
    elif request.param == "sqlite":
        made = SqliteMemoryService(tmp_path / "m.db")
    else:
        made = PostgresMemoryService(request.getfixturevalue("postgres_url"))
    yield made
    await made.close()


async def conversation(user: str, *texts: str) -> Session:
    sessions = InMemorySessionService()
    session = await sessions.create_session(app_name="app", user_id=user)
    for index, text in enumerate(texts):
        role, author = ("user", "user") if index % 2 == 0 else ("model", "bot")
        await sessions.append_event(
            session, Event(author=author, content=Content(role=role, parts=[Part(text=text)]))
        )
    return session


async def test_a_remembered_message_is_found_by_its_words(service: BaseMemoryService) -> None:
    await service.add_session_to_memory(
        await conversation("ada", "My favorite color is blue.", "Noted.", "I live in Porto.")
    )
    found = await service.search_memory(app_name="app", user_id="ada", query="favorite color?")
    assert [(m.author, m.content.parts[0].text) for m in found.memories] == [
        ("user", "My favorite color is blue.")
    ]
    assert found.memories[0].timestamp and found.memories[0].id


async def test_memory_is_per_user_and_app(service: BaseMemoryService) -> None:
    await service.add_session_to_memory(await conversation("ada", "I live in Porto."))
    assert (
        await service.search_memory(app_name="app", user_id="bob", query="Porto")
    ).memories == []
    assert (
        await service.search_memory(app_name="other", user_id="ada", query="Porto")
    ).memories == []


async def test_adding_a_session_again_keeps_one_copy(service: BaseMemoryService) -> None:
    session = await conversation("ada", "I live in Porto.")
    await service.add_session_to_memory(session)
    await service.add_session_to_memory(session)
    found = await service.search_memory(app_name="app", user_id="ada", query="Porto")
    assert len(found.memories) == 1


async def test_sqlite_memory_survives_a_restart_and_ranks_by_bm25(tmp_path: Path) -> None:
    first = SqliteMemoryService(tmp_path / "m.db")
    await first.add_session_to_memory(
        await conversation(
            "ada",
            "The invoice for March is paid.",
            "Ok.",
            "Invoice invoice: the April invoice is late.",
            "Ok.",
        )
    )
    await first.close()
    again = SqliteMemoryService(tmp_path / "m.db")
    found = await again.search_memory(app_name="app", user_id="ada", query="late invoice")
    assert [m.content.parts[0].text for m in found.memories] == [
        "Invoice invoice: the April invoice is late.",
        "The invoice for March is paid.",
    ]
    await again.close()
