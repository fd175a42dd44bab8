"""What a judge model is shown of an invocation: the same facts google-adk shows its judges.

The user's text, the final answer (optionally with the text the agent said before it), each tool
call paired with its response, the answering agent's instruction and every agent's tool
declarations, the context each sentence of an answer is checked against (hallucinations), and a
whole conversation as numbered turns (multi-turn metrics).
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Sequence
from typing import Any

from yadk.eval._model import Invocation
from yadk.types import Content, FunctionCall, FunctionResponse

__all__ = [
    "HallucinationStep",
    "answer_text",
    "developer_instructions",
    "dialogue",
    "hallucination_steps",
    "tool_declarations",
    "tool_steps",
]

NO_STEPS = "No intermediate steps were taken."
NO_TOOLS = "Agent has no tools."
NO_GROUNDING = "No grounding metadata was provided."


@dataclasses.dataclass(frozen=True)
class _Event:
    author: str
    content: Content | None


def _content(raw: Any) -> Content | None:
    if not isinstance(raw, dict):
        return None
    try:
        return Content.model_validate(raw)
    except ValueError:
        return None


def _events(invocation: Invocation) -> list[_Event] | None:
    """The turn's events, or ``None`` when its intermediate data is the ``tool_uses`` shape."""
    data = invocation.intermediate or {}
    raw = data.get("invocation_events", data.get("invocationEvents"))
    if raw is None:
        return None
    return [
        _Event(str(item.get("author", "")), _content(item.get("content")))
        for item in raw
        if isinstance(item, dict)
    ]


def _parts_of(events: Sequence[_Event]) -> list[Any]:
    return [part for event in events if event.content for part in event.content.parts]


def _calls_and_responses(
    invocation: Invocation,
) -> list[tuple[dict[str, Any], dict[str, Any] | None]]:
    events = _events(invocation)
    if events is not None:
        parts = _parts_of(events)
        calls = [p.function_call.to_dict() for p in parts if p.function_call]
        responses = [p.function_response.to_dict() for p in parts if p.function_response]
    else:
        data = invocation.intermediate or {}
        calls = [
            FunctionCall.model_validate(c).to_dict()
            for c in data.get("tool_uses", data.get("toolUses", []))
        ]
        responses = [
            FunctionResponse.model_validate(r).to_dict()
            for r in data.get("tool_responses", data.get("toolResponses", []))
            if isinstance(r, dict)
        ]
    by_id = {response.get("id"): response for response in responses}
    return [(call, by_id.get(call.get("id"))) for call in calls]


def tool_steps(invocation: Invocation) -> str:
    """Every tool call of the turn with its response (matched by call id), as JSON."""
    pairs = _calls_and_responses(invocation)
    if not pairs:
        return NO_STEPS
    steps = [
        {"step": index, "tool_call": call, "tool_response": response or "None"}
        for index, (call, response) in enumerate(pairs)
    ]
    return json.dumps({"tool_calls_and_response": steps}, indent=2)


def answer_text(invocation: Invocation, *, with_intermediate: bool = False) -> str:
    """The final response's text; with ``with_intermediate``, preceded by every text the
    agents said earlier in the turn."""
    texts: list[str] = []
    if with_intermediate:
        events = _events(invocation)
        if events is not None:
            for event in events:
                text = "\n".join(
                    p.text for p in (event.content.parts if event.content else []) if p.text
                )
                if text:
                    texts.append(text)
        else:
            data = invocation.intermediate or {}
            for item in data.get("intermediate_responses", data.get("intermediateResponses", [])):
                if isinstance(item, list) and len(item) == 2 and isinstance(item[1], list):
                    text = "\n".join(
                        str(p.get("text")) for p in item[1] if isinstance(p, dict) and p.get("text")
                    )
                    if text:
                        texts.append(text)
    final = invocation.response_text()
    if final:
        texts.append(final)
    return "\n".join(texts)


def developer_instructions(invocation: Invocation) -> str:
    """The system instruction of the agent that answered (the first event's author, else the
    first agent recorded)."""
    details = invocation.app_details
    if not details:
        return ""
    events = _events(invocation)
    name = events[0].author if events else next(iter(details))
    agent = details.get(name)
    return agent.instructions if agent is not None else ""


def tool_declarations(invocation: Invocation) -> str:
    """Each agent's tool declarations, as JSON."""
    if invocation.app_details is None:
        return NO_TOOLS
    declarations = {
        name: [{"function_declarations": agent.tool_declarations}]
        for name, agent in invocation.app_details.items()
        if agent.tool_declarations
    }
    return json.dumps({"tool_declarations": declarations}, indent=2)


@dataclasses.dataclass(frozen=True)
class HallucinationStep:
    """One text the agent said, and the context it is checked against."""

    text: str
    context: str


def _context(invocation: Invocation, events: Sequence[_Event]) -> str:
    details = invocation.app_details or {}
    instructions = "\n\n".join(
        f"{name}:\n{agent.instructions}" for name, agent in details.items() if agent.instructions
    )
    lines = [
        f"Developer instructions:\n{instructions}\n",
        f"User prompt:\n{invocation.user_text()}\n",
        "Tool definitions:",
        f"{tool_declarations(invocation)}\n",
        "Grounding metadata:",
        f"{NO_GROUNDING}\n",
    ]
    for event in events:
        parts = event.content.parts if event.content else []
        texts = [p.text for p in parts if p.text]
        calls = [p.function_call.to_dict() for p in parts if p.function_call]
        responses = [p.function_response.to_dict() for p in parts if p.function_response]
        if texts:
            lines.append("\n".join(texts) + "\n")
        if calls:
            lines += ["tool_calls:", json.dumps(calls, indent=2) + "\n"]
        if responses:
            lines += ["tool_outputs:", json.dumps(responses, indent=2) + "\n"]
    return "\n".join(lines)


def hallucination_steps(invocation: Invocation, *, intermediate: bool) -> list[HallucinationStep]:
    """The texts to check in a turn: the final response (and, with ``intermediate``, every
    earlier text), each with the events that came before it as context."""
    events = _events(invocation) or []
    steps: list[HallucinationStep] = []
    before: list[_Event] = []
    if intermediate:
        for event in events:
            texts = [p.text for p in (event.content.parts if event.content else []) if p.text]
            if texts:
                context = _context(invocation, before)
                steps.extend(HallucinationStep(text, context) for text in texts)
            before.append(event)
    else:
        before = events
    final = invocation.response_text()
    if final:
        steps.append(HallucinationStep(final, _context(invocation, before)))
    return steps


def dialogue(invocations: Sequence[Invocation]) -> tuple[str, str, str]:
    """A whole conversation as numbered turns, with every agent's instruction and tools."""
    lines: list[str] = []
    for number, invocation in enumerate(invocations, start=1):
        user = " ".join(p.text for p in invocation.user_content.parts if p.text)
        if user:
            lines.append(f"USER TURN {number}: {user}")
        events = _events(invocation) or []
        for event in events:
            role = "USER" if event.author.lower() == "user" else f"AGENT ({event.author})"
            parts = event.content.parts if event.content else []
            text = " ".join(p.text for p in parts if p.text)
            if text:
                lines.append(f"{role} TURN {number}: {text}")
            for part in parts:
                if part.function_call:
                    args = json.dumps(part.function_call.args) if part.function_call.args else "{}"
                    lines.append(
                        f"{role} TURN {number} (tool call): {part.function_call.name}({args})"
                    )
                if part.function_response:
                    out = part.function_response
                    result = json.dumps(out.response) if out.response else "{}"
                    lines.append(f"{role} TURN {number} (tool output): {out.name} -> {result}")
        final = " ".join(
            p.text
            for p in (invocation.final_response.parts if invocation.final_response else [])
            if p.text
        )
        if final:
            lines.append(
                f"AGENT ({events[0].author if events else 'agent'}) TURN {number}: {final}"
            )
    instructions: dict[str, None] = {}
    tools: dict[str, None] = {}
    for invocation in invocations:
        for name, agent in (invocation.app_details or {}).items():
            instructions[f"Agent {name} Instructions:\n{agent.instructions}"] = None
            tools[f"Agent: {name}"] = None
            for declaration in agent.tool_declarations:
                tools[f"- {declaration['name']}: {declaration.get('description', '')}"] = None
    return "\n".join(lines), "\n\n".join(instructions), "\n".join(tools)
