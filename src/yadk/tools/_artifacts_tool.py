"""``load_artifacts``: the model lists the session's artifacts and loads the ones it needs."""

from __future__ import annotations

import json
import logging
from typing import TYPE_CHECKING, Any

from yadk.models import FunctionDeclaration
from yadk.tools._base import BaseTool
from yadk.types import Content, Part

if TYPE_CHECKING:
    from yadk._contexts import ToolContext
    from yadk.models import LlmRequest

__all__ = ["LoadArtifactsTool", "load_artifacts"]

logger = logging.getLogger("yadk.tools")

_DESCRIPTION = """Loads artifacts into the session for this request.

NOTE: Call when you need access to artifacts (for example, uploads saved by the
web UI)."""

_INSTRUCTION = """You have a list of artifacts:
  {names}

  When the user asks questions about any of the artifacts, you should call the
  `load_artifacts` function to load the artifact. Always call load_artifacts
  before answering questions related to the artifacts, regardless of whether the
  artifacts have been loaded before. Do not depend on prior answers about the
  artifacts.
  """


class LoadArtifactsTool(BaseTool):
    """google-adk's ``load_artifacts``: artifact names go in the instruction; the artifacts the
    model asks for follow its function response in that request only (never stored)."""

    def __init__(self) -> None:
        super().__init__(name="load_artifacts", description=_DESCRIPTION)

    def declaration(self) -> FunctionDeclaration:
        return FunctionDeclaration(
            name=self.name,
            description=self.description,
            parameters={
                "type": "object",
                "properties": {"artifact_names": {"type": "array", "items": {"type": "string"}}},
            },
        )

    async def run_async(self, *, args: dict[str, Any], tool_context: ToolContext) -> Any:
        names = args.get("artifact_names", [])
        if not isinstance(names, list) or not all(isinstance(n, str) for n in names):
            return {
                "error": "'artifact_names' must be a list of strings.",
                "error_code": "INVALID_ARGUMENTS",
            }
        return {
            "artifact_names": names,
            "status": (
                "artifact contents temporarily inserted and removed. to access"
                " these artifacts, call load_artifacts tool again."
            ),
        }

    async def process_llm_request(
        self, *, tool_context: ToolContext, llm_request: LlmRequest
    ) -> None:
        await super().process_llm_request(tool_context=tool_context, llm_request=llm_request)
        if tool_context.invocation_context.artifact_service is None:
            return
        names = await tool_context.list_artifacts()
        if not names:
            return
        llm_request.append_instructions([_INSTRUCTION.format(names=json.dumps(names))])
        if not llm_request.contents or not llm_request.contents[-1].parts:
            return
        available = set(names)
        for part in list(llm_request.contents[-1].parts):
            response = part.function_response
            if response is None or response.name != self.name:
                continue
            requested = (response.response or {}).get("artifact_names", [])
            if not isinstance(requested, list):
                continue
            for name in requested:
                if not isinstance(name, str):
                    continue
                stored = name if name in available else f"user:{name}"
                if stored not in available:
                    logger.warning("Artifact %r is not available in this session, skipping", name)
                    continue
                artifact = await tool_context.load_artifact(stored)
                if artifact is None:
                    continue
                llm_request.contents.append(
                    Content(role="user", parts=[Part(text=f"Artifact {name} is:"), artifact])
                )


load_artifacts = LoadArtifactsTool()
