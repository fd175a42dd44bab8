"""Tools of the web UI tests' agent."""

from yadk.tools import ToolContext


def remember_visitor(name: str, tool_context: ToolContext) -> dict[str, str]:
    """Remember the visitor's name for this session."""
    tool_context.state["visitor"] = name
    tool_context.state["temp:last_tool"] = "remember_visitor"
    return {"status": "remembered", "name": name}
