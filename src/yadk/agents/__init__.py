"""Agents: LlmAgent, the workflow agents, and the contexts they hand to user code.

The workflow agents load on first use (PEP 562): a tree of LlmAgents (``yadk inspect`` of one
agent) does not build their models.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from yadk._contexts import (
    CallbackContext,
    Context,
    InvocationContext,
    ReadonlyContext,
    RunConfig,
    ToolContext,
)
from yadk._lazy import lazy_facade
from yadk.agents._base_agent import BaseAgent
from yadk.agents._llm_agent import LlmAgent
from yadk.templating import InstructionProvider

if TYPE_CHECKING:
    from yadk.agents._parallel import ParallelAgent
    from yadk.agents._workflow import LoopAgent, SequentialAgent

Agent = LlmAgent

__all__ = [
    "Agent",
    "BaseAgent",
    "CallbackContext",
    "Context",
    "InstructionProvider",
    "InvocationContext",
    "LlmAgent",
    "LoopAgent",
    "ParallelAgent",
    "ReadonlyContext",
    "RunConfig",
    "SequentialAgent",
    "ToolContext",
]

__getattr__, __dir__ = lazy_facade(
    globals(),
    {
        "LoopAgent": "yadk.agents._workflow",
        "ParallelAgent": "yadk.agents._parallel",
        "SequentialAgent": "yadk.agents._workflow",
    },
)
