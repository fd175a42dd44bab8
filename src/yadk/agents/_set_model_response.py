"""``output_schema`` beside tools on a model that cannot take both (google-adk 2.13's way).

Most models cannot constrain their answer to a response schema while they may also call tools,
so such a request carries no response schema. Instead it offers one more tool,
``set_model_response``, whose parameters are the output schema, and an instruction to call it
for the final answer. When the model calls it with arguments that fit, the function response
event carries the validated value in ``actions.set_model_response`` and an answer event follows
whose text is that value as JSON (so ``output_key`` and an ``AgentTool`` caller read it as they
read any structured answer). Arguments that do not fit are answered with the validation error,
and the model may call again. Gemini on Vertex AI and OpenAI-style chat models take the schema
with the tools, as in google-adk.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

import pydantic

from yadk.events import Event
from yadk.models import FunctionDeclaration, LlmRequest
from yadk.tools import BaseTool
from yadk.types import Content, Part

if TYPE_CHECKING:
    from yadk._contexts import InvocationContext, ToolContext
    from yadk.agents._llm_agent import LlmAgent

__all__ = [
    "SET_MODEL_RESPONSE",
    "SetModelResponseTool",
    "answer_event",
    "offer_set_model_response",
    "uses_set_model_response",
]

SET_MODEL_RESPONSE = "set_model_response"

# google-adk 2.13's words, so a model sees the same request under either.
_DESCRIPTION = (
    "Set your final response using the required output schema.\n\n"
    "Use this tool to provide your final structured answer instead\n"
    "of outputting text directly."
)
_INSTRUCTION = (
    "IMPORTANT: You have access to other tools, but you must provide your final response using"
    " the set_model_response tool with the required structured format. After using any other"
    " tools needed to complete the task, always call set_model_response with your final answer"
    " in the specified schema format."
)


class SetModelResponseTool(BaseTool):
    """The tool the model calls with its final answer; its parameters are the output schema."""

    name = SET_MODEL_RESPONSE
    description = _DESCRIPTION

    def __init__(self, schema: type[pydantic.BaseModel]) -> None:
        super().__init__()
        self.schema = schema

    def declaration(self) -> FunctionDeclaration:
        # As google-adk builds it: each field's type and default (a field with a default is
        # optional), its description kept, under a model named for the tool.
        fields: dict[str, Any] = {}
        for name, info in self.schema.model_fields.items():
            default = ... if info.is_required() else info.get_default(call_default_factory=True)
            fields[name] = (info.annotation, pydantic.Field(default, description=info.description))
        params = pydantic.create_model(f"{SET_MODEL_RESPONSE}Params", **fields)
        return FunctionDeclaration(
            name=self.name, description=self.description, parameters=params.model_json_schema()
        )

    async def run_async(self, *, args: dict[str, Any], tool_context: ToolContext) -> Any:
        try:
            value = self.schema.model_validate(args).model_dump(exclude_none=True)
        except pydantic.ValidationError as exc:
            return {
                "error": f"Validation Error found:\n{exc}\nRecall the set_model_response"
                " function correctly, fix the errors, and call it again with all required"
                " fields using the correct types."
            }
        tool_context.actions.set_model_response = value
        return value


def uses_set_model_response(agent: LlmAgent) -> bool:
    """Whether the agent's answer comes through ``set_model_response`` rather than a response
    schema: it has an output schema and tools, and its model cannot take both at once."""
    return (
        agent.output_schema is not None
        and agent.mode != "task"  # its output comes through finish_task
        and bool(agent.tools)
        and not agent.canonical_model.output_schema_with_tools
    )


def offer_set_model_response(agent: LlmAgent, request: LlmRequest) -> None:
    """Add the tool and the instruction to call it (where google-adk adds them: after the
    instructions and the identity line, before the transfer block and the agent's tools)."""
    assert agent.output_schema is not None
    request.append_tools([SetModelResponseTool(agent.output_schema)])
    request.append_instructions([_INSTRUCTION])


def answer_event(ctx: InvocationContext, agent: LlmAgent, response_event: Event) -> Event | None:
    """The answer event that follows a successful ``set_model_response`` call: the validated
    value as JSON text, in the model's name; None when the call failed or none was made."""
    value = response_event.actions.set_model_response
    if value is None or not any(
        r.name == SET_MODEL_RESPONSE for r in response_event.get_function_responses()
    ):
        return None
    return Event(
        invocation_id=ctx.invocation_id,
        author=agent.name,
        branch=ctx.branch,
        content=Content(role="model", parts=[Part(text=json.dumps(value, ensure_ascii=False))]),
    )
