"""The public face of yadk.skills."""

from __future__ import annotations

import yadk.skills


def test_all_is_sorted_and_importable() -> None:
    assert yadk.skills.__all__ == sorted(yadk.skills.__all__)
    for name in yadk.skills.__all__:
        assert hasattr(yadk.skills, name), name


def test_contract_names() -> None:
    contract = {
        "Frontmatter",
        "Skill",
        "Resources",
        "load_skill_from_dir",
        "load_skills_from_dir",
        "SkillToolset",
    }
    config_hooks = {
        "skill_toolset_from_paths",
        "validate_skill_dir",
        "validate_skill_paths",
        "SkillProblem",
        "SkillRegistry",
    }

    assert contract | config_hooks <= set(yadk.skills.__all__)
