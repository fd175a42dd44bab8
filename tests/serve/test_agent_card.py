"""Agent cards: skill examples from static example lists, the A2A card shape, workflows."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from yadk.agents import LlmAgent, LoopAgent, SequentialAgent
from yadk.examples import BaseExampleProvider, Example
from yadk.examples._tool import ExampleTool
from yadk.serve import build_agent_card
from yadk.serve._card import agent_card_examples
from yadk.tools import FunctionTool
from yadk.types import ModelContent, Part, UserContent


class Provider(BaseExampleProvider):
    def get_examples(self, query: str) -> list[Example]:
        return []


def check_order_status(order_id: str) -> dict[str, str]:
    """Look up where an order is."""
    return {"status": "shipped"}


STATIC = ExampleTool(
    [
        Example(input=UserContent("Where is order 4417?"), output=[ModelContent("Shipped.")]),
        Example(input=UserContent(["Refund", "order 12"]), output=[]),
        Example(input=UserContent(Part.from_bytes(data=b"x", mime_type="image/png")), output=[]),
    ]
)


def test_examples_come_from_static_lists_only() -> None:
    more = ExampleTool([Example(input=UserContent("Is 7 prime?"), output=[ModelContent("Yes.")])])
    tools = [check_order_status, ExampleTool(Provider()), STATIC, more]
    assert agent_card_examples(tools) == [
        "Where is order 4417?",
        "Refund\norder 12",
        "Is 7 prime?",
    ]
    assert agent_card_examples([ExampleTool(Provider())]) == []


def test_llm_agent_card() -> None:
    agent = LlmAgent(
        name="support_agent",
        description="Answers order questions.",
        instruction="secret instructions are never published",
        tools=[check_order_status, STATIC, ExampleTool(Provider())],
    )
    card = build_agent_card(agent)
    assert card == {
        "capabilities": {"streaming": True},
        "defaultInputModes": ["text/plain"],
        "defaultOutputModes": ["text/plain"],
        "description": "Answers order questions.",
        "name": "support_agent",
        "preferredTransport": "JSONRPC",
        "protocolVersion": "0.3.0",
        "skills": [
            {
                "description": "Answers order questions.",
                "examples": ["Where is order 4417?", "Refund\norder 12"],
                "id": "support_agent",
                "name": "model",
                "tags": ["llm"],
            },
            {
                "description": "Look up where an order is.",
                "id": "support_agent-check_order_status",
                "name": "check_order_status",
                "tags": ["llm", "tools"],
            },
        ],
        "supportsAuthenticatedExtendedCard": False,
        "url": "http://localhost:80/a2a",
        "version": "0.0.1",
    }
    assert "secret" not in json.dumps(card)


def test_defaults_options_and_output_modes() -> None:
    agent = LlmAgent(
        name="a",
        tools=[FunctionTool(check_order_status, name="lookup", description="")],
        generate_content_config={"response_modalities": ["AUDIO"]},
    )
    card = build_agent_card(
        agent, rpc_url="https://x.example/a2a/", version="1.2.0", streaming=False
    )
    assert (card["description"], card["url"], card["version"], card["capabilities"]) == (
        "An ADK Agent",
        "https://x.example/a2a",
        "1.2.0",
        {"streaming": False},
    )
    assert card["skills"] == [
        {
            "description": "An LLM-based agent",
            "examples": [],
            "id": "a",
            "name": "model",
            "outputModes": ["AUDIO"],
            "tags": ["llm"],
        },
        {"description": "", "id": "a-lookup", "name": "lookup", "tags": ["llm", "tools"]},
    ]


def test_tools_of_overrides_tool_listing() -> None:
    agent = LlmAgent(name="a", tools=[check_order_status])
    card = build_agent_card(agent, tools_of=lambda a: [STATIC])
    assert [s["name"] for s in card["skills"]] == ["model"]
    assert card["skills"][0]["examples"] == ["Where is order 4417?", "Refund\norder 12"]


def test_sequential_agent_card_with_sub_agent_skills() -> None:
    first = LlmAgent(name="fetch", description="fetch the data", tools=[STATIC])
    second = LlmAgent(name="report")
    root = SequentialAgent(name="pipeline", sub_agents=[first, second])
    skills = build_agent_card(root)["skills"]
    assert skills == [
        {
            "description": "First, this agent will fetch the data Finally, this agent will "
            "execute the report agent.",
            "examples": [],
            "id": "pipeline",
            "name": "workflow",
            "tags": ["sequential_workflow"],
        },
        {
            "description": "Orchestrates: fetch: fetch the data; report: No description",
            "id": "pipeline-sub-agents",
            "name": "sub-agents",
            "tags": ["sequential_workflow", "orchestration"],
        },
        {
            "description": "fetch the data",
            "examples": ["Where is order 4417?", "Refund\norder 12"],
            "id": "fetch_fetch",
            "name": "fetch: model",
            "tags": ["sub_agent:fetch", "llm"],
        },
        {
            "description": "An LLM-based agent",
            "examples": [],
            "id": "report_report",
            "name": "report: model",
            "tags": ["sub_agent:report", "llm"],
        },
    ]


def test_loop_agent_description() -> None:
    loop = LoopAgent(
        name="loop",
        description="Refines a draft.",
        max_iterations=3,
        sub_agents=[
            LlmAgent(name="w", description="write"),
            LlmAgent(name="c", description="critique"),
            LlmAgent(name="r", description="revise"),
        ],
    )
    assert build_agent_card(loop)["skills"][0]["description"] == (
        "Refines a draft. This agent will write , critique and revise in a loop (max 3 iterations)."
    )
    assert build_agent_card(LoopAgent(name="l"))["skills"][0]["description"] == (
        "A loop workflow agent"
    )


@dataclass
class ParallelAgent:
    """Duck-typed stand-in: agents are recognised by class name."""

    name: str
    description: str = ""
    sub_agents: list[Any] = field(default_factory=list)


@dataclass
class Custom:
    name: str
    description: str = ""


def test_parallel_and_custom_agents() -> None:
    parallel = ParallelAgent(
        name="fan", sub_agents=[LlmAgent(name="a", description="search"), Custom(name="b")]
    )
    skills = build_agent_card(parallel)["skills"]
    assert skills[0] == {
        "description": "This agent will search and execute the b agent simultaneously.",
        "examples": [],
        "id": "fan",
        "name": "workflow",
        "tags": ["parallel_workflow"],
    }
    assert skills[-1] == {
        "description": "A custom agent",
        "examples": [],
        "id": "b_b",
        "name": "b: custom",
        "tags": ["sub_agent:b", "custom_agent"],
    }
