"""google-adk's planners: ``BuiltInPlanner`` (the model's own thinking) is provided."""

from __future__ import annotations

from typing import Any

__all__ = ["BasePlanner", "BuiltInPlanner", "thinking_settings"]


class BasePlanner:
    """google-adk's planner base. yadk runs only ``BuiltInPlanner``: an agent given another
    planner is reported when it is built."""


class BuiltInPlanner(BasePlanner):
    """``BuiltInPlanner(thinking_config=types.ThinkingConfig(...))``: the agent's model requests
    carry ``thinking_config``, as google-adk's planner sets it on every request."""

    def __init__(self, *, thinking_config: Any) -> None:
        self.thinking_config = thinking_config

    def __repr__(self) -> str:
        return f"BuiltInPlanner(thinking_config={self.thinking_config!r})"


def thinking_settings(planner: BuiltInPlanner) -> dict[str, Any]:
    """The ``thinking_config`` mapping the planner puts into the agent's model settings."""
    config = planner.thinking_config
    if hasattr(config, "model_dump"):
        dumped: dict[str, Any] = config.model_dump(exclude_none=True)
        return dumped
    if isinstance(config, dict):
        return dict(config)
    raise TypeError(
        f"BuiltInPlanner(thinking_config=...) takes a types.ThinkingConfig or a mapping, not"
        f" {type(config).__name__}"
    )
