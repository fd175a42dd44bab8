"""A symlink inside a ``skills/`` folder that points outside the agent folder loaded a skill
from there; every skill a config names must lie inside the agent folder once symlinks are
resolved, and one that does not is refused at the ``skills`` entry, unread."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from yadk.config import ConfigError, load_agent, validate_paths

SKILL_MD = "---\nname: {name}\ndescription: A skill.\n---\nDo it.\n"


def _skill(folder: Path, name: str) -> None:
    folder.mkdir(parents=True)
    (folder / "SKILL.md").write_text(SKILL_MD.format(name=name), encoding="utf-8")


def _agent(tmp_path: Path, skills: str) -> Path:
    folder = tmp_path / "my_agent"
    _skill(folder / "skills" / "inside", "inside")
    _skill(tmp_path / "elsewhere" / "outside", "outside")
    (folder / "root_agent.yaml").write_text(
        f"name: a\nmodel: scripted:turns.yaml\ninstruction: hi\nskills: {skills}\n",
        encoding="utf-8",
    )
    (folder / "turns.yaml").write_text("turns:\n  - text: done\n", encoding="utf-8")
    return folder


@pytest.mark.skipif(not hasattr(os, "symlink"), reason="needs symlinks")
@pytest.mark.parametrize("import_code", [False, True], ids=["static", "import"])
def test_a_symlinked_skill_inside_skills_is_refused(tmp_path: Path, import_code: bool) -> None:
    folder = _agent(tmp_path, "[skills]")
    os.symlink(tmp_path / "elsewhere" / "outside", folder / "skills" / "linked")
    found = validate_paths([folder], import_code=import_code)
    real = os.path.realpath(tmp_path / "elsewhere" / "outside")
    assert [(d.line, d.column, d.rule, d.message) for d in found] == [
        (
            4,
            10,
            "path-outside-folder",
            f"Skill folder `skills/linked` leads outside the agent folder {folder} (to {real},"
            " through a symlink): it is not read.",
        )
    ]
    with pytest.raises(ConfigError):
        load_agent(folder)


@pytest.mark.skipif(not hasattr(os, "symlink"), reason="needs symlinks")
def test_a_symlinked_skills_folder_is_refused(tmp_path: Path) -> None:
    folder = _agent(tmp_path, "[shared]")
    os.symlink(tmp_path / "elsewhere", folder / "shared")
    assert [(d.line, d.column, d.rule) for d in validate_paths([folder])] == [
        (4, 10, "path-outside-folder")
    ]


def test_skills_inside_the_folder_load(tmp_path: Path) -> None:
    folder = _agent(tmp_path, "[skills]")
    assert validate_paths([folder]) == []
    toolset = load_agent(folder).tools[0]
    assert list(toolset.registry.skills) == ["inside"]
