"""Shared by the eval tests: a small weather agent with a scripted model, eval set builders."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

Cli = Callable[..., tuple[int, str, str]]

AGENT_YAML = """\
name: weather
model: scripted:scripted.yaml
instruction: Answer weather questions.
tools:
  - name: .tools.get_weather
"""
TOOLS_PY = """\
def get_weather(city: str) -> dict:
    return {"city": city, "sky": "sunny", "celsius": 24}
"""
SCRIPT_YAML = """\
turns:
  - when: "(?i)weather"
    function_calls: [{name: get_weather, args: {city: Lisbon}}]
  - when: "(?i)weather"
    text: It is sunny in Lisbon, 24 degrees.
  - text: Goodbye!
"""


def invocation(
    query: str, response: str, calls: list[tuple[str, dict[str, Any]]] | None = None
) -> dict[str, Any]:
    return {
        "user_content": {"role": "user", "parts": [{"text": query}]},
        "final_response": {"role": "model", "parts": [{"text": response}]},
        "intermediate_data": {"tool_uses": [{"name": n, "args": a} for n, a in calls or []]},
    }


WEATHER = invocation(
    "What is the weather in Lisbon?",
    "It is sunny in Lisbon, 24 degrees.",
    [("get_weather", {"city": "Lisbon"})],
)
BYE = invocation("Thanks", "Goodbye!")


def eval_set(*cases: tuple[str, list[dict[str, Any]]], eval_set_id: str = "weather") -> str:
    return json.dumps(
        {
            "eval_set_id": eval_set_id,
            "eval_cases": [{"eval_id": i, "conversation": c} for i, c in cases],
        },
        indent=2,
    )
