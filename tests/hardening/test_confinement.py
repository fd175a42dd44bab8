"""Files within bounds: every file a config or a skill names is read through one
helper, so it stays inside its folder (symlinks resolved), is a regular file (a FIFO never hangs
a load) and is at most the documented size; bad paths and bad bytes are located problems."""

from __future__ import annotations

import os
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from yadk import _files
from yadk.config import ConfigError, load_agent, validate_paths
from yadk.errors import ModelError, SkillError
from yadk.models import ScriptedModel
from yadk.skills import SkillToolset, load_skill_from_dir
from yadk.testing import tool_context

TURNS = "turns:\n  - text: hi\n"


def _within(seconds: float, work: Callable[[], Any]) -> Any:
    """``work()``, which must finish within ``seconds`` (a hang fails instead of blocking)."""
    result: list[Any] = []
    failure: list[BaseException] = []

    def run() -> None:
        try:
            result.append(work())
        except BaseException as exc:  # handed to the test's thread
            failure.append(exc)

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    thread.join(seconds)
    assert not thread.is_alive(), f"still running after {seconds} s"
    if failure:
        raise failure[0]
    return result[0]


def _agent(tmp_path: Path, config: str) -> Path:
    folder = tmp_path / "my_agent"
    folder.mkdir(exist_ok=True)
    (folder / "root_agent.yaml").write_text(config, encoding="utf-8")
    return folder


def _problems(folder: Path, *, import_code: bool = False) -> list[tuple[str, int, int, str]]:
    found = _within(30, lambda: validate_paths([folder], import_code=import_code))
    return [(Path(d.path).name, d.line, d.column, d.rule) for d in found if d.is_error]


def test_an_absolute_scripted_path_is_refused(tmp_path: Path) -> None:
    outside = tmp_path / "elsewhere.yaml"
    outside.write_text(TURNS, encoding="utf-8")
    folder = _agent(tmp_path, f"name: a\nmodel: scripted:{outside}\ninstruction: hi\n")
    assert _problems(folder) == [("root_agent.yaml", 2, 8, "path-absolute")]
    with pytest.raises(ConfigError) as caught:
        load_agent(folder)
    assert [d.rule for d in caught.value.diagnostics] == ["path-absolute"]


def test_a_skill_md_symlink_out_of_its_folder_is_refused(tmp_path: Path) -> None:
    secret = tmp_path / "secret.md"
    secret.write_text("---\nname: demo\ndescription: Leaks.\n---\nSECRET\n", encoding="utf-8")
    folder = tmp_path / "skills" / "demo"
    folder.mkdir(parents=True)
    (folder / "SKILL.md").symlink_to(secret)
    assert [(d.rule, d.line) for d in validate_paths([folder])] == [("path-outside-folder", 1)]
    with pytest.raises(SkillError) as caught:
        load_skill_from_dir(folder)
    assert "path-outside-folder" in str(caught.value)
    assert "SECRET" not in str(caught.value)


def test_a_skill_md_symlink_inside_its_folder_is_fine(tmp_path: Path) -> None:
    folder = tmp_path / "demo"
    folder.mkdir()
    (folder / "real.md").write_text("---\nname: demo\ndescription: D.\n---\nBody\n")
    (folder / "SKILL.md").symlink_to(folder / "real.md")
    assert load_skill_from_dir(folder).instructions == "Body"


@pytest.mark.parametrize(
    ("config", "fifo", "where"),
    [
        ("name: a\ninstruction: {file: prompt.md}\n", "prompt.md", ("root_agent.yaml", 2, 21)),
        (
            "name: a\ninstruction: hi\nexamples: examples.yaml\n",
            "examples.yaml",
            ("examples.yaml", 0, 0),
        ),
        ("name: a\nmodel: scripted:turns.yaml\ninstruction: hi\n", "turns.yaml", None),
        ("name: a\ninstruction: hi\n", "pyproject.toml", ("pyproject.toml", 1, 1)),
    ],
    ids=["instruction", "examples", "scripted", "pyproject"],
)
def test_a_fifo_never_hangs_a_load(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    config: str,
    fifo: str,
    where: tuple[str, int, int] | None,
) -> None:
    folder = _agent(tmp_path, config)
    os.mkfifo(folder / fifo)
    monkeypatch.chdir(folder)
    for import_code in (False, True):
        found = _within(
            30, lambda import_code=import_code: validate_paths([folder], import_code=import_code)
        )
        errors = [d for d in found if d.is_error]
        assert len(errors) == 1, errors
        assert "not a regular file" in errors[0].message or "named pipe" in errors[0].message
        if where is not None:
            assert (Path(errors[0].path).name, errors[0].line, errors[0].column) == where


def test_a_fifo_as_the_config_itself(tmp_path: Path) -> None:
    os.mkfifo(tmp_path / "agent.yaml")
    found = _within(30, lambda: validate_paths([tmp_path / "agent.yaml"]))
    assert [d.rule for d in found] == ["not-a-regular-file"]


def test_a_huge_instruction_file_is_not_read(tmp_path: Path) -> None:
    folder = _agent(tmp_path, "name: a\ninstruction: {file: big.md}\n")
    with open(folder / "big.md", "wb") as handle:
        handle.truncate(1 << 30)  # 1 GiB, sparse: costs nothing unless read
    found = _within(30, lambda: validate_paths([folder]))
    assert [(d.rule, d.message) for d in found] == [
        (
            "file-too-large",
            f"The instruction file {folder / 'big.md'} is 1,073,741,824 bytes; the limit for an"
            " instruction file is 1,048,576 bytes.",
        )
    ]


@pytest.mark.parametrize(
    ("path", "message"),
    [
        ("a\\0b.md", "Instruction file: The path 'a\\x00b.md' contains a NUL byte."),
    ],
    ids=["NUL"],
)
def test_unusable_characters_in_a_path(tmp_path: Path, path: str, message: str) -> None:
    folder = _agent(tmp_path, f'name: a\ninstruction: {{file: "{path}"}}\n')
    found = validate_paths([folder])
    assert [(d.line, d.column, d.rule, d.message) for d in found] == [
        (2, 21, "invalid-path", message)
    ]


def test_a_lone_surrogate_in_a_path(tmp_path: Path) -> None:
    # YAML refuses the string before it is used as a path; from Python the helper does.
    folder = _agent(tmp_path, 'name: a\ninstruction: {file: "a\\udfffb.md"}\n')
    found = validate_paths([folder])
    assert [(d.line, d.column, d.rule) for d in found] == [(2, 21, "yaml-invalid-string")]
    with pytest.raises(_files.FileProblem) as caught:
        _files.read_text(folder / "a\udfffb.md", kind="prompt")
    assert caught.value.rule == "invalid-path"


def test_a_non_utf8_scripted_file_is_found_by_validate(tmp_path: Path) -> None:
    folder = _agent(tmp_path, "name: a\nmodel: scripted:turns.yaml\ninstruction: hi\n")
    (folder / "turns.yaml").write_bytes(b"turns:\n  - text: caf\xe9\n")
    for import_code in (False, True):
        found = validate_paths([folder], import_code=import_code)
        assert [(d.line, d.column, d.rule, d.message) for d in found] == [
            (
                2,
                8,
                "scripted-invalid",
                f"The scripted model file {folder / 'turns.yaml'} is not valid UTF-8 (byte 0xe9"
                " at line 2, column 14).",
            )
        ]


def test_a_del_character_in_an_examples_file(tmp_path: Path) -> None:
    folder = _agent(tmp_path, "name: a\ninstruction: hi\nexamples: examples.yaml\n")
    (folder / "examples.yaml").write_text("- input: hi\x7f\n  output: []\n", encoding="utf-8")
    found = validate_paths([folder])
    assert [(Path(d.path).name, d.line, d.column, d.rule) for d in found] == [
        ("examples.yaml", 1, 12, "invalid-examples")
    ]


def test_scripted_model_from_a_fifo(tmp_path: Path) -> None:
    os.mkfifo(tmp_path / "turns.yaml")
    with pytest.raises(ModelError, match="named pipe"):
        _within(30, lambda: ScriptedModel.from_file(tmp_path / "turns.yaml"))


async def test_load_skill_resource_with_a_nul_byte(tmp_path: Path) -> None:
    folder = tmp_path / "skills" / "docs"
    (folder / "references").mkdir(parents=True)
    (folder / "SKILL.md").write_text("---\nname: docs\ndescription: D.\n---\nBody\n")
    (folder / "references" / "a.md").write_text("A")
    toolset = SkillToolset([tmp_path / "skills"])
    tools = {tool.name: tool for tool in await toolset.get_tools()}
    for bad in ("references/a\x00.md", "references/\udfff.md"):
        result = await tools["load_skill_resource"].run_async(
            args={"skill_name": "docs", "file_path": bad}, tool_context=tool_context()
        )
        assert result["error_code"] == "INVALID_RESOURCE_PATH"


def test_the_limits_are_documented() -> None:
    docs = (Path(__file__).parents[2] / "docs" / "config.md").read_text(encoding="utf-8")
    for kind, limit in _files.LIMITS.items():
        assert f"| {_files._WHAT[kind]} | {limit // (1024 * 1024)} MiB |" in docs


def test_a_path_too_long_for_the_file_system(tmp_path: Path) -> None:
    # Found by bench/fuzz.py: ENAMETOOLONG was an internal-error.
    folder = _agent(
        tmp_path, "name: a\nmodel: scripted:" + "[" * 300 + "turns.yaml\ninstruction: hi\n"
    )
    found = validate_paths([folder])
    assert [(d.line, d.column, d.rule) for d in found] == [(2, 8, "invalid-path")]
