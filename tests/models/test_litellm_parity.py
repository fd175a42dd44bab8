"""google-adk's LiteLlm written as its docs write it (YAML, `model_code` with `args`), loaded by
yadk, sends OpenAI and Anthropic the requests google-adk 2.13 sends for the same turn
(recorded by tests/models/record_litellm.py with google-adk's interpreter).

Where the two differ on purpose, the difference is normalised here and said why.
"""

from __future__ import annotations

import inspect
import json
from pathlib import Path
from typing import Any

import pytest
from tests.models.litellm_parity import server as parity

from yadk import Runner
from yadk.config import load_agent
from yadk.models import override_allow_model_requests
from yadk.types import UserContent

RECORDED = Path(__file__).with_name("litellm_parity") / "recorded"

CONFIG = """\
name: weather
model_code:
  name: google.adk.models.lite_llm.LiteLlm
  args:
    - name: model
      value: {model}
    - name: api_base
      value: {url}
    - name: api_key
      value: {key}
instruction: {instruction}
tools:
  - name: .tools.get_weather
"""


def write_agent(folder: Path, model: str, url: str) -> Path:
    folder.mkdir()
    (folder / "__init__.py").write_text("")
    (folder / "tools.py").write_text(inspect.getsource(parity.get_weather))
    (folder / "root_agent.yaml").write_text(
        CONFIG.format(
            model=model, url=url, key=parity.API_KEY, instruction=json.dumps(parity.INSTRUCTION)
        )
    )
    return folder


def anthropic_as_compared(body: dict[str, Any]) -> dict[str, Any]:
    """What yadk's Anthropic backend and LiteLLM agree on. LiteLLM asks for the model's whole
    output window as ``max_tokens`` (from its price list) where yadk sends Anthropic's usual
    default; LiteLLM marks tools ``type: custom`` (Anthropic's default, so the same request) and
    sends the system prompt as one text block (the same prompt as a string)."""
    body = dict(body)
    body.pop("max_tokens", None)
    body["tools"] = [
        {k: v for k, v in tool.items() if k != "type"} for tool in body.get("tools", [])
    ]
    for tool in body["tools"]:
        tool["input_schema"] = {k: v for k, v in tool["input_schema"].items() if k != "title"}
    if isinstance(body.get("system"), str):
        body["system"] = [{"type": "text", "text": body["system"]}]
    return body


def openai_as_compared(body: dict[str, Any]) -> dict[str, Any]:
    return body


@pytest.mark.parametrize(
    ("provider", "as_compared"),
    [("openai", openai_as_compared), ("anthropic", anthropic_as_compared)],
)
async def test_yadk_sends_what_google_adks_litellm_sends(
    tmp_path: Path, provider: str, as_compared: Any
) -> None:
    recorded = json.loads((RECORDED / f"{provider}.json").read_text(encoding="utf-8"))
    with parity.ParityServer() as server, override_allow_model_requests(True):
        agent = load_agent(write_agent(tmp_path / "weather", recorded["model"], server.url))
        runner = Runner(agent=agent, app_name="parity")
        session = await runner.session_service.create_session(app_name="parity", user_id="u")
        texts = [
            part.text
            async for event in runner.run_async(
                user_id="u", session_id=session.id, new_message=UserContent(parity.QUESTION)
            )
            if event.author == "weather" and event.content is not None
            for part in event.content.parts
            if part.text
        ]
        await runner.close()
    assert texts == recorded["texts"]
    assert [r["path"] for r in server.requests] == [r["path"] for r in recorded["requests"]]
    for sent, expected in zip(server.requests, recorded["requests"], strict=True):
        for header, value in expected["headers"].items():
            assert sent["headers"].get(header) == value, header
        assert as_compared(sent["body"]) == as_compared(expected["body"])
