"""The durable memory stores rank alike: PostgreSQL returns what SQLite returns, in its order."""

from __future__ import annotations

import asyncio
import random
import sqlite3
from collections.abc import Awaitable
from contextlib import closing
from pathlib import Path

import psycopg
import pytest

from yadk._bm25 import Bm25
from yadk.events import Event
from yadk.memory import BaseMemoryService, PostgresMemoryService, SqliteMemoryService, _cache
from yadk.sessions import InMemorySessionService, PostgresSessionService, Session
from yadk.sessions._pg import SCHEMA_VERSION
from yadk.stores import open_stores
from yadk.types import Content, Part

CORPUS = [
    ("s1", ["The invoice for March is paid.", "Ok.", "Invoice invoice: April is late."]),
    ("s2", ["My dog is called Rex.", "Nice.", "Rex likes the park near the invoice office."]),
    ("s3", ["Paid, paid, paid: every invoice of 2024.", "Great.", "The cat is called Tom."]),
    ("s4", ["Tom and Rex are friends.", "Cute!", "Nothing about bills here."]),
]

QUERIES = [
    "late invoice",
    "invoice",
    "paid",
    "Rex",
    "Tom Rex",
    "park office",
    "cute",
    "called",
    "ok nice",
    "unknown words only",
    "",
]


async def conversation(session_id: str, texts: list[str], *, user: str = "ada") -> Session:
    sessions = InMemorySessionService()
    session = await sessions.create_session(app_name="app", user_id=user, session_id=session_id)
    for index, text in enumerate(texts):
        role, author = ("user", "user") if index % 2 == 0 else ("model", "bot")
        await sessions.append_event(
            session, Event(author=author, content=Content(role=role, parts=[Part(text=text)]))
        )
    return session


async def results(service: BaseMemoryService) -> list[list[str]]:
    sessions = [await conversation(sid, texts) for sid, texts in CORPUS]
    for session in sessions:
        await service.add_session_to_memory(session)
    await service.add_session_to_memory(sessions[0])  # again: replaced, moved to the end
    await service.add_session_to_memory(await conversation("other", ["invoice Rex"], user="bob"))
    found = []
    for query in QUERIES:
        response = await service.search_memory(app_name="app", user_id="ada", query=query)
        found.append([m.content.parts[0].text or "" for m in response.memories])
    return found


async def test_postgres_ranks_exactly_as_sqlite(tmp_path: Path, postgres_url: str) -> None:
    sqlite = SqliteMemoryService(tmp_path / "m.db", top_k=3)
    postgres = PostgresMemoryService(postgres_url, top_k=3)
    try:
        expected = await results(sqlite)
        assert await results(postgres) == expected
    finally:
        await sqlite.close()
        await postgres.close()
    assert expected[0] == [
        "Invoice invoice: April is late.",
        "The invoice for March is paid.",
        "Paid, paid, paid: every invoice of 2024.",
    ]
    # Equal scores keep insertion order; session s1 was remembered again, so it comes last.
    assert expected[7] == ["My dog is called Rex.", "The cat is called Tom."]
    assert expected[8] == ["Nice.", "Ok."]
    assert expected[-2:] == [[], []]


async def test_postgres_memory_survives_a_restart(postgres_url: str) -> None:
    first = PostgresMemoryService(postgres_url)
    await first.add_session_to_memory(await conversation("s", ["I live in Porto."]))
    await first.close()
    again = PostgresMemoryService(postgres_url)
    found = await again.search_memory(app_name="app", user_id="ada", query="porto")
    assert [m.content.parts[0].text for m in found.memories] == ["I live in Porto."]
    await again.close()


async def test_concurrent_adds_of_one_session_keep_one_copy(postgres_url: str) -> None:
    service = PostgresMemoryService(postgres_url, pool_size=4)
    session = await conversation("s", ["I live in Porto.", "Ok.", "Porto is rainy."])
    await asyncio.gather(*(service.add_session_to_memory(session) for _ in range(6)))
    found = await service.search_memory(app_name="app", user_id="ada", query="porto")
    assert sorted(m.content.parts[0].text or "" for m in found.memories) == [
        "I live in Porto.",
        "Porto is rainy.",
    ]
    await service.close()


def _schema(url: str) -> str:
    return url.rsplit("schema=", 1)[1]


async def test_a_version_1_schema_gains_memories_with_db_upgrade(postgres_url: str) -> None:
    sessions = PostgresSessionService(postgres_url)
    await sessions.create_session(app_name="app", user_id="ada", session_id="kept")
    await sessions.aclose()
    schema = _schema(postgres_url)
    with psycopg.connect(postgres_url.split("?", 1)[0], autocommit=True) as admin:
        admin.execute(f"DROP TABLE {schema}.memories")
        admin.execute(f"UPDATE {schema}.yadk_schema SET version = 1")
    stale = PostgresMemoryService(postgres_url)
    needs = f"uses session schema version 1; this yadk needs {SCHEMA_VERSION}"
    with pytest.raises(Exception, match=needs):
        await stale.search_memory(app_name="app", user_id="ada", query="x")
    await stale.close()
    assert await PostgresSessionService(postgres_url).db.upgrade() == (1, SCHEMA_VERSION)
    stores = open_stores(postgres_url)
    try:
        assert isinstance(stores.memory, PostgresMemoryService)
        assert stores.memory.db is stores.sessions.db  # one pool
        assert await stores.sessions.get_session(app_name="app", user_id="ada", session_id="kept")
        await stores.memory.add_session_to_memory(await conversation("s", ["Porto"]))
        found = await stores.memory.search_memory(app_name="app", user_id="ada", query="porto")
        assert len(found.memories) == 1
    finally:
        await stores.aclose()


async def test_sqlite_stores_keep_memory_beside_the_sessions(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    stores = open_stores("data/s.db")
    try:
        assert isinstance(stores.memory, SqliteMemoryService)
        await stores.memory.add_session_to_memory(await conversation("s", ["I live in Porto."]))
        await stores.sessions.create_session(app_name="app", user_id="ada")
    finally:
        await stores.aclose()
    assert sorted(p.name for p in Path("data").iterdir()) == ["s.db", "s.memory.db"]


VOCABULARY = (
    "invoice march april paid late dog rex park cat tom porto lisbon color blue green order"
    " parcel shipped refund account password weather rain sun meeting monday report café"
).split()
LARGE_QUERIES = ["invoice march", "rex the dog", "blue green color", "café", "monday", "zzz"]


async def test_a_larger_corpus_ranks_alike_in_both_stores_as_its_adds_go_by(
    tmp_path: Path, postgres_url: str
) -> None:
    """Searches between adds use each store's cached index; the result must stay what BM25 over
    the user's messages, in the order last remembered, gives."""
    rng = random.Random(5)
    stores = [SqliteMemoryService(tmp_path / "m.db"), PostgresMemoryService(postgres_url)]
    made: list[Session] = []
    remembered: dict[str, str] = {}  # event id -> text, in the order last remembered
    try:
        for step in range(40):
            if made and step % 3 == 2:
                session = rng.choice(made)  # again: its messages become the newest
            else:
                texts = [
                    " ".join(rng.choice(VOCABULARY) for _ in range(rng.randint(1, 12)))
                    for _ in range(rng.randint(1, 16))
                ]
                session = await conversation(f"s{step}", texts)
                made.append(session)
            for store in stores:
                await store.add_session_to_memory(session)
            for event in session.events:
                remembered.pop(event.id, None)
                remembered[event.id] = event.content.parts[0].text or ""  # type: ignore[union-attr]
            if step % 8 == 7:
                corpus = list(remembered.values())
                for query in LARGE_QUERIES:
                    expected = [corpus[i] for i, _ in Bm25(corpus).rank(query)[:10]]
                    for store in stores:
                        found = await store.search_memory(
                            app_name="app", user_id="ada", query=query
                        )
                        assert [m.content.parts[0].text for m in found.memories] == expected
    finally:
        for store in stores:
            await store.close()


async def _replica(kind: str, tmp_path: Path, request: pytest.FixtureRequest) -> BaseMemoryService:
    if kind == "sqlite":
        return SqliteMemoryService(tmp_path / "m.db")
    return PostgresMemoryService(request.getfixturevalue("postgres_url"))


@pytest.mark.parametrize("kind", ["sqlite", "postgres"])
async def test_a_search_sees_what_another_process_remembered(
    kind: str, tmp_path: Path, request: pytest.FixtureRequest
) -> None:
    """Two services on one store stand for two server replicas: each caches its index."""
    first, second = [await _replica(kind, tmp_path, request) for _ in range(2)]
    try:
        porto = await conversation("s1", ["I live in Porto.", "Ok."])
        await first.add_session_to_memory(porto)
        found = await first.search_memory(app_name="app", user_id="ada", query="ok porto")
        assert len(found.memories) == 2  # first's index is now cached
        await second.add_session_to_memory(await conversation("s2", ["Porto is rainy.", "Ok."]))
        await second.add_session_to_memory(porto)  # again: its messages become the newest
        found = await first.search_memory(app_name="app", user_id="ada", query="rainy")
        assert [m.content.parts[0].text for m in found.memories] == ["Porto is rainy."]
        await first.add_session_to_memory(await conversation("s3", ["Lisbon is sunny, ok?"]))
        corpus = ["Porto is rainy.", "Ok.", "I live in Porto.", "Ok.", "Lisbon is sunny, ok?"]
        expected = [corpus[i] for i, _ in Bm25(corpus).rank("porto ok")]
        assert len(expected) == 5
        for service in (first, second):
            found = await service.search_memory(app_name="app", user_id="ada", query="porto ok")
            assert [m.content.parts[0].text for m in found.memories] == expected
    finally:
        await first.close()
        await second.close()


async def test_replicas_adding_and_searching_at_once_end_up_with_what_the_database_holds(
    postgres_url: str,
) -> None:
    """Concurrent adds of one user from two replicas, searched while they commit: each
    replica's cached index must end up equal to a fresh read of the rows."""
    replicas = [PostgresMemoryService(postgres_url, pool_size=4) for _ in range(2)]
    rng = random.Random(9)
    sessions = [
        await conversation(
            f"s{n}", [" ".join(rng.choice(VOCABULARY) for _ in range(6)) for _ in range(5)]
        )
        for n in range(16)
    ]

    async def search(replica: BaseMemoryService) -> list[list[str]]:
        found = []
        for query in LARGE_QUERIES:
            response = await replica.search_memory(app_name="app", user_id="ada", query=query)
            found.append([m.id or "" for m in response.memories])
        return found

    try:
        work: list[Awaitable[object]] = [
            replicas[n % 2].add_session_to_memory(s) for n, s in enumerate(sessions)
        ]
        work += [search(replicas[n % 2]) for n in range(8)]
        await asyncio.gather(*work)
        fresh = PostgresMemoryService(postgres_url)
        expected = await search(fresh)
        await fresh.close()
        assert all(expected[:5])
        for replica in replicas:
            assert await search(replica) == expected
    finally:
        for replica in replicas:
            await replica.close()


async def test_a_store_keeps_the_index_of_its_most_recently_searched_users_only(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(_cache, "MAX_CACHED_USERS", 2)
    service = SqliteMemoryService(tmp_path / "m.db")
    try:
        for user in ["ada", "bob", "cy"]:
            await service.add_session_to_memory(await conversation(user, ["Porto"], user=user))
            found = await service.search_memory(app_name="app", user_id=user, query="porto")
            assert len(found.memories) == 1
        cached = service._indexes
        assert [cached.get("app", u) is not None for u in ["ada", "bob", "cy"]] == [
            False,
            True,
            True,
        ]
        found = await service.search_memory(app_name="app", user_id="ada", query="porto")
        assert len(found.memories) == 1  # read again
    finally:
        await service.close()


async def test_the_sqlite_memory_file_is_journaled_with_wal(tmp_path: Path) -> None:
    service = SqliteMemoryService(tmp_path / "m.db")
    await service.add_session_to_memory(await conversation("s", ["I live in Porto."]))
    await service.close()
    with closing(sqlite3.connect(tmp_path / "m.db")) as db:
        assert db.execute("PRAGMA journal_mode").fetchone() == ("wal",)
