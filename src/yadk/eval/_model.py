"""Eval sets in memory: cases, their invocations and the tool calls they expect.

One shape for all three file formats (EvalSet JSON, the older list format, AgentEvaluator's flat
``*.test.json``). Tool-call arguments keep google-adk's distinction between an absent ``args``
(``None``) and an empty one (``{}``): google-adk compares them with ``==``, so they differ.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

if TYPE_CHECKING:
    from yadk.types import Content

__all__ = [
    "AgentDetails",
    "EvalCase",
    "EvalSet",
    "FileFormat",
    "Invocation",
    "Rubric",
    "RubricScore",
    "ToolCall",
]

FileFormat = Literal["evalset", "list", "test"]


@dataclasses.dataclass(frozen=True)
class ToolCall:
    """One expected or actual tool call: its name and arguments (``None`` when absent)."""

    name: str
    args: dict[str, Any] | None = None
    # Where the call is written (a key path into its file), for diagnostics; not compared.
    source: tuple[Any, ...] | None = dataclasses.field(default=None, compare=False)

    def to_dict(self) -> dict[str, Any]:
        return {"name": self.name, "args": self.args}

    def format(self) -> str:
        """``name(key=value, ...)`` for reports."""
        args = ", ".join(f"{key}={value!r}" for key, value in (self.args or {}).items())
        return f"{self.name}({args})"


@dataclasses.dataclass(frozen=True)
class Rubric:
    """One property a judge model checks (google-adk's ``Rubric``); ``type`` decides which
    rubric metric an eval case's rubric belongs to."""

    rubric_id: str
    text: str
    type: str | None = None
    description: str | None = None

    def to_dict(self) -> dict[str, Any]:
        return {
            "rubric_id": self.rubric_id,
            "rubric_content": {"text_property": self.text},
            "description": self.description,
            "type": self.type,
        }


@dataclasses.dataclass(frozen=True)
class RubricScore:
    """A judge's verdict on one rubric: 1.0 (yes), 0.0 (no) or ``None`` (no verdict)."""

    rubric_id: str
    score: float | None
    rationale: str | None = None

    def to_dict(self) -> dict[str, Any]:
        return {"rubric_id": self.rubric_id, "rationale": self.rationale, "score": self.score}


@dataclasses.dataclass(frozen=True)
class AgentDetails:
    """What one agent's model was given in a turn: its system instruction and tool
    declarations (google-adk's ``AgentDetails``, shown to judge models)."""

    name: str
    instructions: str = ""
    tool_declarations: list[dict[str, Any]] = dataclasses.field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        tools = (
            [{"function_declarations": self.tool_declarations}] if self.tool_declarations else []
        )
        return {"name": self.name, "instructions": self.instructions, "tool_declarations": tools}


@dataclasses.dataclass
class Invocation:
    """One turn: what the user said, the tool calls made and the final response.

    ``intermediate`` keeps the turn's ``intermediate_data`` as written (or as produced by a run),
    so results can show it in google-adk's shape.
    """

    user_content: Content
    final_response: Content | None = None
    tool_uses: list[ToolCall] = dataclasses.field(default_factory=list)
    invocation_id: str = ""
    intermediate: dict[str, Any] | None = None
    model_calls: int | None = None
    rubrics: list[Rubric] = dataclasses.field(default_factory=list)
    # The agents that answered in this turn, in order, with what their model was given.
    app_details: dict[str, AgentDetails] | None = None

    def user_text(self) -> str:
        return _text(self.user_content)

    def response_text(self) -> str:
        """The final response's text as google-adk's metrics read it: non-empty text parts
        joined by newlines."""
        return _text(self.final_response)

    def to_dict(self) -> dict[str, Any]:
        """google-adk's ``Invocation`` JSON shape (snake_case)."""
        result: dict[str, Any] = {
            "invocation_id": self.invocation_id,
            "user_content": self.user_content.to_dict(),
            "final_response": None
            if self.final_response is None
            else self.final_response.to_dict(),
            "intermediate_data": self.intermediate
            if self.intermediate is not None
            else {
                "tool_uses": [call.to_dict() for call in self.tool_uses],
                "tool_responses": [],
                "intermediate_responses": [],
            },
        }
        if self.rubrics:
            result["rubrics"] = [rubric.to_dict() for rubric in self.rubrics]
        if self.app_details is not None:
            result["app_details"] = {
                "agent_details": {name: d.to_dict() for name, d in self.app_details.items()}
            }
        return result


def _text(content: Content | None) -> str:
    if content is None:
        return ""
    return "\n".join(part.text for part in content.parts if part.text)


@dataclasses.dataclass
class EvalCase:
    """One eval case: a conversation to replay and the session it starts from."""

    eval_id: str
    conversation: list[Invocation]
    state: dict[str, Any] = dataclasses.field(default_factory=dict)
    app_name: str = ""
    user_id: str = ""
    session_id: str | None = None
    rubrics: list[Rubric] = dataclasses.field(default_factory=list)


@dataclasses.dataclass
class EvalSet:
    """The eval cases of one file, in file order."""

    eval_set_id: str
    path: Path
    cases: list[EvalCase]
    file_format: FileFormat = "evalset"
    name: str | None = None
    description: str | None = None

    def select(self, eval_ids: list[str]) -> list[EvalCase]:
        """The cases named by ``eval_ids`` (all when empty), in file order."""
        if not eval_ids:
            return list(self.cases)
        wanted = set(eval_ids)
        return [case for case in self.cases if case.eval_id in wanted]
