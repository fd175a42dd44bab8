"""yadk run uses the memory store that lives with --db: load_memory finds what was remembered."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable
from pathlib import Path

import pytest

from yadk.events import Event
from yadk.sessions import InMemorySessionService
from yadk.stores import open_stores
from yadk.types import Content, Part

Cli = Callable[..., tuple[int, str, str]]

ROOT = """\
name: bot
model: scripted:turns.yaml
instruction: Help.
tools:
  - name: load_memory
"""
TURNS = """\
turns:
  - function_calls: [{name: load_memory, args: {query: where does the user live}}]
  - text: You live in Porto.
"""


async def _remember(db: str) -> None:
    sessions = InMemorySessionService()
    session = await sessions.create_session(app_name="bot", user_id="user")
    await sessions.append_event(
        session,
        Event(author="user", content=Content(role="user", parts=[Part(text="I live in Porto.")])),
    )
    stores = open_stores(db)
    try:
        await stores.memory.add_session_to_memory(session)
    finally:
        await stores.aclose()


@pytest.mark.parametrize("store", ["sqlite", "postgres"])
def test_load_memory_searches_the_db_memory_store(
    cli: Cli, tmp_path: Path, store: str, request: pytest.FixtureRequest
) -> None:
    folder = tmp_path / "bot"
    folder.mkdir()
    (folder / "root_agent.yaml").write_text(ROOT)
    (folder / "turns.yaml").write_text(TURNS)
    db = str(tmp_path / "s.db") if store == "sqlite" else request.getfixturevalue("postgres_url")
    asyncio.run(_remember(db))
    code, out, err = cli("run", "bot", "Where do I live?", "--db", db, "--json")
    assert code == 0, err
    responses = [
        part["function_response"]["response"]
        for line in out.splitlines()
        for part in (json.loads(line).get("content") or {}).get("parts", [])
        if part.get("function_response")
    ]
    memories = responses[0]["result"]["memories"] if responses else []
    assert [m["content"]["parts"][0]["text"] for m in memories] == ["I live in Porto."]
