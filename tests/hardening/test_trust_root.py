"""Trust comes from the project root the user runs in (or ``--trust``), never
from inside the folder being loaded; a nested pyproject.toml narrows, never widens. A trusted
standard-library module, or a malformed ``[tool.yadk]``, is reported at its line and column."""

from __future__ import annotations

from pathlib import Path

import pytest

from yadk.cli import main
from yadk.config import validate_paths

PLAIN_PY = """
from yadk.tools import BaseTool


class Plain(BaseTool):
    def __init__(self, level: int = 0) -> None:
        super().__init__(name="plain", description="Plain.")
        self.level = level
"""


def _agent(tmp_path: Path, tools: str) -> Path:
    folder = tmp_path / "my_agent"
    folder.mkdir()
    (folder / "root_agent.yaml").write_text(
        f"name: a\ninstruction: hi\ntools:\n{tools}", encoding="utf-8"
    )
    (folder / "tools.py").write_text(PLAIN_PY, encoding="utf-8")
    return folder


def _found(folder: Path, *, import_code: bool = True) -> list[tuple[str, int, int, str, str]]:
    return [
        (Path(d.path).name, d.line, d.column, d.rule, d.severity)
        for d in validate_paths([folder], import_code=import_code)
    ]


def test_an_agent_folder_cannot_trust_itself(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    victim = tmp_path / "victim"
    victim.mkdir()
    folder = _agent(
        tmp_path, f"  - name: pip._internal.utils.misc.rmtree\n    args: {{dir: '{victim}'}}\n"
    )
    (folder / "pyproject.toml").write_text(
        '[tool.yadk]\ntrusted_modules = ["pip"]\n', encoding="utf-8"
    )
    monkeypatch.chdir(tmp_path)
    assert _found(folder) == [
        ("pyproject.toml", 2, 20, "trust-not-widened", "warning"),
        ("root_agent.yaml", 4, 11, "untrusted-reference", "error"),
    ]
    assert victim.is_dir()
    found = validate_paths([folder], import_code=True)
    assert found[0].message == (
        "[tool.yadk] trusted_modules here lists 'pip', but trust comes only from the project root"
        " or --trust: a nested pyproject.toml can narrow it, never widen it, so this entry has no"
        " effect."
    )


def test_the_project_root_trusts(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    folder = _agent(tmp_path, "  - name: my_agent.tools.Plain\n    args: {level: 2}\n")
    (tmp_path / "pyproject.toml").write_text(
        '[tool.yadk]\ntrusted_modules = ["my_agent"]\n', encoding="utf-8"
    )
    monkeypatch.chdir(tmp_path)
    assert _found(folder) == []
    monkeypatch.chdir(folder)  # the root is the nearest pyproject.toml above the working dir
    assert _found(folder) == []


def test_trust_from_somewhere_else_does_not_count(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    project = tmp_path / "project"
    project.mkdir()
    (project / "pyproject.toml").write_text("[project]\nname = 'p'\n", encoding="utf-8")
    downloads = tmp_path / "downloads"
    downloads.mkdir()
    (downloads / "pyproject.toml").write_text(
        '[tool.yadk]\ntrusted_modules = ["my_agent"]\n', encoding="utf-8"
    )
    folder = _agent(downloads, "  - name: my_agent.tools.Plain\n    args: {level: 2}\n")
    monkeypatch.chdir(project)
    assert _found(folder) == [
        ("pyproject.toml", 2, 20, "trust-not-widened", "warning"),
        ("root_agent.yaml", 5, 11, "args-not-allowed", "error"),
    ]


def test_a_nested_pyproject_narrows(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    folder = _agent(tmp_path, "  - name: my_agent.tools.Plain\n    args: {level: 2}\n")
    (tmp_path / "pyproject.toml").write_text(
        '[tool.yadk]\ntrusted_modules = ["my_agent"]\n', encoding="utf-8"
    )
    (folder / "pyproject.toml").write_text(
        '[tool.yadk]\nallow_args = ["my_agent.tools.Other"]\n', encoding="utf-8"
    )
    monkeypatch.chdir(tmp_path)
    assert _found(folder) == [("root_agent.yaml", 5, 11, "args-not-allowed", "error")]


def test_trust_on_the_command_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = _agent(tmp_path, "  - name: my_agent.tools.Plain\n    args: {level: 2}\n")
    monkeypatch.chdir(tmp_path)
    assert main(["validate", "--import", str(folder)]) == 1
    assert main(["--trust", "my_agent", "validate", "--import", str(folder)]) == 0
    assert main(["validate", "--import", str(folder)]) == 1  # not remembered
    assert main(["--trust", "os", "validate", str(folder)]) == 1
    out = capsys.readouterr().out
    assert (
        "--trust: error pyproject-invalid: --trust cannot trust 'os': the 'os' module is"
        " always blocked" in out
    )


@pytest.mark.parametrize(
    ("pyproject", "line", "column", "message"),
    [
        (
            '[tool.yadk]\ntrusted_modules = ["subprocess"]\n',
            2,
            20,
            "[tool.yadk] trusted_modules cannot trust 'subprocess': the 'subprocess' module is"
            " always blocked",
        ),
        ("tool = 1\n", 1, 1, "`tool` must be a table, such as [tool.yadk]"),
        ("[tool]\nyadk = 1\n", 2, 1, "[tool] yadk must be a table: [tool.yadk]"),
        (
            "[tool.yadk]\nallow_args = 3\n",
            2,
            1,
            "[tool.yadk] allow_args must be a list of strings",
        ),
        (
            "[tool.yadk\n",
            1,
            11,
            "cannot read the [tool.yadk] table: Expected ']' at the end of a table declaration"
            " (at line 1, column 11)",
        ),
    ],
)
def test_pyproject_problems_are_located(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    pyproject: str,
    line: int,
    column: int,
    message: str,
) -> None:
    folder = _agent(tmp_path, "  - name: my_agent.tools.Plain\n")
    (tmp_path / "pyproject.toml").write_text(pyproject, encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    for import_code in (False, True):
        found = validate_paths([folder], import_code=import_code)
        assert [(Path(d.path).name, d.line, d.column, d.rule, d.message) for d in found] == [
            ("pyproject.toml", line, column, "pyproject-invalid", message)
        ]
