"""Benchmark: memory search over one user's 2,000 remembered messages, yadk vs google-adk 2.13.

Remembers 100 sessions of 20 messages each, then times ``search_memory`` for a few queries:
yadk's ``InMemoryMemoryService`` (google-adk's keyword matching), ``SqliteMemoryService`` and
``PostgresMemoryService`` (BM25, the same ranking), and google-adk's ``InMemoryMemoryService``
(its only store that runs offline) in the ADK virtualenv. Also times remembering the sessions,
and the first search apart (a durable store then reads and indexes the user's rows; later
searches only ask the database what changed).
Run: ``python bench/bench_memory.py``; ``YADK_BENCH_POSTGRES`` sets the database
(default ``postgresql://postgres@127.0.0.1:5432/test``; a schema of its own, dropped after).
"""

from __future__ import annotations

import asyncio
import os
import statistics
import sys
import tempfile
import time
import uuid
from pathlib import Path
from typing import NamedTuple

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _compare import report, run_adk, write_results

from yadk.events import Event
from yadk.memory import (
    BaseMemoryService,
    InMemoryMemoryService,
    PostgresMemoryService,
    SqliteMemoryService,
)
from yadk.sessions import InMemorySessionService, Session
from yadk.types import Content, Part

SESSIONS = 100
MESSAGES = 20
QUERIES = ["invoice for march", "where does the user live", "favorite color", "rex the dog"]
REPEAT = 5
POSTGRES = os.environ.get("YADK_BENCH_POSTGRES", "postgresql://postgres@127.0.0.1:5432/test")

WORDS = (
    "invoice march april paid late dog rex park cat tom porto lisbon color blue green order"
    " parcel shipped refund account password weather rain sun meeting monday tuesday report"
).split()


def text(session: int, message: int) -> str:
    picked = [WORDS[(session * 7 + message * 3 + k * 5) % len(WORDS)] for k in range(12)]
    return f"Message {message} of session {session}: " + " ".join(picked) + "."


ADK_SNIPPET = f"""
import asyncio, json, statistics, time
from google.adk.events import Event
from google.adk.memory import InMemoryMemoryService
from google.adk.sessions import InMemorySessionService
from google.genai import types

WORDS = {WORDS!r}

def text(session, message):
    picked = [WORDS[(session * 7 + message * 3 + k * 5) % len(WORDS)] for k in range(12)]
    return f"Message {{message}} of session {{session}}: " + " ".join(picked) + "."

async def main():
    sessions = InMemorySessionService()
    memory = InMemoryMemoryService()
    made = []
    for s in range({SESSIONS}):
        session = await sessions.create_session(app_name="app", user_id="u")
        for m in range({MESSAGES}):
            role = "user" if m % 2 == 0 else "model"
            await sessions.append_event(session, Event(author=role, content=types.Content(
                role=role, parts=[types.Part(text=text(s, m))])))
        made.append(session)
    start = time.perf_counter()
    for session in made:
        await memory.add_session_to_memory(session)
    add = (time.perf_counter() - start) * 1000
    runs = []
    for _ in range({REPEAT}):
        start = time.perf_counter()
        for query in {QUERIES!r}:
            await memory.search_memory(app_name="app", user_id="u", query=query)
        runs.append((time.perf_counter() - start) * 1000 / {len(QUERIES)})
    print(json.dumps({{"add": add, "search": statistics.median(runs)}}))

asyncio.run(main())
"""


async def sessions() -> list[Session]:
    service = InMemorySessionService()
    made = []
    for s in range(SESSIONS):
        session = await service.create_session(app_name="app", user_id="u")
        for m in range(MESSAGES):
            role = "user" if m % 2 == 0 else "model"
            content = Content(role=role, parts=[Part(text=text(s, m))])
            await service.append_event(session, Event(author=role, content=content))
        made.append(session)
    return made


class Figures(NamedTuple):
    add: float  # ms to remember all the sessions, one after the other
    first: float  # ms of the first search (a durable store then reads the user's rows)
    search: float  # median ms per search after it


async def measure(memory: BaseMemoryService, made: list[Session]) -> Figures:
    start = time.perf_counter()
    for session in made:
        await memory.add_session_to_memory(session)
    add = (time.perf_counter() - start) * 1000
    start = time.perf_counter()
    await memory.search_memory(app_name="app", user_id="u", query=QUERIES[0])
    first = (time.perf_counter() - start) * 1000
    runs = []
    for _ in range(REPEAT):
        start = time.perf_counter()
        for query in QUERIES:
            await memory.search_memory(app_name="app", user_id="u", query=query)
        runs.append((time.perf_counter() - start) * 1000 / len(QUERIES))
    return Figures(add, first, statistics.median(runs))


async def main() -> None:
    made = await sessions()
    adk = run_adk(ADK_SNIPPET)
    adk_add = adk["add"] if adk else None
    adk_search = adk["search"] if adk else None
    print(f"{SESSIONS} sessions x {MESSAGES} messages, median of {REPEAT} (ms per search)")
    results = {}
    results["in-memory"] = await measure(InMemoryMemoryService(), made)
    with tempfile.TemporaryDirectory() as folder:
        sqlite = SqliteMemoryService(Path(folder) / "m.db")
        results["SQLite (BM25)"] = await measure(sqlite, made)
        await sqlite.close()
    schema = f"bench_{uuid.uuid4().hex[:10]}"
    postgres = PostgresMemoryService(f"{POSTGRES}?schema={schema}")
    try:
        results["PostgreSQL (BM25)"] = await measure(postgres, made)
    finally:
        await postgres.close()
        import psycopg

        with psycopg.connect(POSTGRES, autocommit=True) as conn:
            conn.execute(f"DROP SCHEMA IF EXISTS {schema} CASCADE")
    for name, figures in results.items():
        report(f"search_memory, {name}", figures.search, adk_search, "ms")
        report(f"first search_memory, {name}", figures.first, adk_search, "ms")
        report(f"add {SESSIONS} sessions, {name}", figures.add, adk_add, "ms")
        per_session = adk_add / SESSIONS if adk_add is not None else None
        report(f"add 1 session, {name}", figures.add / SESSIONS, per_session, "ms")


if __name__ == "__main__":
    asyncio.run(main())
    write_results(__file__)
