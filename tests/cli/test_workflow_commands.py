"""The commands on a workflow (configs/triage_workflow): inspect prints its graph (text or
Mermaid), validate checks it, run and dev show node outputs and wait for human input."""

from __future__ import annotations

import io
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

Cli = Callable[..., tuple[int, str, str]]

GRAPH = """\
Workflow triage (9 nodes, 10 edges)
  nodes:
    classify        function triage_workflow.nodes.classify
    writer          LlmAgent
    approve_refund  function triage_workflow.nodes.approve_refund
    log_other       function triage_workflow.nodes.log_other
    check_tone      function triage_workflow.nodes.check_tone
    check_length    function triage_workflow.nodes.check_length
    checks          JoinNode
    summarize       function triage_workflow.nodes.summarize
    confirm_refund  function triage_workflow.nodes.confirm_refund
  edges:
    START -> classify
    classify -[question]-> writer
    classify -[refund]-> approve_refund
    classify -[__DEFAULT__]-> log_other
    writer -> check_tone
    writer -> check_length
    check_tone -> checks
    check_length -> checks
    checks -> summarize
    approve_refund -> confirm_refund
"""

MERMAID = """\
flowchart TD
  START([START])
  classify["classify"]
  writer[["writer"]]
  approve_refund["approve_refund"]
  log_other["log_other"]
  check_tone["check_tone"]
  check_length["check_length"]
  checks{{"checks"}}
  summarize["summarize"]
  confirm_refund["confirm_refund"]
  START --> classify
  classify -- "question" --> writer
  classify -- "refund" --> approve_refund
  classify -- "__DEFAULT__" --> log_other
  writer --> check_tone
  writer --> check_length
  check_tone --> checks
  check_length --> checks
  checks --> summarize
  approve_refund --> confirm_refund
"""


def test_inspect_prints_the_graph(cli: Cli, configs: Path) -> None:
    assert cli("inspect", str(configs / "triage_workflow")) == (0, GRAPH, "")


def test_inspect_draws_the_graph_in_mermaid(cli: Cli, configs: Path) -> None:
    assert cli("inspect", str(configs / "triage_workflow"), "--format", "mermaid") == (
        0,
        MERMAID,
        "",
    )


NESTED_AGENT = """\
from yadk.workflow import START, Workflow


def draft(node_input: str) -> str:
    return node_input


def polish(node_input: str) -> str:
    return node_input


def publish(node_input: str) -> str:
    return node_input


editing = Workflow(name="editing", edges=[(START, draft, polish)])
root_agent = Workflow(name="flow", edges=[(START, editing, publish)])
"""


def test_inspect_prints_and_draws_a_nested_workflow_inside_its_parent(
    cli: Cli, tmp_path: Path
) -> None:
    folder = tmp_path / "nested_inspect"
    folder.mkdir()
    (folder / "agent.py").write_text(NESTED_AGENT)
    (folder / "__init__.py").write_text("from . import agent\n")
    assert cli("inspect", str(folder)) == (
        0,
        """\
Workflow flow (2 nodes, 2 edges)
  nodes:
    editing  Workflow
    publish  function nested_inspect.agent.publish
  edges:
    START -> editing
    editing -> publish
  Workflow editing (2 nodes, 2 edges)
    nodes:
      draft   function nested_inspect.agent.draft
      polish  function nested_inspect.agent.polish
    edges:
      START -> draft
      draft -> polish
""",
        "",
    )
    assert cli("inspect", str(folder), "--format", "mermaid") == (
        0,
        """\
flowchart TD
  START([START])
  subgraph editing["editing"]
    editing__START([START])
    editing__draft["draft"]
    editing__polish["polish"]
    editing__START --> editing__draft
    editing__draft --> editing__polish
  end
  publish["publish"]
  START --> editing
  editing --> publish
""",
        "",
    )


def test_inspect_builds_the_request_of_one_of_its_agents(cli: Cli, configs: Path) -> None:
    code, out, _ = cli(
        "inspect", str(configs / "triage_workflow"), "--agent", "writer", "--message", "hi?"
    )
    assert code == 0
    assert out.startswith("agent: writer\n")


def test_mermaid_is_for_workflows_only(cli: Cli, configs: Path) -> None:
    code, _, err = cli("inspect", str(configs / "support_desk"), "--format", "mermaid")
    assert code == 2
    assert "--format mermaid draws a workflow's graph" in err


def test_validate_imports_and_checks_the_graph(cli: Cli, configs: Path) -> None:
    assert cli("validate", "--import", str(configs / "triage_workflow")) == (
        0,
        "no problems found in 2 agents\n",
        "",
    )


def test_run_shows_outputs_and_resumes_after_human_input(cli: Cli, configs: Path) -> None:
    path = str(configs / "triage_workflow")
    code, out, _ = cli("run", path, "How do I reset my password?", "--db", ":memory:")
    assert (code, out) == (
        0,
        "[user]: How do I reset my password?\n"
        "[triage] classify -> How do I reset my password?\n"
        "[writer]: You can reset your password from the login page, under 'Forgot password'.\n"
        "[triage] check_tone -> true\n"
        "[triage] check_length -> 12\n"
        '[triage] checks -> {"check_tone": true, "check_length": 12}\n'
        "[triage]: answer checked: friendly=True, words=12\n",
    )
    code, out, _ = cli("run", path, "A refund for A-7", "--db", "s.db", "--session-id", "s1")
    assert out.endswith("[triage] asks: Approve this refund? (A refund for A-7)\n")
    code, out, _ = cli("run", path, "yes", "--db", "s.db", "--session-id", "s1")
    assert out.endswith(
        "[triage] approve_refund -> true\n[triage]: Refund approved and on its way.\n"
    )


def test_dev_asks_and_takes_the_next_line_as_the_answer(
    cli: Cli, configs: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(sys, "stdin", io.StringIO("A refund for A-7\nyes\n"))
    path = str(configs / "triage_workflow")
    code, out, _ = cli("dev", path, "--db", str(tmp_path / "dev.db"), "--session-id", "s1")
    assert code == 0
    # The line after the question is sent as the answer to it (its function response).
    assert (
        "[triage] asks: Approve this refund? (A refund for A-7)\n"
        '[user] adk_request_input -> "yes"\n'
    ) in out
    assert out.endswith(
        "[triage] approve_refund -> true\n[triage]: Refund approved and on its way.\n"
    )
