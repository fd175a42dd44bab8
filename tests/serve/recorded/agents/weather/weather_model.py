"""The scripted model and tool of the weather agent (twin of the one in record_adk_api.py).

A user message is answered with a call to ``get_weather``, the tool's answer with text (first
one partial chunk when streaming). Final answers carry finish reason STOP and token counts, as
Gemini's do.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

from yadk.models import BaseLlm, LlmRequest, LlmResponse
from yadk.types import Content, FunctionCall, Part

USAGE = {"prompt_token_count": 5, "candidates_token_count": 2, "total_token_count": 7}


def get_weather(city: str) -> dict[str, Any]:
    """The weather in a city."""
    return {"city": city, "sky": "sunny"}


class Weather(BaseLlm):
    model = "weather"

    async def generate_content_async(
        self, llm_request: LlmRequest, stream: bool = False
    ) -> AsyncIterator[LlmResponse]:
        last = llm_request.contents[-1].parts
        if not any(p.function_response is not None for p in last):
            call = FunctionCall(name="get_weather", args={"city": "Paris"})
            yield LlmResponse(
                content=Content(role="model", parts=[Part(function_call=call)]),
                finish_reason="STOP",
                usage_metadata=USAGE,
            )
            return
        if stream:
            yield LlmResponse(
                content=Content(role="model", parts=[Part(text="Sunny")]), partial=True
            )
        yield LlmResponse(
            content=Content(role="model", parts=[Part(text="Sunny in Paris.")]),
            finish_reason="STOP",
            usage_metadata=USAGE,
        )


model = Weather()
