"""A chat agent's ``mode="single_turn"`` sub-agents, called as tools.

What the models are sent and which events come out is compared with google-adk 2.13 in
tests/workflow/scenarios_modes.py (``mode_single_turn_sub_agent*``); these tests cover what
those scenarios do not reach: a run that fails, and events seen before the run ends.
"""

from __future__ import annotations

from typing import Any

from _multi_agent import Conversation, call, requests_of, say

from yadk import LlmAgent
from yadk.models import ScriptedModel


def _boom(callback_context: Any, llm_request: Any) -> None:
    raise RuntimeError("the helper's model is unreachable")


async def test_a_failing_sub_agent_is_answered_as_google_adk_answers_it() -> None:
    scripted = ScriptedModel(
        turns=[call("root", "helper", request="do x"), say("root", "It failed.")]
    )
    helper = LlmAgent(
        name="helper", model=scripted, mode="single_turn", before_model_callback=_boom
    )
    root = LlmAgent(name="root", model=scripted, sub_agents=[helper])

    events = await Conversation(root).send("please do x")

    assert [e.text for e in events if e.text] == ["It failed."]
    second = requests_of(scripted, "root")[1]
    response = second.contents[-1].parts[0].function_response
    assert response is not None
    result = response.response["result"]
    assert result.startswith("Error running sub-agent: before_model_callback ")
    assert result.endswith(" raised RuntimeError: the helper's model is unreachable")


async def test_the_sub_agents_events_come_out_and_are_stored_as_they_happen() -> None:
    def lookup(key: str) -> str:
        """Looks a key up."""
        return f"v-{key}"

    scripted = ScriptedModel(
        turns=[
            call("root", "helper", request="find a"),
            call("helper", "lookup", key="a"),
            say("helper", "Found v-a."),
            say("root", "v-a."),
        ]
    )
    helper = LlmAgent(name="helper", model=scripted, mode="single_turn", tools=[lookup])
    root = LlmAgent(name="root", model=scripted, sub_agents=[helper])
    conversation = Conversation(root)

    seen = []
    events = conversation.events("find a")
    async for event in events:
        seen.append(event)
        if event.author == "helper":  # its call of lookup, before the helper goes on
            break
    await events.aclose()

    assert [r.agent_name for r in scripted.requests] == ["root", "helper"]
    stored = await conversation.stored()
    assert [e.author for e in stored.events] == ["user", "root", "helper"]
