"""The memory interface: what a memory service stores (session events) and returns (entries)."""

from __future__ import annotations

import abc
from datetime import datetime
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel, ConfigDict, Field

from yadk.types import Content

if TYPE_CHECKING:
    from yadk.events import Event
    from yadk.sessions import Session

__all__ = ["BaseMemoryService", "MemoryEntry", "SearchMemoryResponse", "entry_of", "event_text"]


class MemoryEntry(BaseModel):
    """One remembered message (google-adk's ``MemoryEntry``): its content, who said it, when
    (ISO 8601, local time, as google-adk formats it)."""

    model_config = ConfigDict(extra="forbid")

    content: Content
    custom_metadata: dict[str, Any] = Field(default_factory=dict)
    id: str | None = None
    author: str | None = None
    timestamp: str | None = None


class SearchMemoryResponse(BaseModel):
    """What ``search_memory`` returns."""

    memories: list[MemoryEntry] = Field(default_factory=list)


def event_text(event: Event) -> str:
    """The searchable text of an event: its text parts, space-joined."""
    if event.content is None:
        return ""
    return " ".join(p.text for p in event.content.parts if p.text)


def entry_of(event: Event) -> MemoryEntry:
    assert event.content is not None
    return MemoryEntry(
        id=event.id,
        content=event.content.model_copy(deep=True),
        author=event.author,
        timestamp=datetime.fromtimestamp(event.timestamp).isoformat(),
    )


class BaseMemoryService(abc.ABC):
    """Long-term memory across sessions of one user (google-adk's ``BaseMemoryService``)."""

    @abc.abstractmethod
    async def add_session_to_memory(self, session: Session) -> None:
        """Remember the session's messages (again: adding a session twice keeps one copy)."""

    @abc.abstractmethod
    async def search_memory(
        self, *, app_name: str, user_id: str, query: str
    ) -> SearchMemoryResponse:
        """The remembered messages of ``user_id`` that best match ``query``."""

    async def close(self) -> None:
        """Release resources (a database connection)."""
