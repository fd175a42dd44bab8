"""``get_user_choice``: the model offers options; the user's pick comes back as the call's response."""

from __future__ import annotations

from yadk._contexts import ToolContext
from yadk.tools._long_running import LongRunningFunctionTool

__all__ = ["get_user_choice"]


def _get_user_choice(options: list[str], tool_context: ToolContext) -> str | None:
    """Provides the options to the user and asks them to choose one."""
    tool_context.actions.skip_summarization = True
    return None


_get_user_choice.__name__ = "get_user_choice"

get_user_choice = LongRunningFunctionTool(_get_user_choice)
