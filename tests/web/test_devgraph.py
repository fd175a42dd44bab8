"""A workflow's graph in the agent tree (GET /dev/apps/{app}/agent): nodes in layers, edges with
their routes, what the Agent panel draws."""

from __future__ import annotations

import json
import shutil
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import httpx
import pytest

from yadk.serve._webapp import create_web_app
from yadk.sessions import InMemorySessionService
from yadk.workflow import START, Workflow
from yadk.workflow._render import graph_data

CONFIGS = Path(__file__).resolve().parents[2] / "configs"


@pytest.fixture
def triage(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    target = tmp_path / "apps" / "triage_workflow"
    shutil.copytree(
        CONFIGS / "triage_workflow", target, ignore=shutil.ignore_patterns("__pycache__")
    )
    monkeypatch.setattr(sys, "path", list(sys.path))
    for name in [n for n in sys.modules if n.split(".")[0] == "triage_workflow"]:
        monkeypatch.delitem(sys.modules, name)
    return target


async def test_the_agent_route_gives_a_workflows_nodes_and_edges(triage: Path) -> None:
    app = create_web_app(
        triage.parent, host="127.0.0.1", port=8000, session_service=InMemorySessionService()
    )
    transport = httpx.ASGITransport(app=app)
    async with httpx.AsyncClient(transport=transport, base_url="http://127.0.0.1:8000") as client:
        root = (await client.get("/dev/apps/triage_workflow/agent")).json()["root"]
    assert (root["name"], root["kind"]) == ("triage", "Workflow")
    function = "function triage_workflow.nodes."
    assert root["graph"]["nodes"] == [
        {"name": "START", "kind": "START", "layer": 0},
        {"name": "classify", "kind": function + "classify", "layer": 1},
        {"name": "writer", "kind": "LlmAgent", "layer": 2},
        {"name": "approve_refund", "kind": function + "approve_refund", "layer": 2},
        {"name": "log_other", "kind": function + "log_other", "layer": 2},
        {"name": "check_tone", "kind": function + "check_tone", "layer": 3},
        {"name": "check_length", "kind": function + "check_length", "layer": 3},
        {"name": "checks", "kind": "JoinNode", "layer": 4},
        {"name": "summarize", "kind": function + "summarize", "layer": 5},
        {"name": "confirm_refund", "kind": function + "confirm_refund", "layer": 3},
    ]
    assert root["graph"]["edges"] == [
        {"from": "START", "to": "classify", "route": None},
        {"from": "classify", "to": "writer", "route": "question"},
        {"from": "classify", "to": "approve_refund", "route": "refund"},
        {"from": "classify", "to": "log_other", "route": "__DEFAULT__"},
        {"from": "writer", "to": "check_tone", "route": None},
        {"from": "writer", "to": "check_length", "route": None},
        {"from": "check_tone", "to": "checks", "route": None},
        {"from": "check_length", "to": "checks", "route": None},
        {"from": "checks", "to": "summarize", "route": None},
        {"from": "approve_refund", "to": "confirm_refund", "route": None},
    ]


def draft(node_input: str) -> str:
    return node_input


def review(node_input: str) -> str:
    return node_input


def publish(node_input: str) -> str:
    return node_input


async def test_the_web_chat_answers_a_workflows_question_with_its_next_message(
    triage: Path,
) -> None:
    """What the web UI's chat does: a workflow asks, the user's next message (plain text, as
    the chat box sends it) is the answer, and the workflow resumes at the waiting node."""
    app = create_web_app(
        triage.parent, host="127.0.0.1", port=8000, session_service=InMemorySessionService()
    )
    transport = httpx.ASGITransport(app=app)
    headers = {"Host": "127.0.0.1:8000"}
    async with httpx.AsyncClient(transport=transport, base_url="http://127.0.0.1:8000") as client:
        created = await client.post(
            "/apps/triage_workflow/users/u1/sessions", json={"sessionId": "s1"}, headers=headers
        )
        assert created.status_code == 200, created.text

        async def send(text: str) -> list[dict[str, Any]]:
            body = {
                "appName": "triage_workflow",
                "userId": "u1",
                "sessionId": "s1",
                "newMessage": {"role": "user", "parts": [{"text": text}]},
                "streaming": True,
            }
            response = await client.post("/run_sse", json=body, headers=headers)
            assert response.status_code == 200, response.text
            return [
                json.loads(line.removeprefix("data: "))
                for line in response.text.splitlines()
                if line.startswith("data: ")
            ]

        asked = await send("A refund for A-7")
        call = asked[-1]["content"]["parts"][0]["functionCall"]
        assert (call["name"], call["args"]["message"]) == (
            "adk_request_input",
            "Approve this refund? (A refund for A-7)",
        )
        answered = await send("yes")
    assert [(e["nodeInfo"]["path"], e.get("output")) for e in answered if "nodeInfo" in e] == [
        ("triage@1/approve_refund@1", True),
        ("triage@1/confirm_refund@1", "Refund approved and on its way."),
    ]


def test_a_loop_back_edge_does_not_push_its_target_down_and_nested_graphs_nest() -> None:
    inner = Workflow(name="inner", edges=[(START, publish)])
    flow = Workflow(
        name="flow",
        edges=[(START, draft, review, {"again": draft, "done": inner, "both": [draft, inner]})],
    )
    data = graph_data(flow)
    assert [(n["name"], n["layer"]) for n in data["nodes"]] == [
        ("START", 0),
        ("draft", 1),
        ("review", 2),
        ("inner", 3),
    ]
    assert data["nodes"][3]["graph"] == {
        "nodes": [
            {"name": "START", "kind": "START", "layer": 0},
            {"name": "publish", "kind": f"function {__name__}.publish", "layer": 1},
        ],
        "edges": [{"from": "START", "to": "publish", "route": None}],
    }
    assert data["edges"][2:] == [
        {"from": "review", "to": "draft", "route": "again"},
        {"from": "review", "to": "inner", "route": "done"},
        {"from": "review", "to": "draft", "route": "both"},
        {"from": "review", "to": "inner", "route": "both"},
    ]


@pytest.mark.browser
@pytest.mark.subprocess
def test_the_agent_tab_draws_the_graph_and_marks_the_running_node(
    triage: Path, web_at: Callable[..., Any], tab: Callable[..., Any]
) -> None:
    server = web_at(triage.parent)
    page = tab()
    page.open(server.url)
    page.page.wait_for_selector("body[data-loaded='1']", timeout=30000)
    panel = page.tab("Agent")
    graph = panel.get_by_role("img", name="Graph of workflow triage")
    nodes = graph.locator(".graph-node")
    assert nodes.count() == 10
    assert graph.locator(".graph-node > text").all_text_contents() == [
        "START",
        "classify",
        "writer",
        "approve_refund",
        "log_other",
        "check_tone",
        "check_length",
        "checks",
        "summarize",
        "confirm_refund",
    ]
    assert graph.locator(".graph-edge").count() == 10
    checks = graph.locator(".graph-node[data-node='checks'] > title")
    assert checks.text_content() == "checks: JoinNode"
    assert graph.locator(".graph-edge .route").all_text_contents() == [
        "question",
        "refund",
        "__DEFAULT__",
    ]
    # Every node that gets the running mark, in order: a record with no old value is the mark
    # being set (the observer sees records in batches, after the DOM moved on).
    page.page.evaluate(
        """() => {
          window.__running = [];
          new MutationObserver((records) => {
            for (const record of records)
              if (record.oldValue === null)
                window.__running.push(record.target.dataset.node);
          }).observe(document.querySelector('svg.graph'),
                     {subtree: true, attributes: true, attributeFilter: ['data-running'],
                      attributeOldValue: true});
        }"""
    )
    page.send("How do I reset my password?")
    page.page.wait_for_selector("body[data-busy='0']", timeout=30000)
    running = page.page.evaluate("window.__running")
    # The streamed events' node paths, in order (the writer's chunks keep its mark on).
    assert running == ["classify", "writer", "check_tone", "check_length", "checks", "summarize"]
    assert graph.locator(".graph-node[data-running]").count() == 0, "the mark outlives the turn"
    page.shot("workflow-graph")


NESTED_APP = """\
from yadk.workflow import START, Workflow


def draft(node_input: str) -> str:
    return "draft: " + node_input


def polish(node_input: str) -> str:
    return node_input + " (polished)"


def publish(node_input: str) -> str:
    return "published " + node_input


editing = Workflow(name="editing", edges=[(START, draft, polish)])
root_agent = Workflow(name="flow", edges=[(START, editing, publish)])
"""


@pytest.mark.browser
@pytest.mark.subprocess
def test_a_nested_workflow_is_drawn_as_a_group_holding_its_graph_and_marked_inside(
    tmp_path: Path, web_at: Callable[..., Any], tab: Callable[..., Any]
) -> None:
    folder = tmp_path / "apps" / "nested_flow"
    folder.mkdir(parents=True)
    (folder / "agent.py").write_text(NESTED_APP)
    (folder / "__init__.py").write_text("from . import agent\n")
    server = web_at(folder.parent)
    page = tab()
    page.open(server.url)
    page.page.wait_for_selector("body[data-loaded='1']", timeout=30000)
    graph = page.tab("Agent").get_by_role("img", name="Graph of workflow flow")
    assert graph.locator(":scope > .graph-node > text").all_text_contents() == [
        "START",
        "editing",
        "publish",
    ]
    group = graph.locator(".graph-node.nested[data-node='editing']")
    inner = group.locator(".graph-nested[data-workflow='editing']")
    assert inner.locator(":scope > .graph-node > text").all_text_contents() == [
        "START",
        "draft",
        "polish",
    ]
    assert inner.locator(":scope > .graph-edge").count() == 2
    # The group's box holds its graph's boxes, and the edge out of it starts below them.
    outer = group.locator(":scope > rect").bounding_box()
    for name in ("START", "draft", "polish"):
        box = inner.locator(f".graph-node[data-node='{name}'] > rect").bounding_box()
        assert outer["x"] <= box["x"] and box["x"] + box["width"] <= outer["x"] + outer["width"]
        assert outer["y"] <= box["y"] and box["y"] + box["height"] <= outer["y"] + outer["height"]
    publish = graph.locator(":scope > .graph-node[data-node='publish'] > rect").bounding_box()
    assert publish["y"] > outer["y"] + outer["height"]
    page.page.evaluate(
        """() => {
          window.__running = [];
          new MutationObserver((records) => {
            for (const record of records)
              if (record.oldValue === null)
                window.__running.push(record.target.dataset.node);
          }).observe(document.querySelector('svg.graph'),
                     {subtree: true, attributes: true, attributeFilter: ['data-running'],
                      attributeOldValue: true});
        }"""
    )
    page.send("the news")
    page.page.wait_for_selector("body[data-busy='0']", timeout=30000)
    # The nested workflow is marked in the outer graph while its nodes run, each in its own.
    assert page.page.evaluate("window.__running") == ["editing", "draft", "polish", "publish"]
    assert graph.locator(".graph-node[data-running]").count() == 0, "the mark outlives the turn"
    page.shot("nested-workflow-graph")
