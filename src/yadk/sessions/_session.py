"""Session: one conversation's state and history."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from yadk.events import Event

__all__ = ["Session"]


@dataclass(eq=False)
class Session:
    """A conversation: its id, owner, merged state and events.

    ``state`` is a plain dict: write to it through a context's ``State`` (``ctx.state[k] = v``) so
    the change rides on an event and is persisted; a direct write here is lost on the next read.
    """

    id: str
    app_name: str
    user_id: str
    state: dict[str, Any] = field(default_factory=dict)
    events: list[Event] = field(default_factory=list)
    last_update_time: float = 0.0
    # The storage version this object reflects; services use it to refuse stale writers.
    storage_version: int | None = field(default=None, repr=False)
    # When the stored session was created: a session deleted and created again under the same
    # id has another stamp, so a copy of the old one is never mistaken for it.
    storage_epoch: float | None = field(default=None, repr=False)
