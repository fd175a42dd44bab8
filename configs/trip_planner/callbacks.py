"""Callbacks of the trip planner demo: refuse impossible trips before a tool records them, and
count the trips planned for each user."""

from __future__ import annotations

from typing import Any

from yadk.agents import CallbackContext, ToolContext
from yadk.tools import BaseTool

MAX_DAYS = 14


def check_trip_request(
    tool: BaseTool, args: dict[str, Any], tool_context: ToolContext
) -> dict[str, Any] | None:
    """Before `record_trip` runs: a trip needs 1 to 14 days and a positive budget. Returning a
    dict skips the tool and hands that dict to the model as the tool's result."""
    if tool.name != "record_trip":
        return None
    days, budget = args.get("days", 0), args.get("budget_eur", 0)
    if not isinstance(days, int) or not 1 <= days <= MAX_DAYS:
        return {"error": f"A trip lasts 1 to {MAX_DAYS} days, not {days!r}. Ask the traveller."}
    if not isinstance(budget, (int, float)) or budget <= 0:
        return {"error": f"The budget must be a positive number of euros, not {budget!r}."}
    return None


def count_trip(callback_context: CallbackContext) -> None:
    """After the whole plan: count the trips this user has planned (user-scoped state)."""
    state = callback_context.state
    state["user:trips_planned"] = state.get("user:trips_planned", 0) + 1
