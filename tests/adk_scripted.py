"""The scripted model of the scripts that record google-adk's behaviour as fixtures (run with
google-adk's Python, never by the yadk tests, which read the recordings).

``Scripted(turns=[...])`` answers each request with the next turn (a ``types.Content``, a dict
of one, or ``(content, grounding)`` for a turn that carries grounding metadata) and keeps a copy
of every request it was sent in ``seen``, as the request was when sent.
"""

from google.adk.models.base_llm import BaseLlm
from google.adk.models.llm_response import LlmResponse
from google.genai import types
from pydantic import Field


class Scripted(BaseLlm):
    model: str = "gemini-2.5-flash"
    turns: list = Field(default_factory=list)
    seen: list = Field(default_factory=list)

    async def generate_content_async(self, llm_request, stream=False):
        self.seen.append(llm_request.model_copy(deep=True))
        turn = self.turns.pop(0)
        content, grounding = turn if isinstance(turn, tuple) else (turn, None)
        yield LlmResponse(
            content=types.Content.model_validate(content),
            grounding_metadata=types.GroundingMetadata.model_validate(grounding)
            if grounding
            else None,
        )
