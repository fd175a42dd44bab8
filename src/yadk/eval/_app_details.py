"""Recording what each agent's model was given in a turn, for judge models to see.

google-adk shows its judges the system instruction and tool declarations of the agents that
answered (its ``AppDetails``); yadk records them the same way, from the model requests
themselves, with a ``before_model_callback`` added last to every LLM agent of the tree (so it
sees the request after the user's callbacks changed it). Only evals with a judge model record.
"""

from __future__ import annotations

from typing import Any

from yadk.agents import BaseAgent, LlmAgent, as_callback_list
from yadk.eval._model import AgentDetails
from yadk.models import LlmRequest
from yadk.tools import AgentTool

__all__ = ["AppDetailsRecorder"]


class AppDetailsRecorder:
    """Keeps, per invocation id, each agent's first model request of that invocation."""

    def __init__(self) -> None:
        self._by_invocation: dict[str, dict[str, AgentDetails]] = {}

    def instrument(self, root: BaseAgent) -> None:
        """Record the model requests of every LLM agent under ``root`` (idempotent)."""
        pending = [root]
        while pending:
            for agent in pending.pop().walk():
                if not isinstance(agent, LlmAgent):
                    continue
                callbacks = as_callback_list(agent.before_model_callback)
                if self._before not in callbacks:
                    agent.before_model_callback = [*callbacks, self._before]
                pending.extend(t.agent for t in agent.tools if isinstance(t, AgentTool))

    def take(self, invocation_id: str) -> dict[str, AgentDetails] | None:
        """The agents recorded for ``invocation_id`` (forgotten afterwards)."""
        return self._by_invocation.pop(invocation_id, None)

    def _before(self, *, callback_context: Any, llm_request: LlmRequest) -> None:
        agents = self._by_invocation.setdefault(callback_context.invocation_id, {})
        name = llm_request.agent_name or callback_context.agent_name
        if name not in agents:
            agents[name] = AgentDetails(
                name,
                llm_request.system_instruction,
                [d.to_dict() for d in llm_request.function_declarations],
            )
