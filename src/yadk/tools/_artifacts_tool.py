"""``load_artifacts``: the model lists the session's artifacts and loads the ones it needs."""

from __future__ import annotations

import json
import logging
from typing import TYPE_CHECKING, Any

from yadk.models import FunctionDeclaration
from yadk.tools._artifact_parts import as_safe_part_for_llm
from yadk.tools._base import BaseTool
from yadk.types import Content, Part

if TYPE_CHECKING:
    from yadk._contexts import ToolContext
    from yadk.models import LlmRequest

__all__ = ["LoadArtifactsTool", "load_artifacts"]

logger = logging.getLogger("yadk.tools")

_USER_PREFIX = "user:"

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
    model asks for follow its function response in that request only (never stored), converted
    as google-adk does (``as_safe_part_for_llm``: DOCX and text-like types as text, other
    binaries as a placeholder)."""

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
            if not isinstance(requested, list) or not all(isinstance(n, str) for n in requested):
                logger.warning("Ignoring invalid artifact_names in load_artifacts response.")
                continue
            for name in requested:
                content = await _artifact_content(tool_context, name, available)
                if content is not None:
                    llm_request.contents.append(content)


async def _artifact_content(
    tool_context: ToolContext, requested: str, available: set[str]
) -> Content | None:
    """The user turn that shows one requested artifact, converted for the model.

    The model chooses the name, so it is honoured only if the session lists it (with or without
    the ``user:`` prefix, which models often drop or add).
    """
    stored = _listed_name(requested, available)
    if stored is None:
        logger.warning("Artifact %r is not available in this session, skipping", requested)
        return None
    artifact = await tool_context.load_artifact(stored)
    if artifact is None and not stored.startswith(_USER_PREFIX):
        stored = _USER_PREFIX + stored
        artifact = await tool_context.load_artifact(stored)
    if artifact is None:
        logger.warning("Artifact %r not found, skipping", stored)
        return None
    shown = as_safe_part_for_llm(artifact, requested)
    return Content(role="user", parts=[Part(text=f"Artifact {requested} is:"), shown])


def _listed_name(requested: str, available: set[str]) -> str | None:
    if requested in available:
        return requested
    if requested.startswith(_USER_PREFIX):
        return requested if requested.removeprefix(_USER_PREFIX) in available else None
    prefixed = _USER_PREFIX + requested
    return prefixed if prefixed in available else None


load_artifacts = LoadArtifactsTool()
