"""Tools of the research desk demo: notes looked up from a small in-module library."""

from __future__ import annotations

from typing import Any

from yadk.tools import ToolContext

NOTES: dict[str, list[str]] = {
    "home solar batteries": [
        "Typical home batteries store 5 to 15 kWh.",
        "Lithium iron phosphate cells keep about 70% of their capacity after 6000 cycles.",
        "Installed prices run from 600 to 1000 EUR per kWh.",
        "Most warranties cover 10 years.",
    ],
}


def search_notes(topic: str, tool_context: ToolContext) -> dict[str, Any]:
    """Look up research notes about a topic; records the topic in session state."""
    key = topic.strip().lower()
    tool_context.state["topic"] = key
    notes = NOTES.get(key)
    if notes is None:
        return {"topic": key, "notes": [], "message": f"No notes about {topic!r} yet."}
    return {"topic": key, "notes": notes}
