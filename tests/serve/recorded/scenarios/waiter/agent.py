"""A long-running tool: its call names it in longRunningToolIds.

Written against google-adk 2.13 (its api_server recorded these events, see
../../../record_adk_scenarios.py); yadk serve loads the same file through its google.adk shim.
"""

from __future__ import annotations

from google.adk.agents import LlmAgent
from google.adk.models.base_llm import BaseLlm
from google.adk.models.llm_response import LlmResponse
from google.adk.tools import LongRunningFunctionTool
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


def ask_approval(amount: int) -> dict[str, str]:
    """Ask a manager to approve a refund."""
    return {"status": "pending"}


root_agent = LlmAgent(
    name="waiter",
    model=fixed(call("ask_approval", amount=5), "Waiting for approval."),
    instruction="Refund.",
    tools=[LongRunningFunctionTool(ask_approval)],
)
