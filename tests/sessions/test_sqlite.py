"""SqliteSessionService beyond the contract: durability, schema versions, and what each
database failure tells the user."""

from __future__ import annotations

from pathlib import Path

import pytest

from yadk.errors import SessionError
from yadk.events import Event, EventActions
from yadk.sessions import SqliteSessionService


def _event(delta: dict | None = None) -> Event:
    return Event(author="agent", actions=EventActions(state_delta=dict(delta or {})))


async def test_sessions_survive_a_restart(tmp_path: Path) -> None:
    db = tmp_path / "nested" / "s.db"
    first = SqliteSessionService(db)
    s = await first.create_session(app_name="app", user_id="u", state={"app:t": 1})
    await first.append_event(s, _event({"k": "v", "user:l": "fr"}))
    await first.aclose()
    second = SqliteSessionService(f"sqlite:///{db}")
    again = await second.get_session(app_name="app", user_id="u", session_id=s.id)
    assert again is not None
    assert again.state == {"k": "v", "app:t": 1, "user:l": "fr"}
    assert [e.actions.state_delta for e in again.events] == [{"k": "v", "user:l": "fr"}]
    await second.append_event(again, _event({"k": "w"}))
    await second.aclose()


def test_rejects_other_urls() -> None:
    with pytest.raises(SessionError, match="sqlite:///PATH URL"):
        SqliteSessionService("mysql://localhost/db")
