"""A grounded answer with usage details and custom metadata, as Gemini's answers carry.

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


USAGE = types.GenerateContentResponseUsageMetadata(
    prompt_token_count=10,
    candidates_token_count=4,
    thoughts_token_count=2,
    total_token_count=16,
    prompt_tokens_details=[types.ModalityTokenCount(modality="TEXT", token_count=10)],
)
GROUNDING = types.GroundingMetadata(
    web_search_queries=["weather paris"],
    grounding_chunks=[
        types.GroundingChunk(web=types.GroundingChunkWeb(uri="https://example.com/w", title="W"))
    ],
    grounding_supports=[
        types.GroundingSupport(
            segment=types.Segment(start_index=0, end_index=6, text="Sunny."),
            grounding_chunk_indices=[0],
        )
    ],
)
ANSWER = LlmResponse(
    content=types.Content(role="model", parts=[types.Part(text="Sunny.")]),
    grounding_metadata=GROUNDING,
    usage_metadata=USAGE,
    custom_metadata={"source_count": 1, "nested_key": {"inner_key": True}},
    finish_reason=types.FinishReason.STOP,
)
root_agent = LlmAgent(name="grounded", model=fixed(ANSWER, "unused"), instruction="Answer.")
