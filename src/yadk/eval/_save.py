"""Turning a conversation (a session's events) into an eval case, and adding it to an eval set file.

The case is written in google-adk's EvalSet format: one invocation per user turn, its tool calls
as ``intermediate_data.tool_uses``, its last final response as ``final_response``, and the state
the session started from as ``session_input.state``. A good session becomes a regression test.
"""

from __future__ import annotations

import json
import os
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from yadk._files import FileProblem, read_json
from yadk.eval._inference import invocation_from_events
from yadk.events import Event
from yadk.sessions import Session

__all__ = [
    "EVALSET_SUFFIX",
    "add_eval_case",
    "eval_case_from_events",
    "eval_case_from_session",
    "new_eval_set",
]

EVALSET_SUFFIX = ".evalset.json"


def eval_case_from_events(
    events: Sequence[Event],
    *,
    eval_id: str,
    app_name: str,
    user_id: str,
    state: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """An EvalSet-format eval case replaying the user turns of ``events``."""
    turns: dict[str, list[Event]] = {}
    for event in events:
        if not event.partial:
            turns.setdefault(event.invocation_id, []).append(event)
    conversation = []
    for invocation_id, turn in turns.items():
        user = next((e for e in turn if e.author == "user" and e.content is not None), None)
        if user is None or user.content is None:
            continue
        invocation = invocation_from_events(turn, user.content)
        responses = [
            response.to_dict()
            for event in turn
            if event.author != "user"
            for response in event.get_function_responses()
        ]
        conversation.append(
            {
                "invocation_id": invocation_id,
                "user_content": user.content.to_dict(),
                "final_response": None
                if invocation.final_response is None
                else invocation.final_response.to_dict(),
                "intermediate_data": {
                    "tool_uses": [
                        {"name": call.name, "args": call.args} for call in invocation.tool_uses
                    ],
                    "tool_responses": responses,
                    "intermediate_responses": [],
                },
            }
        )
    return {
        "eval_id": eval_id,
        "conversation": conversation,
        "session_input": {"app_name": app_name, "user_id": user_id, "state": dict(state or {})},
    }


def eval_case_from_session(session: Session, *, eval_id: str) -> dict[str, Any]:
    """An eval case replaying ``session``'s user turns from the state it started with."""
    return eval_case_from_events(
        session.events,
        eval_id=eval_id,
        app_name=session.app_name,
        user_id=session.user_id,
        state=_state_before_first_turn(session),
    )


def _state_before_first_turn(session: Session) -> dict[str, Any]:
    """The keys no event wrote (they were there from the start), then the deltas of the events
    before the first user message (a state edit made before the conversation began)."""
    written = {key for event in session.events for key in event.actions.state_delta}
    state = {k: v for k, v in session.state.items() if k not in written}
    for event in session.events:
        if event.author == "user" and event.content is not None:
            break
        state.update(event.actions.state_delta)
    return state


def new_eval_set(name: str, cases: Sequence[dict[str, Any]] = ()) -> dict[str, Any]:
    """An EvalSet document called ``name`` holding ``cases``."""
    return {"eval_set_id": name, "name": name, "eval_cases": list(cases)}


def add_eval_case(path: str | os.PathLike[str], case: dict[str, Any]) -> str:
    """Append ``case`` to the EvalSet file ``path`` (created if missing) under a fresh
    ``case_N`` id; returns that id. Raises ``ValueError`` if the file is not an EvalSet."""
    file = Path(path)
    if os.path.lexists(file):
        try:
            data = read_json(file, kind="evalset")
        except FileProblem as problem:
            raise ValueError(f"{file} is not a readable eval set ({problem.message})") from None
        if not isinstance(data, dict) or not isinstance(data.get("eval_cases"), list):
            raise ValueError(f"{file} is not an EvalSet file (an object with an `eval_cases` list)")
    else:
        name = file.name.removesuffix(EVALSET_SUFFIX).removesuffix(".json")
        data = new_eval_set(name)
    taken = {c.get("eval_id") for c in data["eval_cases"] if isinstance(c, dict)}
    number = len(data["eval_cases"]) + 1
    while f"case_{number}" in taken:
        number += 1
    eval_id = f"case_{number}"
    data["eval_cases"].append({**case, "eval_id": eval_id})
    file.write_text(json.dumps(data, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    return eval_id
