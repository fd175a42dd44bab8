"""The triage workflow's function nodes: each receives the previous node's output as
``node_input``; state values arrive as parameters of the same name."""

from __future__ import annotations

from typing import Any, Literal

from yadk.events import Event
from yadk.workflow import RequestInput, node


def classify(node_input: str) -> Event:
    """Route the message: a question, a refund request, or anything else."""
    text = node_input.lower()
    route: Literal["question", "refund", "other"] = (
        "question" if "?" in text else "refund" if "refund" in text else "other"
    )
    return Event(output=node_input, route=route, state={"category": route})


def check_tone(node_input: str) -> bool:
    return not any(word in node_input.lower() for word in ("unfortunately", "can't"))


def check_length(node_input: str) -> int:
    return len(node_input.split())


def summarize(node_input: dict[str, Any]) -> str:
    return (
        f"answer checked: friendly={node_input['check_tone']}, words={node_input['check_length']}"
    )


@node(rerun_on_resume=True)
def approve_refund(node_input: str, ctx: Any) -> Any:
    """Ask a human; the workflow waits (across restarts) until the next message answers."""
    answer = ctx.resume_inputs.get("refund_approval")
    if answer is None:
        yield RequestInput(
            interrupt_id="refund_approval", message=f"Approve this refund? ({node_input})"
        )
        return
    yield Event(
        output=str(answer).strip().lower() in ("yes", "y", "ok"), state={"refund_answer": answer}
    )


def confirm_refund(node_input: bool) -> str:
    return "Refund approved and on its way." if node_input else "Refund declined."


def log_other(node_input: str) -> str:
    return "Noted; a person will read your message."
