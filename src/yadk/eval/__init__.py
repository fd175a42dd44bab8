"""``yadk eval``: google-adk's eval sets run against an agent, scored as google-adk scores them.

``load_targets([...])`` reads eval sets (EvalSet JSON, the older list format, AgentEvaluator's
``*.test.json``) and their ``test_config.json`` criteria, reporting malformed input as located
diagnostics; ``run_targets(agent_factory(path), targets)`` replays each case on a fresh agent
and scores it offline: ``tool_trajectory_avg_score``, ``response_match_score`` (ROUGE-1 F1 with
google-adk's tokenizer and NLTK's Porter stemmer), and the informational call counts.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from yadk._lazy import lazy_facade

if TYPE_CHECKING:
    from yadk.eval._api import EvalTarget, agent_factory, load_targets, run_targets
    from yadk.eval._criteria import EvalConfig, Metric, load_eval_config
    from yadk.eval._discovery import find_eval_files
    from yadk.eval._evalset import load_eval_set_file
    from yadk.eval._metrics import EvalStatus, MetricResult, trajectory_matches
    from yadk.eval._model import EvalCase, EvalSet, Invocation, ToolCall
    from yadk.eval._results import CaseResult, EvalSetResult
    from yadk.eval._rouge import RougeScore, rouge_1, tokenize

__all__ = [
    "CaseResult",
    "EvalCase",
    "EvalConfig",
    "EvalSet",
    "EvalSetResult",
    "EvalStatus",
    "EvalTarget",
    "Invocation",
    "Metric",
    "MetricResult",
    "RougeScore",
    "ToolCall",
    "agent_factory",
    "find_eval_files",
    "load_eval_config",
    "load_eval_set_file",
    "load_targets",
    "rouge_1",
    "run_targets",
    "tokenize",
    "trajectory_matches",
]

# For yadk's own packages; not part of the public contract (``__all__``). Loaded on first
# use (table below), as the names above are.
if TYPE_CHECKING:
    from yadk.eval._api import check_tool_names as check_tool_names
    from yadk.eval._report import junit_xml as junit_xml
    from yadk.eval._report import text_report as text_report
    from yadk.eval._save import EVALSET_SUFFIX as EVALSET_SUFFIX
    from yadk.eval._save import add_eval_case as add_eval_case
    from yadk.eval._save import eval_case_from_events as eval_case_from_events
    from yadk.eval._save import eval_case_from_session as eval_case_from_session
    from yadk.eval._save import new_eval_set as new_eval_set
    from yadk.eval._validate import check_with_eval_sets as check_with_eval_sets

# Loaded on first use (PEP 562): `yadk validate` reaches yadk.eval._validate without the engine.
__getattr__, __dir__ = lazy_facade(
    globals(),
    {
        "EvalTarget": "yadk.eval._api",
        "agent_factory": "yadk.eval._api",
        "load_targets": "yadk.eval._api",
        "run_targets": "yadk.eval._api",
        "find_eval_files": "yadk.eval._discovery",
        "EvalConfig": "yadk.eval._criteria",
        "Metric": "yadk.eval._criteria",
        "load_eval_config": "yadk.eval._criteria",
        "load_eval_set_file": "yadk.eval._evalset",
        "EvalStatus": "yadk.eval._metrics",
        "MetricResult": "yadk.eval._metrics",
        "trajectory_matches": "yadk.eval._metrics",
        "EvalCase": "yadk.eval._model",
        "EvalSet": "yadk.eval._model",
        "Invocation": "yadk.eval._model",
        "ToolCall": "yadk.eval._model",
        "CaseResult": "yadk.eval._results",
        "EvalSetResult": "yadk.eval._results",
        "RougeScore": "yadk.eval._rouge",
        "rouge_1": "yadk.eval._rouge",
        "tokenize": "yadk.eval._rouge",
        # for yadk's own packages; not part of the public contract
        "check_tool_names": "yadk.eval._api",
        "junit_xml": "yadk.eval._report",
        "text_report": "yadk.eval._report",
        "EVALSET_SUFFIX": "yadk.eval._save",
        "add_eval_case": "yadk.eval._save",
        "eval_case_from_events": "yadk.eval._save",
        "eval_case_from_session": "yadk.eval._save",
        "new_eval_set": "yadk.eval._save",
        "check_with_eval_sets": "yadk.eval._validate",
    },
)
