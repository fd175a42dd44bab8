"""InMemoryMemoryService: google-adk's keyword matching, in the process's memory."""

from __future__ import annotations

import heapq
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

_Place = tuple[int, int]


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


class _UserMemory:
    """One user's remembered events, indexed by word when added. An event's place is
    (the session's place, the event's place in it): a session remembered again keeps its place,
    as google-adk's dict of sessions does, so ties rank as they do there."""

    def __init__(self) -> None:
        self.sessions: dict[str, tuple[int, list[tuple[_Place, set[str]]]]] = {}
        self.events: dict[_Place, Event] = {}
        self.by_word: dict[str, set[_Place]] = {}
        # Lowercased texts that are not ASCII: a non-ASCII query word also matches inside them.
        self.unicode_texts: dict[_Place, str] = {}

    def remember(self, session_id: str, events: list[Event]) -> None:
        ordinal, old = self.sessions.get(session_id, (len(self.sessions), []))
        for place, words in old:
            del self.events[place]
            self.unicode_texts.pop(place, None)
            for word in words:
                self.by_word[word].discard(place)
        kept: list[tuple[_Place, set[str]]] = []
        for position, event in enumerate(events):
            text = event_text(event)
            words = _searchable(text)
            if not words:
                continue  # nothing can match it
            place = (ordinal, position)
            kept.append((place, words))
            self.events[place] = event
            for word in words:
                self.by_word.setdefault(word, set()).add(place)
            lowered = unicodedata.normalize("NFC", text).lower()
            if not lowered.isascii():
                self.unicode_texts[place] = lowered
        self.sessions[session_id] = (ordinal, kept)

    def search(self, query: str) -> list[Event]:
        matched: dict[_Place, int] = {}
        for word in _words(query):
            places = self.by_word.get(word, set())
            if not word.isascii():
                places = places | {p for p, t in self.unicode_texts.items() if word in t}
            for place in places:
                matched[place] = matched.get(place, 0) + 1
        best = heapq.nsmallest(MAX_RESULTS, matched.items(), key=lambda item: (-item[1], item[0]))
        return [self.events[place] for place, _ in best]


class InMemoryMemoryService(BaseMemoryService):
    """For development and tests: an event matches when it shares words with the query; at most
    ten, those sharing the most words first (google-adk's rules). Words are indexed when a
    session is remembered; events are kept as they are (they are immutable once appended)."""

    def __init__(self) -> None:
        self._users: dict[tuple[str, str], _UserMemory] = {}

    async def add_session_to_memory(self, session: Session) -> None:
        kept = [e for e in session.events if e.content and e.content.parts]
        user = self._users.setdefault((session.app_name, session.user_id), _UserMemory())
        user.remember(session.id, kept)

    async def search_memory(
        self, *, app_name: str, user_id: str, query: str
    ) -> SearchMemoryResponse:
        user = self._users.get((app_name, user_id))
        found = user.search(query) if user else []
        return SearchMemoryResponse(memories=[entry_of(event) for event in found])
