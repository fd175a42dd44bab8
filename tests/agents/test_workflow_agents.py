"""SequentialAgent and LoopAgent: order, the state each stage sees, and how loops end.

Expected requests were captured from google-adk 2.13.0 with the same agent trees.
"""

from __future__ import annotations

from typing import Any

import pytest
from _multi_agent import (
    Conversation,
    authors,
    call,
    contents,
    context,
    model,
    said,
    say,
    user,
)

from yadk import LlmAgent, LoopAgent, SequentialAgent
from yadk.agents import CallbackContext
from yadk.errors import AgentDefinitionError
from yadk.models import ScriptedModel
from yadk.tools import exit_loop


async def test_pipeline_stages_see_earlier_outputs_through_state_as_in_adk() -> None:
    scripted = ScriptedModel(
        [say("writer", "draft v1"), say("reviewer", "review: ok"), say("finisher", "final text")]
    )
    pipeline = SequentialAgent(
        name="pipeline",
        description="The pipe.",
        sub_agents=[
            LlmAgent(
                name="writer",
                description="Writes.",
                instruction="Write about {topic}.",
                model=scripted,
                output_key="draft",
            ),
            LlmAgent(
                name="reviewer", instruction="Review: {draft}", model=scripted, output_key="review"
            ),
            LlmAgent(
                name="finisher",
                instruction="Finish {draft} with {review}",
                model=scripted,
                output_key="final",
                include_contents="none",
            ),
        ],
    )
    chat = Conversation(pipeline, state={"topic": "cats"})
    events = await chat.send("go")

    assert authors(events) == [
        ("writer", None, "draft v1"),
        ("reviewer", None, "review: ok"),
        ("finisher", None, "final text"),
    ]
    assert [e.actions.state_delta for e in events] == [
        {"draft": "draft v1"},
        {"review": "review: ok"},
        {"final": "final text"},
    ]
    writer, reviewer, finisher = scripted.requests
    assert writer.system_instruction == (
        'Write about cats.\n\nYou are an agent. Your internal name is "writer". The description'
        ' about you is "Writes.".'
    )
    assert contents(writer) == [user("go")]
    assert reviewer.system_instruction == (
        'Review: draft v1\n\nYou are an agent. Your internal name is "reviewer".'
    )
    assert contents(reviewer) == [user("go"), context(said("writer", "draft v1"))]
    assert finisher.system_instruction == (
        'Finish draft v1 with review: ok\n\nYou are an agent. Your internal name is "finisher".'
    )
    # include_contents="none": the turn starts at the latest other agent's message.
    assert contents(finisher) == [context(said("reviewer", "review: ok"))]
    assert (await chat.stored()).state == {
        "topic": "cats",
        "draft": "draft v1",
        "review": "review: ok",
        "final": "final text",
    }


async def test_each_of_ten_stages_sees_every_earlier_write() -> None:
    seen: list[dict[str, Any]] = []

    def record(callback_context: CallbackContext) -> None:
        seen.append(callback_context.state.to_dict())

    scripted = ScriptedModel([say(f"stage{i}", f"out{i}") for i in range(10)])
    stages = [
        LlmAgent(
            name=f"stage{i}",
            instruction=f"Previous: {{out{i - 1}}}" if i else "Previous: none",
            model=scripted,
            output_key=f"out{i}",
            before_agent_callback=record,
        )
        for i in range(10)
    ]
    await Conversation(SequentialAgent(name="pipeline", sub_agents=stages)).send("go")
    assert seen == [{f"out{j}": f"out{j}" for j in range(i)} for i in range(10)]
    assert [r.system_instruction.split("\n")[0] for r in scripted.requests] == [
        "Previous: " + (f"out{i - 1}" if i else "none") for i in range(10)
    ]


def writer_and_critic(turns: list[dict[str, Any]], **loop: Any) -> tuple[LoopAgent, ScriptedModel]:
    scripted = ScriptedModel(turns)
    writer = LlmAgent(
        name="writer",
        instruction="Write; critique was {crit?}.",
        model=scripted,
        output_key="draft",
    )
    critic = LlmAgent(
        name="critic",
        instruction="Critique {draft}.",
        model=scripted,
        tools=[exit_loop],
        output_key="crit",
    )
    return LoopAgent(name="loop", sub_agents=[writer, critic], **loop), scripted


async def test_loop_ends_when_exit_loop_escalates_as_in_adk() -> None:
    loop, scripted = writer_and_critic(
        [
            say("writer", "v1"),
            say("critic", "more"),
            say("writer", "v2"),
            call("critic", "exit_loop"),
        ],
        max_iterations=5,
    )
    chat = Conversation(loop)
    events = await chat.send("go")
    assert authors(events) == [
        ("writer", None, "v1"),
        ("critic", None, "more"),
        ("writer", None, "v2"),
        ("critic", None, "exit_loop()"),
        ("critic", None, "exit_loop->{'result': None}"),
    ]
    assert events[-1].actions.escalate is True
    assert events[-1].actions.skip_summarization is True
    w1, _c1, w2, c2 = scripted.requests
    assert w1.system_instruction.startswith("Write; critique was .\n\n")
    assert w2.system_instruction.startswith("Write; critique was more.\n\n")
    assert c2.system_instruction.startswith("Critique v2.\n\n")
    assert contents(w2) == [user("go"), model("v1"), context(said("critic", "more"))]
    assert contents(c2) == [
        user("go"),
        context(said("writer", "v1")),
        model("more"),
        context(said("writer", "v2")),
    ]
    assert (await chat.stored()).state == {"draft": "v2", "crit": "more"}


@pytest.mark.parametrize("max_iterations", [1, 3])
async def test_loop_ends_at_max_iterations(max_iterations: int) -> None:
    turns = []
    for i in range(max_iterations):
        turns += [say("writer", f"v{i}"), say("critic", f"c{i}")]
    loop, scripted = writer_and_critic(turns, max_iterations=max_iterations)
    events = await Conversation(loop).send("go")
    assert [text for _, _, text in authors(events)] == [t["text"] for t in turns]
    assert scripted.remaining == 0


async def test_unbounded_loop_ends_after_the_round_in_which_a_nested_agent_escalates() -> None:
    # As in google-adk: the escalation ends the loop, not the pipeline it came from, so the
    # pipeline's remaining stages still run in that round.
    scripted = ScriptedModel(
        [
            say("worker", "r0"),
            say("judge", "not yet"),
            say("after", "after0"),
            say("worker", "r1"),
            call("judge", "exit_loop"),
            say("after", "after1"),
            say("worker", "never"),
        ]
    )
    round_ = SequentialAgent(
        name="round",
        sub_agents=[
            LlmAgent(name="worker", model=scripted),
            LlmAgent(name="judge", model=scripted, tools=[exit_loop]),
            LlmAgent(name="after", model=scripted),
        ],
    )
    events = await Conversation(LoopAgent(name="loop", sub_agents=[round_])).send("go")
    assert [(a, t) for a, _, t in authors(events)] == [
        ("worker", "r0"),
        ("judge", "not yet"),
        ("after", "after0"),
        ("worker", "r1"),
        ("judge", "exit_loop()"),
        ("judge", "exit_loop->{'result': None}"),
        ("after", "after1"),
    ]
    assert scripted.remaining == 1


def test_max_iterations_below_one_is_a_definition_error() -> None:
    with pytest.raises(AgentDefinitionError, match="max_iterations must be at least 1"):
        LoopAgent(name="loop", max_iterations=0)
