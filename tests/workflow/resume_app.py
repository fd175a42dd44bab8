"""A workflow that waits for the user, for the resume tests (imported by a subprocess too)."""

from __future__ import annotations

from typing import Any

from yadk.events import Event
from yadk.workflow import START, RequestInput, Workflow, node


def draft(node_input: str) -> str:
    return "draft of " + node_input


@node(rerun_on_resume=True)
def approve(node_input: str, ctx: Any) -> Any:
    answer = ctx.resume_inputs.get("approval")
    if answer is None:
        yield RequestInput(interrupt_id="approval", message=f"Approve {node_input}?")
        return
    yield Event(output=f"{node_input} -> {answer}", state={"approved": answer})


def ask_name(node_input: Any) -> Any:
    yield RequestInput(message="Your name?")


def publish(node_input: str) -> str:
    return "published " + node_input


def build() -> Workflow:
    return Workflow(name="review", edges=[(START, draft, approve, ask_name, publish)])
