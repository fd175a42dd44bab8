"""A graph workflow served over google-adk's api_server protocol: events carry ``nodeInfo`` and
the route, and a waiting workflow resumes on the next ``/run``."""

from __future__ import annotations

import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

from tests.serve.conftest import sse_events

CONFIGS = Path(__file__).resolve().parents[2] / "configs"


def body(text: str) -> dict[str, Any]:
    return {
        "appName": "triage_workflow",
        "userId": "u1",
        "sessionId": "s1",
        "newMessage": {"role": "user", "parts": [{"text": text}]},
    }


async def test_events_carry_node_info_and_route(
    tmp_path: Path, make_client: Callable[..., Any]
) -> None:
    apps = tmp_path / "apps"
    shutil.copytree(CONFIGS / "triage_workflow", apps / "triage_workflow")
    async with make_client(apps) as client:
        created = await client.post(
            "/apps/triage_workflow/users/u1/sessions", json={"sessionId": "s1"}
        )
        assert created.status_code == 200, created.text
        events = (await client.post("/run", json=body("I want a refund for A-7"))).json()
        assert [(e["author"], e["nodeInfo"]) for e in events] == [
            (
                "triage",
                {"path": "triage@1/classify@1", "outputFor": ["triage@1/classify@1"]},
            ),
            ("triage", {"path": "triage@1/approve_refund@1"}),
        ]
        assert events[0]["actions"]["route"] == "refund"
        assert events[0]["output"] == "I want a refund for A-7"
        call = events[1]["content"]["parts"][0]["functionCall"]
        assert (call["name"], call["id"]) == ("adk_request_input", "refund_approval")
        answer = {
            **body(""),
            "newMessage": {
                "role": "user",
                "parts": [
                    {
                        "functionResponse": {
                            "id": "refund_approval",
                            "name": "adk_request_input",
                            "response": {"result": "yes"},
                        }
                    }
                ],
            },
        }
        response = await client.post("/run_sse", json=answer)
        events = sse_events(response.text)
        assert [(e["nodeInfo"]["path"], e["output"]) for e in events] == [
            ("triage@1/approve_refund@1", True),
            ("triage@1/confirm_refund@1", "Refund approved and on its way."),
        ]
        assert events[1]["nodeInfo"]["outputFor"] == ["triage@1/confirm_refund@1", "triage@1"]
