"""Task agents (``mode="task"``): YAML, the order of a delegation among other calls, and where
they are not run.

What the models are sent and which events come out over several turns is compared with
google-adk 2.13 in tests/workflow/scenarios_modes.py (``mode_task_sub_agent*``).
"""

from __future__ import annotations

from pathlib import Path

from _multi_agent import Conversation, authors, call, say
from pydantic import BaseModel

from yadk import LlmAgent
from yadk.config import load_agent
from yadk.models import ScriptedModel
from yadk.workflow import START, Workflow

ROOT_YAML = """\
name: desk
model: scripted:script.yaml
instruction: Help the user.
sub_agents:
  - config_path: booker.yaml
"""
BOOKER_YAML = """\
name: booker
model: scripted:script.yaml
description: Books tables.
instruction: Book a table.
mode: task
"""
SCRIPT_YAML = """\
turns:
  - agent: desk
    function_calls: [{name: booker, args: {request: a table}}]
  - agent: booker
    text: For how many?
  - agent: booker
    function_calls: [{name: finish_task, args: {result: Booked for 2.}}]
  - agent: desk
    text: Booked.
"""


async def test_a_task_sub_agent_loads_from_yaml_and_finishes_over_two_turns(
    tmp_path: Path,
) -> None:
    for name, text in [
        ("root_agent.yaml", ROOT_YAML),
        ("booker.yaml", BOOKER_YAML),
        ("script.yaml", SCRIPT_YAML),
    ]:
        (tmp_path / name).write_text(text)
    desk = load_agent(tmp_path)
    assert isinstance(desk, LlmAgent)
    booker = desk.find_agent("booker")
    assert isinstance(booker, LlmAgent) and booker.mode == "task"

    conversation = Conversation(desk)
    first = await conversation.send("I need a table")
    second = await conversation.send("2")

    assert [e.text for e in first if e.text] == ["For how many?"]
    assert [e.text for e in second if e.text] == ["Booked."]
    finished = [e for e in second if e.output is not None]
    assert [(e.author, e.output) for e in finished] == [("booker", {"result": "Booked for 2."})]


async def test_a_task_agent_as_a_workflow_node_is_refused() -> None:
    scripted = ScriptedModel(turns=[call("booker", "finish_task", result="x")])
    booker = LlmAgent(name="booker", model=scripted, mode="task")
    flow = Workflow(name="flow", edges=[(START, booker)])

    events = await Conversation(flow).send("hi")

    assert [e.error_message for e in events if e.error_code] == [
        "Agent 'booker' has mode='task': yadk runs a task agent as the runner's root agent or"
        " when its parent LlmAgent delegates a task to it (its parent's model calls it as a"
        " tool). As a workflow node or another kind of agent's sub-agent it is not supported"
        " yet: give it mode='chat' or 'single_turn' there."
    ]
    assert scripted.requests == []


class Booked(BaseModel):
    table: int


async def test_the_parents_other_calls_are_answered_before_the_task_runs() -> None:
    def lookup(key: str) -> str:
        """Looks a key up."""
        return f"v-{key}"

    scripted = ScriptedModel(
        turns=[
            {
                "agent": "desk",
                "function_calls": [
                    {"name": "booker", "args": {"request": "a table"}},
                    {"name": "lookup", "args": {"key": "a"}},
                ],
            },
            call("booker", "finish_task", table=7),
            say("desk", "Table 7."),
        ]
    )
    booker = LlmAgent(name="booker", model=scripted, mode="task", output_schema=Booked)
    desk = LlmAgent(name="desk", model=scripted, tools=[lookup], sub_agents=[booker])

    # The function response authored by the user is kept; the user's own message is not.
    events = [e async for e in Conversation(desk).events("a table please")][1:]

    assert authors(events) == [
        ("desk", None, "booker(request='a table') lookup(key='a')"),
        ("desk", None, "lookup->{'result': 'v-a'}"),
        ("booker", f"booker@{events[0].get_function_calls()[0].id}", "finish_task(table=7)"),
        (
            "booker",
            f"booker@{events[0].get_function_calls()[0].id}",
            "finish_task->{'result': 'Task completed.'}",
        ),
        ("user", None, "booker->{'table': 7}"),
        ("desk", None, "Table 7."),
    ]
    # Its output is finish_task's arguments: its model gets no response schema.
    (task_request,) = [r for r in scripted.requests if r.agent_name == "booker"]
    assert task_request.output_schema is None
    assert "response_schema" not in task_request.config
