"""Record what google-adk 2.13 does for an LlmAgent with both ``output_schema`` and ``tools`` on a
model that cannot take a response schema beside tools (every model but Gemini on Vertex AI and
LiteLLM's OpenAI/Azure routes): the requests the model receives and the events of the run, as
``recorded/set_model_response.json``. test_set_model_response.py compares yadk with it.

Re-record (google-adk 2.13.0 in its own venv, never a yadk dependency):

    /opt/adkvenv/bin/python tests/agents/record_set_model_response.py

Each case's model is a scripted ``BaseLlm`` giving its answers in order (a tuple is a function
call), then ``ok``; it keeps each request it receives.
"""

from __future__ import annotations

import asyncio
import json
import warnings
from collections.abc import AsyncGenerator
from pathlib import Path
from typing import Any

from google.adk.agents import LlmAgent
from google.adk.models.base_llm import BaseLlm
from google.adk.models.llm_response import LlmResponse
from google.adk.runners import InMemoryRunner
from google.adk.tools.agent_tool import AgentTool
from google.genai import types
from pydantic import BaseModel, Field

OUT = Path(__file__).resolve().parent / "recorded" / "set_model_response.json"


class Report(BaseModel):
    city: str = Field(description="The city the report is about.")
    celsius: int
    note: str | None = None


def get_weather(city: str) -> dict[str, Any]:
    """The weather in a city."""
    return {"city": city, "celsius": 21}


class Scripted(BaseLlm):
    model: str = "scripted"
    answers: list[Any] = Field(default_factory=list)
    requests: list[dict[str, Any]] = Field(default_factory=list)

    async def generate_content_async(
        self, llm_request: Any, stream: bool = False
    ) -> AsyncGenerator[LlmResponse, None]:
        config = llm_request.config
        declarations = []
        for tool in config.tools or []:
            for decl in tool.function_declarations or []:
                declarations.append(
                    {
                        "name": decl.name,
                        "description": decl.description,
                        "parameters_json_schema": decl.parameters_json_schema,
                        "parameters": decl.parameters.model_dump(mode="json", exclude_none=True)
                        if decl.parameters is not None
                        else None,
                    }
                )
        self.requests.append(
            {
                "system_instruction": config.system_instruction,
                "tools": declarations,
                "response_schema_set": config.response_schema is not None,
                "response_mime_type": config.response_mime_type,
                "contents": [
                    c.model_dump(mode="json", exclude_none=True) for c in llm_request.contents
                ],
            }
        )
        answer = self.answers.pop(0) if self.answers else "ok"
        if isinstance(answer, tuple):
            part = types.Part(function_call=types.FunctionCall(name=answer[0], args=answer[1]))
        else:
            part = types.Part(text=answer)
        yield LlmResponse(content=types.Content(role="model", parts=[part]))


def event_record(event: Any) -> dict[str, Any]:
    parts = []
    for part in event.content.parts if event.content else []:
        if part.text is not None:
            parts.append({"text": part.text})
        elif part.function_call is not None:
            parts.append(
                {
                    "function_call": {
                        "name": part.function_call.name,
                        "args": part.function_call.args,
                    }
                }
            )
        elif part.function_response is not None:
            parts.append(
                {
                    "function_response": {
                        "name": part.function_response.name,
                        "response": part.function_response.response,
                    }
                }
            )
    actions = event.actions.model_dump(mode="json", exclude_none=True, by_alias=True)
    actions = {k: v for k, v in actions.items() if v not in ({}, [], None)}
    return {
        "author": event.author,
        "role": event.content.role if event.content else None,
        "parts": parts,
        "actions": actions,
        "final": event.is_final_response(),
    }


SMR = "set_model_response"
GOOD = {"city": "Paris", "celsius": 21}


def cases() -> dict[str, tuple[LlmAgent, list[Scripted]]]:
    def agent(name: str, answers: list[Any], **fields: Any) -> tuple[LlmAgent, Scripted]:
        model = Scripted(answers=answers)
        return LlmAgent(name=name, model=model, instruction="Report the weather.", **fields), model

    out: dict[str, tuple[LlmAgent, list[Scripted]]] = {}
    a, m = agent(
        "reporter",
        [("get_weather", {"city": "Paris"}), (SMR, GOOD)],
        output_schema=Report,
        output_key="report",
        tools=[get_weather],
    )
    out["tools_and_schema"] = (a, [m])
    a, m = agent(
        "reporter",
        [(SMR, {"city": "Paris", "celsius": "warm"}), (SMR, {**GOOD, "note": "sunny"})],
        output_schema=Report,
        output_key="report",
        tools=[get_weather],
    )
    out["invalid_then_valid"] = (a, [m])
    a, m = agent(
        "reporter", ['{"city": "Paris", "celsius": 21}'], output_schema=Report, output_key="report"
    )
    out["schema_without_tools"] = (a, [m])
    a, m = agent(
        "reporter",
        [("get_weather", {"city": "Paris"}), (SMR, GOOD)],
        output_schema=Report,
        tools=[get_weather],
        description="Reports the weather.",
    )
    parent_model = Scripted(answers=[("reporter", {"request": "Paris?"}), "It is 21 in Paris."])
    parent = LlmAgent(
        name="parent", model=parent_model, instruction="Use the reporter.", tools=[AgentTool(a)]
    )
    out["agent_tool"] = (parent, [parent_model, m])
    return out


async def run_case(root: LlmAgent, models: list[Scripted]) -> dict[str, Any]:
    runner = InMemoryRunner(agent=root, app_name="rec")
    session = await runner.session_service.create_session(app_name="rec", user_id="u")
    events = []
    message = types.Content(role="user", parts=[types.Part(text="Weather in Paris?")])
    async for event in runner.run_async(user_id="u", session_id=session.id, new_message=message):
        events.append(event_record(event))
    stored = await runner.session_service.get_session(
        app_name="rec", user_id="u", session_id=session.id
    )
    assert stored is not None
    return {
        "events": events,
        "state": dict(stored.state),
        "requests": {m_index: m.requests for m_index, m in enumerate(models)},
    }


async def main() -> None:
    warnings.simplefilter("ignore")
    recorded = {name: await run_case(root, models) for name, (root, models) in cases().items()}
    OUT.parent.mkdir(exist_ok=True)
    OUT.write_text(json.dumps(recorded, indent=1, ensure_ascii=False, sort_keys=True) + "\n")
    print(f"wrote {OUT}")


if __name__ == "__main__":
    asyncio.run(main())
