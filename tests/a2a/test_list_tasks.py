"""ListTasks without contextId reads contexts newest first and stops once the page is full (and
one task beyond it says a next page exists): a big store is not read whole for one page."""

from __future__ import annotations

import shutil
from collections import Counter
from pathlib import Path
from typing import Any

import httpx
import pytest
from tests.serve.live import BOUND, Live, live_server

from yadk.serve import _a2a_routes
from yadk.sessions import ListSessionsResponse, Session, SessionKey, SqliteSessionService

SERVED = Path(__file__).with_name("served")
V1 = {"A2A-Version": "1.0"}


class CountingStore(SqliteSessionService):
    """Counts the sessions read whole (with their events) and the pages of session keys; the
    list of every session is not to be read."""

    def __init__(self, path: Path) -> None:
        super().__init__(path)
        self.reads: Counter[str] = Counter()
        self.key_pages = 0

    async def get_session(self, **kwargs: Any) -> Session | None:
        self.reads[kwargs["session_id"]] += 1
        return await super().get_session(**kwargs)

    async def list_recent_session_keys(self, **kwargs: Any) -> list[SessionKey]:
        self.key_pages += 1
        return await super().list_recent_session_keys(**kwargs)

    async def list_sessions(self, **kwargs: Any) -> ListSessionsResponse:
        raise AssertionError("every session listed")


def rpc(live: Live, method: str, params: dict[str, Any]) -> dict[str, Any]:
    body = {"jsonrpc": "2.0", "id": 1, "method": method, "params": params}
    reply = httpx.post(f"{live.url}/a2a/capital", json=body, headers=V1, timeout=BOUND)
    result: dict[str, Any] = reply.json()["result"]
    return result


def test_a_page_reads_only_the_contexts_it_needs(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(_a2a_routes, "CONTEXT_PAGE", 2)  # session keys read two at a time
    # A copy, as every A2A test serves: an agent folder's modules load from one place.
    shutil.copytree(SERVED / "capital", tmp_path / "served" / "capital")
    store = CountingStore(tmp_path / "sessions.db")
    with live_server(tmp_path / "served", session_service=store) as live:
        contexts = [f"ctx-{n}" for n in range(6)]
        for context in contexts:
            message = {
                "messageId": "m",
                "role": "ROLE_USER",
                "parts": [{"text": "France?"}],
                "contextId": context,
            }
            rpc(live, "SendMessage", {"message": message})
        newest_first = contexts[::-1]
        store.reads.clear()
        first = rpc(live, "ListTasks", {"pageSize": 2})
        assert [t["contextId"] for t in first["tasks"]] == newest_first[:2]
        assert first["nextPageToken"]
        assert set(store.reads) == set(newest_first[:3])  # the page, and one beyond it
        assert store.key_pages == 2  # the keys of 4 sessions of 6
        assert first["totalSize"] == 3
        store.reads.clear()
        second = rpc(live, "ListTasks", {"pageSize": 2, "pageToken": first["nextPageToken"]})
        assert [t["contextId"] for t in second["tasks"]] == newest_first[2:4]
        assert set(store.reads) == set(newest_first[:5])
        last = rpc(live, "ListTasks", {"pageSize": 2, "pageToken": second["nextPageToken"]})
        assert [t["contextId"] for t in last["tasks"]] == newest_first[4:]
        assert last["nextPageToken"] == ""
        assert last["totalSize"] == 6
        store.reads.clear()
        after = first["tasks"][1]["status"]["timestamp"]
        recent = rpc(live, "ListTasks", {"statusTimestampAfter": after})
        assert [t["contextId"] for t in recent["tasks"]] == newest_first[:2]
        assert set(store.reads) == set(newest_first[:2])  # older contexts are not read
