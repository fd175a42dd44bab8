"""The fixed offline model and tool of the serve tests' echo agent.

The model echoes the latest user text. ``remember X`` calls the ``remember`` tool first;
``slow S`` waits S seconds before the answer (after the first chunk when streaming);
``boom`` fails; ``tokens please`` reports token counts.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator

from yadk.agents import ToolContext
from yadk.models import BaseLlm, LlmRequest, LlmResponse
from yadk.types import Content, FunctionCall, Part


async def remember(note: str, tool_context: ToolContext) -> dict[str, str]:
    """Remember a note in state and as an artifact."""
    tool_context.state["note"] = note
    await tool_context.save_artifact("note.txt", Part(text=note))
    return {"status": "saved"}


class EchoModel(BaseLlm):
    model = "echo"

    async def generate_content_async(
        self, llm_request: LlmRequest, stream: bool = False
    ) -> AsyncIterator[LlmResponse]:
        last = llm_request.contents[-1]
        said = "".join(p.text or "" for p in last.parts)
        if any(p.function_response is not None for p in last.parts):
            text = "noted"
        else:
            if said.startswith("remember "):
                call = FunctionCall(name="remember", args={"note": said[9:]})
                yield LlmResponse(content=Content(role="model", parts=[Part(function_call=call)]))
                return
            if said == "boom":
                raise RuntimeError("the model broke")
            text = f"echo: {said}"
        if stream:
            yield LlmResponse(
                content=Content(role="model", parts=[Part(text=text[:4])]), partial=True
            )
        if said.startswith("slow "):  # after the first chunk: a stream can be cut mid-way
            await asyncio.sleep(float(said[5:]))
        usage = None
        if said == "tokens please":
            usage = {"prompt_token_count": 5, "candidates_token_count": 2, "total_token_count": 7}
        yield LlmResponse(
            content=Content(role="model", parts=[Part(text=text)]), usage_metadata=usage
        )


model = EchoModel()
