"""``agent_class: Workflow`` with ``edges:``: every edge and node form loads, and every mistake
is reported at its YAML line with a hint, whether code is imported (load) or not (validate)."""

from __future__ import annotations

import uuid
from pathlib import Path

import pytest
from tests.workflow.kit import run_turns

from yadk import LlmAgent
from yadk.config import ConfigError, load_agent, validate_paths
from yadk.workflow import Workflow

NODES_PY = """
from typing import Any, Literal

from yadk.events import Event


def classify(node_input: str) -> Event:
    route = "question" if "?" in node_input else "other"
    return Event(output=node_input, route=route)


def pick(node_input: str) -> Event:
    choice: Literal["small", "big"] = "small" if len(node_input) < 5 else "big"
    return Event(output=node_input, route=choice)


def answer(node_input: str) -> str:
    return "answer: " + node_input


def other(node_input: str) -> str:
    return "other: " + node_input


def count(node_input: str) -> int:
    return len(node_input)


def shout(node_input: str) -> str:
    return node_input.upper()


def step(node_input: Any) -> Event:
    return Event(output=node_input, route="again")


def merge(node_input: dict[str, Any]) -> str:
    return ",".join(f"{k}={v}" for k, v in sorted(node_input.items()))
"""


def folder(tmp_path: Path, root: str, files: dict[str, str] | None = None) -> Path:
    """An agent folder with a package name of its own (modules are imported by name)."""
    path = tmp_path / f"wf_{uuid.uuid4().hex[:8]}"
    path.mkdir()
    (path / "__init__.py").write_text("")
    (path / "nodes.py").write_text(NODES_PY)
    (path / "root_agent.yaml").write_text(root)
    for name, text in (files or {}).items():
        (path / name).write_text(text)
    return path


def problems(path: Path, *, import_code: bool) -> list[str]:
    found = validate_paths([path], import_code=import_code)
    if import_code and any(d.is_error for d in found):
        with pytest.raises(ConfigError) as raised:
            load_agent(path)
        assert raised.value.diagnostics == [d for d in found if d.is_error]
    return [d.format().replace(str(path / "root_agent.yaml"), "{cfg}") for d in found]


HEAD = "agent_class: Workflow\nname: flow\nedges:\n"


async def test_every_node_form_loads_and_runs(tmp_path: Path) -> None:
    path = folder(
        tmp_path,
        HEAD
        + "  - [START, .nodes.classify, {question: .nodes.answer, __DEFAULT__: other.yaml}]\n"
        + "  - from_node: answer\n"
        + "    to_node: {agent_class: FunctionNode, name: loud, func_code: .nodes.shout}\n"
        + "  - [other_agent, [.nodes.count, {name: inline_agent, instruction: Say ok,"
        + " model: 'scripted:turns.yaml'}], {agent_class: JoinNode, name: join}, .nodes.merge]\n",
        {
            "other.yaml": "name: other_agent\nmodel: scripted:turns.yaml\ninstruction: Hi\n",
            "turns.yaml": "turns:\n  - text: agent says\n  - text: inline says\n",
        },
    )
    assert problems(path, import_code=False) == []
    agent = load_agent(path)
    assert isinstance(agent, Workflow) and agent.graph is not None
    assert [n.name for n in agent.graph.nodes] == [
        "__START__",
        "classify",
        "answer",
        "other_agent",
        "loud",
        "count",
        "inline_agent",
        "join",
        "merge",
    ]
    turns, _, _ = await run_turns(agent, ["why?"])
    assert turns[0][-1].output == "ANSWER: WHY?"
    turns, _, _ = await run_turns(load_agent(path), ["hello"])
    assert turns[0][-1].output == "count=10,inline_agent=inline says"


CASES: list[tuple[str, str, dict[str, str], list[str], list[str] | None]] = [
    (
        "unknown node name",
        HEAD + "  - [START, .nodes.answer]\n  - [anwser, .nodes.other]\n",
        {},
        [
            "{cfg}:5:6: error unknown-node: Unknown node `anwser`: no earlier edge defines a node"
            " of that name.\n  hint: Did you mean `answer`?"
        ],
        None,
    ),
    (
        "missing config file",
        HEAD + "  - [START, writer.yaml]\n",
        {},
        [
            "{cfg}:4:13: error file-not-found: Sub-agent config `writer.yaml` not found (looked"
            " for {dir}/writer.yaml).\n  hint: Did you mean `root_agent.yaml`?"
        ],
        None,
    ),
    (
        "unresolved function",
        HEAD + "  - [START, .nodes.answr]\n",
        {},
        [
            "{cfg}:4:13: error attribute-not-found: Module `{pkg}.nodes` has no attribute"
            " `answr`.\n  hint: Did you mean `answer`?"
        ],
        None,
    ),
    (
        "unreachable nodes",
        HEAD + "  - [START, .nodes.answer]\n  - [.nodes.other, .nodes.count]\n",
        {},
        [
            "{cfg}:5:6: error unreachable-node: Node `other` is unreachable from START.\n"
            "  hint: Add an edge to it from a node that runs, or remove it.",
            "{cfg}:5:20: error unreachable-node: Node `count` is unreachable from START.\n"
            "  hint: Add an edge to it from a node that runs, or remove it.",
        ],
        None,
    ),
    (
        "unconditional cycle",
        HEAD + "  - [START, .nodes.answer, .nodes.other, answer]\n",
        {},
        [
            "{cfg}:4:13: error unconditional-cycle: Unconditional cycle: answer -> other. Cycles"
            " must include at least one routed edge to avoid infinite loops.\n  hint: Route one"
            " edge of the loop (`{again: node}`) and give the loop a way out."
        ],
        None,
    ),
    (
        "loop without exit",
        HEAD + "  - [START, .nodes.step, {again: step}]\n",
        {},
        [
            "{cfg}:4:13: warning loop-without-exit: Loop step has no edge out of it: it ends"
            " only when a node's route matches no edge.\n  hint: Add a route out of the loop"
            " (`{again: step, done: finish}`)."
        ],
        None,
    ),
    (
        "route without edge (literals)",
        HEAD + "  - [START, .nodes.classify, {question: .nodes.answer}]\n",
        {},
        [],
        [
            "{cfg}:4:13: warning route-without-edge: Node `classify` can take route `other`,"
            " which no edge follows: its branch would end there.\n  hint: Add `{other:"
            " next_node}` after `classify`, or a `__DEFAULT__` route."
        ],
    ),
    (
        "route without edge (Literal annotation)",
        HEAD + "  - [START, .nodes.pick, {small: .nodes.answer}]\n",
        {},
        [],
        [
            "{cfg}:4:13: warning route-without-edge: Node `pick` can take route `big`, which no"
            " edge follows: its branch would end there.\n  hint: Add `{big: next_node}` after"
            " `pick`, or a `__DEFAULT__` route."
        ],
    ),
    (
        "annotated type mismatch",
        HEAD + "  - [START, .nodes.count, .nodes.answer]\n",
        {},
        [],
        [
            "{cfg}:4:27: error type-mismatch: `count` outputs int but `answer` takes `node_input:"
            " str`.\n  hint: Change one annotation, or put a node between them that converts int"
            " to str."
        ],
    ),
    (
        "duplicate node names",
        HEAD + "  - [START, .nodes.answer, {agent_class: JoinNode, name: answer}]\n",
        {},
        [
            "{cfg}:4:28: error duplicate-node-name: Two different nodes are named `answer` in"
            " this workflow.\n  hint: Give one of them another name (a node named twice must be"
            " the same reference)."
        ],
        None,
    ),
    (
        "chat agent after a node",
        HEAD + "  - [START, .nodes.answer, chatter.yaml]\n",
        {
            "chatter.yaml": "name: chatter\nmodel: scripted:t.yaml\ninstruction: Hi\nmode: chat\n",
            "t.yaml": "turns:\n  - text: hello\n",
        },
        [
            "{cfg}:4:28: error chat-agent-after-node: The agent 'chatter' has been added to the"
            " workflow with mode='chat' following node 'answer'. This is not supported because"
            " chat-mode agents rely on conversational history (session events) and cannot"
            " consume direct node inputs from preceding nodes. Please change the agent's mode to"
            " 'single_turn'\n  hint: A chat agent reads the user's messages: put it right after"
            " START, or make it `mode: single_turn` to answer the node before it."
        ],
        None,
    ),
    (
        "no edges",
        "agent_class: Workflow\nname: flow\n",
        {},
        [
            "{cfg}:1:1: error missing-field: A Workflow has no `edges`.\n  hint: Add `edges:`"
            " with at least one chain, e.g. `- [START, first_node]`."
        ],
        None,
    ),
    (
        "routed edge from START",
        HEAD + "  - {from_node: START, to_node: .nodes.answer, route: x}\n",
        {},
        [
            "{cfg}:4:5: error routed-start-edge: Edges from START must not have routes (edge to"
            " `answer` has route `x`).\n  hint: Route from a node that decides; START always"
            " triggers its successors."
        ],
        None,
    ),
]


@pytest.mark.parametrize(
    ("root", "files", "static", "imported"),
    [case[1:] for case in CASES],
    ids=[case[0] for case in CASES],
)
@pytest.mark.parametrize("import_code", [False, True], ids=["validate", "load"])
def test_workflow_config_problems_are_located(
    tmp_path: Path,
    root: str,
    files: dict[str, str],
    static: list[str],
    imported: list[str] | None,
    import_code: bool,
) -> None:
    path = folder(tmp_path, root, files)
    # Checks that need the code (routes, annotations) run only when it is imported.
    wanted = static + imported if import_code and imported is not None else static
    expected = [e.replace("{dir}", str(path)).replace("{pkg}", path.name) for e in wanted]
    assert problems(path, import_code=import_code) == expected


def test_the_dev_loop_watches_every_file_a_workflow_uses() -> None:
    from yadk.config import load_agent_with_sources

    demo = Path(__file__).resolve().parents[2] / "configs" / "triage_workflow"
    loaded = load_agent_with_sources(demo)
    assert sorted(p.name for p in loaded.files) == [
        "__init__.py",
        "nodes.py",
        "root_agent.yaml",
        "scripted.yaml",
        "writer.yaml",
    ]


FLOWS_PY = """
from yadk.workflow import START, Workflow, node

from {pkg}.nodes import count, shout

measure = Workflow(name="measure", edges=[(START, shout, count)], input_schema=str)


@node
def untyped(node_input):
    return node_input
"""


async def test_an_agent_in_yaml_takes_a_workflow_as_a_tool(tmp_path: Path) -> None:
    root = (
        "name: desk\nmodel: gemini-2.5-flash\ninstruction: Measure the text.\n"
        "tools:\n  - name: .flows.measure\n"
    )
    path = folder(tmp_path, root)
    (path / "flows.py").write_text(FLOWS_PY.format(pkg=path.name))
    assert problems(path, import_code=True) == []
    agent = load_agent(path)
    from yadk.models import ScriptedModel

    agent.model = ScriptedModel(  # type: ignore[attr-defined]
        [{"function_calls": [{"name": "measure", "args": {"request": "hello"}}]}, {"text": "5."}]
    )
    turns, _, _ = await run_turns(agent, ["how long is hello?"])
    assert [e.output for e in turns[0] if e.output is not None] == ["HELLO", 5]
    assert turns[0][-1].text == "5."


def test_a_node_the_model_cannot_call_is_located(tmp_path: Path) -> None:
    root = (
        "name: desk\nmodel: gemini-2.5-flash\ninstruction: Hi.\ntools:\n  - name: .flows.untyped\n"
    )
    path = folder(tmp_path, root)
    (path / "flows.py").write_text(FLOWS_PY.format(pkg=path.name))
    assert problems(path, import_code=True) == [
        "{cfg}:5:11: error wrong-kind: `"
        + path.name
        + ".flows.untyped` cannot be called as a tool: Node 'untyped' does not have an"
        " input_schema defined. NodeTool requires an explicit Pydantic input_schema on the"
        " wrapped node.\n  hint: Give it an input_schema (a pydantic model), or annotate its"
        " entry node's node_input, so the model knows what to send."
    ]


async def test_an_agents_mode_in_yaml_decides_what_its_model_is_sent(tmp_path: Path) -> None:
    # helper makes lead a node with a sub-agent; mode: single_turn still answers the node before
    # it from its input alone, told no transfer targets.
    path = folder(
        tmp_path,
        HEAD + "  - [START, .nodes.answer, lead.yaml]\n",
        {
            "lead.yaml": "name: lead\nmodel: scripted:t.yaml\ninstruction: Lead.\n"
            "mode: single_turn\nsub_agents:\n  - config_path: helper.yaml\n",
            "helper.yaml": "name: helper\nmodel: scripted:t.yaml\ninstruction: Help.\n",
            "t.yaml": "turns:\n  - text: led\n",
        },
    )
    assert problems(path, import_code=False) == []
    agent = load_agent(path)
    lead = next(a for a in agent.graph_agents() if a.name == "lead")
    assert isinstance(lead, LlmAgent) and lead.mode == "single_turn"
    turns, _, _ = await run_turns(agent, ["hi"])
    assert turns[0][-1].text == "led"
    request = lead.canonical_model.requests[0]  # type: ignore[union-attr]
    assert [c.to_dict() for c in request.contents] == [
        {"role": "user", "parts": [{"text": "answer: hi"}]}
    ]
    assert request.system_instruction == "Lead."
