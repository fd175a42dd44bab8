"""yadk: declarative LLM agents, validated, hot-reloaded, on a small fast engine.

The names here load on first use (PEP 562): ``import yadk`` alone costs nothing, so commands
that never touch the engine (``yadk validate``, ``yadk schema``, ``yadk --help``) start fast.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from yadk.agents import Agent, BaseAgent, LlmAgent, LoopAgent, ParallelAgent, SequentialAgent
    from yadk.runner import Runner

    __version__: str

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

_LAZY = {
    "Agent": "yadk.agents",
    "LlmAgent": "yadk.agents",
    "LoopAgent": "yadk.agents",
    "ParallelAgent": "yadk.agents",
    "SequentialAgent": "yadk.agents",
    "Runner": "yadk.runner",
}


def _version() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("yadk")
    except PackageNotFoundError:  # running from a source tree that was never installed
        return "0+unknown"


def __getattr__(name: str) -> Any:
    if name == "__version__":
        value: Any = _version()
    elif name in _LAZY:
        value = getattr(importlib.import_module(_LAZY[name]), name)
    else:
        raise AttributeError(f"module 'yadk' has no attribute {name!r}")
    globals()[name] = value  # later lookups skip __getattr__
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *__all__})


def load_agent(path: Any) -> BaseAgent:
    """Load an agent from a YAML config file or a folder holding ``root_agent.yaml``."""
    from yadk.config import load_agent as _load

    return _load(path)
