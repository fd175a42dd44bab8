"""Gemini's built-in tools: ``google_search`` and ``url_context`` run inside the model.

They add a native tool to the request (``{"google_search": {}}``) instead of a function
declaration; the Gemini backend sends it, and the model's grounding metadata is kept on the
event. Other models cannot run them: the request fails with google-adk's message, and loading a
config that pairs them with a non-Gemini model is an error.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, ClassVar

from yadk._model_names import is_gemini_model
from yadk.tools._base import BaseTool

if TYPE_CHECKING:
    from yadk._contexts import ToolContext
    from yadk.models import LlmRequest

__all__ = ["GoogleSearchTool", "UrlContextTool", "google_search", "is_gemini_model", "url_context"]


class _NativeTool(BaseTool):
    native: ClassVar[dict[str, Any]] = {}
    label = ""

    def __init__(self, *, model: str | None = None) -> None:
        super().__init__(name=self.name, description=self.name)
        self.model = model

    async def process_llm_request(
        self, *, tool_context: ToolContext, llm_request: LlmRequest
    ) -> None:
        if self.model is not None:
            llm_request.model = self.model
        if not is_gemini_model(llm_request.model):
            raise ValueError(f"{self.label} tool is not supported for model {llm_request.model}")
        llm_request.config.setdefault("tools", []).append(dict(self.native))


class GoogleSearchTool(_NativeTool):
    """Google Search grounding, run by Gemini models (google-adk's ``GoogleSearchTool``)."""

    name = "google_search"
    native: ClassVar[dict[str, Any]] = {"google_search": {}}
    label = "Google search"

    def __init__(self, *, bypass_multi_tools_limit: bool = False, model: str | None = None) -> None:
        super().__init__(model=model)
        self.bypass_multi_tools_limit = bypass_multi_tools_limit


class UrlContextTool(_NativeTool):
    """Reading the URLs in the conversation, run by Gemini 2+ models."""

    name = "url_context"
    native: ClassVar[dict[str, Any]] = {"url_context": {}}
    label = "Url context"


google_search = GoogleSearchTool()
url_context = UrlContextTool()
