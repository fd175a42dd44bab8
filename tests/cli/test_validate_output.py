"""How ``yadk validate`` reports diagnostics: summary line, GitHub annotations, JSON shape."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from yadk.cli._validate import diagnostic_dict, github_line, summary
from yadk.config._diagnostics import Diagnostic


def diag(severity: str = "error", *, line: int = 3, hint: str = "", path: str = "") -> Diagnostic:
    return Diagnostic(
        path=path or str(Path.cwd() / "configs" / "a.yaml"),
        line=line,
        column=5 if line else 0,
        rule="unknown-key",
        severity=severity,  # type: ignore[arg-type]
        message="unknown key 'instructions'",
        hint=hint,
    )


@pytest.mark.parametrize(
    ("diagnostics", "paths", "expected"),
    [
        ([], {"agent": 3}, "no problems found in 3 agents"),
        ([diag()], {"agent": 1, "skill": 0}, "1 error in 1 agent"),
        ([diag("warning")], {"agent": 2, "skill": 1}, "1 warning in 2 agents, 1 skill"),
        (
            [diag(), diag(), diag("warning")],
            {"agent": 3, "eval file": 2},
            "2 errors, 1 warning in 3 agents, 2 eval files",
        ),
        ([diag()], {"agent": 0}, "1 error"),
    ],
)
def test_summary(diagnostics: list[Diagnostic], paths: dict[str, int], expected: str) -> None:
    assert summary(diagnostics, paths) == expected


@pytest.mark.parametrize(
    ("fields", "expected"),
    [
        (
            {},
            "::error file=configs/a.yaml,line=3,col=5::unknown-key: unknown key 'instructions'",
        ),
        (
            {"severity": "warning", "hint": "did you mean 'instruction'?"},
            (
                "::warning file=configs/a.yaml,line=3,col=5::unknown-key: unknown key"
                " 'instructions'%0Adid you mean 'instruction'?"
            ),
        ),
        (
            {"line": 0, "path": "/elsewhere/x,y:z.yaml"},
            "::error file=/elsewhere/x%2Cy%3Az.yaml::unknown-key: unknown key 'instructions'",
        ),
    ],
)
def test_github_line(fields: dict[str, Any], expected: str) -> None:
    # Built here, not at collection: the path is made relative to the test's working folder.
    assert github_line(diag(**fields)) == expected


def test_json_shape_keeps_every_field() -> None:
    assert diagnostic_dict(diag(hint="h", path="/abs/a.yaml")) == {
        "path": "/abs/a.yaml",
        "line": 3,
        "column": 5,
        "rule": "unknown-key",
        "severity": "error",
        "message": "unknown key 'instructions'",
        "hint": "h",
        "note": "",
    }
