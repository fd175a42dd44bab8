"""SkillRegistry: a skill set that can change between turns."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from yadk.errors import SkillError
from yadk.skills import Frontmatter, Skill, SkillRegistry


def _inline(name: str) -> Skill:
    return Skill(frontmatter=Frontmatter(name=name, description="d"), instructions="i")


def _touch_later(path: Path, text: str) -> None:
    """Rewrite ``path`` and move its mtime forward, so the change is seen even on coarse clocks."""
    before = path.stat().st_mtime_ns
    path.write_text(text)
    os.utime(path, ns=(before + 10**9, before + 10**9))


def test_builds_from_paths_and_skills(make_skill, tmp_path: Path) -> None:
    make_skill("alpha")
    make_skill("beta")

    registry = SkillRegistry([_inline("inline")], paths=["skills"], base_dir=tmp_path)

    assert list(registry.skills) == ["inline", "alpha", "beta"]
    assert "alpha" in registry and len(registry) == 3
    assert registry.get("nope") is None
    assert registry.version == 1


def test_construction_is_strict(make_skill, tmp_path: Path) -> None:
    make_skill("alpha", "---\nname: alpha\n---\n")

    with pytest.raises(SkillError, match="skill-description-required"):
        SkillRegistry(paths=[tmp_path / "skills"])


def test_duplicate_names_raise() -> None:
    with pytest.raises(SkillError) as caught:
        SkillRegistry([_inline("a"), _inline("a")])

    assert str(caught.value) == "Duplicate skill name 'a'."


def test_duplicate_between_inline_and_folder(make_skill, tmp_path: Path) -> None:
    make_skill("alpha")

    with pytest.raises(SkillError) as caught:
        SkillRegistry([_inline("alpha")], paths=[tmp_path / "skills"])

    assert str(caught.value).startswith(
        f"{tmp_path}/skills/alpha: error skill-name-duplicate: Duplicate skill name 'alpha'."
    )


def test_refresh_rereads_only_changed_skills(make_skill, tmp_path: Path) -> None:
    alpha = make_skill("alpha")
    make_skill("beta")
    registry = SkillRegistry(paths=[tmp_path / "skills"])
    old_alpha, old_beta = registry.get("alpha"), registry.get("beta")

    assert registry.refresh() == []
    assert registry.version == 1
    assert registry.get("alpha") is old_alpha

    _touch_later(alpha / "SKILL.md", "---\nname: alpha\ndescription: New.\n---\nNew body.\n")
    assert registry.refresh() == []

    assert registry.version == 2
    assert registry.get("alpha").description == "New."  # type: ignore[union-attr]
    assert registry.get("beta") is old_beta


def test_refresh_sees_added_and_removed_skills(make_skill, tmp_path: Path) -> None:
    make_skill("alpha")
    registry = SkillRegistry(paths=[tmp_path / "skills"])

    make_skill("beta")
    registry.refresh()
    assert list(registry.skills) == ["alpha", "beta"]
    assert registry.version == 2

    shutil.rmtree(tmp_path / "skills" / "alpha")
    registry.refresh()
    assert list(registry.skills) == ["beta"]
    assert registry.version == 3


def test_a_broken_edit_keeps_the_last_good_skill(make_skill, tmp_path: Path) -> None:
    alpha = make_skill("alpha")
    registry = SkillRegistry(paths=[tmp_path / "skills"])
    good = registry.get("alpha")

    _touch_later(alpha / "SKILL.md", "---\nname: alpha\ndescription: [oops\n---\n")
    problems = registry.refresh()

    assert [p.rule for p in problems] == ["skill-frontmatter-yaml"]
    assert registry.get("alpha") is good
    assert registry.version == 1
    assert registry.refresh() == problems  # still reported until fixed
    assert [p.rule for p in registry.problems] == ["skill-frontmatter-yaml"]

    _touch_later(alpha / "SKILL.md", "---\nname: alpha\ndescription: Fixed.\n---\n")
    assert [p.rule for p in registry.refresh()] == ["skill-body-empty"]
    assert registry.get("alpha").description == "Fixed."  # type: ignore[union-attr]


def test_a_new_broken_skill_is_left_out(make_skill, tmp_path: Path) -> None:
    make_skill("alpha")
    registry = SkillRegistry(paths=[tmp_path / "skills"])

    make_skill("beta", "no frontmatter")
    problems = registry.refresh()

    assert list(registry.skills) == ["alpha"]
    assert [p.rule for p in problems] == ["skill-frontmatter-missing"]
    assert registry.version == 1


def test_a_refresh_duplicate_keeps_the_first(make_skill, tmp_path: Path) -> None:
    make_skill("alpha")
    make_skill("other", parent=tmp_path / "more")
    registry = SkillRegistry(paths=[tmp_path / "skills", tmp_path / "more"])
    first = registry.get("alpha")

    make_skill("alpha", parent=tmp_path / "more")
    problems = registry.refresh()

    assert [p.rule for p in problems] == ["skill-name-duplicate"]
    assert registry.get("alpha") is first


def test_replace_swaps_the_set() -> None:
    registry = SkillRegistry([_inline("a")])

    registry.replace([_inline("b"), _inline("c")])

    assert list(registry.skills) == ["b", "c"]
    assert registry.version == 2
    with pytest.raises(SkillError, match="Duplicate skill name 'b'."):
        registry.replace([_inline("b"), _inline("b")])
    assert list(registry.skills) == ["b", "c"]
