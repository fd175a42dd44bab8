"""A2A-style agent cards: what an agent does and which inputs it accepts, as a JSON-ready dict.

The shape is the one google-adk's ``AgentCardBuilder`` produces with a2a-sdk 0.3 (camelCase keys,
``None`` fields left out, keys sorted as that SDK's generated models order them). An LLM agent
gets a ``model`` skill whose ``examples`` are the inputs of its static few-shot examples, then one
skill per tool; workflow agents get a ``workflow`` skill and an orchestration skill; sub-agents'
skills follow, prefixed with the sub-agent's name.

Agents are read by duck typing (``name``, ``description``, ``tools``, ``sub_agents``,
``max_iterations``, ``generate_content_config``), so this module does not import the agents
package, which sits above it.
"""

from __future__ import annotations

import inspect
import logging
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import Any

from yadk._files import FileProblem, read_json
from yadk.examples import ExampleTool
from yadk.tools import BaseTool

__all__ = [
    "CARD_FILE",
    "CARD_VERSION",
    "DEFAULT_RPC_URL",
    "CardFileError",
    "agent_card_examples",
    "build_agent_card",
    "read_card_file",
    "served_card",
]

logger = logging.getLogger("yadk.serve.card")

DEFAULT_RPC_URL = "http://localhost:80/a2a"
CARD_VERSION = "0.0.1"  # the agent's version in a card, as google-adk's builder defaults it
CARD_FILE = "agent.json"  # in an app folder: the card published instead of the built one

_WORKFLOWS = {
    "SequentialAgent": "sequential_workflow",
    "ParallelAgent": "parallel_workflow",
    "LoopAgent": "loop_workflow",
}
_DEFAULT_DESCRIPTIONS = {
    "llm": "An LLM-based agent",
    "sequential_workflow": "A sequential workflow agent",
    "parallel_workflow": "A parallel workflow agent",
    "loop_workflow": "A loop workflow agent",
    "custom_agent": "A custom agent",
}


def agent_card_examples(tools: Iterable[Any]) -> list[str]:
    """The input texts of every static example list among ``tools`` (a card's skill examples).

    Each example contributes the text parts of its input joined by newlines (examples whose input
    has no text are left out). ``ExampleTool``\\ s backed by a provider are skipped: without a
    query there is nothing to ask them. Unlike ADK, which publishes only the first
    ``ExampleTool``'s list, every static list is included, in tool order.
    """
    texts: list[str] = []
    for tool in tools:
        if not isinstance(tool, ExampleTool):
            continue
        examples = tool.static_examples
        if examples is None:
            logger.debug("Skipping %r when building an agent card: providers need a query", tool)
            continue
        for example in examples:
            parts = [p.text for p in example.input.parts if p.text is not None]
            if parts:
                texts.append("\n".join(parts))
    return texts


def build_agent_card(
    agent: Any,
    *,
    rpc_url: str = DEFAULT_RPC_URL,
    version: str = "0.0.1",
    streaming: bool = True,
    tools_of: Callable[[Any], Sequence[Any]] | None = None,
) -> dict[str, Any]:
    """The A2A agent card of ``agent`` (and its sub-agents) as a JSON-ready dict.

    ``tools_of(agent)`` returns an LLM agent's tools; the default reads ``agent.tools``. Pass a
    function that expands toolsets to list their tools too (entries that are neither tools nor
    plain functions are skipped).
    """
    read_tools = tools_of or _default_tools
    skills = _primary_skills(agent, read_tools) + _sub_agent_skills(agent, read_tools)
    return {
        "capabilities": {"streaming": streaming},
        "defaultInputModes": ["text/plain"],
        "defaultOutputModes": ["text/plain"],
        "description": getattr(agent, "description", "") or "An ADK Agent",
        "name": agent.name,
        "preferredTransport": "JSONRPC",
        "protocolVersion": "0.3.0",
        "skills": skills,
        "supportsAuthenticatedExtendedCard": False,
        "url": rpc_url.rstrip("/"),
        "version": version,
    }


def served_card(agent: Any, url: str, *, version: str) -> dict[str, Any]:
    """The card an agent served at ``url`` publishes (``yadk serve``, ``yadk card``): the
    0.3 fields (``url``, ``preferredTransport``, ``protocolVersion``) for 0.3 clients and
    ``supportedInterfaces`` for 1.0 clients, both naming the one JSON-RPC endpoint."""
    url = url.rstrip("/")
    card = build_agent_card(agent, rpc_url=url, version=version)
    card["capabilities"] = {
        "streaming": True,
        "pushNotifications": False,
        "extendedAgentCard": False,
    }
    card["supportedInterfaces"] = [
        {"url": url, "protocolBinding": "JSONRPC", "protocolVersion": "1.0"},
        {"url": url, "protocolBinding": "JSONRPC", "protocolVersion": "0.3"},
    ]
    return card


class CardFileError(ValueError):
    """An ``agent.json`` that cannot be published (the message names the file and place)."""


def read_card_file(file: Path) -> dict[str, Any]:
    """The card an app folder's ``agent.json`` holds, read as every file a config names is
    (inside the folder, symlinks resolved; a regular UTF-8 file of at most 1 MiB)."""
    try:
        card = read_json(file, kind="agent_card", root=file.parent)
    except FileProblem as exc:
        where = f"{file}:{exc.line}:{exc.column}" if exc.line else str(file)
        reason = exc.reason if exc.line else exc.message
        raise CardFileError(
            f"{where}: the agent card cannot be published: {reason}. Fix the file, or remove it"
            " to publish the card built from the agent."
        ) from None
    if not isinstance(card, dict):
        raise CardFileError(f"{file}:1:1: the agent card must be a JSON object")
    return card


def _skill(
    *,
    id: str,
    name: str,
    description: str,
    tags: list[str],
    examples: list[str] | None = None,
    output_modes: list[str] | None = None,
) -> dict[str, Any]:
    skill: dict[str, Any] = {"description": description}
    if examples is not None:
        skill["examples"] = examples
    skill["id"] = id
    skill["name"] = name
    if output_modes is not None:
        skill["outputModes"] = output_modes
    skill["tags"] = tags
    return skill


def _kind(agent: Any) -> str:
    names = {cls.__name__ for cls in type(agent).__mro__}
    if "LlmAgent" in names:
        return "llm"
    for class_name, kind in _WORKFLOWS.items():
        if class_name in names:
            return kind
    return "llm" if hasattr(agent, "tools") else "custom_agent"


def _default_tools(agent: Any) -> Sequence[Any]:
    return list(getattr(agent, "tools", None) or [])


def _sub_agents(agent: Any) -> list[Any]:
    return list(getattr(agent, "sub_agents", None) or [])


def _primary_skills(agent: Any, tools_of: Callable[[Any], Sequence[Any]]) -> list[dict[str, Any]]:
    kind = _kind(agent)
    description = _description(agent, kind)
    if kind == "llm":
        tools = list(tools_of(agent))
        skills = [
            _skill(
                id=agent.name,
                name="model",
                description=description,
                examples=agent_card_examples(tools),
                output_modes=_output_modes(agent),
                tags=["llm"],
            )
        ]
        skills.extend(_tool_skills(agent.name, tools))
        return skills
    skills = [
        _skill(
            id=agent.name,
            name="custom" if kind == "custom_agent" else "workflow",
            description=description,
            examples=[],
            tags=[kind],
        )
    ]
    children = _sub_agents(agent)
    if children:
        skills.append(
            _skill(
                id=f"{agent.name}-sub-agents",
                name="sub-agents",
                description="Orchestrates: "
                + "; ".join(f"{c.name}: {c.description or 'No description'}" for c in children),
                tags=[kind, "orchestration"],
            )
        )
    return skills


def _sub_agent_skills(agent: Any, tools_of: Callable[[Any], Sequence[Any]]) -> list[dict[str, Any]]:
    skills: list[dict[str, Any]] = []
    for child in _sub_agents(agent):
        for skill in _primary_skills(child, tools_of):
            prefixed = dict(skill)
            prefixed["id"] = f"{child.name}_{skill['id']}"
            prefixed["name"] = f"{child.name}: {skill['name']}"
            prefixed["tags"] = [f"sub_agent:{child.name}", *skill["tags"]]
            skills.append(prefixed)
    return skills


def _tool_skills(agent_name: str, tools: Sequence[Any]) -> list[dict[str, Any]]:
    skills = []
    for tool in tools:
        if isinstance(tool, ExampleTool):
            continue
        if isinstance(tool, BaseTool):
            name = tool.name or type(tool).__name__
            description = tool.description
        elif callable(tool) and hasattr(tool, "__name__"):
            name = tool.__name__
            description = inspect.cleandoc(tool.__doc__ or "")
        else:
            continue
        skills.append(
            _skill(
                id=f"{agent_name}-{name}", name=name, description=description, tags=["llm", "tools"]
            )
        )
    return skills


def _description(agent: Any, kind: str) -> str:
    parts = [agent.description] if getattr(agent, "description", "") else []
    if kind != "llm":
        workflow = _workflow_description(agent, kind)
        if workflow:
            parts.append(workflow)
    return " ".join(parts) if parts else _DEFAULT_DESCRIPTIONS[kind]


def _workflow_description(agent: Any, kind: str) -> str | None:
    children = _sub_agents(agent)
    if not children or kind == "custom_agent":
        return None
    what = [c.description or f"execute the {c.name} agent" for c in children]
    if kind == "sequential_workflow":
        steps = []
        for i, text in enumerate(what, start=1):
            if i == 1:
                steps.append(f"First, this agent will {text}")
            elif i == len(what):
                steps.append(f"Finally, this agent will {text}")
            else:
                steps.append(f"Then, this agent will {text}")
        return " ".join(steps) + "."
    joined = " ".join(_enumerate_parallel(what))
    if kind == "parallel_workflow":
        return joined + " simultaneously."
    max_iterations = getattr(agent, "max_iterations", None)
    limit = "unlimited" if max_iterations is None else max_iterations
    return f"{joined} in a loop (max {limit} iterations)."


def _enumerate_parallel(what: list[str]) -> list[str]:
    # ADK's wording, including its ", x" middle items that join as "a , b and c".
    out = []
    for i, text in enumerate(what):
        if i == 0:
            out.append(f"This agent will {text}")
        elif i == len(what) - 1:
            out.append(f"and {text}")
        else:
            out.append(f", {text}")
    return out


def _output_modes(agent: Any) -> list[str] | None:
    config = getattr(agent, "generate_content_config", None)
    if config is None:
        return None
    modes = (
        config.get("response_modalities")
        if isinstance(config, dict)
        else getattr(config, "response_modalities", None)
    )
    return list(modes) if modes is not None else None
