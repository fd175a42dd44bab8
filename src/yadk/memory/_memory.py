"""InMemoryMemoryService: google-adk's keyword matching, in the process's memory."""

from __future__ import annotations

import itertools
import re
import unicodedata
from typing import TYPE_CHECKING

from yadk.memory._base import BaseMemoryService, SearchMemoryResponse, entry_of, event_text

if TYPE_CHECKING:
    from yadk.events import Event
    from yadk.sessions import Session

__all__ = ["InMemoryMemoryService"]

MAX_RESULTS = 10


def _words(text: str) -> set[str]:
    return {w.lower() for w in re.findall(r"\w+", unicodedata.normalize("NFC", text))}


def _is_latin(char: str) -> bool:
    if char.isascii():
        return char.isalnum() or char == "_"
    return unicodedata.name(char, "").startswith("LATIN")


def _searchable(text: str) -> set[str]:
    """The words of ``text``, plus the single-script runs of mixed-script words (私はPythonを使う
    contains ``python``), as google-adk matches."""
    words = _words(text)
    for word in list(words):
        if not word.isascii():
            for _, run in itertools.groupby(word, _is_latin):
                words.add("".join(run))
    return words


class InMemoryMemoryService(BaseMemoryService):
    """For development and tests: an event matches when it shares words with the query; at most
    ten, those sharing the most words first (google-adk's rules)."""

    def __init__(self) -> None:
        self._sessions: dict[tuple[str, str], dict[str, list[Event]]] = {}

    async def add_session_to_memory(self, session: Session) -> None:
        kept = [e.model_copy(deep=True) for e in session.events if e.content and e.content.parts]
        self._sessions.setdefault((session.app_name, session.user_id), {})[session.id] = kept

    async def search_memory(
        self, *, app_name: str, user_id: str, query: str
    ) -> SearchMemoryResponse:
        query_words = _words(query)
        scored = []
        for events in self._sessions.get((app_name, user_id), {}).values():
            for event in events:
                text = event_text(event)
                words = _searchable(text)
                if not words:
                    continue
                lowered = unicodedata.normalize("NFC", text).lower()
                matched = sum(
                    1
                    for word in query_words
                    if word in words or (not word.isascii() and word in lowered)
                )
                if matched:
                    scored.append((matched, entry_of(event)))
        scored.sort(key=lambda item: -item[0])
        return SearchMemoryResponse(memories=[entry for _, entry in scored[:MAX_RESULTS]])
