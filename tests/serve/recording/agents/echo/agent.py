"""The sample agent the google-adk fixtures were recorded with: a fixed offline model.

Runs only under google-adk (``/opt/adkvenv``); see ``../../record.py``.
"""

from __future__ import annotations

from collections.abc import AsyncGenerator

from google.adk.agents import LlmAgent
from google.adk.models.base_llm import BaseLlm
from google.adk.models.llm_request import LlmRequest
from google.adk.models.llm_response import LlmResponse
from google.adk.tools.tool_context import ToolContext
from google.genai import types


async def remember(note: str, tool_context: ToolContext) -> dict[str, str]:
    """Remember a note in state and as an artifact."""
    tool_context.state["note"] = note
    await tool_context.save_artifact("note.txt", types.Part(text=note))
    return {"status": "saved"}


class FixedLlm(BaseLlm):
    """Echoes the user; a message with 'remember' calls the tool first."""

    model: str = "fixed"

    async def generate_content_async(
        self, llm_request: LlmRequest, stream: bool = False
    ) -> AsyncGenerator[LlmResponse, None]:
        last = llm_request.contents[-1]
        parts = last.parts or []
        if any(p.function_response for p in parts):
            text = "noted"
        else:
            said = "".join(p.text or "" for p in parts)
            if said.startswith("remember "):
                call = types.FunctionCall(name="remember", args={"note": said[9:]})
                yield LlmResponse(
                    content=types.Content(role="model", parts=[types.Part(function_call=call)])
                )
                return
            text = f"echo: {said}"
        if stream:
            yield LlmResponse(
                content=types.Content(role="model", parts=[types.Part(text=text[:4])]), partial=True
            )
        yield LlmResponse(content=types.Content(role="model", parts=[types.Part(text=text)]))


root_agent = LlmAgent(
    name="echo",
    model=FixedLlm(),
    description="Echoes what it is told.",
    instruction="Echo the user.",
    tools=[remember],
)
