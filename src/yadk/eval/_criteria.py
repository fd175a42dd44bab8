"""``test_config.json``: which metrics an eval runs, with their thresholds and options.

``{"criteria": {"tool_trajectory_avg_score": 1.0, "response_match_score": {"threshold": 0.8}}}``
as google-adk reads it (snake_case or camelCase). Without a file, google-adk's defaults apply:
``tool_trajectory_avg_score`` 1.0 and ``response_match_score`` 0.8. Unlike google-adk, a
misspelt metric or option is a located error, never a silently skipped check.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Any, Literal

from yadk.config import Diagnostic
from yadk.eval._discovery import CONFIG_FILE_NAME
from yadk.eval._located import (
    Fields,
    JsonFile,
    anything,
    did_you_mean,
    is_bool,
    is_count,
    is_list,
    is_number,
    is_object,
    is_opt_object,
    is_str,
    kind,
    read_json,
    to_camel,
)
from yadk.eval._model import Rubric
from yadk.eval._rubrics import read_rubrics

__all__ = [
    "CONFIG_FILE_NAME",
    "DEFAULT_CONFIG",
    "RUBRIC_TYPES",
    "EvalConfig",
    "Metric",
    "MetricKind",
    "load_eval_config",
]


MetricKind = Literal["trajectory", "response", "judge", "informational"]

TRAJECTORY = "tool_trajectory_avg_score"
RESPONSE = "response_match_score"
TOOL_CALL_COUNT = "tool_call_count_v1"
INFERENCE_CALL_COUNT = "inference_call_count_v1"

# Every metric google-adk 2.13 knows, and how yadk evaluates it.
_KINDS: dict[str, MetricKind] = {
    TRAJECTORY: "trajectory",
    RESPONSE: "response",
    "response_evaluation_score": "judge",
    "safety_v1": "judge",
    "final_response_match_v2": "judge",
    "rubric_based_final_response_quality_v1": "judge",
    "hallucinations_v1": "judge",
    "rubric_based_tool_use_quality_v1": "judge",
    "per_turn_user_simulator_quality_v1": "judge",
    "multi_turn_task_success_v1": "judge",
    "multi_turn_trajectory_quality_v1": "judge",
    "multi_turn_tool_use_quality_v1": "judge",
    "rubric_based_multi_turn_trajectory_quality_v1": "judge",
    TOOL_CALL_COUNT: "informational",
    INFERENCE_CALL_COUNT: "informational",
    "token_usage_v1": "informational",
    "invocation_duration_v1": "informational",
}
# The informational metrics yadk reports on every eval (google-adk's token and duration ones
# are left out: a scripted model has no token counts, and timings would make results differ
# from run to run).
_REPORTED_INFORMATIONAL = (TOOL_CALL_COUNT, INFERENCE_CALL_COUNT)

MATCH_TYPES = ("EXACT", "IN_ORDER", "ANY_ORDER")

_BASE: Fields = {
    "threshold": (is_number, "a number"),
    "include_intermediate_responses_in_final": (is_bool, "a boolean"),
}
_OPTIONS: dict[MetricKind, Fields] = {
    "trajectory": {
        **_BASE,
        "match_type": (lambda v: isinstance(v, (str, int)) and not isinstance(v, bool), "a string"),
        "ignore_args": (is_bool, "a boolean"),
    },
    "response": _BASE,
    "judge": {**_BASE, "judge_model_options": (is_object, "an object")},
    "informational": _BASE,
}
# Judged metrics take more options than the common ones, each its own (google-adk's criterion
# classes); a key another metric would take is an unknown key here, not silently ignored.
# Each rubric metric, and the `type` an eval case's rubric has when it belongs to that metric.
RUBRIC_TYPES = {
    "rubric_based_final_response_quality_v1": "FINAL_RESPONSE_QUALITY",
    "rubric_based_tool_use_quality_v1": "TOOL_USE_QUALITY",
    "rubric_based_multi_turn_trajectory_quality_v1": "TRAJECTORY_QUALITY",
}
_RUBRIC_METRICS = tuple(RUBRIC_TYPES)
_JUDGE_EXTRA: dict[str, Fields] = {
    **{name: {"rubrics": (is_list, "a list of rubrics")} for name in _RUBRIC_METRICS},
    "hallucinations_v1": {"evaluate_intermediate_nl_responses": (is_bool, "a boolean")},
    "per_turn_user_simulator_quality_v1": {"stop_signal": (is_str, "a string")},
}
_JUDGE_MODEL_OPTIONS: Fields = {
    "judge_model": (is_str, "a string (a model name)"),
    "judge_model_config": (is_object, "an object"),
    "num_samples": (is_count, "a whole number >= 1"),
    "parallelism_limit": (is_count, "a whole number >= 1"),
}
_CONFIG: Fields = {
    "criteria": (is_object, "an object mapping metric names to thresholds"),
    "custom_metrics": (is_opt_object, "an object"),
    "user_simulator_config": (anything, "an object"),
    "live_model_config": (anything, "an object"),
}


@dataclasses.dataclass(frozen=True)
class Metric:
    """One metric to evaluate: its name, threshold and (trajectory) match options."""

    name: str
    threshold: float | None
    kind: MetricKind
    match_type: str = "EXACT"
    ignore_args: bool = False
    criterion: dict[str, Any] | None = None
    rubrics: tuple[Rubric, ...] = ()
    # Where the metric is named in its config file (rubric metrics: to report missing rubrics).
    where: tuple[str, ...] | None = dataclasses.field(default=None, compare=False)

    def to_dict(self) -> dict[str, Any]:
        """google-adk's ``EvalMetric`` fields."""
        return {"metric_name": self.name, "threshold": self.threshold, "criterion": self.criterion}


@dataclasses.dataclass(frozen=True)
class EvalConfig:
    """The metrics of an eval, gating ones first in file order, then the informational ones."""

    metrics: tuple[Metric, ...]
    path: Path | None = None


def _with_informational(metrics: list[Metric]) -> tuple[Metric, ...]:
    named = {m.name for m in metrics}
    extra = [
        Metric(name, None, "informational") for name in _REPORTED_INFORMATIONAL if name not in named
    ]
    return (*metrics, *extra)


DEFAULT_CONFIG = EvalConfig(
    _with_informational(
        [
            Metric(TRAJECTORY, 1.0, "trajectory", criterion={"threshold": 1.0}),
            Metric(RESPONSE, 0.8, "response", criterion={"threshold": 0.8}),
        ]
    )
)


def load_eval_config(path: Path) -> tuple[EvalConfig | None, list[Diagnostic]]:
    """The config in ``path`` and every problem in it (the config is ``None`` on errors)."""
    file, found = read_json(path, what="the eval config")
    if file is None:
        return None, found
    metrics = _parse(file)
    found.extend(file.diagnostics())
    if file.has_errors:
        return None, found
    return EvalConfig(_with_informational(metrics), path), found


def _parse(file: JsonFile) -> list[Metric]:
    top = file.check_object(file.data, (), what="eval config", fields=_CONFIG)
    if top is None:
        return []
    if top.get("custom_metrics"):
        file.problem(
            (_spelling(file.data, "custom_metrics"),),
            "unsupported",
            "Custom metrics (Python functions named in `custom_metrics`) are not run by yadk eval.",
            "Remove them, or check them with google-adk's `adk eval`.",
        )
    for name in ("user_simulator_config", "live_model_config"):
        if name in top:
            file.problem(
                (_spelling(file.data, name),),
                "ignored-key",
                f"`{name}` is not used by yadk eval (it runs static conversations only).",
                severity="warning",
                on_key=True,
            )
    criteria = top.get("criteria", {})
    if "criteria" not in top and "criteria" not in file.data:
        file.problem(
            (),
            "missing-key",
            "An eval config needs `criteria`.",
            'e.g. {"criteria": {"tool_trajectory_avg_score": 1.0, "response_match_score": 0.8}}',
        )
    return [
        metric
        for name, value in criteria.items()
        if (metric := _metric(file, name, value, ("criteria", name))) is not None
    ]


def _spelling(data: Any, name: str) -> str:
    return name if name in data else to_camel(name)


def _metric(file: JsonFile, name: str, value: Any, at: tuple[str, str]) -> Metric | None:
    metric_kind = _KINDS.get(name)
    if metric_kind is None:
        file.problem(
            at,
            "unknown-metric",
            f"Unknown metric `{name}`; google-adk would skip it silently.",
            did_you_mean(name, list(_KINDS)),
            on_key=True,
        )
        return None
    if metric_kind == "informational":
        file.problem(
            at,
            "informational-metric",
            f"`{name}` does not take a threshold: it reports a value and never passes or fails.",
            "Remove it from `criteria`; it is reported on every eval.",
            on_key=True,
        )
        return None
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return Metric(
            name,
            float(value),
            metric_kind,
            criterion={"threshold": float(value)},
            where=at if name in _RUBRIC_METRICS else None,
        )
    if not isinstance(value, dict):
        file.problem(
            at,
            "wrong-type",
            f"The criterion of `{name}` must be a number (the threshold) or an object, "
            f"not {kind(value)}.",
            f'e.g. "{name}": 0.8 or "{name}": {{"threshold": 0.8}}',
        )
        return None
    options = file.check_object(
        value,
        at,
        what=f"`{name}` criterion",
        fields={**_OPTIONS[metric_kind], **_JUDGE_EXTRA.get(name, {})},
        required=("threshold",),
    )
    if options is None or "threshold" not in options:
        return None
    if "judge_model_options" in options:
        file.check_object(
            options["judge_model_options"],
            (*at, _spelling(value, "judge_model_options")),
            what="`judge_model_options` object",
            fields=_JUDGE_MODEL_OPTIONS,
        )
    rubrics: list[Rubric] = []
    if "rubrics" in options:
        rubrics = read_rubrics(file, options["rubrics"], (*at, _spelling(value, "rubrics")))
    match_type = "EXACT"
    if "match_type" in options:
        match_type = _match_type(file, options["match_type"], (*at, _spelling(value, "match_type")))
    return Metric(
        name,
        float(options["threshold"]),
        metric_kind,
        match_type=match_type,
        ignore_args=bool(options.get("ignore_args", False)),
        criterion=dict(value),
        rubrics=tuple(rubrics),
        where=at if name in _RUBRIC_METRICS else None,
    )


def _match_type(file: JsonFile, value: str | int, at: tuple[str, ...]) -> str:
    if isinstance(value, int):
        if 0 <= value < len(MATCH_TYPES):
            return MATCH_TYPES[value]
    else:
        normal = value.strip().upper().replace("-", "_").replace(" ", "_")
        if normal in MATCH_TYPES:
            return normal
    file.problem(
        at,
        "unknown-match-type",
        f"Unknown match_type {value!r}.",
        did_you_mean(str(value), list(MATCH_TYPES)),
    )
    return "EXACT"
