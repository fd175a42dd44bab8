"""The tools a SkillToolset gives the model: ``list_skills``, ``load_skill`` and
``load_skill_resource``. Failures go back to the model as ``{"error", "error_code"}`` dicts, never
as exceptions, with google-adk's codes and wording."""

from __future__ import annotations

import asyncio
import logging
from typing import TYPE_CHECKING, Any, Final

from yadk.errors import TemplateError
from yadk.models import FunctionDeclaration, LlmRequest
from yadk.skills._resources import ResourceKind, ResourceTooLargeError
from yadk.templating import inject_session_state
from yadk.tools import BaseTool
from yadk.types import Blob, Content, Part

if TYPE_CHECKING:
    from yadk._contexts import ToolContext
    from yadk.skills._models import Skill
    from yadk.skills._toolset import SkillToolset

__all__ = [
    "BINARY_FILE_DETECTED_MSG",
    "ListSkillsTool",
    "LoadSkillResourceTool",
    "LoadSkillTool",
    "activated_skills_state_key",
    "error",
]

logger = logging.getLogger("yadk.skills")

BINARY_FILE_DETECTED_MSG: Final = (
    "Binary file detected. The content has been injected into the conversation history for you "
    "to analyze."
)
_SKILL_NAME_SCHEMA: Final = {"type": "string", "description": "The name of the skill."}


def activated_skills_state_key(agent_name: str) -> str:
    """The session-state key listing the skills an agent has loaded (ADK's key, so sessions
    move between the two)."""
    return f"_adk_activated_skill_{agent_name}"


def error(message: str, code: str) -> dict[str, Any]:
    return {"error": message, "error_code": code}


def _missing(args: dict[str, Any], *names: str) -> dict[str, Any] | None:
    lines = [f"Argument '{n}' is required." for n in names if not args.get(n)]
    lines += [
        f"Argument '{n}' must be a string."
        for n in names
        if args.get(n) and not isinstance(args[n], str)
    ]
    return error("\n".join(lines), "INVALID_ARGUMENTS") if lines else None


def _not_found(skill_name: str) -> dict[str, Any]:
    return error(f"Skill '{skill_name}' not found.", "SKILL_NOT_FOUND")


class _SkillTool(BaseTool):
    def __init__(self, toolset: SkillToolset) -> None:
        super().__init__()
        self._toolset = toolset

    def _skill(self, name: str) -> Skill | None:
        return self._toolset.registry.get(name)


class ListSkillsTool(_SkillTool):
    """Lists the skills (name and description), computed once per skill-set version."""

    name = "list_skills"
    description = "Lists all available skills with their names and descriptions."

    def declaration(self) -> FunctionDeclaration:
        return FunctionDeclaration(
            name=self.name,
            description=self.description,
            parameters={"type": "object", "properties": {}},
        )

    async def run_async(self, *, args: dict[str, Any], tool_context: ToolContext) -> Any:
        return self._toolset.listing()


class LoadSkillTool(_SkillTool):
    """Returns a skill's instructions, rendered with session state when the skill opts in."""

    name = "load_skill"
    description = "Loads the SKILL.md instructions for a given skill."

    def declaration(self) -> FunctionDeclaration:
        return FunctionDeclaration(
            name=self.name,
            description=self.description,
            parameters={
                "type": "object",
                "properties": {
                    "skill_name": {
                        "type": "string",
                        "description": "The name of the skill to load.",
                    },
                },
                "required": ["skill_name"],
            },
        )

    async def run_async(self, *, args: dict[str, Any], tool_context: ToolContext) -> Any:
        problem = _missing(args, "skill_name")
        if problem is not None:
            return problem
        skill_name: str = args["skill_name"]
        skill = self._skill(skill_name)
        if skill is None:
            return _not_found(skill_name)
        instructions = skill.instructions
        if skill.frontmatter.inject_state:
            # Rendered now, once: the result is fixed in the conversation, so later state
            # changes reach the model only if it loads the skill again.
            try:
                instructions = await inject_session_state(instructions, tool_context)
            except TemplateError as exc:
                return error(
                    f"Could not fill the instructions of skill '{skill_name}' from session "
                    f"state: {exc.message}",
                    "STATE_INJECTION_FAILED",
                )
        key = activated_skills_state_key(tool_context.agent_name)
        activated = list(tool_context.state.get(key) or [])
        if skill_name not in activated:
            # Assigned, not mutated in place, so the write lands in the state delta.
            tool_context.state[key] = [*activated, skill_name]
        return {
            "skill_name": skill_name,
            "instructions": instructions,
            "frontmatter": skill.frontmatter.model_dump(mode="json"),
        }


def _split(file_path: str) -> tuple[ResourceKind, str] | None:
    for kind in ("references", "assets", "scripts"):
        if file_path.startswith(kind + "/"):
            return kind, file_path[len(kind) + 1 :]
    return None


class LoadSkillResourceTool(_SkillTool):
    """Returns one file of a skill (text; binary files are attached to the next request)."""

    name = "load_skill_resource"
    description = (
        "Loads a resource file (from references/, assets/, or scripts/) from within a skill."
    )

    def declaration(self) -> FunctionDeclaration:
        return FunctionDeclaration(
            name=self.name,
            description=self.description,
            parameters={
                "type": "object",
                "properties": {
                    "skill_name": _SKILL_NAME_SCHEMA,
                    "file_path": {
                        "type": "string",
                        "description": (
                            "The relative path to the resource (e.g., 'references/my_doc.md', "
                            "'assets/template.txt', or 'scripts/setup.sh')."
                        ),
                    },
                },
                "required": ["skill_name", "file_path"],
            },
        )

    async def run_async(self, *, args: dict[str, Any], tool_context: ToolContext) -> Any:
        problem = _missing(args, "skill_name", "file_path")
        if problem is not None:
            return problem
        skill_name: str = args["skill_name"]
        file_path: str = args["file_path"]
        skill = self._skill(skill_name)
        if skill is None:
            return _not_found(skill_name)
        if "\x00" in file_path or any("\ud800" <= c <= "\udfff" for c in file_path):
            return error(
                "Path must be plain text: it contains a NUL byte or a lone surrogate.",
                "INVALID_RESOURCE_PATH",
            )
        where = _split(file_path)
        if where is None:
            return error(
                "Path must start with 'references/', 'assets/', or 'scripts/'.",
                "INVALID_RESOURCE_PATH",
            )
        try:
            # File reads run off the event loop.
            content = await asyncio.to_thread(
                skill.resources.read, *where, max_bytes=self._toolset.max_resource_bytes
            )
        except ResourceTooLargeError as exc:
            return error(
                f"Resource '{file_path}' in skill '{skill_name}' is {exc.size} bytes, over the "
                f"limit of {exc.limit} bytes.",
                "RESOURCE_TOO_LARGE",
            )
        except OSError as exc:
            return error(
                f"Resource '{file_path}' in skill '{skill_name}' could not be read: "
                f"{exc.strerror or exc}",
                "RESOURCE_UNREADABLE",
            )
        if content is None:
            return self._not_found(tool_context, skill_name, file_path)
        if isinstance(content, bytes):
            return {
                "skill_name": skill_name,
                "file_path": file_path,
                "status": BINARY_FILE_DETECTED_MSG,
            }
        return {"skill_name": skill_name, "file_path": file_path, "content": content}

    @staticmethod
    def _not_found(tool_context: ToolContext, skill_name: str, file_path: str) -> dict[str, Any]:
        # Counted per invocation across all paths, so a model guessing a new path each retry is
        # still told to stop; temp: keeps the counter out of durable state.
        counter = f"temp:_adk_skill_resource_not_found_count_{tool_context.invocation_id}"
        failures = int(tool_context.state.get(counter) or 0) + 1
        tool_context.state[counter] = failures
        message = f"Resource '{file_path}' not found in skill '{skill_name}'."
        if failures > 1:
            return error(
                f"{message} This is resource lookup failure #{failures} this invocation. Do not "
                "retry any path \u2014 report the error to the user and stop.",
                "RESOURCE_NOT_FOUND_FATAL",
            )
        return error(message, "RESOURCE_NOT_FOUND")

    async def process_llm_request(
        self, *, tool_context: ToolContext, llm_request: LlmRequest
    ) -> None:
        """Attach binary files the model asked for in the last turn, as inline data."""
        await super().process_llm_request(tool_context=tool_context, llm_request=llm_request)
        if not llm_request.contents:
            return
        for part in list(llm_request.contents[-1].parts):
            response = part.function_response
            if response is None or response.name != self.name:
                continue
            body = response.response or {}
            if body.get("status") != BINARY_FILE_DETECTED_MSG:
                continue
            skill = self._skill(str(body.get("skill_name", "")))
            file_path = str(body.get("file_path", ""))
            where = _split(file_path)
            if skill is None or where is None or where[0] == "scripts":
                continue
            try:
                data = skill.resources.read(*where, max_bytes=self._toolset.max_resource_bytes)
            except (ResourceTooLargeError, OSError) as exc:
                logger.warning("Could not attach skill resource '%s': %s", file_path, exc)
                continue
            if not isinstance(data, bytes):
                continue
            import mimetypes  # only attaching a resource needs it

            mime_type = mimetypes.guess_type(file_path)[0] or "application/octet-stream"
            llm_request.contents.append(
                Content(
                    role="user",
                    parts=[
                        Part(text=f"The content of binary file '{file_path}' is:"),
                        Part(inline_data=Blob(data=data, mime_type=mime_type)),
                    ],
                )
            )
