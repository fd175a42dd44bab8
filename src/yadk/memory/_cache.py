"""The durable stores' in-process BM25 index of a user's remembered messages.

A search would otherwise read and tokenize every message of the user; instead each store keeps,
per (app, user), the rows it has read with their BM25 index, and brings it up to date from the
database before ranking (SQLite: a per-user version counter; PostgreSQL: the rows after the last
``seq`` read). The index lives in the process: other processes' adds are seen at the next search.
"""

from __future__ import annotations

import json
from collections import OrderedDict
from dataclasses import dataclass, field
from datetime import datetime
from typing import TYPE_CHECKING

from yadk._bm25 import Bm25Index
from yadk.memory._base import MemoryEntry, SearchMemoryResponse, event_text
from yadk.types import Content

if TYPE_CHECKING:
    from yadk.sessions import Session

__all__ = ["MAX_CACHED_USERS", "Row", "UserIndex", "UserIndexes", "rows_of"]

# The users whose index a store keeps (least recently searched dropped first): each costs about
# twice its messages' text in memory.
MAX_CACHED_USERS = 128


@dataclass(frozen=True, slots=True)
class Row:
    """A remembered message as stored: its event id, author, timestamp, content (JSON), text."""

    event_id: str
    author: str | None
    timestamp: str | None
    content: str
    text: str


def rows_of(session: Session) -> list[Row]:
    """The rows a session's text messages become (``entry_of``'s fields, without a copy)."""
    rows = []
    for event in session.events:
        text = event_text(event)
        if text and event.content is not None:
            rows.append(
                Row(
                    event.id,
                    event.author,
                    datetime.fromtimestamp(event.timestamp).isoformat(),
                    event.content.model_dump_json(exclude_none=True),
                    text,
                )
            )
    # An event id twice (a malformed session) keeps the last, where it is, as a replace would.
    last = {row.event_id: position for position, row in enumerate(rows)}
    return [row for position, row in enumerate(rows) if last[row.event_id] == position]


@dataclass(slots=True)
class UserIndex:
    """One user's rows and their BM25 index, as of ``version`` (the store says what that is)."""

    version: int = 0
    rows: dict[str, Row] = field(default_factory=dict)
    index: Bm25Index[str] = field(default_factory=Bm25Index)

    def add(self, row: Row) -> None:
        """Add a row, or replace the one with its event id (it then counts as the newest)."""
        self.rows[row.event_id] = row
        self.index.add(row.event_id, row.text)

    def search(self, query: str, top_k: int) -> SearchMemoryResponse:
        memories = []
        for event_id, _ in self.index.rank(query, limit=top_k):
            row = self.rows[event_id]
            memories.append(
                MemoryEntry(
                    id=row.event_id,
                    author=row.author,
                    timestamp=row.timestamp,
                    content=Content.model_validate(json.loads(row.content)),
                )
            )
        return SearchMemoryResponse(memories=memories)


class UserIndexes:
    """The cached ``UserIndex`` of at most ``MAX_CACHED_USERS`` users (not thread-safe: the
    store serialises access)."""

    def __init__(self) -> None:
        self._users: OrderedDict[tuple[str, str], UserIndex] = OrderedDict()

    def get(self, app_name: str, user_id: str) -> UserIndex | None:
        found = self._users.get((app_name, user_id))
        if found is not None:
            self._users.move_to_end((app_name, user_id))
        return found

    def put(self, app_name: str, user_id: str, user: UserIndex) -> None:
        self._users[(app_name, user_id)] = user
        self._users.move_to_end((app_name, user_id))
        while len(self._users) > MAX_CACHED_USERS:
            self._users.popitem(last=False)

    def drop(self, app_name: str, user_id: str) -> None:
        self._users.pop((app_name, user_id), None)
