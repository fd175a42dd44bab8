"""SkillRegistry: the current set of skills, which may change between turns.

A toolset reads its skills through a registry and caches what it derives from them (the listing,
the instruction text) per ``version``. ``refresh()`` rescans the folders the registry was built
from, re-reading only SKILL.md files whose size or modification time changed; a skill that an edit
broke keeps its last good version (and the problems say why), so a running agent is not left
without it.
"""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Iterable, Iterator, Mapping
from pathlib import Path
from types import MappingProxyType

from yadk.errors import SkillError
from yadk.skills._loading import format_problems
from yadk.skills._models import Skill
from yadk.skills._skill_md import find_skill_md
from yadk.skills._validation import SkillProblem, expand_skill_paths, read_skill_dir

__all__ = ["SkillRegistry"]

_Stamp = tuple[str, int, int, int] | None


def _stamp(folder: Path) -> _Stamp:
    skill_md = find_skill_md(folder)
    if skill_md is None:
        return None
    try:
        stat = skill_md.stat()
    except OSError:
        return None
    return (skill_md.name, stat.st_mtime_ns, stat.st_size, stat.st_ino)


@dataclasses.dataclass(frozen=True)
class _Entry:
    stamp: _Stamp
    skill: Skill | None
    problems: list[SkillProblem]


def _duplicate(skill: Skill, first: Skill) -> SkillProblem:
    where = skill.path or Path(skill.name)
    return SkillProblem(
        str(where),
        0,
        0,
        "skill-name-duplicate",
        "error",
        f"Duplicate skill name '{skill.name}'.",
        f"Also provided by '{first.path}'; keep one." if first.path else "Keep one of them.",
    )


class SkillRegistry:
    """Skills by name: fixed ``Skill`` objects plus the skills found under ``paths`` (skill
    folders or folders of skills, relative to ``base_dir``).

    Construction is strict: any invalid skill or duplicate name raises ``SkillError`` naming all
    of them. ``refresh()`` and ``replace()`` let the set change later; each change bumps
    ``version``.
    """

    def __init__(
        self,
        skills: Iterable[Skill] = (),
        *,
        paths: Iterable[str | os.PathLike[str]] = (),
        base_dir: str | os.PathLike[str] | None = None,
    ) -> None:
        base = Path(base_dir) if base_dir is not None else Path.cwd()
        self._fixed = list(skills)
        self._paths = [Path(os.path.abspath(base / Path(p))) for p in paths]
        self._entries: dict[Path, _Entry] = {}
        self._skills: dict[str, Skill] = {}
        self._problems: list[SkillProblem] = []
        self._version = 0
        self._check_fixed(self._fixed)
        problems = self._rebuild()
        if any(p.severity == "error" for p in problems):
            raise SkillError(format_problems(problems))

    @property
    def version(self) -> int:
        """Changes whenever the set of skills (or any skill in it) changes."""
        return self._version

    @property
    def skills(self) -> Mapping[str, Skill]:
        """The current skills by name (a read-only view)."""
        return MappingProxyType(self._skills)

    @property
    def problems(self) -> list[SkillProblem]:
        """What the last build or refresh found wrong (errors and warnings)."""
        return list(self._problems)

    @property
    def paths(self) -> list[Path]:
        return list(self._paths)

    def get(self, name: str) -> Skill | None:
        return self._skills.get(name)

    def __contains__(self, name: object) -> bool:
        return name in self._skills

    def __iter__(self) -> Iterator[Skill]:
        return iter(list(self._skills.values()))

    def __len__(self) -> int:
        return len(self._skills)

    def refresh(self) -> list[SkillProblem]:
        """Rescan the folders; re-read changed SKILL.md files; return the problems found.

        Never raises for a broken skill: the last good version stays in use (a new, broken
        skill is left out) and the problem is returned.
        """
        return self._rebuild()

    def replace(self, skills: Iterable[Skill]) -> None:
        """Swap in exactly ``skills`` (the registry stops scanning folders)."""
        new = list(skills)
        self._check_fixed(new)
        self._fixed = new
        self._paths = []
        self._entries = {}
        self._rebuild()

    @staticmethod
    def _check_fixed(skills: list[Skill]) -> None:
        seen: set[str] = set()
        for skill in skills:
            if skill.name in seen:
                raise SkillError(f"Duplicate skill name '{skill.name}'.")
            seen.add(skill.name)

    def _rebuild(self) -> list[SkillProblem]:
        folders, problems = expand_skill_paths(self._paths)
        entries: dict[Path, _Entry] = {}
        for folder in folders:
            stamp = _stamp(folder)
            entry = self._entries.get(folder)
            if entry is None or entry.stamp != stamp:
                skill, found = read_skill_dir(folder)
                if skill is None and entry is not None and entry.skill is not None:
                    skill = entry.skill  # keep the last good version while the file is broken
                entry = _Entry(stamp, skill, found)
            entries[folder] = entry
            problems.extend(entry.problems)
        self._entries = entries

        skills: dict[str, Skill] = {}
        for skill in [*self._fixed, *(e.skill for e in entries.values() if e.skill)]:
            if skill.name in skills:
                problems.append(_duplicate(skill, skills[skill.name]))
                continue
            skills[skill.name] = skill
        if list(skills.items()) != list(self._skills.items()) or not self._version:
            self._version += 1
        self._skills = skills
        self._problems = problems
        return list(problems)
