"""Session history to model contents: what an agent sees of the conversation."""

from __future__ import annotations

import json
from typing import Any

from yadk.events import Event
from yadk.types import Content, Part

__all__ = ["CLIENT_CALL_ID_PREFIX", "build_contents", "event_in_branch"]

# Function-call ids yadk generates; they are removed before contents reach a model.
CLIENT_CALL_ID_PREFIX = "adk-"


def event_in_branch(branch: str | None, event: Event) -> bool:
    """An event is visible on ``branch`` if it was produced on it or on an ancestor branch."""
    if not branch or not event.branch:
        return True
    return branch == event.branch or branch.startswith(event.branch + ".")


def _visible(event: Event) -> bool:
    content = event.content
    if event.partial or content is None or not content.parts:
        return False
    return any(
        (p.text is not None and p.text != "") or p.function_call or p.function_response
        or p.inline_data or p.file_data
        for p in content.parts
    )


def build_contents(
    events: list[Event], *, agent_name: str, branch: str | None, include_contents: str
) -> list[Content]:
    """Contents for a model call by ``agent_name``.

    ``include_contents="none"`` keeps only the current turn: from the latest user message on.
    Other agents' messages are re-voiced as user context, as ADK does.
    """
    selected = [e for e in events if event_in_branch(branch, e) and _visible(e)]
    if include_contents == "none":
        start = 0
        for index in range(len(selected) - 1, -1, -1):
            if selected[index].author == "user" or _is_other_agent(selected[index], agent_name):
                start = index
                break
        selected = selected[start:]
    contents: list[Content] = []
    for event in selected:
        if _is_other_agent(event, agent_name):
            contents.append(_as_context(event))
        else:
            contents.append(_strip_client_ids(event.content))  # type: ignore[arg-type]
    return contents


def _is_other_agent(event: Event, agent_name: str) -> bool:
    return event.author not in (agent_name, "user")


def _strip_client_ids(content: Content) -> Content:
    if not any(
        (p.function_call and (p.function_call.id or "").startswith(CLIENT_CALL_ID_PREFIX))
        or (
            p.function_response
            and (p.function_response.id or "").startswith(CLIENT_CALL_ID_PREFIX)
        )
        for p in content.parts
    ):
        return content
    parts = []
    for part in content.parts:
        if part.function_call and (part.function_call.id or "").startswith(CLIENT_CALL_ID_PREFIX):
            part = part.model_copy(
                update={"function_call": part.function_call.model_copy(update={"id": None})}
            )
        elif part.function_response and (part.function_response.id or "").startswith(
            CLIENT_CALL_ID_PREFIX
        ):
            part = part.model_copy(
                update={
                    "function_response": part.function_response.model_copy(update={"id": None})
                }
            )
        parts.append(part)
    return Content(role=content.role, parts=parts)


def _as_context(event: Event) -> Content:
    """Another agent's event, told to this agent as user-side context."""
    parts: list[Part] = [Part(text="For context:")]
    for part in event.content.parts if event.content else []:
        if part.thought:
            continue
        if part.text:
            parts.append(Part(text=f"[{event.author}] said: {part.text}"))
        elif part.function_call:
            parts.append(
                Part(
                    text=f"[{event.author}] called tool `{part.function_call.name}` with"
                    f" parameters: {_dump(part.function_call.args)}"
                )
            )
        elif part.function_response:
            parts.append(
                Part(
                    text=f"[{event.author}] `{part.function_response.name}` tool returned"
                    f" result: {_dump(part.function_response.response)}"
                )
            )
        else:
            parts.append(part)
    return Content(role="user", parts=parts)


def _dump(value: Any) -> str:
    try:
        return json.dumps(value, ensure_ascii=False, default=str)
    except (TypeError, ValueError):
        return str(value)
