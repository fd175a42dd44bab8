"""Agent definitions: names, models, instructions, tools; mistakes are clear errors."""

from __future__ import annotations

import pytest

from yadk import LlmAgent, SequentialAgent
from yadk.errors import AgentDefinitionError, ModelError
from yadk.models import ScriptedModel


@pytest.mark.parametrize(
    "name, message",
    [
        (
            "my-agent",
            "Found invalid agent name: `my-agent`. Agent name must be a valid identifier.",
        ),
        ("1st", "Found invalid agent name: `1st`."),
        ("", "Found invalid agent name: ``."),
        ("user", "Agent name cannot be `user`. `user` is reserved for end-user's input."),
    ],
)
def test_invalid_names(name: str, message: str) -> None:
    with pytest.raises(AgentDefinitionError) as info:
        LlmAgent(name=name)
    assert message in str(info.value)
    assert isinstance(info.value, ValueError)
    assert "Traceback" not in str(info.value)


def test_unknown_field_is_named() -> None:
    with pytest.raises(AgentDefinitionError, match="instructions: Extra inputs are not permitted"):
        LlmAgent(name="a", instructions="typo")  # type: ignore[call-arg]


def test_model_inherited_from_ancestor() -> None:
    model = ScriptedModel(turns=[])
    child = LlmAgent(name="child")
    pipeline = SequentialAgent(name="pipe", sub_agents=[child])
    root = LlmAgent(name="root", model=model, sub_agents=[pipeline])
    assert child.canonical_model is model
    assert root.canonical_model is model
    assert child.root_agent is root
    assert root.find_agent("child") is child


def test_missing_model_is_clear() -> None:
    with pytest.raises(AgentDefinitionError, match="No model found for agent 'solo'"):
        _ = LlmAgent(name="solo").canonical_model


def test_model_by_name_resolves_through_registry(tmp_path) -> None:
    script = tmp_path / "turns.yaml"
    script.write_text("turns:\n  - text: hi\n")
    agent = LlmAgent(name="a", model=f"scripted:{script}")
    assert isinstance(agent.canonical_model, ScriptedModel)
    with pytest.raises(ModelError, match="No model backend for 'nope-9'"):
        _ = LlmAgent(name="b", model="nope-9").canonical_model


def test_agent_cannot_have_two_parents() -> None:
    child = LlmAgent(name="child")
    LlmAgent(name="p1", sub_agents=[child])
    with pytest.raises(AgentDefinitionError, match="already has parent agent 'p1'"):
        LlmAgent(name="p2", sub_agents=[child])


def test_duplicate_sub_agent_names() -> None:
    with pytest.raises(AgentDefinitionError, match="two sub-agents named 'x'"):
        LlmAgent(name="p", sub_agents=[LlmAgent(name="x"), LlmAgent(name="x")])


@pytest.mark.parametrize(
    "kwargs, message",
    [
        ({"tools": [42]}, "42 is not a tool"),
        ({"before_model_callback": "not callable"}, "is not callable"),
        ({"before_agent_callback": ["not callable"]}, "is not callable"),
        ({"instruction": 3}, "must be a string or an InstructionProvider"),
        ({"include_contents": "some"}, "include_contents"),
        ({"mode": "solo"}, "mode: Input should be 'chat', 'task' or 'single_turn'"),
        (
            {"generate_content_config": {"system_instruction": "x"}},
            "must be set via LlmAgent.instruction",
        ),
    ],
)
def test_bad_fields(kwargs: dict, message: str) -> None:
    with pytest.raises(AgentDefinitionError, match=message):
        LlmAgent(name="a", **kwargs)
