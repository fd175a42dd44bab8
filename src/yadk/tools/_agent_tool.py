"""AgentTool: an agent called as a tool; its final answer is the tool result."""

from __future__ import annotations

import copy
import dataclasses
import functools
import json
import re
from typing import TYPE_CHECKING, Any

import pydantic

from yadk.artifacts import BaseArtifactService
from yadk.errors import AgentDefinitionError, ToolErrorType, ToolExecutionError
from yadk.models import FunctionDeclaration
from yadk.sessions import InMemorySessionService
from yadk.tools._base import BaseTool
from yadk.types import Content, Part

if TYPE_CHECKING:
    from yadk._contexts import ToolContext
    from yadk.agents import BaseAgent

__all__ = ["GROUNDING_STATE_KEY", "AgentTool"]

# google-adk's key: grounding of a wrapped agent, for the caller's next answers.
GROUNDING_STATE_KEY = "temp:_adk_grounding_metadata"

_FENCE_LANGUAGE = re.compile(r"^[A-Za-z0-9_]*[ \t]*\n?")

_REQUEST_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {"request": {"type": "string"}},
    "required": ["request"],
}


class AgentTool(BaseTool):
    """Wraps ``agent`` so a model can call it like a function (google-adk's ``AgentTool``).

    The tool is named after the agent and described by its description. Its parameters are the
    agent's ``input_schema`` (for a workflow agent, that of its first sub-agent, recursively),
    or a single ``request`` string. A call runs the agent in a fresh in-memory session seeded
    with a copy of the caller's state; the request becomes that session's user message. Every
    state change the agent makes is copied back to the caller's state as it happens, and
    artifacts are read from and saved to the caller's session. The result is the text of the
    agent's last message (``{"result": text}`` for the model), or, when the agent (its last
    sub-agent for a workflow agent) has an ``output_schema``, that text parsed and validated.

    ``skip_summarization=True`` ends the caller's turn with the tool result instead of giving it
    back to the caller's model. ``propagate_grounding_metadata=True`` keeps the agent's last
    grounding metadata in the caller's ``temp:_adk_grounding_metadata`` state, and the caller's
    later answers in that invocation carry it (google-adk's search sub-agent). ``include_plugins`` is accepted for google-adk configs and has
    no effect (yadk has no plugins).
    """

    def __init__(
        self,
        agent: BaseAgent,
        skip_summarization: bool = False,
        *,
        include_plugins: bool = True,
        propagate_grounding_metadata: bool = False,
    ) -> None:
        if not hasattr(agent, "run_async") or not isinstance(getattr(agent, "name", None), str):
            raise AgentDefinitionError(
                f"AgentTool needs an agent (an LlmAgent, SequentialAgent, ...), got {agent!r}."
            )
        self.agent = agent
        self.skip_summarization = skip_summarization
        self.include_plugins = include_plugins
        self.propagate_grounding_metadata = propagate_grounding_metadata
        super().__init__(name=agent.name, description=agent.description)

    def declaration(self) -> FunctionDeclaration:
        schema = _input_schema(self.agent)
        parameters = _schema_of(schema) if schema is not None else _REQUEST_SCHEMA
        return FunctionDeclaration(
            name=self.name,
            description=self.agent.description,
            parameters=copy.deepcopy(parameters),
        )

    async def run_async(self, *, args: dict[str, Any], tool_context: ToolContext) -> Any:
        parent = tool_context.invocation_context
        new_runner = parent.runner_factory
        if new_runner is None:
            raise ToolExecutionError(
                f"AgentTool {self.name!r} runs its agent with the runner of the invocation that"
                " calls it, and this invocation context has none: call it inside a Runner (or"
                " build the context with yadk.testing.invocation_context).",
                error_type=ToolErrorType.INTERNAL_ERROR,
            )
        if self.skip_summarization:
            tool_context.actions.skip_summarization = True
        message = Content(role="user", parts=[Part(text=self._request_text(args))])

        sessions = InMemorySessionService()
        runner = new_runner(
            app_name=parent.app_name,
            agent=self.agent,
            session_service=sessions,
            artifact_service=(
                _ForwardingArtifactService(tool_context)
                if parent.artifact_service is not None
                else None
            ),
            run_config=dataclasses.replace(parent.run_config),
        )
        session = await sessions.create_session(
            app_name=parent.app_name, user_id=parent.user_id, state=tool_context.state.to_dict()
        )
        last_content: Content | None = None
        last_error: str | None = None
        last_grounding: dict[str, Any] | None = None
        async for event in runner.run_async(
            user_id=parent.user_id, session_id=session.id, new_message=message
        ):
            if event.author == "user":
                continue
            if event.actions.state_delta:
                tool_context.state.update(event.actions.state_delta)
            if event.error_message:
                last_error = event.error_message
            if event.content is not None:
                last_content = event.content
                last_grounding = event.grounding_metadata

        if last_content is None or not last_content.parts:
            return last_error or ""
        text = "\n".join(filter(None, (_part_text(p) for p in last_content.parts if not p.thought)))
        if not text and last_error:
            return last_error
        if self.propagate_grounding_metadata and last_grounding:
            tool_context.state[GROUNDING_STATE_KEY] = last_grounding
        output_schema = _output_schema(self.agent)
        if output_schema is None:
            return text
        try:
            return output_schema.model_validate_json(_strip_json_fence(text)).model_dump(
                exclude_none=True
            )
        except pydantic.ValidationError as exc:
            raise ToolExecutionError(
                f"Agent {self.agent.name!r} answered with text that does not match its"
                f" output_schema {output_schema.__name__}: {exc}",
                error_type=ToolErrorType.INTERNAL_ERROR,
            ) from None

    def _request_text(self, args: dict[str, Any]) -> str:
        schema = _input_schema(self.agent)
        if schema is not None:
            try:
                return schema.model_validate(args).model_dump_json(exclude_none=True)
            except pydantic.ValidationError as exc:
                raise ToolExecutionError(
                    f"Invalid arguments for agent {self.agent.name!r} (input_schema"
                    f" {schema.__name__}): {exc}",
                    error_type=ToolErrorType.BAD_REQUEST,
                ) from None
        if "request" in args:
            return str(args["request"])
        return json.dumps(args, ensure_ascii=False, sort_keys=True)


def _part_text(part: Part) -> str:
    """What the caller sees of one part: its text, else its code's output, else the code."""
    if part.text:
        return part.text
    result = part.code_execution_result
    if result is not None and result.output:
        return result.output.rstrip("\n")
    code = part.executable_code
    return code.code if code is not None and code.code else ""


def _input_schema(agent: BaseAgent) -> type[pydantic.BaseModel] | None:
    """An LLM agent's ``input_schema``; a workflow agent's first sub-agent's, recursively."""
    if hasattr(agent, "input_schema"):
        schema: type[pydantic.BaseModel] | None = agent.input_schema
        return schema
    return _input_schema(agent.sub_agents[0]) if agent.sub_agents else None


def _output_schema(agent: BaseAgent) -> type[pydantic.BaseModel] | None:
    """An LLM agent's ``output_schema``; a workflow agent's last sub-agent's, recursively."""
    if hasattr(agent, "output_schema"):
        schema: type[pydantic.BaseModel] | None = agent.output_schema
        return schema
    return _output_schema(agent.sub_agents[-1]) if agent.sub_agents else None


@functools.lru_cache(maxsize=256)
def _schema_of(model: type[pydantic.BaseModel]) -> dict[str, Any]:
    schema: dict[str, Any] = model.model_json_schema()
    return schema


def _strip_json_fence(text: str) -> str:
    """A fenced answer (```json ... ```), unwrapped: models add a fence now and then."""
    stripped = text.strip()
    if len(stripped) >= 6 and stripped.startswith("```") and stripped.endswith("```"):
        return _FENCE_LANGUAGE.sub("", stripped[3:-3], count=1).strip()
    return text


class _ForwardingArtifactService(BaseArtifactService):
    """Artifacts of the wrapped agent's session are the caller's: loads and saves go through
    the caller's tool context, so saves are recorded on the caller's event."""

    def __init__(self, tool_context: ToolContext) -> None:
        self._tool_context = tool_context
        parent = tool_context.invocation_context
        assert parent.artifact_service is not None
        self._service = parent.artifact_service
        self._scope = {
            "app_name": parent.app_name,
            "user_id": parent.user_id,
            "session_id": parent.session.id,
        }

    async def save_artifact(
        self,
        *,
        app_name: str,
        user_id: str,
        filename: str,
        artifact: Part,
        session_id: str | None = None,
    ) -> int:
        return await self._tool_context.save_artifact(filename, artifact)

    async def load_artifact(
        self,
        *,
        app_name: str,
        user_id: str,
        filename: str,
        session_id: str | None = None,
        version: int | None = None,
    ) -> Part | None:
        return await self._tool_context.load_artifact(filename, version)

    async def list_artifact_keys(
        self, *, app_name: str, user_id: str, session_id: str | None = None
    ) -> list[str]:
        return await self._tool_context.list_artifacts()

    async def delete_artifact(
        self, *, app_name: str, user_id: str, filename: str, session_id: str | None = None
    ) -> None:
        await self._service.delete_artifact(filename=filename, **self._scope)

    async def list_versions(
        self, *, app_name: str, user_id: str, filename: str, session_id: str | None = None
    ) -> list[int]:
        return await self._service.list_versions(filename=filename, **self._scope)
