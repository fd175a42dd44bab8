"""Eval results as text (a readable table) and as JUnit XML for CI systems.

Text: one line per case with each gating metric's score against its threshold; for a failing
case, every invocation whose metrics failed, expected and actual tool calls and responses side by
side. JUnit: one ``<testsuite>`` per eval set, one ``<testcase>`` per case (and run), a
``<failure>`` naming each failed metric, its score and threshold.
"""

from __future__ import annotations

import textwrap
import xml.etree.ElementTree as ET
from collections.abc import Sequence
from itertools import zip_longest

from yadk._paths import display_path
from yadk.eval._metrics import EvalStatus, MetricResult
from yadk.eval._model import Invocation
from yadk.eval._results import CaseResult, EvalSetResult, format_score

__all__ = ["junit_xml", "summary_line", "text_report"]

_COLUMN = 44
_LABELS = {
    EvalStatus.PASSED: "PASS",
    EvalStatus.FAILED: "FAIL",
    EvalStatus.NOT_EVALUATED: "N/A ",
    EvalStatus.INFORMATIONAL: "INFO",
}


def _case_name(case: CaseResult, runs: int) -> str:
    return f"{case.eval_id} (run {case.run})" if runs > 1 else case.eval_id


def _runs(result: EvalSetResult) -> int:
    return max((case.run for case in result.cases), default=1)


def _metric_cell(metric: MetricResult) -> str:
    threshold = format_score(metric.metric.threshold)
    if metric.status == EvalStatus.NOT_EVALUATED:
        return f"{metric.metric.name} not evaluated"
    sign = ">=" if metric.status == EvalStatus.PASSED else "<"
    return f"{metric.metric.name} {format_score(metric.score)} {sign} {threshold}"


def text_report(results: Sequence[EvalSetResult]) -> str:
    """The whole report: each eval set's table, the failure details, and the summary line."""
    lines: list[str] = []
    for result in results:
        config = result.config.path
        criteria = display_path(config) if config else "google-adk's default criteria"
        lines.append(f"{display_path(result.eval_set.path)}  (criteria: {criteria})")
        runs = _runs(result)
        width = max((len(_case_name(c, runs)) for c in result.cases), default=0)
        for case in result.cases:
            gating = [m for m in case.metrics if m.status != EvalStatus.INFORMATIONAL]
            cells = "  ".join(_metric_cell(m) for m in gating)
            if case.error is not None:
                cells = f"error: {case.error}"
            label = _LABELS[case.status]
            lines.append(f"  {label}  {_case_name(case, runs).ljust(width)}  {cells}".rstrip())
            if case.status == EvalStatus.FAILED and case.error is None:
                lines.extend(_failure_details(case))
        lines.append("")
    notes = {
        m.metric.name: m.note
        for r in results
        for c in r.cases
        for m in c.metrics
        if m.status == EvalStatus.NOT_EVALUATED and m.note
    }
    for name, note in sorted(notes.items()):
        lines.append(f"not evaluated: {name} ({note})")
    lines.append(summary_line(results))
    return "\n".join(lines)


def summary_line(results: Sequence[EvalSetResult]) -> str:
    cases = [case for result in results for case in result.cases]
    failed = sum(1 for case in cases if case.status == EvalStatus.FAILED)
    passed = sum(1 for case in cases if case.status == EvalStatus.PASSED)
    other = len(cases) - failed - passed
    text = f"{len(cases)} case{'s' if len(cases) != 1 else ''}: {passed} passed, {failed} failed"
    return text + (f", {other} not evaluated" if other else "")


def _failure_details(case: CaseResult) -> list[str]:
    lines: list[str] = []
    failing = [m for m in case.metrics if m.status == EvalStatus.FAILED]
    for index, (actual, expected) in enumerate(zip(case.actual, case.expected, strict=False)):
        bad = [
            m
            for m in failing
            if index < len(m.per_invocation) and m.per_invocation[index][1] == EvalStatus.FAILED
        ]
        if not bad:
            continue
        scores = ", ".join(
            f"{m.metric.name} {format_score(m.per_invocation[index][0])}" for m in bad
        )
        lines.append(f"        invocation {index + 1}: {expected.user_text()!r} ({scores})")
        lines.extend(_side_by_side(expected, actual))
    return lines


def _calls(invocation: Invocation) -> str:
    return "\n".join(call.format() for call in invocation.tool_uses) or "(no tool calls)"


def _side_by_side(expected: Invocation, actual: Invocation) -> list[str]:
    rows = [
        ("expected tool calls", "actual tool calls"),
        (_calls(expected), _calls(actual)),
        ("expected response", "actual response"),
        (expected.response_text() or "(none)", actual.response_text() or "(none)"),
    ]
    lines: list[str] = []
    for left, right in rows:
        left_lines = _wrap(left)
        right_lines = _wrap(right)
        for a, b in zip_longest(left_lines, right_lines, fillvalue=""):
            lines.append(f"          {a.ljust(_COLUMN)} | {b}".rstrip())
    return lines


def _wrap(text: str) -> list[str]:
    lines: list[str] = []
    for paragraph in text.splitlines() or [""]:
        lines.extend(textwrap.wrap(paragraph, _COLUMN) or [""])
    return lines


def _metric_line(metric: MetricResult) -> str:
    line = f"{metric.metric.name}: {format_score(metric.score)} ({metric.status.name}"
    if metric.status == EvalStatus.NOT_EVALUATED and metric.note:
        line += f": {metric.note}"
    return line + ")"


def junit_xml(results: Sequence[EvalSetResult]) -> str:
    """JUnit XML: a ``<testsuites>`` of one ``<testsuite>`` per eval set."""
    root = ET.Element("testsuites", name="yadk eval")
    totals = {"tests": 0, "failures": 0, "errors": 0, "skipped": 0}
    for result in results:
        runs = _runs(result)
        suite = ET.SubElement(root, "testsuite", name=result.eval_set.eval_set_id)
        counts = {"tests": 0, "failures": 0, "errors": 0, "skipped": 0}
        for case in result.cases:
            counts["tests"] += 1
            test = ET.SubElement(
                suite,
                "testcase",
                classname=result.eval_set.eval_set_id,
                name=_case_name(case, runs),
                file=display_path(result.eval_set.path),
            )
            if case.error is not None:
                counts["errors"] += 1
                error = ET.SubElement(test, "error", message=case.error, type="RunError")
                error.text = case.error
            elif case.status == EvalStatus.FAILED:
                counts["failures"] += 1
                reasons = case.failures()
                failure = ET.SubElement(
                    test, "failure", message="; ".join(reasons), type="EvalFailure"
                )
                failure.text = "\n".join([*reasons, "", *_failure_details(case)])
            elif case.status == EvalStatus.NOT_EVALUATED:
                counts["skipped"] += 1
                reasons = [f"{m.metric.name} ({m.note})" for m in case.metrics if m.note]
                message = "not evaluated: " + ("; ".join(reasons) or "no gating metric")
                ET.SubElement(test, "skipped", message=message)
            out = ET.SubElement(test, "system-out")
            out.text = "\n".join(_metric_line(m) for m in case.metrics)
        for key, value in counts.items():
            suite.set(key, str(value))
            totals[key] += value
    for key, value in totals.items():
        root.set(key, str(value))
    ET.indent(root)
    return '<?xml version="1.0" encoding="UTF-8"?>\n' + ET.tostring(root, encoding="unicode")
