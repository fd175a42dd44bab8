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
from yadk._telemetry_config import ContentCapturingMode, TelemetryConfig
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
    "ContentCapturingMode",
    "Context",
    "InstructionProvider",
    "InvocationContext",
    "LlmAgent",
    "LoopAgent",
    "ParallelAgent",
    "ReadonlyContext",
    "RunConfig",
    "SequentialAgent",
    "TelemetryConfig",
    "ToolContext",
]

# For yadk's own packages; not part of the public contract (``__all__``). Loaded on first
# use (table below), as the names above are.
if TYPE_CHECKING:
    from yadk.agents._callbacks import as_callback_list as as_callback_list
    from yadk.agents._callbacks import run_callbacks as run_callbacks
    from yadk.agents._event_sink import Sink as Sink
    from yadk.agents._flow import ResumedCall as ResumedCall
    from yadk.agents._flow import run_llm_flow as run_llm_flow
    from yadk.agents._other_agents import as_context as as_context
    from yadk.agents._placeholder_sources import PlaceholderSource as PlaceholderSource
    from yadk.agents._placeholder_sources import (
        attach_placeholder_sources as attach_placeholder_sources,
    )
    from yadk.agents._request import INSTRUCTION_BEGIN as INSTRUCTION_BEGIN
    from yadk.agents._request import INSTRUCTION_END as INSTRUCTION_END
    from yadk.agents._request import build_request as build_request
    from yadk.agents._task import open_task_scope as open_task_scope

__getattr__, __dir__ = lazy_facade(
    globals(),
    {
        "LoopAgent": "yadk.agents._workflow",
        "ParallelAgent": "yadk.agents._parallel",
        "SequentialAgent": "yadk.agents._workflow",
        # for yadk's own packages; not part of the public contract
        "as_callback_list": "yadk.agents._callbacks",
        "run_callbacks": "yadk.agents._callbacks",
        "Sink": "yadk.agents._event_sink",
        "ResumedCall": "yadk.agents._flow",
        "run_llm_flow": "yadk.agents._flow",
        "as_context": "yadk.agents._other_agents",
        "PlaceholderSource": "yadk.agents._placeholder_sources",
        "attach_placeholder_sources": "yadk.agents._placeholder_sources",
        "INSTRUCTION_BEGIN": "yadk.agents._request",
        "INSTRUCTION_END": "yadk.agents._request",
        "build_request": "yadk.agents._request",
        "open_task_scope": "yadk.agents._task",
    },
)
