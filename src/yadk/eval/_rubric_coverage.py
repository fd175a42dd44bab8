"""Rubric metrics without rubrics to judge with: found before anything runs.

Kept free of the engine, so ``yadk validate`` reports them without building an agent.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from yadk.config import Diagnostic, parse_document
from yadk.eval._criteria import RUBRIC_TYPES, EvalConfig

if TYPE_CHECKING:
    from yadk.eval._model import EvalSet

__all__ = ["missing_rubrics"]


def missing_rubrics(
    config: EvalConfig, eval_set: EvalSet, eval_ids: Sequence[str] = ()
) -> list[Diagnostic]:
    """An error for each rubric metric that has no rubric for some selected turn (google-adk
    would report the metric as not evaluated, and the check would silently not happen)."""
    found: list[Diagnostic] = []
    config_path = config.path
    for metric in config.metrics:
        wanted = RUBRIC_TYPES.get(metric.name)
        if wanted is None or metric.rubrics:
            continue
        for case in eval_set.select(list(eval_ids)):
            turns = case.conversation
            if metric.name.endswith("multi_turn_trajectory_quality_v1"):
                turns = turns[-1:]
            if any(r.type == wanted for r in case.rubrics) and turns:
                continue
            bare = [
                i + 1 for i, turn in enumerate(turns) if all(r.type != wanted for r in turn.rubrics)
            ]
            if not bare:
                continue
            line, column = _where(config_path, metric.where)
            found.append(
                Diagnostic(
                    str(config_path),
                    line,
                    column,
                    "missing-rubrics",
                    "error",
                    f"`{metric.name}` has no rubrics to judge eval case `{case.eval_id}` of "
                    f"{eval_set.path.name} with.",
                    'Add "rubrics" to the criterion, or rubrics with "type": '
                    f'"{wanted}" to the eval case or its invocations.',
                )
            )
    return found


def _where(path: Path | None, at: tuple[str, ...] | None) -> tuple[int, int]:
    if path is None or at is None:
        return 0, 0
    document = parse_document(path, path.read_text(encoding="utf-8"), lambda *_: None)
    return document.where(at, key=True) if document is not None else (1, 1)
