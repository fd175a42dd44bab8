"""The user's answer to a tool confirmation request (google-adk's ``ToolConfirmation``), shared by
LlmAgent tools (``FunctionTool(require_confirmation=...)``, ``tool_context.request_confirmation``)
and workflow function nodes."""

from __future__ import annotations

import inspect
import json
from collections.abc import Callable, Iterable
from typing import Any

from pydantic import ConfigDict
from pydantic.alias_generators import to_camel

from yadk._sealed import Sealable

__all__ = [
    "CONFIRMATION_PENDING",
    "REJECTED",
    "REQUEST_CONFIRMATION",
    "ToolConfirmation",
    "confirmation_hint",
    "parse_confirmation",
    "plain_answer",
    "required",
]

REQUEST_CONFIRMATION = "adk_request_confirmation"
"""The name of the function call that asks the user to confirm a tool call (google-adk's)."""

REJECTED: dict[str, str] = {"error": "This tool call is rejected."}
"""A rejected tool call's response, in google-adk's words."""

CONFIRMATION_PENDING: dict[str, str] = {
    "error": "This tool call requires confirmation, please approve or reject."
}
"""What the model gets for a call waiting on the user's confirmation (google-adk's words)."""


class ToolConfirmation(Sealable):
    # The user's answer to a confirmation request. Its JSON schema goes to clients as a workflow
    # request's response_schema, so the description is google-adk's, word for word.
    model_config = ConfigDict(
        extra="forbid",
        alias_generator=to_camel,
        populate_by_name=True,
        json_schema_extra={"description": "Represents a tool confirmation configuration."},
    )

    hint: str = ""
    confirmed: bool = False
    payload: Any | None = None

    @classmethod
    def from_response_dict(cls, response: dict[str, Any]) -> ToolConfirmation:
        """The confirmation a function response carries: the dict itself, or the web UI's
        ``{"response": "<json>"}`` wrapper (google-adk accepts both)."""
        return parse_confirmation(response)


def parse_confirmation(answer: Any) -> ToolConfirmation:
    """``answer`` (a function response's dict) as a ``ToolConfirmation``; ``ValueError`` (a
    pydantic ``ValidationError`` included) when it is not one."""
    if not isinstance(answer, dict):
        raise ValueError(
            "A tool confirmation response must be a ToolConfirmation payload, but got"
            f" {type(answer).__name__}."
        )
    if len(answer) == 1 and isinstance(answer.get("response"), str):
        answer = json.loads(answer["response"])  # the web UI's {"response": json} wrapper
        if not isinstance(answer, dict):
            raise ValueError("A tool confirmation response must be a JSON object.")
    return ToolConfirmation.model_validate({k: v for k, v in answer.items() if v is not None})


def confirmation_hint(tool_name: str) -> str:
    """The hint of a confirmation that ``require_confirmation`` asks for (google-adk's)."""
    return (
        f"Please approve or reject the tool call {tool_name}() by responding with a"
        " FunctionResponse with an expected ToolConfirmation payload."
    )


_YES = frozenset({"yes", "y", "true", "approve", "approved", "ok"})
_NO = frozenset({"no", "n", "false", "reject", "rejected"})


def plain_answer(answer: Any) -> Any:
    """A plain answer to a confirmation request (``yadk run`` users type it) as the
    ``ToolConfirmation`` dict: yes/no words and booleans. Other answers pass unchanged."""
    if isinstance(answer, bool):
        return {"confirmed": answer}
    if isinstance(answer, str) and answer.strip().lower() in _YES | _NO:
        return {"confirmed": answer.strip().lower() in _YES}
    return answer


async def required(
    setting: bool | Callable[..., Any],
    args: dict[str, Any],
    tool_context: Any,
    context_names: Iterable[str] = ("tool_context",),
) -> bool:
    """What a tool's ``require_confirmation`` says for a call with ``args``: the bool itself, or
    the predicate's answer (sync or async; it takes the arguments it names, all of them with
    ``**kwargs``, and the tool context under one of ``context_names``). Only ``True`` asks, as
    in google-adk: any other answer lets the call run."""
    if not callable(setting):
        return bool(setting)
    params = inspect.signature(setting).parameters
    if any(p.kind is p.VAR_KEYWORD for p in params.values()):
        chosen = dict(args)
    else:
        chosen = {k: v for k, v in args.items() if k in params}
    for name in context_names:
        if name in params:
            chosen[name] = tool_context
    result = setting(**chosen)
    if inspect.isawaitable(result):
        result = await result
    return result is True
