"""A tool that raises: google-adk ends the invocation with an error event, yadk answers the call
with the error and the model goes on (a documented difference).

Written against google-adk 2.13 (its api_server recorded these events, see
../../../record_adk_scenarios.py); yadk serve loads the same file through its google.adk shim.
"""

from __future__ import annotations

from google.adk.agents import LlmAgent
from google.adk.models.base_llm import BaseLlm
from google.adk.models.llm_response import LlmResponse
from google.genai import types


def fixed(first: LlmResponse | None, then: str) -> BaseLlm:
    """A model that answers a user message with ``first`` (text ``then`` when None) and a
    function's response with ``then``."""

    class Fixed(BaseLlm):
        model: str = "fixed"

        async def generate_content_async(self, llm_request, stream=False):  # type: ignore[no-untyped-def]
            parts = llm_request.contents[-1].parts or []
            if first is not None and not any(p.function_response for p in parts):
                yield first
                return
            text = types.Content(role="model", parts=[types.Part(text=then)])
            yield LlmResponse(content=text, finish_reason=types.FinishReason.STOP)

    return Fixed()


def call(name: str, **args: object) -> LlmResponse:
    part = types.Part(function_call=types.FunctionCall(name=name, args=args))
    return LlmResponse(content=types.Content(role="model", parts=[part]))


def explode(city: str) -> dict[str, str]:
    """Always fails."""
    raise RuntimeError("the weather service is down")


root_agent = LlmAgent(
    name="failing",
    model=fixed(call("explode", city="Paris"), "Sorry."),
    instruction="Answer.",
    tools=[explode],
)
