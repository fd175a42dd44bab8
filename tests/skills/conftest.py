"""Helpers that write real skill folders under ``tmp_path``."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from pathlib import Path

import pytest

MakeSkill = Callable[..., Path]


def skill_md(
    name: str, description: str = "Does a thing.", body: str = "Do it.", extra: str = ""
) -> str:
    return f"---\nname: {name}\ndescription: {description}\n{extra}---\n{body}\n"


@pytest.fixture
def make_skill(tmp_path: Path) -> MakeSkill:
    """``make_skill("name", text=None, files={"references/a.md": "..."}, parent=None)``."""

    def make(
        name: str,
        text: str | None = None,
        *,
        files: Mapping[str, str | bytes] | None = None,
        parent: Path | None = None,
    ) -> Path:
        folder = (parent or tmp_path / "skills") / name
        folder.mkdir(parents=True, exist_ok=True)
        (folder / "SKILL.md").write_text(skill_md(name) if text is None else text, encoding="utf-8")
        for relative, content in (files or {}).items():
            target = folder / relative
            target.parent.mkdir(parents=True, exist_ok=True)
            if isinstance(content, bytes):
                target.write_bytes(content)
            else:
                target.write_text(content, encoding="utf-8")
        return folder

    return make
