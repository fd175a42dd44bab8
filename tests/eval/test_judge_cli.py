"""Judged metrics through the real ``yadk eval`` CLI, the judge an OpenAI-compatible server on
loopback that plays scripted answers; and the located errors of judged criteria and rubrics."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from tests.eval._helpers import BYE, WEATHER, Cli
from tests.models.conftest import FakeServer, _serve

from yadk.eval import load_eval_config, load_eval_set_file

HOSTED = (
    "scored by Vertex AI's hosted Gen AI evaluation service (google-adk sends the conversation "
    "to Google Cloud), which yadk eval does not call: not available offline"
)
POLITE = "The answer is polite."
ONE_CALL = "The agent calls get_weather at most once."


@pytest.fixture
def judge(monkeypatch: pytest.MonkeyPatch) -> Iterator[FakeServer]:
    monkeypatch.setenv("OPENAI_BASE_URL", "http://placeholder/v1")
    monkeypatch.setenv("OPENAI_API_KEY", "test-key")
    monkeypatch.setenv("YADK_MODEL_RETRIES", "0")
    for server in _serve(FakeServer()):
        monkeypatch.setenv("OPENAI_BASE_URL", server.url + "/v1")
        yield server


def _answer(server: FakeServer, text: str) -> None:
    server.reply(
        {"choices": [{"message": {"role": "assistant", "content": text}, "finish_reason": "stop"}]}
    )


def _rubric(rubric_id: str, text: str, verdict: str) -> str:
    return f"ID: {rubric_id}\nProperty: {text}\nRationale: checked\nVerdict: {verdict}\n"


def _labels(*pairs: tuple[str, str]) -> str:
    return "\n\n".join(
        f"sentence: {s}\nlabel: {label}\nrationale: r\nsupporting_excerpt: null\n"
        "contradicting_excerpt: null"
        for s, label in pairs
    )


@pytest.fixture
def judged(tmp_path: Path) -> Path:
    path = tmp_path / "judged.evalset.json"
    cases = [
        {"eval_id": "lisbon", "conversation": [WEATHER]},
        {"eval_id": "bye", "conversation": [BYE]},
    ]
    path.write_text(json.dumps({"eval_set_id": "judged", "eval_cases": cases}, indent=2))
    rubric = {"rubric_id": "polite", "rubric_content": {"text_property": POLITE}}
    tool_rubric = {"rubric_id": "once", "rubric_content": {"text_property": ONE_CALL}}
    one = {"num_samples": 1}
    criteria = {
        "rubric_based_final_response_quality_v1": {
            "threshold": 1.0,
            "rubrics": [rubric],
            "judge_model_options": one,
        },
        "rubric_based_tool_use_quality_v1": {
            "threshold": 1.0,
            "rubrics": [tool_rubric],
            "judge_model_options": one,
        },
        "hallucinations_v1": {"threshold": 0.5},
        "safety_v1": 0.8,
    }
    (tmp_path / "test_config.json").write_text(json.dumps({"criteria": criteria}, indent=2))
    return path


def _play_both_cases(server: FakeServer) -> None:
    """The answers, in the order yadk asks: per case, per metric, per turn."""
    # lisbon: final response quality, tool use, hallucinations (segmenter, validator)
    _answer(server, _rubric("polite", POLITE, "yes"))
    _answer(server, _rubric("once", ONE_CALL, "yes"))
    _answer(server, "<sentence>It is sunny in Lisbon, 24 degrees.</sentence>")
    _answer(server, _labels(("It is sunny in Lisbon, 24 degrees.", "supported")))
    # bye: the answer is judged impolite, and its only sentence needs no support
    _answer(server, _rubric("polite", POLITE, "no"))
    _answer(server, _rubric("once", ONE_CALL, "yes"))
    _answer(server, "<sentence>Goodbye!</sentence>")
    _answer(server, _labels(("Goodbye!", "not_applicable")))


def _prompt(body: Any) -> str:
    [message] = body["messages"]
    content = message["content"]
    return content if isinstance(content, str) else "".join(p["text"] for p in content)


def test_json_shapes_scores_and_what_the_judge_saw(
    cli: Cli, agent_dir: Path, judged: Path, judge: FakeServer
) -> None:
    _play_both_cases(judge)
    code, out, err = cli(
        "eval", str(agent_dir), str(judged), "--judge-model", "openai:judge", "--format", "json"
    )
    assert code == 1, err
    [result] = json.loads(out)
    lisbon, bye = result["eval_case_results"]
    assert (lisbon["final_eval_status"], bye["final_eval_status"]) == (1, 2)
    metrics = {m["metric_name"]: m for m in lisbon["overall_eval_metric_results"]}
    assert metrics["rubric_based_final_response_quality_v1"]["score"] == 1.0
    assert metrics["rubric_based_final_response_quality_v1"]["details"] == {
        "rubric_scores": [
            {
                "rubric_id": "polite",
                "rationale": (
                    "This is an aggregated score derived from individual entries. Please refer "
                    "to individual entries in each invocation for actual rationale from the model."
                ),
                "score": 1.0,
            }
        ]
    }
    assert metrics["rubric_based_tool_use_quality_v1"]["eval_status"] == 1
    assert metrics["hallucinations_v1"]["score"] == 1.0
    assert metrics["safety_v1"] | {"criterion": None} == {
        "metric_name": "safety_v1",
        "threshold": 0.8,
        "criterion": None,
        "score": None,
        "eval_status": 3,
        "details": {"not_evaluated_reason": HOSTED},
    }
    [turn] = lisbon["eval_metric_result_per_invocation"]
    per_turn = {m["metric_name"]: m for m in turn["eval_metric_results"]}
    assert per_turn["rubric_based_final_response_quality_v1"]["details"]["rubric_scores"] == [
        {"rubric_id": "polite", "rationale": "checked", "score": 1.0}
    ]
    agents = turn["actual_invocation"]["app_details"]["agent_details"]
    assert agents["weather"]["instructions"].startswith("Answer weather questions.")
    bye_metrics = {m["metric_name"]: m for m in bye["overall_eval_metric_results"]}
    assert bye_metrics["rubric_based_final_response_quality_v1"]["score"] == 0.0
    assert bye_metrics["rubric_based_final_response_quality_v1"]["eval_status"] == 2

    prompts = [_prompt(r.body) for r in judge.requests]
    assert len(prompts) == 8
    quality, tool_use, segmenter, validator = prompts[:4]
    for prompt in (quality, tool_use):
        assert '"name": "get_weather"' in prompt  # the call, its response and the declaration
        assert '"sky": "sunny"' in prompt
        assert '"city": "Lisbon"' in prompt
    assert "[id: polite] The answer is polite." in quality
    assert "Answer weather questions." in quality
    assert "It is sunny in Lisbon, 24 degrees." in quality
    assert "[id: once] " + ONE_CALL in tool_use
    assert "It is sunny in Lisbon, 24 degrees." in segmenter
    context = validator.split("CONTEXT:\n", 1)[1].split("END OF CONTEXT", 1)[0]
    assert '"celsius": 24' in context
    assert "It is sunny in Lisbon" not in context  # the answer is never its own evidence
    assert "What is the weather in Lisbon?" in context


def test_text_report_says_why_metrics_are_not_evaluated(
    cli: Cli, agent_dir: Path, judged: Path, judge: FakeServer
) -> None:
    _play_both_cases(judge)
    code, out, _ = cli("eval", str(agent_dir), str(judged), "--judge-model", "openai:judge")
    assert code == 1
    assert (
        "PASS  lisbon  rubric_based_final_response_quality_v1 1 >= 1  "
        "rubric_based_tool_use_quality_v1 1 >= 1  hallucinations_v1 1 >= 0.5  "
        "safety_v1 not evaluated" in out
    )
    assert "FAIL  bye     rubric_based_final_response_quality_v1 0 < 1" in out
    assert f"not evaluated: safety_v1 ({HOSTED})\n" in out


def test_junit_names_the_failed_metric_and_the_reason_for_not_evaluated(
    cli: Cli, agent_dir: Path, judged: Path, judge: FakeServer
) -> None:
    _play_both_cases(judge)
    code, out, _ = cli(
        "eval", str(agent_dir), str(judged), "--judge-model", "openai:judge", "--format", "junit"
    )
    assert code == 1
    suite = ET.fromstring(out).find("testsuite")
    assert suite is not None
    lisbon, bye = suite.findall("testcase")
    failure = bye.find("failure")
    assert failure is not None
    assert failure.get("message") == (
        "rubric_based_final_response_quality_v1: score 0 < threshold 1"
    )
    assert f"safety_v1: n/a (NOT_EVALUATED: {HOSTED})" in (lisbon.findtext("system-out") or "")


def test_without_judge_model_every_judged_metric_says_what_it_needs(
    cli: Cli, agent_dir: Path, judged: Path
) -> None:
    code, out, _ = cli("eval", str(agent_dir), str(judged), "--format", "junit")
    assert code == 0
    [lisbon, _bye] = ET.fromstring(out).iter("testcase")
    skipped = lisbon.find("skipped")
    assert skipped is not None
    need = "needs a judge model: pass --judge-model NAME"
    assert skipped.get("message") == (
        f"not evaluated: rubric_based_final_response_quality_v1 ({need}); "
        f"rubric_based_tool_use_quality_v1 ({need}); hallucinations_v1 ({need}); "
        f"safety_v1 ({HOSTED})"
    )


def test_a_failing_judge_leaves_the_metric_not_evaluated(
    cli: Cli, agent_dir: Path, judged: Path, judge: FakeServer
) -> None:
    # No answers queued: every judge call gets HTTP 500.
    code, out, err = cli(
        "eval", str(agent_dir), str(judged), "--judge-model", "openai:judge", "--format", "json"
    )
    assert code == 0, err
    lisbon = json.loads(out)[0]["eval_case_results"][0]
    assert lisbon["final_eval_status"] == 3
    quality = lisbon["overall_eval_metric_results"][0]
    assert quality["eval_status"] == 3
    assert quality["details"]["not_evaluated_reason"] == "the judge failed"


CONFIGS = [
    (
        '{"criteria": {\n  "rubric_based_final_response_quality_v1": {"threshold": 0.8,'
        ' "rubric": []}\n}}\n',
        [
            "test_config.json:2:64: error unknown-key: Unknown key `rubric` in a"
            " `rubric_based_final_response_quality_v1` criterion.\n"
            "  hint: Did you mean `rubrics`?"
        ],
    ),
    (
        '{"criteria": {\n  "hallucinations_v1": {"threshold": 0.8, "rubrics": []}\n}}\n',
        [
            "test_config.json:2:43: error unknown-key: Unknown key `rubrics` in a"
            " `hallucinations_v1` criterion.\n  hint: Expected one of: `threshold`,"
            " `include_intermediate_responses_in_final`, `judge_model_options`,"
            " `evaluate_intermediate_nl_responses`."
        ],
    ),
    (
        '{"criteria": {\n  "rubric_based_tool_use_quality_v1": {"threshold": 0.8,'
        ' "rubrics": {"a": 1}}\n}}\n',
        [
            "test_config.json:2:69: error wrong-type: `rubrics` must be a list of rubrics,"
            " not an object."
        ],
    ),
    (
        '{"criteria": {\n  "final_response_match_v2": {"threshold": 0.8,\n'
        '    "judge_model_options": {"num_sample": 3, "parallelism_limit": 0}}\n}}\n',
        [
            "test_config.json:3:29: error unknown-key: Unknown key `num_sample` in a"
            " `judge_model_options` object.\n  hint: Did you mean `num_samples`?",
            "test_config.json:3:67: error wrong-type: `parallelism_limit` must be a whole"
            " number >= 1, not a number.",
        ],
    ),
    (
        '{"criteria": {"rubric_based_final_response_quality_v1": {"threshold": 0.5, "rubrics": [\n'
        '  {"rubric_id": "a", "rubric_content": {"text": "x"}},\n'
        '  {"rubric_id": "b", "rubricContent": {"textProperty": ""}},\n'
        '  {"rubric_id": "c", "rubric_contents": {"text_property": "x"}},\n'
        '  {"rubric_id": "d", "rubric_content": {"text_property": "fine"}, "typ": "X"},\n'
        '  {"rubricId": "d", "rubricContent": {"textProperty": "again"}}\n]}}}\n',
        [
            "test_config.json:2:41: error unknown-key: Unknown key `text` in a rubric content.\n"
            "  hint: Expected one of: `text_property`.",
            "test_config.json:2:40: error missing-key: A rubric content needs `text_property`.",
            "test_config.json:3:39: error invalid-rubric: A rubric's `text_property` must say"
            ' what the judge checks.\n  hint: e.g. {"rubric_id": "concise", "rubric_content":'
            ' {"text_property": "The answer is short."}}',
            "test_config.json:4:22: error unknown-key: Unknown key `rubric_contents` in a"
            " rubric.\n  hint: Did you mean `rubric_content`?",
            "test_config.json:4:3: error missing-key: A rubric needs `rubric_content`.",
            "test_config.json:5:67: error unknown-key: Unknown key `typ` in a rubric.\n"
            "  hint: Did you mean `type`?",
            "test_config.json:6:16: error duplicate-rubric: Rubric id `d` is used twice in this"
            " list; google-adk refuses it.\n  hint: Give every rubric its own `rubric_id`.",
        ],
    ),
    (
        '{"criteria": {\n  "hallucinations_v1": {"threshold": 0.8,'
        ' "evaluate_intermediate_nl_responses": "yes"}\n}}\n',
        [
            "test_config.json:2:81: error wrong-type: `evaluate_intermediate_nl_responses` must"
            " be a boolean, not a string."
        ],
    ),
]


@pytest.mark.parametrize(("text", "expected"), CONFIGS)
def test_malformed_judged_criteria(tmp_path: Path, text: str, expected: list[str]) -> None:
    (tmp_path / "test_config.json").write_text(text)
    config, diagnostics = load_eval_config(tmp_path / "test_config.json")
    assert [d.format() for d in diagnostics] == expected
    assert config is None


def test_missing_rubrics_are_located_in_the_config_before_anything_runs(
    cli: Cli, agent_dir: Path, tmp_path: Path
) -> None:
    rubric = {"rubric_id": "r", "rubric_content": {"text_property": "Short."}}
    cases = [
        {
            "eval_id": "covered",
            "rubrics": [rubric | {"type": "FINAL_RESPONSE_QUALITY"}],
            "conversation": [WEATHER],
        },
        {
            "eval_id": "other_type",
            "rubrics": [rubric | {"type": "TOOL_USE_QUALITY"}],
            "conversation": [BYE],
        },
        {
            "eval_id": "per_turn",
            "conversation": [BYE | {"rubrics": [rubric | {"type": "FINAL_RESPONSE_QUALITY"}]}],
        },
    ]
    path = tmp_path / "r.evalset.json"
    path.write_text(json.dumps({"eval_set_id": "r", "eval_cases": cases}, indent=1))
    (tmp_path / "test_config.json").write_text(
        '{"criteria": {\n  "rubric_based_final_response_quality_v1": 0.5\n}}\n'
    )
    code, _, err = cli("eval", str(agent_dir), str(path))
    assert code == 2
    assert err.replace(str(tmp_path) + "/", "") == (
        "test_config.json:2:3: error missing-rubrics: `rubric_based_final_response_quality_v1`"
        " has no rubrics to judge eval case `other_type` of r.evalset.json with.\n"
        '  hint: Add "rubrics" to the criterion, or rubrics with "type":'
        ' "FINAL_RESPONSE_QUALITY" to the eval case or its invocations.\n'
        "yadk eval: error: 1 problem in the eval input; nothing was run\n"
    )
    code, out, err = cli("validate", str(path))
    assert code == 1
    assert (
        "test_config.json:2:3: error missing-rubrics: `rubric_based_final_response_quality_v1`"
        " has no rubrics to judge eval case `other_type` of r.evalset.json with." in out + err
    )


def test_a_rubric_id_of_the_case_reused_by_an_invocation_is_located(tmp_path: Path) -> None:
    path = tmp_path / "r.evalset.json"
    path.write_text(
        '{"eval_set_id": "r", "eval_cases": [{"eval_id": "a",\n'
        ' "rubrics": [{"rubric_id": "r", "rubric_content": {"text_property": "Short."}}],\n'
        ' "conversation": [{"user_content": {"parts": [{"text": "hi"}]},\n'
        '   "rubrics": [{"rubric_id": "r", "rubric_content": {"text_property": "Kind."}}]}]}]}\n'
    )
    eval_set, diagnostics = load_eval_set_file(path)
    assert eval_set is None
    assert [d.format().replace(str(tmp_path) + "/", "") for d in diagnostics] == [
        "r.evalset.json:4:30: error duplicate-rubric: Rubric id `r` is used by the eval case and"
        " again by this invocation; google-adk refuses it.\n  hint: Rename one of them."
    ]


def test_a_failing_judge_never_stops_final_response_match_v2(
    cli: Cli, agent_dir: Path, tmp_path: Path, judge: FakeServer
) -> None:
    path = tmp_path / "v2.evalset.json"
    path.write_text(
        json.dumps(
            {"eval_set_id": "v2", "eval_cases": [{"eval_id": "a", "conversation": [WEATHER]}]}
        )
    )
    (tmp_path / "test_config.json").write_text(
        '{"criteria": {"final_response_match_v2": {"threshold": 1,'
        ' "judge_model_options": {"num_samples": 2}}}}'
    )
    code, out, _ = cli("eval", str(agent_dir), str(path), "--judge-model", "openai:judge")
    assert code == 0
    assert "not evaluated: final_response_match_v2 (the judge failed)\n" in out
    assert len(judge.requests) == 2
