"""``yadk eval``: exit codes, the three output formats, selection, runs and model override."""

from __future__ import annotations

import json
from pathlib import Path

import junitparser
import pytest
from tests.eval._helpers import BYE, WEATHER, Cli, eval_set, invocation

WRONG = invocation(
    "What is the weather in Lisbon?",
    "It rains in Porto.",
    [("get_weather", {"city": "Porto"})],
)


@pytest.fixture
def passing(tmp_path: Path) -> Path:
    path = tmp_path / "ok.evalset.json"
    path.write_text(eval_set(("lisbon", [WEATHER]), ("bye", [BYE])))
    return path


@pytest.fixture
def failing(tmp_path: Path) -> Path:
    path = tmp_path / "bad.evalset.json"
    path.write_text(eval_set(("lisbon", [WEATHER]), ("porto", [WRONG]), eval_set_id="bad"))
    return path


def test_all_cases_pass_exit_0(cli: Cli, agent_dir: Path, passing: Path) -> None:
    code, out, err = cli("eval", str(agent_dir), str(passing))
    assert (code, err) == (0, "")
    assert out == (
        "ok.evalset.json  (criteria: google-adk's default criteria)\n"
        "  PASS  lisbon  tool_trajectory_avg_score 1 >= 1  response_match_score 1 >= 0.8\n"
        "  PASS  bye     tool_trajectory_avg_score 1 >= 1  response_match_score 1 >= 0.8\n"
        "\n"
        "2 cases: 2 passed, 0 failed\n"
    )


def test_a_failing_case_exits_1_and_shows_expected_and_actual_side_by_side(
    cli: Cli, agent_dir: Path, failing: Path
) -> None:
    code, out, _ = cli("eval", str(agent_dir), str(failing))
    assert code == 1
    assert out == (
        "bad.evalset.json  (criteria: google-adk's default criteria)\n"
        "  PASS  lisbon  tool_trajectory_avg_score 1 >= 1  response_match_score 1 >= 0.8\n"
        "  FAIL  porto   tool_trajectory_avg_score 0 < 1  response_match_score 0.3636 < 0.8\n"
        "        invocation 1: 'What is the weather in Lisbon?' (tool_trajectory_avg_score 0,"
        " response_match_score 0.3636)\n"
        "          expected tool calls                          | actual tool calls\n"
        "          get_weather(city='Porto')                    | get_weather(city='Lisbon')\n"
        "          expected response                            | actual response\n"
        "          It rains in Porto.                           | It is sunny in Lisbon, 24 degrees.\n"
        "\n"
        "2 cases: 1 passed, 1 failed\n"
    )


def test_selection_runs_only_the_named_cases(cli: Cli, agent_dir: Path, failing: Path) -> None:
    code, out, _ = cli("eval", str(agent_dir), f"{failing}:lisbon")
    assert code == 0
    assert "porto" not in out
    assert out.endswith("1 case: 1 passed, 0 failed\n")


def test_unknown_case_in_selection_is_an_input_error(
    cli: Cli, agent_dir: Path, failing: Path
) -> None:
    code, out, err = cli("eval", str(agent_dir), f"{failing}:lisbn")
    assert (code, out) == (2, "")
    assert err == (
        "bad.evalset.json: error unknown-eval-case: No eval case `lisbn` in bad.evalset.json.\n"
        "  hint: Did you mean `lisbon`?\n"
        "yadk eval: error: 1 problem in the eval input; nothing was run\n"
    )


def test_folder_of_eval_sets_in_file_order(
    cli: Cli, agent_dir: Path, passing: Path, failing: Path, tmp_path: Path
) -> None:
    code, out, _ = cli("eval", str(agent_dir), str(tmp_path), "--format", "json")
    assert code == 1
    results = json.loads(out)
    assert [r["eval_set_id"] for r in results] == ["bad", "weather"]
    assert [[c["eval_id"] for c in r["eval_case_results"]] for r in results] == [
        ["lisbon", "porto"],
        ["lisbon", "bye"],
    ]


def test_json_has_google_adk_eval_set_result_shape(
    cli: Cli, agent_dir: Path, failing: Path
) -> None:
    code, out, _ = cli("eval", str(agent_dir), str(failing), "--format", "json")
    assert code == 1
    [result] = json.loads(out)
    assert set(result) == {
        "eval_set_result_id",
        "eval_set_result_name",
        "eval_set_id",
        "eval_case_results",
        "creation_timestamp",
    }
    porto = result["eval_case_results"][1]
    assert porto["eval_id"] == "porto"
    assert porto["final_eval_status"] == 2  # google-adk's EvalStatus.FAILED
    metrics = {m["metric_name"]: m for m in porto["overall_eval_metric_results"]}
    assert list(metrics) == [
        "tool_trajectory_avg_score",
        "response_match_score",
        "tool_call_count_v1",
        "inference_call_count_v1",
    ]
    assert metrics["tool_trajectory_avg_score"] | {"details": {}} == {
        "metric_name": "tool_trajectory_avg_score",
        "threshold": 1.0,
        "criterion": {"threshold": 1.0},
        "score": 0.0,
        "eval_status": 2,
        "details": {},
    }
    assert metrics["tool_call_count_v1"]["score"] == 1.0
    assert metrics["tool_call_count_v1"]["eval_status"] == 4  # INFORMATIONAL
    assert metrics["inference_call_count_v1"]["score"] == 2.0
    [turn] = porto["eval_metric_result_per_invocation"]
    assert turn["expected_invocation"]["intermediate_data"]["tool_uses"] == [
        {"name": "get_weather", "args": {"city": "Porto"}}
    ]
    events = turn["actual_invocation"]["intermediate_data"]["invocation_events"]
    assert [e["author"] for e in events] == ["weather", "weather", "weather"]
    assert [m["score"] for m in turn["eval_metric_results"]][:2] == [
        0.0,
        metrics["response_match_score"]["score"],
    ]


def test_junit_is_read_by_a_junit_reader(
    cli: Cli, agent_dir: Path, failing: Path, tmp_path: Path
) -> None:
    report = tmp_path / "report.xml"
    code, out, _ = cli("eval", str(agent_dir), str(failing), "--format", "junit", "-o", str(report))
    assert code == 1
    assert out.endswith("2 cases: 1 passed, 1 failed\n")  # the text report still prints
    xml = junitparser.JUnitXml.fromfile(str(report))
    [suite] = list(xml)
    assert (suite.name, suite.tests, suite.failures, suite.errors) == ("bad", 2, 1, 0)
    cases = {case.name: case for case in suite}
    assert cases["lisbon"].is_passed
    [failure] = cases["porto"].result
    assert isinstance(failure, junitparser.Failure)
    assert failure.message == (
        "tool_trajectory_avg_score: score 0 < threshold 1; "
        "response_match_score: score 0.3636 < threshold 0.8"
    )


def test_junit_reports_a_run_error_as_an_error(cli: Cli, agent_dir: Path, tmp_path: Path) -> None:
    path = tmp_path / "long.evalset.json"
    path.write_text(eval_set(("too_long", [BYE, BYE])))  # the script has one "Goodbye!"
    code, out, _ = cli("eval", str(agent_dir), str(path), "--format", "junit")
    assert code == 1
    xml = junitparser.JUnitXml.fromstring(out)
    [suite] = list(xml)
    [case] = list(suite)
    [error] = case.result
    assert isinstance(error, junitparser.Error)
    assert error.message.startswith("turn 2: scripted:scripted.yaml: script exhausted")


def test_each_run_restarts_the_scripted_model(cli: Cli, agent_dir: Path, passing: Path) -> None:
    code, out, _ = cli("eval", str(agent_dir), str(passing), "--num-runs", "3")
    assert code == 0
    assert out.count("PASS  lisbon (run ") == 3
    assert out.endswith("6 cases: 6 passed, 0 failed\n")


def test_model_override(cli: Cli, agent_dir: Path, passing: Path, tmp_path: Path) -> None:
    other = tmp_path / "other.yaml"
    other.write_text("turns:\n  - text: I only talk about trains.\n  - text: Goodbye!\n")
    code, out, _ = cli("eval", str(agent_dir), f"{passing}:lisbon", "--model", f"scripted:{other}")
    assert code == 1
    assert "FAIL  lisbon  tool_trajectory_avg_score 0 < 1" in out


def test_judge_metrics_are_not_evaluated_and_said_so(
    cli: Cli, agent_dir: Path, passing: Path, tmp_path: Path
) -> None:
    (tmp_path / "test_config.json").write_text(
        json.dumps({"criteria": {"response_match_score": 0.5, "final_response_match_v2": 0.8}})
    )
    code, out, _ = cli("eval", str(agent_dir), f"{passing}:lisbon")
    assert code == 0
    assert "final_response_match_v2 not evaluated" in out
    assert (
        "not evaluated: final_response_match_v2 (needs a judge model: pass --judge-model NAME)\n"
    ) in out


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--num-runs", "0"], "yadk eval: error: --num-runs must be at least 1\n"),
        (["missing.evalset.json"], "error file-not-found"),
        (["--config", "nope.json"], "error file-not-found: --config"),
    ],
)
def test_usage_and_input_errors_exit_2(
    cli: Cli, agent_dir: Path, passing: Path, args: list[str], message: str
) -> None:
    argv = ["eval", str(agent_dir), *(args if "evalset" in args[0] else [str(passing), *args])]
    code, out, err = cli(*argv)
    assert (code, out) == (2, "")
    assert message in err


def test_a_broken_agent_config_is_an_input_error(cli: Cli, agent_dir: Path, passing: Path) -> None:
    (agent_dir / "root_agent.yaml").write_text("name: weather\ninstructions: typo\n")
    code, out, err = cli("eval", str(agent_dir), str(passing))
    assert (code, out) == (2, "")
    assert "unknown-key" in err


def test_unknown_expected_tool_is_a_located_warning(
    cli: Cli, agent_dir: Path, tmp_path: Path
) -> None:
    path = tmp_path / "typo.evalset.json"
    typo = invocation("What is the weather in Lisbon?", "x", [("get_wether", {"city": "Lisbon"})])
    path.write_text(eval_set(("typo", [typo])))
    code, _, err = cli("eval", str(agent_dir), str(path))
    assert code == 1
    assert err == (
        "typo.evalset.json:27:25: warning unknown-tool: Expected tool `get_wether` is not a tool"
        " of agent `weather`; this call can never match.\n"
        "  hint: Did you mean `get_weather`?\n"
    )


def test_save_evalcase_then_eval_passes(cli: Cli, agent_dir: Path, tmp_path: Path) -> None:
    saved = tmp_path / "saved.evalset.json"
    code, _, err = cli(
        "run",
        str(agent_dir),
        "What is the weather in Lisbon?",
        "--db",
        ":memory:",
        "--save-evalcase",
        str(saved),
    )
    assert code == 0
    assert f"saved the conversation as eval case 'case_1' in {saved}" in err
    data = json.loads(saved.read_text())
    [case] = data["eval_cases"]
    [turn] = case["conversation"]
    assert turn["intermediate_data"]["tool_uses"] == [
        {"name": "get_weather", "args": {"city": "Lisbon"}}
    ]
    assert turn["final_response"]["parts"] == [{"text": "It is sunny in Lisbon, 24 degrees."}]
    code, _, _ = cli(
        "run", str(agent_dir), "bye", "--db", ":memory:", "--save-evalcase", str(saved)
    )
    assert code == 0
    assert [c["eval_id"] for c in json.loads(saved.read_text())["eval_cases"]] == [
        "case_1",
        "case_2",
    ]
    code, out, _ = cli("eval", str(agent_dir), str(saved))
    assert code == 0, out
    assert out.endswith("2 cases: 2 passed, 0 failed\n")


def test_save_evalcase_refuses_a_file_that_is_not_an_eval_set(
    cli: Cli, agent_dir: Path, tmp_path: Path
) -> None:
    target = tmp_path / "list.json"
    target.write_text("[1, 2]")
    code, _, err = cli(
        "run", str(agent_dir), "bye", "--db", ":memory:", "--save-evalcase", str(target)
    )
    assert code == 1
    assert "is not an EvalSet file" in err
    assert target.read_text() == "[1, 2]"
