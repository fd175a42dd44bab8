"""Agents: LlmAgent, the workflow agents, and the contexts they hand to user code."""

from yadk._contexts import (
    CallbackContext,
    Context,
    InvocationContext,
    ReadonlyContext,
    RunConfig,
    ToolContext,
)
from yadk.agents._base_agent import BaseAgent
from yadk.agents._llm_agent import LlmAgent
from yadk.agents._parallel import ParallelAgent
from yadk.agents._workflow import LoopAgent, SequentialAgent
from yadk.templating import InstructionProvider

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
