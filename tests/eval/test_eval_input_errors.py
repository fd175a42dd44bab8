"""Malformed eval sets and test_config.json files: every problem located, with a hint.

google-adk silently skips a misspelt metric, ignores unknown keys in many places and ends in
``TypeError: string indices must be integers`` on some malformed files; yadk reports each one
as ``path:line:col: severity rule: message`` before anything runs.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from tests.eval._helpers import Cli

from yadk.eval import load_eval_config, load_eval_set_file

EVAL_SETS = [
    (
        "syntax.evalset.json",
        '{"eval_set_id": "x",\n "eval_cases": [}\n',
        ["syntax.evalset.json:2:17: error json-syntax: Invalid JSON: Expecting value."],
    ),
    (
        "top_typo.evalset.json",
        '{"eval_set_id": "x", "eval_case": []}\n',
        [
            "top_typo.evalset.json:1:22: error unknown-key: Unknown key `eval_case` in an eval set.\n"
            "  hint: Did you mean `eval_cases`?",
            "top_typo.evalset.json:1:1: error missing-key: An eval set needs `eval_cases`.",
        ],
    ),
    (
        "id_type.evalset.json",
        '{\n  "eval_set_id": "x",\n  "eval_cases": [{"eval_id": 7, "conversation": []}]\n}\n',
        ["id_type.evalset.json:3:30: error wrong-type: `eval_id` must be a string, not a number."],
    ),
    (
        "inv_typo.evalset.json",
        '{"eval_set_id": "x", "eval_cases": [\n  {"eval_id": "a", "conversation": [\n'
        '    {"user_content": {"parts": [{"text": "hi"}]}, "final_respons": {"parts": []}}\n'
        "  ]}\n]}\n",
        [
            "inv_typo.evalset.json:3:51: error unknown-key: Unknown key `final_respons` in an"
            " invocation.\n  hint: Did you mean `final_response`?"
        ],
    ),
    (
        "case_extra.evalset.json",
        '{"eval_set_id": "x", "eval_cases": [\n  {"eval_id": "a", "conversation": [], "notes": "mine"}\n]}\n',
        [
            "case_extra.evalset.json:2:40: warning unknown-key: Unknown key `notes` in an eval"
            " case.\n  hint: Expected one of: `eval_id`, `conversation`, `conversation_scenario`,"
            " `session_input`, `creation_timestamp`, `rubrics`, `final_session_state`."
        ],
    ),
    (
        "content.evalset.json",
        '{"eval_set_id": "x", "eval_cases": [\n  {"eval_id": "a", "conversation": [\n'
        '    {"user_content": {"parts": [{"txt": "hi"}]}}\n  ]}\n]}\n',
        [
            "content.evalset.json:3:34: error invalid-content: Unknown key `txt` in a content.\n"
            "  hint: Did you mean `text`?"
        ],
    ),
    (
        "call.evalset.json",
        '{"eval_set_id": "x", "eval_cases": [\n  {"eval_id": "a", "conversation": [\n'
        '    {"user_content": {"parts": [{"text": "hi"}]},\n'
        '     "intermediate_data": {"tool_uses": [{"args": {"q": 1}}]}}\n  ]}\n]}\n',
        ["call.evalset.json:4:42: error missing-key: A function call needs `name`."],
    ),
    (
        "dupkey.evalset.json",
        '{"eval_set_id": "x",\n "eval_set_id": "y",\n "eval_cases": [{"eval_id": "a", "conversation": []}]}\n',
        [
            "dupkey.evalset.json:2:2: error duplicate-key: Key `eval_set_id` appears twice in an"
            " eval set; JSON readers silently keep only the last value.\n"
            "  hint: Remove one of them."
        ],
    ),
    (
        "dupid.evalset.json",
        '{"eval_set_id": "x", "eval_cases": [\n  {"eval_id": "a", "conversation": []},\n'
        '  {"eval_id": "a", "conversation": []}\n]}\n',
        [
            "dupid.evalset.json:3:15: error duplicate-eval-id: Eval case `a` appears twice (first"
            " as case 1).\n  hint: Give every case its own `eval_id`; `EVALSET:ID` selects cases"
            " by it."
        ],
    ),
    (
        "scenario.evalset.json",
        '{"eval_set_id": "x", "eval_cases": [\n  {"eval_id": "a", "conversation_scenario": {"starting_prompt": "hi"}}\n]}\n',
        [
            "scenario.evalset.json:2:45: error unsupported: Eval cases with a"
            " `conversation_scenario` need google-adk's LLM user simulator, which yadk eval does"
            " not run.\n  hint: Write the conversation out as `conversation` (or save one with"
            " `yadk run --save-evalcase`)."
        ],
    ),
    (
        "no_conv.evalset.json",
        '{"eval_set_id": "x", "eval_cases": [{"eval_id": "a"}]}\n',
        [
            "no_conv.evalset.json:1:37: error missing-key: An eval case needs `conversation` (a"
            " list of invocations)."
        ],
    ),
    (
        "string.evalset.json",
        '"hello"\n',
        [
            "string.evalset.json:1:1: error wrong-type: An eval set must be an object or a list,"
            ' not a string.\n  hint: Write an EvalSet ({"eval_set_id": ..., "eval_cases": [...]}),'
            ' the list format ([{"name": ..., "data": [{"query": ...}]}]) or a test file'
            ' ([{"query": ...}]).'
        ],
    ),
    (
        "old_typo.json",
        '[{"name": "a", "data": [\n  {"query": "hi", "refrence": "yo"}\n]}]\n',
        [
            "old_typo.json:2:19: error unknown-key: Unknown key `refrence` in a query.\n"
            "  hint: Did you mean `reference`?"
        ],
    ),
    (
        "flat.test.json",
        '[\n  {"query": "hi", "expected_tool_use": [{"tool_name": "f"}], "reference": "yo"}\n]\n',
        ["flat.test.json:2:41: error missing-key: A tool use needs `tool_input`."],
    ),
]

CONFIGS = [
    (
        '{"criteria": {\n  "response_match_scor": 0.8\n}}\n',
        [
            "test_config.json:2:3: error unknown-metric: Unknown metric `response_match_scor`;"
            " google-adk would skip it silently.\n  hint: Did you mean `response_match_score`?"
        ],
    ),
    (
        '{"criteria": {\n  "tool_trajectory_avg_score": {"threshold": 1, "match_type": "INORDER"}\n}}\n',
        [
            "test_config.json:2:63: error unknown-match-type: Unknown match_type 'INORDER'.\n"
            "  hint: Did you mean `IN_ORDER`?"
        ],
    ),
    (
        '{"criteria": {\n  "tool_trajectory_avg_score": {"threshold": 1, "ignore_arg": true}\n}}\n',
        [
            "test_config.json:2:49: error unknown-key: Unknown key `ignore_arg` in a"
            " `tool_trajectory_avg_score` criterion.\n  hint: Did you mean `ignore_args`?"
        ],
    ),
    (
        '{"criteria": {\n  "response_match_score": "0.8"\n}}\n',
        [
            "test_config.json:2:27: error wrong-type: The criterion of `response_match_score`"
            " must be a number (the threshold) or an object, not a string.\n"
            '  hint: e.g. "response_match_score": 0.8 or "response_match_score": {"threshold": 0.8}'
        ],
    ),
    (
        '{"criteria": {\n  "response_match_score": {"treshold": 0.8}\n}}\n',
        [
            "test_config.json:2:28: error unknown-key: Unknown key `treshold` in a"
            " `response_match_score` criterion.\n  hint: Did you mean `threshold`?",
            "test_config.json:2:27: error missing-key: A `response_match_score` criterion needs"
            " `threshold`.",
        ],
    ),
    (
        '{"criteria": {\n  "tool_call_count_v1": 3\n}}\n',
        [
            "test_config.json:2:3: error informational-metric: `tool_call_count_v1` does not take"
            " a threshold: it reports a value and never passes or fails.\n"
            "  hint: Remove it from `criteria`; it is reported on every eval."
        ],
    ),
    (
        '{"criteria": {"response_match_score": 0.8},\n "custom_metrics": {"m": {"code_config": {"name": "a.b"}}}}\n',
        [
            "test_config.json:2:20: error unsupported: Custom metrics (Python functions named in"
            " `custom_metrics`) are not run by yadk eval.\n"
            "  hint: Remove them, or check them with google-adk's `adk eval`."
        ],
    ),
    (
        '{"criterias": {}}\n',
        [
            "test_config.json:1:2: error unknown-key: Unknown key `criterias` in an eval config.\n"
            "  hint: Did you mean `criteria`?",
            "test_config.json:1:1: error missing-key: An eval config needs `criteria`.\n"
            '  hint: e.g. {"criteria": {"tool_trajectory_avg_score": 1.0, "response_match_score":'
            " 0.8}}",
        ],
    ),
    (
        '{"criteria": {"response_match_score": {"threshold": 0.8, "match_type": "EXACT"}}}\n',
        [
            "test_config.json:1:58: error unknown-key: Unknown key `match_type` in a"
            " `response_match_score` criterion.\n"
            "  hint: Expected one of: `threshold`, `include_intermediate_responses_in_final`."
        ],
    ),
]


@pytest.mark.parametrize(("name", "text", "expected"), EVAL_SETS, ids=[c[0] for c in EVAL_SETS])
def test_malformed_eval_sets(tmp_path: Path, name: str, text: str, expected: list[str]) -> None:
    (tmp_path / name).write_text(text)
    eval_set, diagnostics = load_eval_set_file(tmp_path / name)
    assert [d.format() for d in diagnostics] == expected
    assert (eval_set is None) == any(d.is_error for d in diagnostics)


@pytest.mark.parametrize(("text", "expected"), CONFIGS)
def test_malformed_test_configs(tmp_path: Path, text: str, expected: list[str]) -> None:
    (tmp_path / "test_config.json").write_text(text)
    config, diagnostics = load_eval_config(tmp_path / "test_config.json")
    assert [d.format() for d in diagnostics] == expected
    assert config is None


def test_every_problem_of_every_file_is_reported_at_once_and_nothing_runs(
    cli: Cli, agent_dir: Path, tmp_path: Path
) -> None:
    (tmp_path / "a.evalset.json").write_text('{"eval_set_id": "x", "eval_case": []}\n')
    (tmp_path / "b.test.json").write_text('[{"qeury": "hi"}]\n')
    (tmp_path / "test_config.json").write_text('{"criteria": {"response_match": 0.8}}\n')
    code, out, err = cli("eval", str(agent_dir), str(tmp_path))
    assert (code, out) == (2, "")
    assert err.splitlines() == [
        "a.evalset.json:1:22: error unknown-key: Unknown key `eval_case` in an eval set.",
        "  hint: Did you mean `eval_cases`?",
        "a.evalset.json:1:1: error missing-key: An eval set needs `eval_cases`.",
        "test_config.json:1:15: error unknown-metric: Unknown metric `response_match`;"
        " google-adk would skip it silently.",
        "  hint: Did you mean `response_match_score`?",
        "b.test.json:1:3: error unknown-key: Unknown key `qeury` in a query.",
        "  hint: Did you mean `query`?",
        "b.test.json:1:2: error missing-key: A query needs `query`.",
        "yadk eval: error: 5 problems in the eval input; nothing was run",
    ]


def test_args_missing_vs_empty_is_kept_apart_as_google_adk_does(tmp_path: Path) -> None:
    path = tmp_path / "x.evalset.json"
    path.write_text(
        '{"eval_set_id": "x", "eval_cases": [{"eval_id": "a", "conversation": [\n'
        ' {"user_content": {"parts": [{"text": "hi"}]}, "intermediate_data": {"tool_uses":'
        ' [{"name": "f"}, {"name": "g", "args": {}}]}}]}]}\n'
    )
    eval_set, _ = load_eval_set_file(path)
    assert eval_set is not None
    calls = eval_set.cases[0].conversation[0].tool_uses
    assert [(c.name, c.args) for c in calls] == [("f", None), ("g", {})]
