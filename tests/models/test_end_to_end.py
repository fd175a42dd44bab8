"""An LlmAgent run by the Runner against each REST backend: a full tool round trip on loopback."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

from yadk import LlmAgent, Runner, load_agent
from yadk.events import Event
from yadk.types import content_text

if TYPE_CHECKING:
    from tests.models.conftest import FakeServer

SYSTEM = 'Report the weather.\n\nYou are an agent. Your internal name is "forecaster".'
WEATHER_SCHEMA = {
    "properties": {"city": {"title": "City", "type": "string"}},
    "required": ["city"],
    "title": "get_weatherParams",
    "type": "object",
}


def get_weather(city: str) -> dict[str, Any]:
    """Current weather for a city."""
    return {"city": city, "temp_c": 21}


async def run(model: str, message: str) -> list[Event]:
    agent = LlmAgent(
        name="forecaster", model=model, instruction="Report the weather.", tools=[get_weather]
    )
    runner = Runner(app_name="app", agent=agent)
    session = await runner.session_service.create_session(app_name="app", user_id="u")
    return [
        e async for e in runner.run_async(user_id="u", session_id=session.id, new_message=message)
    ]


def summary(events: list[Event]) -> list[tuple[str, Any]]:
    rows: list[tuple[str, Any]] = []
    for event in events:
        if event.error_code:
            rows.append((event.author, (event.error_code, event.error_message)))
        elif event.get_function_calls():
            rows.append((event.author, [(c.name, c.args) for c in event.get_function_calls()]))
        elif event.get_function_responses():
            rows.append((event.author, [r.response for r in event.get_function_responses()]))
        else:
            rows.append((event.author, content_text(event.content)))
    return rows


EXPECTED_EVENTS = [
    ("user", "Weather in Paris?"),
    ("forecaster", [("get_weather", {"city": "Paris"})]),
    ("forecaster", [{"city": "Paris", "temp_c": 21}]),
    ("forecaster", "21 °C in Paris."),
]


async def test_gemini_tool_round_trip(server: FakeServer, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("YADK_GEMINI_BASE_URL", server.url + "/v1beta")
    monkeypatch.setenv("GEMINI_API_KEY", "test-key")
    server.reply(
        {
            "candidates": [
                {
                    "content": {
                        "role": "model",
                        "parts": [
                            {"functionCall": {"name": "get_weather", "args": {"city": "Paris"}}}
                        ],
                    },
                    "finishReason": "STOP",
                }
            ]
        }
    )
    server.reply(
        {
            "candidates": [
                {
                    "content": {"role": "model", "parts": [{"text": "21 °C in Paris."}]},
                    "finishReason": "STOP",
                }
            ]
        }
    )

    events = await run("gemini-2.5-flash", "Weather in Paris?")

    assert summary(events) == EXPECTED_EVENTS
    # yadk's own call id reached the session but not the model.
    assert events[1].get_function_calls()[0].id.startswith("adk-")
    tools = [
        {
            "functionDeclarations": [
                {
                    "name": "get_weather",
                    "description": "Current weather for a city.",
                    "parametersJsonSchema": WEATHER_SCHEMA,
                }
            ]
        }
    ]
    assert server.bodies == [
        {
            "contents": [{"role": "user", "parts": [{"text": "Weather in Paris?"}]}],
            "systemInstruction": {"parts": [{"text": SYSTEM}]},
            "tools": tools,
        },
        {
            "contents": [
                {"role": "user", "parts": [{"text": "Weather in Paris?"}]},
                {
                    "role": "model",
                    "parts": [{"functionCall": {"name": "get_weather", "args": {"city": "Paris"}}}],
                },
                {
                    "role": "user",
                    "parts": [
                        {
                            "functionResponse": {
                                "name": "get_weather",
                                "response": {"city": "Paris", "temp_c": 21},
                            }
                        }
                    ],
                },
            ],
            "systemInstruction": {"parts": [{"text": SYSTEM}]},
            "tools": tools,
        },
    ]


@pytest.mark.parametrize("call_id, sent_id", [("call_9f2", "call_9f2"), (None, "call_0")])
async def test_openai_tool_round_trip(
    server: FakeServer, monkeypatch: pytest.MonkeyPatch, call_id: str | None, sent_id: str
) -> None:
    monkeypatch.setenv("OPENAI_BASE_URL", server.url + "/v1")
    tool_call: dict[str, Any] = {
        "type": "function",
        "function": {"name": "get_weather", "arguments": '{"city": "Paris"}'},
    }
    if call_id:
        tool_call["id"] = call_id
    server.reply(
        {
            "choices": [
                {
                    "message": {"role": "assistant", "content": None, "tool_calls": [tool_call]},
                    "finish_reason": "tool_calls",
                }
            ]
        }
    )
    server.reply(
        {
            "choices": [
                {
                    "message": {"role": "assistant", "content": "21 °C in Paris."},
                    "finish_reason": "stop",
                }
            ]
        }
    )

    events = await run("openai:llama3", "Weather in Paris?")

    assert summary(events) == EXPECTED_EVENTS
    assert server.bodies[1] == {
        "model": "llama3",
        "messages": [
            {"role": "system", "content": SYSTEM},
            {"role": "user", "content": "Weather in Paris?"},
            {
                "role": "assistant",
                "tool_calls": [
                    {
                        "id": sent_id,
                        "type": "function",
                        "function": {"name": "get_weather", "arguments": '{"city": "Paris"}'},
                    }
                ],
            },
            {
                "role": "tool",
                "tool_call_id": sent_id,
                "content": '{"city": "Paris", "temp_c": 21}',
            },
        ],
        "tools": [
            {
                "type": "function",
                "function": {
                    "name": "get_weather",
                    "description": "Current weather for a city.",
                    "parameters": WEATHER_SCHEMA,
                },
            }
        ],
    }


async def test_http_error_becomes_an_error_event(
    server: FakeServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("OPENAI_BASE_URL", server.url + "/v1")
    monkeypatch.setenv("YADK_MODEL_RETRIES", "0")
    server.reply({"error": {"message": "Invalid API key"}}, status=401)

    events = await run("openai:gpt-4o-mini", "hi")

    assert summary(events) == [
        ("user", "hi"),
        (
            "forecaster",
            (
                "MODEL_ERROR",
                (
                    f"OpenAI-compatible model 'gpt-4o-mini' at {server.url}/v1: HTTP 401"
                    " Unauthorized: Invalid API key. Set OPENAI_API_KEY to a valid key for"
                    f" {server.url}/v1."
                ),
            ),
        ),
    ]


async def test_blocked_prompt_is_an_error_event(
    server: FakeServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("YADK_GEMINI_BASE_URL", server.url)
    server.reply({"promptFeedback": {"blockReason": "SAFETY"}})

    events = await run("gemini-2.5-flash", "something unsafe")

    assert summary(events) == [
        ("user", "something unsafe"),
        ("forecaster", ("SAFETY", "Gemini blocked the prompt (SAFETY).")),
    ]


async def test_yaml_retry_options_reach_the_backend(
    server: FakeServer, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setenv("OPENAI_BASE_URL", server.url + "/v1")
    monkeypatch.setenv("YADK_MODEL_RETRIES", "0")
    (tmp_path / "root_agent.yaml").write_text(
        "name: helper\nmodel: openai:gpt-4o-mini\ninstruction: Be brief.\n"
        "generate_content_config:\n  http_options:\n"
        "    retry_options: {attempts: 3, initial_delay: 0, jitter: 0, http_status_codes: [503]}\n"
    )
    for _ in range(2):
        server.reply({"error": {"message": "overloaded"}}, status=503)
    server.reply(
        {"choices": [{"message": {"role": "assistant", "content": "Hi."}, "finish_reason": "stop"}]}
    )
    runner = Runner(app_name="app", agent=load_agent(tmp_path))
    session = await runner.session_service.create_session(app_name="app", user_id="u")
    events = [
        e async for e in runner.run_async(user_id="u", session_id=session.id, new_message="hi")
    ]
    assert summary(events) == [("user", "hi"), ("helper", "Hi.")]
    assert len(server.requests) == 3


@pytest.mark.parametrize(
    ("model", "sent"),
    [("gpt-4o-mini", "gpt-4o-mini"), ("o3-mini", "o3-mini"), ("openai/gpt-4o", "gpt-4o")],
)
async def test_google_adks_openai_names_reach_the_openai_backend(
    server: FakeServer, monkeypatch: pytest.MonkeyPatch, model: str, sent: str
) -> None:
    # google-adk 2.13's registry serves gpt-* and o3-mini-like names (OpenAILlm) and LiteLLM's
    # openai/NAME (LiteLlm): the same config runs on yadk's OpenAI backend.
    monkeypatch.setenv("OPENAI_BASE_URL", server.url + "/v1")
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    server.reply(
        {"choices": [{"message": {"role": "assistant", "content": "Hi."}, "finish_reason": "stop"}]}
    )
    events = await run(model, "Hello")
    assert summary(events) == [("user", "Hello"), ("forecaster", "Hi.")]
    assert server.bodies[0]["model"] == sent
