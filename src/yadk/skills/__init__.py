"""Skills: folders holding a SKILL.md (frontmatter + instructions) and optional references/,
assets/ and scripts/, offered to a model through ``SkillToolset``.

Loading (``load_skill_from_dir``, ``load_skills_from_dir``, ``list_skills_in_dir``), checking
(``validate_skill_dir``, ``validate_skill_paths`` -> ``SkillProblem``), the changing skill set
(``SkillRegistry``) and the toolset (``SkillToolset``, ``skill_toolset_from_paths``).
"""

from yadk.skills._loading import list_skills_in_dir, load_skill_from_dir, load_skills_from_dir
from yadk.skills._models import Frontmatter, Skill
from yadk.skills._prompt import format_skills_as_xml, skill_system_instruction
from yadk.skills._registry import SkillRegistry
from yadk.skills._resources import (
    DEFAULT_MAX_RESOURCE_BYTES,
    Resources,
    ResourceTooLargeError,
    Script,
)
from yadk.skills._scripts import RunSkillScriptTool
from yadk.skills._tools import ListSkillsTool, LoadSkillResourceTool, LoadSkillTool
from yadk.skills._toolset import DEFAULT_SCRIPT_TIMEOUT, SkillToolset, skill_toolset_from_paths
from yadk.skills._validation import (
    SkillProblem,
    expand_skill_paths,
    validate_skill_dir,
    validate_skill_paths,
)

__all__ = [
    "DEFAULT_MAX_RESOURCE_BYTES",
    "DEFAULT_SCRIPT_TIMEOUT",
    "Frontmatter",
    "ListSkillsTool",
    "LoadSkillResourceTool",
    "LoadSkillTool",
    "ResourceTooLargeError",
    "Resources",
    "RunSkillScriptTool",
    "Script",
    "Skill",
    "SkillProblem",
    "SkillRegistry",
    "SkillToolset",
    "expand_skill_paths",
    "format_skills_as_xml",
    "list_skills_in_dir",
    "load_skill_from_dir",
    "load_skills_from_dir",
    "skill_system_instruction",
    "skill_toolset_from_paths",
    "validate_skill_dir",
    "validate_skill_paths",
]
