"""Loading skills from folders: one skill, every skill in a folder, or a listing that skips
invalid skills instead of raising."""

from __future__ import annotations

import logging
import os
from collections.abc import Callable, Iterable
from pathlib import Path

from yadk.errors import SkillError
from yadk.skills._models import Frontmatter, Skill
from yadk.skills._validation import SkillProblem, read_skill_dir

__all__ = [
    "format_problems",
    "list_skills_in_dir",
    "load_skill_from_dir",
    "load_skills_from_dir",
]

logger = logging.getLogger("yadk.skills")


def format_problems(problems: Iterable[SkillProblem]) -> str:
    """The text of a ``SkillError``: one formatted problem per line, errors only."""
    return "\n".join(p.format() for p in problems if p.severity == "error")


def load_skill_from_dir(skill_dir: str | os.PathLike[str]) -> Skill:
    """Load the skill in ``skill_dir`` (its SKILL.md; resources are read when asked for).

    Raises ``SkillError`` naming every problem (file, line, column) if the skill is invalid.
    """
    skill, problems = read_skill_dir(skill_dir)
    if skill is None:
        raise SkillError(format_problems(problems))
    return skill


def _skills_folder(skills_dir: str | os.PathLike[str]) -> Path:
    folder = Path(os.path.abspath(skills_dir))
    if not folder.exists():
        raise SkillError(f"Skills directory '{folder}' does not exist.")
    if not folder.is_dir():
        raise SkillError(f"'{folder}' is not a directory.")
    return folder


def _candidates(folder: Path) -> list[Path]:
    return [
        child
        for child in sorted(folder.iterdir())
        if child.is_dir() and ((child / "SKILL.md").is_file() or (child / "skill.md").is_file())
    ]


def load_skills_from_dir(skills_dir: str | os.PathLike[str]) -> list[Skill]:
    """Load every skill folder directly inside ``skills_dir`` (folders without SKILL.md are
    ignored), sorted by folder name.

    Raises ``SkillError`` for a missing folder, or naming the problems of every invalid skill.
    """
    skills: list[Skill] = []
    problems: list[SkillProblem] = []
    for child in _candidates(_skills_folder(skills_dir)):
        skill, found = read_skill_dir(child)
        if skill is None:
            problems.extend(found)
        else:
            skills.append(skill)
    if problems:
        raise SkillError(format_problems(problems))
    return skills


def list_skills_in_dir(
    skills_dir: str | os.PathLike[str],
    *,
    on_error: Callable[[str, SkillError], None] | None = None,
) -> dict[str, Frontmatter]:
    """The frontmatter of every valid skill directly inside ``skills_dir``, by name.

    An invalid skill is reported and skipped: passed to ``on_error(folder_name, error)`` (which
    may raise to stop), or else logged as a warning. A missing folder lists nothing.
    """
    try:
        folder = _skills_folder(skills_dir)
    except SkillError as exc:
        logger.warning("%s", exc)
        return {}
    listed: dict[str, Frontmatter] = {}
    for child in _candidates(folder):
        skill, problems = read_skill_dir(child)
        if skill is None:
            error = SkillError(format_problems(problems))
            if on_error is not None:
                on_error(child.name, error)
            else:
                logger.warning("Skipping invalid skill '%s': %s", child.name, error)
            continue
        listed[skill.name] = skill.frontmatter
    return listed
