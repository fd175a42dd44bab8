"""yadk: declarative LLM agents, validated, hot-reloaded, on a small fast engine."""

from __future__ import annotations

from importlib.metadata import PackageNotFoundError, version
from typing import TYPE_CHECKING, Any

from yadk.agents import Agent, LlmAgent, LoopAgent, ParallelAgent, SequentialAgent
from yadk.runner import Runner

if TYPE_CHECKING:
    from yadk.agents import BaseAgent

try:
    __version__ = version("yadk")
except PackageNotFoundError:  # running from a source tree that was never installed
    __version__ = "0+unknown"

__all__ = [
    "Agent",
    "LlmAgent",
    "LoopAgent",
    "ParallelAgent",
    "Runner",
    "SequentialAgent",
    "__version__",
    "load_agent",
]


def load_agent(path: Any) -> BaseAgent:
    """Load an agent from a YAML config file or a folder holding ``root_agent.yaml``."""
    from yadk.config import load_agent as _load

    return _load(path)
