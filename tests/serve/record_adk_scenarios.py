"""Record the events google-adk's api_server sends for the agents in ``recorded/scenarios``
(a transfer, a loop ended by exit_loop, a sequence with output_key, a refused answer, a
long-running tool, a grounded answer, a tool that raises), as ``recorded/scenario_events.json``: per app, the request, the events
``/run`` answered with and the session's stored events. test_recorded_scenarios.py serves the
same agent files with ``yadk serve`` (through its google.adk shim) and compares every event's
keys, at every level; it never needs google-adk.

Re-record (google-adk 2.13.0 in its own venv, never a yadk dependency):

    /opt/adkvenv/bin/python tests/serve/record_adk_scenarios.py
"""

from __future__ import annotations

import json
import shutil
import tempfile
from pathlib import Path
from typing import Any

from record_adk_api import api_server, sse_events

HERE = Path(__file__).resolve().parent
SCENARIOS = HERE / "recorded" / "scenarios"
OUT = HERE / "recorded" / "scenario_events.json"
# app -> the user's message
MESSAGES = {
    "loop": "Work until done.",
    "pipeline": "Write something.",
    "grounded": "Weather in Paris?",
    "refusal": "Say something bad.",
    "transfer": "I need help.",
    "waiter": "Refund 5 euros.",
}


def event_fields() -> dict[str, list[str]]:
    """The wire names of every field of google-adk's Event and EventActions (what its
    api_server may send for an event)."""
    from google.adk.events import Event, EventActions

    return {
        "event": sorted(f.alias or name for name, f in Event.model_fields.items()),
        "actions": sorted(f.alias or name for name, f in EventActions.model_fields.items()),
    }


def main() -> int:
    work = Path(tempfile.mkdtemp())
    agents = work / "agents"
    shutil.copytree(SCENARIOS, agents, ignore=shutil.ignore_patterns("__pycache__"))
    recorded: dict[str, Any] = {}
    try:
        with api_server(agents) as client:
            for app, message in MESSAGES.items():
                sessions = f"/apps/{app}/users/u1/sessions"
                client.post(sessions, json={"sessionId": "s1"}).raise_for_status()
                body = {
                    "appName": app,
                    "userId": "u1",
                    "sessionId": "s1",
                    "newMessage": {"role": "user", "parts": [{"text": message}]},
                }
                response = client.post("/run", json=body)
                response.raise_for_status()
                stored = client.get(f"{sessions}/s1").json()["events"]
                recorded[app] = {"request": body, "events": response.json(), "stored": stored}
                print(app, len(response.json()), "events,", len(stored), "stored")
            # A raising tool: google-adk's /run answers 500, so /run_sse shows what it sends.
            sessions = "/apps/failing/users/u1/sessions"
            client.post(sessions, json={"sessionId": "s1"}).raise_for_status()
            body = {
                "appName": "failing",
                "userId": "u1",
                "sessionId": "s1",
                "newMessage": {"role": "user", "parts": [{"text": "Weather in Paris?"}]},
            }
            response = client.post("/run_sse", json=body)
            stored = client.get(f"{sessions}/s1").json()["events"]
            recorded["failing"] = {
                "request": body,
                "sse": sse_events(response.text),
                "stored": stored,
            }
    finally:
        shutil.rmtree(work, ignore_errors=True)
    recorded["fields"] = event_fields()
    text = json.dumps(recorded, indent=2, sort_keys=True, ensure_ascii=False)
    OUT.write_text(text + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
