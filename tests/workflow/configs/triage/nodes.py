"""The triage workflow's function nodes."""

from __future__ import annotations

from typing import Any

from yadk.events import Event


def classify(node_input: str) -> Event:
    text = node_input.lower()
    route = "question" if "?" in text else "complaint" if "broken" in text else "other"
    return Event(output=node_input, route=route, state={"category": route})


def apologize(node_input: str) -> str:
    return "Sorry about that, we are on it."


def log_other(node_input: str) -> str:
    return "Noted."


def check_tone(node_input: str) -> bool:
    return "sorry" not in node_input.lower()


def check_length(node_input: str) -> int:
    return len(node_input)


def summarize(node_input: dict[str, Any]) -> str:
    return f"tone ok: {node_input['check_tone']}, length: {node_input['check_length']}"
