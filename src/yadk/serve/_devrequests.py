"""What each model call of a turn really received, recorded for the web UI's Request panel.

``RequestRecorder.instrument(agent)`` adds two callbacks to every LLM agent of a tree: the last
``before_model_callback`` (so it sees the request after the user's callbacks changed it, and only
when none of them answered instead of the model: exactly what the model receives) and the first
``after_model_callback`` (so it sees the model's own usage figures, before a user callback can
replace the response). Records are kept per session, for the last ``keep`` invocations.
"""

from __future__ import annotations

import json
import time
from collections import OrderedDict
from dataclasses import dataclass, field
from typing import Any

from yadk.agents import INSTRUCTION_BEGIN, INSTRUCTION_END, BaseAgent, LlmAgent, as_callback_list
from yadk.models import LlmRequest, LlmResponse

__all__ = ["RequestRecorder", "instruction_segments"]

SessionKey = tuple[str, str, str]  # app, user, session


@dataclass
class _Invocation:
    invocation_id: str
    started: float
    calls: list[dict[str, Any]] = field(default_factory=list)
    temp_state: dict[str, Any] = field(default_factory=dict)

    def to_dict(self, *, full: bool = True) -> dict[str, Any]:
        """Everything, or (``full=False``) each call without its request: a list of turns
        stays small however long the session's history has grown."""
        calls = self.calls if full else [_summary(c) for c in self.calls]
        return {
            "invocationId": self.invocation_id,
            "started": self.started,
            "calls": calls,
            "tempState": self.temp_state,
        }


def _summary(call: dict[str, Any]) -> dict[str, Any]:
    brief = {k: v for k, v in call.items() if k not in ("request", "systemSegments")}
    brief["model"] = call["request"]["model"]
    brief["contents"] = len(call["request"]["contents"])
    return brief


def instruction_segments(system_instruction: str, static_text: str) -> list[dict[str, str]]:
    """The system instruction cut into ``static`` (the agent's ``static_instruction``, sent
    byte-for-byte on every call) and ``dynamic`` (rebuilt per call: templated instructions,
    identity, what tools add) pieces, in order."""
    if not static_text or static_text not in system_instruction:
        return [{"kind": "dynamic", "text": system_instruction}] if system_instruction else []
    before, _, after = system_instruction.partition(static_text)
    pieces = [("dynamic", before), ("static", static_text), ("dynamic", after)]
    return [{"kind": kind, "text": text} for kind, text in pieces if text]


def _static_text(agent: LlmAgent) -> str:
    value = agent.static_instruction
    if value is None:
        return ""
    if isinstance(value, str):
        return value
    return "\n\n".join(p.text for p in value.parts if p.text)


def _json_safe(value: Any) -> Any:
    try:
        json.dumps(value)
    except (TypeError, ValueError):
        return repr(value)
    return value


class RequestRecorder:
    """Keeps the model requests (and usage) of recent invocations, per session."""

    def __init__(self, *, keep: int = 20, sessions: int = 200) -> None:
        self.keep = keep
        self.max_sessions = sessions
        self._sessions: OrderedDict[SessionKey, OrderedDict[str, _Invocation]] = OrderedDict()
        self._pending: dict[tuple[str, str], dict[str, Any]] = {}

    def instrument(self, root: BaseAgent) -> None:
        """Record every model call of ``root``'s tree (idempotent)."""
        for agent in _llm_agents(root):
            before = as_callback_list(agent.before_model_callback)
            after = as_callback_list(agent.after_model_callback)
            if self._before in before:
                continue
            agent.before_model_callback = [*before, self._before]
            agent.after_model_callback = [self._after, *after]

    def invocations(self, app: str, user: str, session: str) -> list[dict[str, Any]]:
        """The recorded invocations of a session, oldest first, without the requests."""
        found = self._sessions.get((app, user, session))
        return [inv.to_dict(full=False) for inv in found.values()] if found else []

    def invocation(
        self, app: str, user: str, session: str, invocation_id: str
    ) -> dict[str, Any] | None:
        """One recorded invocation with every request, or ``None``."""
        per_session = self._sessions.get((app, user, session))
        found = per_session.get(invocation_id) if per_session is not None else None
        return found.to_dict() if found is not None else None

    def forget(self, app: str, user: str, session: str) -> None:
        self._sessions.pop((app, user, session), None)

    # --- the callbacks --------------------------------------------------------------------

    def _invocation(self, callback_context: Any) -> _Invocation:
        session = callback_context.session
        key = (session.app_name, session.user_id, session.id)
        per_session = self._sessions.get(key)
        if per_session is None:
            per_session = self._sessions[key] = OrderedDict()
            while len(self._sessions) > self.max_sessions:
                self._sessions.popitem(last=False)
        self._sessions.move_to_end(key)
        invocation_id = callback_context.invocation_id
        found = per_session.get(invocation_id)
        if found is None:
            found = per_session[invocation_id] = _Invocation(invocation_id, time.time())
            while len(per_session) > self.keep:
                per_session.popitem(last=False)
        return found

    def _snapshot_temp(self, invocation: _Invocation, callback_context: Any) -> None:
        state = callback_context.state.to_dict()
        invocation.temp_state = {
            k: _json_safe(v) for k, v in state.items() if k.startswith("temp:")
        }

    def _before(self, *, callback_context: Any, llm_request: LlmRequest) -> None:
        invocation = self._invocation(callback_context)
        agent = callback_context.invocation_context.agent
        static = _static_text(agent) if isinstance(agent, LlmAgent) else ""
        request = llm_request.to_dict()
        request["config"] = _json_safe(request["config"])
        call: dict[str, Any] = {
            "index": len(invocation.calls) + 1,
            "agent": llm_request.agent_name,
            "time": time.time(),
            "request": request,
            "systemSegments": instruction_segments(llm_request.system_instruction, static),
            "dynamicContentIndexes": [
                i
                for i, content in enumerate(llm_request.contents)
                if any(
                    p.text and INSTRUCTION_BEGIN in p.text and INSTRUCTION_END in p.text
                    for p in content.parts
                )
            ],
            "usage": None,
        }
        invocation.calls.append(call)
        self._snapshot_temp(invocation, callback_context)
        if len(self._pending) > 1000:  # calls whose model failed never reach _after
            self._pending.clear()
        self._pending[(invocation.invocation_id, llm_request.agent_name)] = call

    def _after(self, *, callback_context: Any, llm_response: LlmResponse) -> None:
        agent_name = callback_context.agent_name
        call = self._pending.pop((callback_context.invocation_id, agent_name), None)
        if call is not None:
            call["usage"] = _json_safe(llm_response.usage_metadata)
            call["durationMs"] = round((time.time() - call["time"]) * 1000, 1)
        self._snapshot_temp(self._invocation(callback_context), callback_context)


def _llm_agents(root: BaseAgent) -> list[LlmAgent]:
    found: list[LlmAgent] = []
    stack = [root]
    while stack:
        agent = stack.pop()
        if isinstance(agent, LlmAgent):
            found.append(agent)
        stack.extend(agent.sub_agents)
    return found
