"""``yadk eval``: google-adk's eval sets run against an agent, scored as google-adk scores them.

``load_targets([...])`` reads eval sets (EvalSet JSON, the older list format, AgentEvaluator's
``*.test.json``) and their ``test_config.json`` criteria, reporting malformed input as located
diagnostics; ``run_targets(agent_factory(path), targets)`` replays each case on a fresh agent
and scores it offline: ``tool_trajectory_avg_score``, ``response_match_score`` (ROUGE-1 F1 with
google-adk's tokenizer and NLTK's Porter stemmer), and the informational call counts.
"""

from __future__ import annotations

from yadk.eval._api import (
    EvalTarget,
    agent_factory,
    find_eval_files,
    load_targets,
    run_targets,
)
from yadk.eval._criteria import EvalConfig, Metric, load_eval_config
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
