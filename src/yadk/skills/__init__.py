"""Skills: folders holding a SKILL.md (frontmatter + instructions) and optional references/,
assets/ and scripts/, offered to a model through ``SkillToolset``.

The facade is the documented contract: loading (``load_skill_from_dir``,
``load_skills_from_dir``), the models (``Frontmatter``, ``Skill``, ``Resources``), the changing
skill set (``SkillRegistry``) and the toolset (``SkillToolset``, ``skill_toolset_from_paths``).
Checking, prompt rendering and the individual tools live in the private modules.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from yadk._lazy import lazy_facade

if TYPE_CHECKING:
    from yadk.skills._loading import load_skill_from_dir, load_skills_from_dir
    from yadk.skills._models import Frontmatter, Skill
    from yadk.skills._registry import SkillRegistry
    from yadk.skills._resources import Resources
    from yadk.skills._toolset import SkillToolset, skill_toolset_from_paths

__all__ = [
    "Frontmatter",
    "Resources",
    "Skill",
    "SkillRegistry",
    "SkillToolset",
    "load_skill_from_dir",
    "load_skills_from_dir",
    "skill_toolset_from_paths",
]

# For yadk's own packages; not part of the public contract (``__all__``). Loaded on first
# use (table below), as the names above are.
if TYPE_CHECKING:
    from yadk.skills._validation import expand_skill_paths as expand_skill_paths
    from yadk.skills._validation import validate_skill_paths as validate_skill_paths

# Loaded on first use: checking a skill (yadk validate) needs no toolset and no engine.
__getattr__, __dir__ = lazy_facade(
    globals(),
    {
        "Frontmatter": "yadk.skills._models",
        "Resources": "yadk.skills._resources",
        "Skill": "yadk.skills._models",
        "SkillRegistry": "yadk.skills._registry",
        "SkillToolset": "yadk.skills._toolset",
        "load_skill_from_dir": "yadk.skills._loading",
        "load_skills_from_dir": "yadk.skills._loading",
        "skill_toolset_from_paths": "yadk.skills._toolset",
        # for yadk's own packages; not part of the public contract
        "expand_skill_paths": "yadk.skills._validation",
        "validate_skill_paths": "yadk.skills._validation",
    },
)
