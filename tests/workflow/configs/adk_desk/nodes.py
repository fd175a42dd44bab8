"""Function nodes written against google-adk's names (served by yadk's shim in yadk)."""

from __future__ import annotations

from typing import Any

from google.adk import Event
from google.adk.events import RequestInput
from google.adk.workflow import node


def classify(node_input: str) -> Event:
    text = node_input.lower()
    route = "question" if "?" in text else "refund" if "refund" in text else "other"
    return Event(output=node_input, route=route, state={"category": route})


def note(node_input: str) -> str:
    return "Noted: " + node_input


def check_tone(node_input: str) -> bool:
    return "!" not in node_input


def check_length(node_input: str) -> int:
    return len(node_input.split())


def summarize(node_input: dict[str, Any]) -> str:
    return f"friendly={node_input['check_tone']}, words={node_input['check_length']}"


@node(rerun_on_resume=True)
def approve(node_input: str, ctx: Any):  # type: ignore[no-untyped-def]
    answer = ctx.resume_inputs.get("refund_ok")
    if answer is None:
        yield RequestInput(interrupt_id="refund_ok", message=f"Approve? ({node_input})")
        return
    yield Event(output=answer == "yes", state={"approved": answer})


def confirm(node_input: bool) -> str:
    return "Refund sent." if node_input else "Refund declined."
