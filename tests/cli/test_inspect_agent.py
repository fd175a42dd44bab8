"""inspect_agent: the first request, built without a model, with callbacks and clear errors."""

from __future__ import annotations

from typing import Any

import pytest

from yadk import LlmAgent, SequentialAgent
from yadk.agents import Context
from yadk.cli._common import CommandError
from yadk.cli._inspect import inspect_agent
from yadk.cli._request_text import request_text
from yadk.models import FunctionDeclaration, LlmRequest, LlmResponse
from yadk.tools import BaseTool
from yadk.types import Part


class LookupOrder(BaseTool):
    """A tool with a fixed declaration, so these tests do not depend on schema generation."""

    name = "lookup_order"

    def declaration(self) -> FunctionDeclaration:
        return FunctionDeclaration(
            name=self.name,
            description="Look up an order.\n\nMore text the summary leaves out.",
            parameters={
                "type": "object",
                "properties": {
                    "order_id": {"type": "string"},
                    "note": {"type": "string", "default": ""},
                },
                "required": ["order_id"],
            },
        )


lookup_order = LookupOrder()


def agent(**kwargs: Any) -> LlmAgent:
    defaults: dict[str, Any] = {"name": "desk", "model": "gemini-2.5-flash"}
    return LlmAgent(**{**defaults, **kwargs})


async def test_request_as_json_without_resolving_the_model() -> None:
    inspection = await inspect_agent(
        agent(instruction="Help {customer_name}.", tools=[lookup_order]),
        state={"customer_name": "Ada"},
        message="hi",
    )
    assert inspection.notes == []
    assert inspection.request.to_dict() == {
        "agent": "desk",
        "model": "gemini-2.5-flash",
        "system_instruction": ('Help Ada.\n\nYou are an agent. Your internal name is "desk".'),
        "contents": [{"role": "user", "parts": [{"text": "hi"}]}],
        "tools": [
            {
                "name": "lookup_order",
                "description": "Look up an order.\n\nMore text the summary leaves out.",
                "parameters": {
                    "type": "object",
                    "properties": {
                        "order_id": {"type": "string"},
                        "note": {"type": "string", "default": ""},
                    },
                    "required": ["order_id"],
                },
            }
        ],
        "config": {},
    }


async def test_human_text_has_a_section_per_part_of_the_request() -> None:
    inspection = await inspect_agent(
        agent(
            instruction="Help {customer_name}.",
            tools=[lookup_order],
            generate_content_config={"temperature": 0.2},
        ),
        state={"customer_name": "Ada"},
        message="hi",
    )
    assert request_text(inspection.request) == (
        "agent: desk\n"
        "model: gemini-2.5-flash\n"
        "\n"
        "== system instruction ==\n"
        "Help Ada.\n"
        "\n"
        'You are an agent. Your internal name is "desk".\n'
        "\n"
        "== contents (1) ==\n"
        "[user]\n"
        "hi\n"
        "\n"
        "== tools (1) ==\n"
        "lookup_order(order_id: string, note?: string)\n"
        "    Look up an order.\n"
        "\n"
        "== config ==\n"
        "{\n"
        '  "temperature": 0.2\n'
        "}\n"
    )


async def test_empty_sections_say_so() -> None:
    inspection = await inspect_agent(LlmAgent(name="bare"))
    assert request_text(inspection.request) == (
        "agent: bare\n"
        "model: (none)\n"
        "\n"
        "== system instruction ==\n"
        'You are an agent. Your internal name is "bare".\n'
        "\n"
        "== contents (0) ==\n"
        "(none)\n"
        "\n"
        "== tools (0) ==\n"
        "(none)\n"
        "\n"
        "== config ==\n"
        "{}\n"
    )
    assert inspection.notes == [
        (
            "agent 'bare' has no model (set `model:` on it or an ancestor, or pass --model);"
            " the request is shown without one"
        )
    ]


@pytest.mark.parametrize(
    ("instruction", "state", "message"),
    [
        (
            "Help {customer_name}.",
            {},
            (
                "Context variable not found: `customer_name` in agent 'desk'. Give it a value with"
                ' --state \'{"customer_name": "..."}\' (or write `{customer_name?}` in the'
                " instruction to make it optional)."
            ),
        ),
        (
            "Notes: {artifact.notes.txt}",
            {},
            (
                "Artifact 'notes.txt' not found in agent 'desk'. Provide it with"
                " --artifact notes.txt=FILE."
            ),
        ),
    ],
)
async def test_missing_placeholders_suggest_the_option_that_provides_them(
    instruction: str, state: dict[str, Any], message: str
) -> None:
    with pytest.raises(CommandError) as info:
        await inspect_agent(agent(instruction=instruction), state=state)
    assert info.value.message == message
    assert info.value.exit_code == 1


async def test_artifacts_and_temp_state_are_visible_to_the_instruction() -> None:
    inspection = await inspect_agent(
        agent(instruction="{temp:mood} {artifact.notes.txt}"),
        state={"temp:mood": "calm"},
        artifacts={"notes.txt": Part(text="be brief")},
    )
    assert inspection.request.system_instruction.startswith("calm be brief\n\n")


async def test_model_option_names_the_model_of_every_agent() -> None:
    inspection = await inspect_agent(agent(), model="openai:gpt-4o")
    assert inspection.request.model == "openai:gpt-4o"


def before_agent(callback_context: Context) -> None:
    callback_context.state["customer_name"] = "from callback"


def before_model(callback_context: Context, llm_request: LlmRequest) -> LlmResponse | None:
    llm_request.append_instructions(["Added by the guard."])
    if "card" in str(llm_request.contents):
        return LlmResponse()
    return None


async def test_callbacks_before_the_model_shape_the_request() -> None:
    desk = agent(
        instruction="Help {customer_name}.",
        before_agent_callback=before_agent,
        before_model_callback=before_model,
    )
    inspection = await inspect_agent(desk, message="my card is 4111")
    assert inspection.request.system_instruction == (
        'Help from callback.\n\nYou are an agent. Your internal name is "desk".'
        "\n\nAdded by the guard."
    )
    assert inspection.notes == [
        (
            "a before_model_callback of 'desk' answered instead of the model: a real run would"
            " not send this request"
        )
    ]


async def test_no_callbacks_skips_them() -> None:
    desk = agent(instruction="Help {customer_name?}.", before_model_callback=before_model)
    inspection = await inspect_agent(desk, callbacks=False)
    assert "Added by the guard." not in inspection.request.system_instruction


async def test_workflow_root_inspects_its_first_llm_agent_or_the_named_one() -> None:
    root = SequentialAgent(
        name="flow",
        sub_agents=[agent(name="first"), agent(name="second", model="scripted:x.yaml")],
    )
    assert (await inspect_agent(root)).request.agent_name == "first"
    second = (await inspect_agent(root, agent_name="second")).request
    assert (second.agent_name, second.model) == ("second", "scripted:x.yaml")


@pytest.mark.parametrize(
    ("name", "message"),
    [
        ("nobody", "--agent nobody: is not in the agent tree; LlmAgents: first"),
        ("flow", "--agent flow: is not an LlmAgent; LlmAgents: first"),
    ],
)
async def test_agent_option_must_name_an_llm_agent(name: str, message: str) -> None:
    root = SequentialAgent(name="flow", sub_agents=[agent(name="first")])
    with pytest.raises(CommandError) as info:
        await inspect_agent(root, agent_name=name)
    assert (info.value.message, info.value.exit_code) == (message, 2)
