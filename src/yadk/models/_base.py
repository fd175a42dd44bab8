"""The model interface every backend implements: LlmRequest in, LlmResponse(s) out."""

from __future__ import annotations

import abc
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel, ConfigDict, Field, field_validator

from yadk.events import CacheMetadata
from yadk.models._request_config import RequestConfig
from yadk.types import Content

if TYPE_CHECKING:
    from yadk.tools import BaseTool

__all__ = ["BaseLlm", "FunctionDeclaration", "LlmRequest", "LlmResponse"]


class FunctionDeclaration(BaseModel):
    """A tool as the model sees it: name, description and a JSON Schema of its parameters, and
    optionally of its result (``response``: an MCP tool's ``outputSchema``, sent to Gemini as
    ``responseJsonSchema`` as google-adk does)."""

    model_config = ConfigDict(extra="forbid")

    name: str
    description: str = ""
    parameters: dict[str, Any] | None = None
    response: dict[str, Any] | None = None

    def to_dict(self) -> dict[str, Any]:
        shown = {"name": self.name, "description": self.description, "parameters": self.parameters}
        if self.response is not None:
            shown["response"] = self.response
        return shown


def insert_before_current_turn(contents: list[Content], block: Content) -> None:
    """Place request-scoped content before the latest run of plain user messages (after a
    function response when the model is continuing a tool-call turn)."""
    index = len(contents)
    while index > 0:
        previous = contents[index - 1]
        if previous.role != "user" or any(p.function_response for p in previous.parts):
            break
        index -= 1
    contents.insert(index, block)


@dataclass
class LlmRequest:
    """Everything one model call receives.

    ``system_instruction`` is built by appending instruction blocks separated by a blank line;
    ``config`` is the agent's ``generate_content_config`` as a mapping (a ``RequestConfig``,
    which google-adk callbacks may also use as attributes, ``config.system_instruction`` included).
    """

    model: str | None = None
    agent_name: str = ""
    system_instruction: str = ""
    contents: list[Content] = field(default_factory=list)
    tools_dict: dict[str, BaseTool] = field(default_factory=dict)
    config: dict[str, Any] = field(default_factory=dict)
    output_schema: type[BaseModel] | None = None
    # Gemini context caching (an App's ContextCacheConfig): the settings, the cache state the
    # agent's last model event recorded, and the prompt size that call reported.
    cache_config: Any = None
    cache_metadata: CacheMetadata | None = None
    cacheable_contents_token_count: int | None = None

    def __post_init__(self) -> None:
        self.config = self.config  # wrapped by __setattr__

    def __setattr__(self, name: str, value: Any) -> None:
        if name == "config" and not (isinstance(value, RequestConfig) and value._request is self):
            value = RequestConfig(self, value)
        object.__setattr__(self, name, value)

    def append_instructions(self, instructions: list[str] | str) -> None:
        if isinstance(instructions, str):
            instructions = [instructions]
        text = "\n\n".join(instructions)
        if not text:
            return
        if self.system_instruction:
            self.system_instruction += "\n\n" + text
        else:
            self.system_instruction = text

    def append_tools(self, tools: list[BaseTool]) -> None:
        for tool in tools:
            self.tools_dict[tool.name] = tool

    @property
    def function_declarations(self) -> list[FunctionDeclaration]:
        declarations = []
        for tool in self.tools_dict.values():
            declaration = tool.declaration()
            if declaration is not None:
                declarations.append(declaration)
        return declarations

    def to_dict(self) -> dict[str, Any]:
        """The request as ``yadk inspect --json`` prints it."""
        return {
            "agent": self.agent_name,
            "model": self.model or "",
            "system_instruction": self.system_instruction,
            "contents": [c.to_dict() for c in self.contents],
            "tools": [d.to_dict() for d in self.function_declarations],
            "config": self.config,
        }


class LlmResponse(BaseModel):
    """One model answer (or one chunk of a streamed answer when ``partial``)."""

    # Built on first use: a command that calls no model (``yadk inspect``) never builds it.
    model_config = ConfigDict(extra="forbid", defer_build=True)

    content: Content | None = None
    partial: bool | None = None
    turn_complete: bool | None = None
    error_code: str | None = None
    error_message: str | None = None
    finish_reason: str | None = None
    usage_metadata: dict[str, Any] | None = None
    # What Google Search / URL context grounded the answer on (Gemini built-in tools).
    grounding_metadata: dict[str, Any] | None = None
    custom_metadata: dict[str, Any] | None = Field(default=None)
    # Gemini context caching: the cache this call used, or the prefix a later call may cache.
    cache_metadata: CacheMetadata | None = None
    # What the service reported beside the answer, kept as google-adk keeps them: the model
    # version that answered, Gemini's log probabilities and citations (snake_case keys).
    model_version: str | None = None
    avg_logprobs: float | None = None
    logprobs_result: dict[str, Any] | None = None
    citation_metadata: dict[str, Any] | None = None

    @field_validator("usage_metadata", "grounding_metadata", mode="before")
    @classmethod
    def _genai_object(cls, value: Any) -> Any:
        """A google-genai object (as code written for google-adk builds it through the shim)
        becomes the snake_case mapping yadk's backends give."""
        if isinstance(value, BaseModel):
            return value.model_dump(mode="json", exclude_none=True)
        return value


class BaseLlm(abc.ABC):
    """A model backend. ``model`` is the name requests report."""

    model: str = ""
    # Who serves the model, as the OpenTelemetry GenAI conventions name it
    # (``gen_ai.provider.name`` on traced model calls): "gcp.gemini", "openai", ...
    provider_name: str = ""
    # Whether the model can constrain its answer to a response schema while it may also call
    # tools; when it cannot, an agent with both gets its answer through ``set_model_response``.
    output_schema_with_tools: bool = False

    @abc.abstractmethod
    def generate_content_async(
        self, llm_request: LlmRequest, stream: bool = False
    ) -> AsyncIterator[LlmResponse]:
        """Yield the answer: one response, or partial chunks then a final one when streaming."""

    def missing_credentials(self) -> str | None:
        """Why this model cannot be called as configured (e.g. ``"Gemini model 'x': no API
        key. Set GOOGLE_API_KEY ..."``), checked before a conversation starts; None when it
        can (the default: a model that needs no credentials, such as ScriptedModel)."""
        return None

    def __repr__(self) -> str:
        return f"{type(self).__name__}(model={self.model!r})"
