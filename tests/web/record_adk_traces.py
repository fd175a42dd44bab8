"""Records what google-adk 2.13's dev server answers on its trace routes, as a JSON fixture.

Run with google-adk's own interpreter (never a yadk dependency):

    /opt/adkvenv/bin/python tests/web/record_adk_traces.py

google-adk's ``get_fast_api_app(web=True)`` serves a folder holding one agent (``weather``: a
scripted model calls ``get_weather``, then answers); one ``/run`` turn, then
``GET /dev/apps/weather/debug/trace/session/s1`` and ``GET /dev/apps/weather/debug/trace/{id}``
for the tool's response event and the final answer event, and both routes for what they do not
know. ``recorded/adk_traces.json`` keeps the JSON's shape: per span its keys, the types of its
values, its name and the index of its parent; the attribute names of the per-event answers;
the status and body of the unknown ones.
"""

from __future__ import annotations

import json
import sys
import tempfile
from pathlib import Path
from typing import Any

HERE = Path(__file__).parent
OUT = HERE / "recorded" / "adk_traces.json"

AGENT = '''
from typing import Any
from google.adk.agents import LlmAgent
from google.adk.models.base_llm import BaseLlm
from google.adk.models.llm_response import LlmResponse
from google.genai import types


class Canned(BaseLlm):
    turns: list[Any]

    async def generate_content_async(self, llm_request: Any, stream: bool = False) -> Any:
        turn = self.turns.pop(0)
        if isinstance(turn, str):
            part = types.Part(text=turn)
        else:
            part = types.Part(function_call=types.FunctionCall(name=turn[0], args=turn[1], id="c1"))
        yield LlmResponse(
            content=types.Content(role="model", parts=[part]),
            usage_metadata=types.GenerateContentResponseUsageMetadata(
                prompt_token_count=10, candidates_token_count=4, total_token_count=14
            ),
        )


def get_weather(city: str) -> dict:
    """The weather in a city."""
    return {"city": city, "weather": "sunny"}


root_agent = LlmAgent(
    name="weather",
    description="Answers about the weather.",
    model=Canned(model="gemini-2.5-flash", turns=[("get_weather", {"city": "Paris"}), "Sunny."]),
    tools=[get_weather],
)
'''


def shape(value: Any) -> str:
    return type(value).__name__


def main() -> None:
    from fastapi.testclient import TestClient
    from google.adk.cli.fast_api import get_fast_api_app

    with tempfile.TemporaryDirectory() as folder:
        agent = Path(folder) / "weather"
        agent.mkdir()
        (agent / "__init__.py").write_text("from . import agent\n")
        (agent / "agent.py").write_text(AGENT)
        app = get_fast_api_app(agents_dir=folder, web=True, use_local_storage=False)
        with TestClient(app, base_url="http://127.0.0.1:8000") as client:
            created = client.post("/apps/weather/users/u/sessions/s1", json={})
            created.raise_for_status()
            run = client.post(
                "/run",
                json={
                    "app_name": "weather",
                    "user_id": "u",
                    "session_id": "s1",
                    "new_message": {"role": "user", "parts": [{"text": "Weather in Paris?"}]},
                },
            )
            run.raise_for_status()
            events = run.json()
            spans = client.get("/dev/apps/weather/debug/trace/session/s1").json()
            ids = {s["span_id"]: i for i, s in enumerate(spans)}
            tool_event = next(
                e for e in events if any("functionResponse" in p for p in e["content"]["parts"])
            )
            answer = events[-1]
            per_event = {}
            for label, event in (("tool_response", tool_event), ("final_answer", answer)):
                got = client.get(f"/dev/apps/weather/debug/trace/{event['id']}")
                body = got.json()
                per_event[label] = {
                    "status": got.status_code,
                    "keys": sorted(body),
                    "types": {k: shape(v) for k, v in sorted(body.items())},
                    "span_name": next(
                        (s["name"] for s in spans if s["span_id"] == body.get("span_id")), None
                    ),
                }
            unknown_event = client.get("/dev/apps/weather/debug/trace/no-such-event")
            unknown_session = client.get("/dev/apps/weather/debug/trace/session/no-such-session")
    fixture = {
        "spans": [
            {
                "name": s["name"],
                "keys": sorted(s),
                "types": {k: shape(v) for k, v in sorted(s.items())},
                "parent": ids.get(s["parent_span_id"]),
                "attributes": sorted(s["attributes"]),
                "logs": len(s["logs"]),
            }
            for s in spans
        ],
        "event": per_event,
        "unknown_event": {"status": unknown_event.status_code, "body": unknown_event.json()},
        "unknown_session": {"status": unknown_session.status_code, "body": unknown_session.json()},
    }
    OUT.parent.mkdir(exist_ok=True)
    OUT.write_text(json.dumps(fixture, indent=2, sort_keys=True) + "\n")
    print(f"wrote {OUT}", file=sys.stderr)


if __name__ == "__main__":
    main()
