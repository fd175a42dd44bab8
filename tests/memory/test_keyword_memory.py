"""InMemoryMemoryService's word index returns what google-adk's scan over every event returns."""

from __future__ import annotations

import itertools
import random
import re
import unicodedata

from yadk.events import Event
from yadk.memory import InMemoryMemoryService
from yadk.sessions import InMemorySessionService, Session
from yadk.types import Content, Part

VOCABULARY = (
    "invoice March paid late dog Rex park cat porto lisbon blue order refund rain café cafés"
    " ação 私はPythonを使う Python 東京 東京タワー"
).split()
QUERIES = ["invoice", "late invoice March", "rex DOG", "café", "ação", "python", "東京", "zzz", ""]


def scan(sessions: dict[str, list[str]], query: str) -> list[str]:
    """google-adk 2.13's matching, event by event over the sessions in their first-added order:
    shared words (and, for a non-ASCII query word, a substring), at most ten, most first."""

    def words(text: str) -> set[str]:
        return {w.lower() for w in re.findall(r"\w+", unicodedata.normalize("NFC", text))}

    def latin(char: str) -> bool:
        if char.isascii():
            return char.isalnum() or char == "_"
        return unicodedata.name(char, "").startswith("LATIN")

    query_words = words(query)
    scored = []
    for texts in sessions.values():
        for text in texts:
            found = words(text)
            for word in list(found):
                if not word.isascii():
                    found |= {"".join(run) for _, run in itertools.groupby(word, latin)}
            if not found:
                continue
            lowered = unicodedata.normalize("NFC", text).lower()
            matched = sum(
                1 for w in query_words if w in found or (not w.isascii() and w in lowered)
            )
            if matched:
                scored.append((matched, text))
    scored.sort(key=lambda item: -item[0])
    return [text for _, text in scored[:10]]


async def session_of(session_id: str, texts: list[str]) -> Session:
    service = InMemorySessionService()
    session = await service.create_session(app_name="app", user_id="ada", session_id=session_id)
    for text in texts:
        content = Content(role="user", parts=[Part(text=text)])
        await service.append_event(session, Event(author="user", content=content))
    return session


async def test_the_index_finds_what_a_scan_of_every_event_finds() -> None:
    rng = random.Random(11)
    memory = InMemoryMemoryService()
    remembered: dict[str, list[str]] = {}
    for step in range(60):
        session_id = f"s{rng.randrange(25)}"  # some sessions remembered again, changed
        texts = [
            " ".join(rng.choice(VOCABULARY) for _ in range(rng.randint(0, 6))) + "."
            for _ in range(rng.randint(1, 12))
        ]
        await memory.add_session_to_memory(await session_of(session_id, texts))
        remembered[session_id] = texts  # a session added again keeps its place
        if step % 10 == 9:
            for query in QUERIES:
                found = await memory.search_memory(app_name="app", user_id="ada", query=query)
                assert [m.content.parts[0].text for m in found.memories] == scan(
                    remembered, query
                ), query
    found = await memory.search_memory(app_name="app", user_id="ada", query="café")
    assert len(found.memories) == 10


async def test_a_remembered_event_is_not_copied_but_an_entry_is() -> None:
    memory = InMemoryMemoryService()
    session = await session_of("s", ["I live in Porto."])
    await memory.add_session_to_memory(session)
    found = await memory.search_memory(app_name="app", user_id="ada", query="porto")
    entry = found.memories[0]
    assert entry.id == session.events[0].id
    assert entry.content == session.events[0].content
    assert entry.content is not session.events[0].content  # a caller may change its entry
