"""Code a config would run on this machine needs the project's opt-in, one setting for every
kind: ``SkillToolset`` with ``allow_scripts: true`` ran skill scripts with none, while a stdio MCP
server needed one. ``validate`` reports an un-opted path at its line with the setting to add."""

from __future__ import annotations

from pathlib import Path

import pytest

from yadk.cli import main
from yadk.config import ConfigError, load_agent, validate_paths

SKILL_MD = "---\nname: tidy\ndescription: Tidies files.\n---\nRun scripts/tidy.sh.\n"
SKILL_HINT = (
    "If this project trusts its configs to run code, add `allow_code_execution ="
    ' ["skill_scripts"]` (or `true`) under [tool.yadk] in the project root\'s pyproject.toml, or'
    " pass `yadk --allow-code-execution skill_scripts ...`; or leave `allow_scripts` out: the"
    " model still reads the skills and their resources."
)


def _agent(tmp_path: Path) -> Path:
    folder = tmp_path / "my_agent"
    skill = folder / "skills" / "tidy"
    (skill / "scripts").mkdir(parents=True)
    (skill / "SKILL.md").write_text(SKILL_MD, encoding="utf-8")
    (skill / "scripts" / "tidy.sh").write_text("touch pwned\n", encoding="utf-8")
    (folder / "root_agent.yaml").write_text(
        "name: a\nmodel: scripted:turns.yaml\ninstruction: hi\ntools:\n"
        "  - name: SkillToolset\n"
        "    args: {skills: [skills], allow_scripts: true}\n",
        encoding="utf-8",
    )
    (folder / "turns.yaml").write_text("turns:\n  - text: done\n", encoding="utf-8")
    return folder


@pytest.mark.parametrize("import_code", [False, True], ids=["static", "import"])
def test_skill_scripts_need_the_opt_in(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, import_code: bool
) -> None:
    folder = _agent(tmp_path)
    monkeypatch.chdir(tmp_path)
    found = validate_paths([folder], import_code=import_code)
    assert [(d.line, d.column, d.rule, d.message, d.hint) for d in found] == [
        (
            6,
            30,
            "untrusted-skill-scripts",
            "Skill scripts are not allowed in agent configs: `allow_scripts: true` lets the model"
            " run the skill folders' scripts as local processes.",
            SKILL_HINT,
        )
    ]


def test_loading_refuses(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    folder = _agent(tmp_path)
    monkeypatch.chdir(tmp_path)
    with pytest.raises(ConfigError) as caught:
        load_agent(folder)
    assert [d.rule for d in caught.value.diagnostics] == ["untrusted-skill-scripts"]


@pytest.mark.parametrize(
    "table",
    [
        'allow_code_execution = ["skill_scripts"]',
        "allow_code_execution = true",
    ],
)
def test_the_project_root_opts_in(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, table: str
) -> None:
    folder = _agent(tmp_path)
    (tmp_path / "pyproject.toml").write_text(f"[tool.yadk]\n{table}\n", encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    assert validate_paths([folder]) == []
    tools = load_agent(folder).tools
    assert [type(t).__name__ for t in tools] == ["SkillToolset"]
    assert tools[0].allow_scripts is True


def test_one_kind_does_not_open_another(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    folder = _agent(tmp_path)
    (tmp_path / "pyproject.toml").write_text(
        '[tool.yadk]\nallow_code_execution = ["stdio_mcp"]\n', encoding="utf-8"
    )
    monkeypatch.chdir(tmp_path)
    assert [d.rule for d in validate_paths([folder])] == ["untrusted-skill-scripts"]


def test_on_the_command_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = _agent(tmp_path)
    monkeypatch.chdir(tmp_path)
    assert main(["validate", str(folder)]) == 1
    assert main(["--allow-code-execution", "skill_scripts", "validate", str(folder)]) == 0
    assert main(["--allow-code-execution=all", "validate", str(folder)]) == 0
    assert main(["validate", str(folder)]) == 1  # not remembered
    capsys.readouterr()


def test_an_agent_folder_cannot_opt_in(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    folder = _agent(tmp_path)
    (tmp_path / "pyproject.toml").write_text("[project]\nname = 'p'\n", encoding="utf-8")
    (folder / "pyproject.toml").write_text(
        "[tool.yadk]\nallow_code_execution = true\n", encoding="utf-8"
    )
    monkeypatch.chdir(tmp_path)
    found = validate_paths([folder])
    assert [(Path(d.path).name, d.line, d.column, d.rule) for d in found] == [
        ("pyproject.toml", 2, 1, "trust-not-widened"),
        ("root_agent.yaml", 6, 30, "untrusted-skill-scripts"),
    ]


STDIO = (
    "name: a\nmodel: scripted:turns.yaml\ninstruction: hi\ntools:\n"
    "  - name: MCPToolset\n"
    "    args:\n"
    "      stdio_server_params: {command: sh}\n"
)


@pytest.mark.parametrize(
    ("table", "rules"),
    [
        ("", ["untrusted-stdio-mcp"]),
        ('allow_code_execution = ["stdio_mcp"]', []),
        ("allow_stdio_mcp_servers = true", []),  # the older spelling
        ('allow_code_execution = ["skill_scripts"]', ["untrusted-stdio-mcp"]),
    ],
)
def test_stdio_mcp_servers_use_the_same_setting(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, table: str, rules: list[str]
) -> None:
    monkeypatch.delenv("ADK_ALLOW_CONFIG_STDIO_MCP_SERVERS", raising=False)
    folder = tmp_path / "my_agent"
    folder.mkdir()
    (folder / "root_agent.yaml").write_text(STDIO, encoding="utf-8")
    (folder / "turns.yaml").write_text("turns:\n  - text: done\n", encoding="utf-8")
    (tmp_path / "pyproject.toml").write_text(f"[tool.yadk]\n{table}\n", encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    assert [d.rule for d in validate_paths([folder])] == rules


@pytest.mark.parametrize(
    ("value", "message"),
    [
        (
            "3",
            "[tool.yadk] allow_code_execution must be true, false or a list of"
            ' "skill_scripts", "stdio_mcp"',
        ),
        (
            '["shell"]',
            "[tool.yadk] allow_code_execution must be true, false or a list of"
            ' "skill_scripts", "stdio_mcp"; got \'shell\'',
        ),
    ],
)
def test_a_malformed_setting_is_located(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, value: str, message: str
) -> None:
    folder = _agent(tmp_path)
    (tmp_path / "pyproject.toml").write_text(
        f"[tool.yadk]\nallow_code_execution = {value}\n", encoding="utf-8"
    )
    monkeypatch.chdir(tmp_path)
    found = validate_paths([folder])
    first = found[0]
    assert (Path(first.path).name, first.line, first.column, first.rule, first.message) == (
        "pyproject.toml",
        2,
        1,
        "pyproject-invalid",
        message,
    )
