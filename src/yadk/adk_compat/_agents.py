"""google-adk's ``LlmAgent`` / ``Agent``: yadk's ``LlmAgent`` taking google-adk's ``planner``."""

from __future__ import annotations

from typing import Any

from pydantic import field_validator

from yadk.adk_compat._planners import BuiltInPlanner, thinking_settings
from yadk.agents import LlmAgent as _YadkLlmAgent

__all__ = ["LlmAgent"]


class LlmAgent(_YadkLlmAgent):
    """yadk's ``LlmAgent`` (every argument google-adk's takes that yadk runs), plus
    ``planner=BuiltInPlanner(thinking_config=...)``, which becomes the agent's
    ``generate_content_config["thinking_config"]`` (as google-adk sets it on each request)."""

    planner: Any = None

    @field_validator("planner")
    @classmethod
    def _built_in_planner_only(cls, value: Any) -> Any:
        if value is None or isinstance(value, BuiltInPlanner):
            return value
        raise ValueError(
            f"{type(value).__name__} is not supported: yadk provides only"
            " BuiltInPlanner(thinking_config=...) (the model's own thinking)"
        )

    def model_post_init(self, __context: Any) -> None:
        super().model_post_init(__context)
        if self.planner is not None:
            settings = dict(self.generate_content_config or {})
            settings["thinking_config"] = thinking_settings(self.planner)
            self.generate_content_config = settings
