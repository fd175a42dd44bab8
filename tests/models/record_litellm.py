"""Records what google-adk 2.13's LiteLlm sends to OpenAI and Anthropic for one weather turn
(a tool call, then the answer), into litellm_parity/recorded/{openai,anthropic}.json.

Run with google-adk's interpreter from the repository root (google-adk and litellm installed):

    LITELLM_LOCAL_MODEL_COST_MAP=True /opt/adkvenv/bin/python tests/models/record_litellm.py
"""

from __future__ import annotations

import asyncio
import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parents[2]))

from google.adk.agents import LlmAgent
from google.adk.models.lite_llm import LiteLlm
from google.adk.runners import InMemoryRunner
from google.genai import types
from tests.models.litellm_parity.server import (
    API_KEY,
    INSTRUCTION,
    QUESTION,
    ParityServer,
    get_weather,
)

MODELS = {"openai": "openai/gpt-4o-mini", "anthropic": "anthropic/claude-3-5-haiku-latest"}
OUT = Path(__file__).with_name("litellm_parity") / "recorded"


async def record(provider: str) -> None:
    with ParityServer() as server:
        agent = LlmAgent(
            name="weather",
            model=LiteLlm(model=MODELS[provider], api_base=server.url, api_key=API_KEY),
            instruction=INSTRUCTION,
            tools=[get_weather],
        )
        runner = InMemoryRunner(agent=agent, app_name="parity")
        session = await runner.session_service.create_session(app_name="parity", user_id="u")
        texts = []
        async for event in runner.run_async(
            user_id="u",
            session_id=session.id,
            new_message=types.Content(role="user", parts=[types.Part(text=QUESTION)]),
        ):
            if event.content and event.content.parts:
                texts += [p.text for p in event.content.parts if p.text]
        await runner.close()
    keep = ("authorization", "x-api-key", "anthropic-version", "content-type")
    requests = [
        {
            "path": r["path"],
            "headers": {k: v for k, v in r["headers"].items() if k in keep},
            "body": r["body"],
        }
        for r in server.requests
    ]
    OUT.mkdir(exist_ok=True)
    (OUT / f"{provider}.json").write_text(
        json.dumps({"model": MODELS[provider], "requests": requests, "texts": texts}, indent=2)
        + "\n",
        encoding="utf-8",
    )


if __name__ == "__main__":
    for name in MODELS:
        asyncio.run(record(name))
