"""Events as transcript lines: who spoke, which tools were called, what they returned."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from yadk.events import Event

__all__ = ["Line", "event_lines"]

_BRIEF = 160


@dataclass(frozen=True)
class Line:
    """One transcript line; error lines go to stderr."""

    text: str
    error: bool = False


def _json(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, default=str)


def _brief(text: str) -> str:
    text = " ".join(text.split())
    return text if len(text) <= _BRIEF else text[: _BRIEF - 3] + "..."


def _call(name: str, args: dict[str, Any]) -> str:
    return f"{name}({', '.join(f'{k}={_json(v)}' for k, v in args.items())})"


def _result(response: dict[str, Any] | None) -> str:
    if response is not None and set(response) == {"result"}:
        return _brief(_json(response["result"]))
    return _brief(_json(response))


def _node_output(event: Event) -> list[Line]:
    """A workflow node's output: the workflow's own (its terminal node's) as its answer, the
    others as a step."""
    info = event.node_info
    if event.output is None or info is None:
        return []
    value = event.output if isinstance(event.output, str) else _json(event.output)
    if any("/" not in path for path in info.output_for or []):
        return [Line(f"[{event.author}]: {value}")]
    node = info.path.rsplit("/", 1)[-1].rsplit("@", 1)[0]
    return [Line(f"[{event.author}] {node} -> {_brief(value)}")]


def event_lines(event: Event) -> list[Line]:
    """The lines a human transcript shows for ``event`` (none for pure state-change events)."""
    author = event.author
    lines: list[Line] = []
    if event.content is not None:
        text = event.text
        if text:
            lines.append(Line(f"[{author}]: {text}"))
        for part in event.content.parts:
            if part.executable_code is not None:
                code = part.executable_code.code or ""
                lines.append(Line(f"[{author}] ran code: {_brief(code)}"))
            if part.code_execution_result is not None:
                result = part.code_execution_result
                outcome = (result.outcome or "").removeprefix("OUTCOME_").lower() or "done"
                lines.append(Line(f"[{author}] code {outcome} -> {_brief(result.output or '')}"))
            call = part.function_call
            if call is not None and call.name == "adk_request_input":  # a waiting workflow
                lines.append(Line(f"[{author}] asks: {call.args.get('message') or ''}"))
            elif call is not None:
                lines.append(Line(f"[{author}] called {_call(call.name, dict(call.args))}"))
            response = part.function_response
            if response is None:
                continue
            target = event.actions.transfer_to_agent
            if response.name == "transfer_to_agent" and target:
                lines.append(Line(f"[{author}] transferred to {target}"))
            else:
                lines.append(Line(f"[{author}] {response.name} -> {_result(response.response)}"))
    lines.extend(_node_output(event))
    if event.error_code or event.error_message:
        code = event.error_code or "ERROR"
        lines.append(Line(f"[{author}] error {code}: {event.error_message or ''}", error=True))
    return lines
