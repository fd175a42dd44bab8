"""yadk: declarative LLM agents, validated, hot-reloaded, on a small fast engine.

The names here load on first use (PEP 562): ``import yadk`` alone costs nothing, so commands
that never touch the engine (``yadk validate``, ``yadk schema``, ``yadk --help``) start fast.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from yadk._lazy import lazy_facade

if TYPE_CHECKING:
    from yadk.agents import Agent, BaseAgent, LlmAgent, LoopAgent, ParallelAgent, SequentialAgent
    from yadk.apps import App
    from yadk.runner import Runner
    from yadk.workflow import Workflow

    __version__: str

__all__ = [
    "Agent",
    "App",
    "LlmAgent",
    "LoopAgent",
    "ParallelAgent",
    "Runner",
    "SequentialAgent",
    "Workflow",
    "__version__",
    "load_agent",
]

__getattr__, __dir__ = lazy_facade(
    globals(),
    {
        "Agent": "yadk.agents",
        "App": "yadk.apps",
        "LlmAgent": "yadk.agents",
        "LoopAgent": "yadk.agents",
        "ParallelAgent": "yadk.agents",
        "SequentialAgent": "yadk.agents",
        "Runner": "yadk.runner",
        "Workflow": "yadk.workflow",
        "__version__": "yadk._version",
    },
)


def load_agent(path: Any) -> BaseAgent:
    """Load an agent from a YAML config file or a folder holding ``root_agent.yaml``."""
    from yadk.config import load_agent as _load

    return _load(path)
