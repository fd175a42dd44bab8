"""Session size caps through ``yadk serve``: a state PATCH or a new session over a cap is
answered 413 with the cap and how to raise it, and the session stays as it was."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from yadk.sessions import SqliteSessionService

S = "/apps/echo/users/u1/sessions"
MB = 1024 * 1024


@pytest.mark.parametrize("store", ["memory", "sqlite"])
async def test_six_9mb_state_patches_are_each_refused_with_413(
    make_client: Callable[..., Any], tmp_path: Path, store: str
) -> None:
    options: dict[str, Any] = {}
    if store == "sqlite":
        options["session_service"] = SqliteSessionService(tmp_path / "s.db")
    async with make_client(**options) as client:
        assert (await client.post(S, json={"sessionId": "s1"})).status_code == 200
        for n in range(6):
            answer = await client.patch(f"{S}/s1", json={"stateDelta": {f"k{n}": "x" * 9 * MB}})
            assert answer.status_code == 413
            detail = answer.json()["detail"]
            assert "over the session service's cap of 1,048,576 bytes per event" in detail
            assert "YADK_MAX_EVENT_BYTES" in detail
        session = (await client.get(f"{S}/s1")).json()
        assert session["state"] == {} and session["events"] == []


async def test_state_grown_past_its_cap_by_small_patches_is_refused_with_413(
    make_client: Callable[..., Any], tmp_path: Path
) -> None:
    service = SqliteSessionService(
        tmp_path / "s.db", max_event_bytes=2 * MB, max_state_bytes=5 * MB
    )
    async with make_client(session_service=service) as client:
        await client.post(S, json={"sessionId": "s1"})
        for n in range(3):
            answer = await client.patch(
                f"{S}/s1", json={"stateDelta": {f"k{n}": "x" * (3 * MB // 2)}}
            )
            assert answer.status_code == 200
        refused = await client.patch(f"{S}/s1", json={"stateDelta": {"k3": "x" * (3 * MB // 2)}})
        assert refused.status_code == 413
        detail = refused.json()["detail"]
        assert detail.startswith("The state of session 's1' would be about 6,291,")
        assert "over the session service's cap of 5,242,880 bytes" in detail
        assert "YADK_MAX_STATE_BYTES" in detail
        # Overwriting a key keeps the state's size: allowed.
        same = await client.patch(f"{S}/s1", json={"stateDelta": {"k0": "y" * (3 * MB // 2)}})
        assert same.status_code == 200
        state = (await client.get(f"{S}/s1")).json()["state"]
        assert sorted(state) == ["k0", "k1", "k2"] and state["k0"][0] == "y"


async def test_a_session_created_with_a_state_over_its_cap_is_413(
    make_client: Callable[..., Any],
) -> None:
    from yadk.sessions import InMemorySessionService

    service = InMemorySessionService(max_state_bytes=MB)
    async with make_client(session_service=service) as client:
        answer = await client.post(S, json={"sessionId": "s1", "state": {"k": "x" * 2 * MB}})
        assert answer.status_code == 413
        assert "as created with that state" in answer.json()["detail"]
        assert (await client.get(f"{S}/s1")).status_code == 404


async def test_a_message_over_the_event_cap_is_413_and_no_turn_runs(
    make_client: Callable[..., Any],
) -> None:
    from tests.serve.conftest import message

    async with make_client() as client:
        await client.post(S, json={"sessionId": "s1"})
        answer = await client.post("/run", json=message("x" * 2 * MB))
        assert answer.status_code == 413
        assert "bytes per event; nothing was stored" in answer.json()["detail"]
        session = (await client.get(f"{S}/s1")).json()
        assert session["events"] == []
        ok = await client.post("/run", json=message("hello"))
        assert ok.status_code == 200
