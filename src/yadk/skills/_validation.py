"""Checking skill folders: every problem of every skill at once, each with file, line and column.

``read_skill_dir`` is the single reader behind loading, validating and refreshing: it returns the
skill (when it has no errors) together with all problems found, so the loader can raise them all,
``validate`` can print them all, and the registry can keep the last good skill while showing why
the edited one is broken.

The skill models (pydantic) are imported only when a skill is built: checking a plainly valid
skill (``yadk validate``) never builds them.
"""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Iterable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from yadk.skills._checks import check_frontmatter, normalize_name, plainly_valid
from yadk.skills._skill_md import ParsedSkillMd, Severity, find_skill_md, parse_skill_md
from yadk.templating import find_placeholders

if TYPE_CHECKING:
    from yadk.skills._models import Skill

__all__ = [
    "SkillProblem",
    "expand_skill_paths",
    "read_skill_dir",
    "validate_skill_dir",
    "validate_skill_paths",
]


@dataclasses.dataclass(frozen=True)
class SkillProblem:
    """One problem with a skill. ``line`` and ``column`` are 1-based; 0 means the problem is with
    the path itself (a missing folder or SKILL.md), not a place in a file."""

    path: str
    line: int
    column: int
    rule: str
    severity: Severity
    message: str
    hint: str = ""

    def format(self) -> str:
        """``path:line:col: severity rule: message`` plus the hint on its own line."""
        where = f"{self.path}:{self.line}:{self.column}" if self.line else self.path
        text = f"{where}: {self.severity} {self.rule}: {self.message}"
        return f"{text}\n  hint: {self.hint}" if self.hint else text


def _path_problem(
    path: Path, rule: str, message: str, hint: str, *, warning: bool = False
) -> SkillProblem:
    return SkillProblem(str(path), 0, 0, rule, "warning" if warning else "error", message, hint)


def read_skill_dir(skill_dir: str | os.PathLike[str]) -> tuple[Skill | None, list[SkillProblem]]:
    """Read one skill folder: the skill if it has no errors, and every problem found."""
    folder = Path(os.path.abspath(skill_dir))
    parsed, problems = _parse(folder)
    if parsed is None:
        return None, problems
    return _build(folder, parsed)


def _check_skill_dir(folder: Path) -> tuple[str | None, list[SkillProblem]]:
    """``read_skill_dir`` for checking only: the skill's name instead of the skill, and no
    pydantic model built when the frontmatter is plainly valid (``yadk validate`` starts fast)."""
    parsed, problems = _parse(folder)
    if parsed is None:
        return None, problems
    problems, data = _rule_problems(folder, parsed)
    if data is None or any(p.severity == "error" for p in problems):
        return None, problems
    if plainly_valid(data):
        return normalize_name(data["name"]), problems
    skill, problems = _build(folder, parsed)
    return (None if skill is None else skill.name), problems


def _parse(folder: Path) -> tuple[ParsedSkillMd | None, list[SkillProblem]]:
    if not folder.exists():
        return None, [
            _path_problem(
                folder,
                "skill-dir-missing",
                f"Skill directory '{folder}' not found.",
                "Check the path.",
            )
        ]
    if not folder.is_dir():
        return None, [
            _path_problem(
                folder,
                "skill-not-a-directory",
                f"'{folder}' is not a directory.",
                "A skill is a folder holding SKILL.md; give the folder's path.",
            )
        ]
    skill_md = find_skill_md(folder)
    if skill_md is None:
        return None, [
            _path_problem(
                folder,
                "skill-md-missing",
                f"SKILL.md not found in '{folder}'.",
                f"Create {folder / 'SKILL.md'} with a frontmatter block (name, description) "
                "followed by the instructions.",
            )
        ]
    return parse_skill_md(skill_md), []


def _rule_problems(
    folder: Path, parsed: ParsedSkillMd
) -> tuple[list[SkillProblem], dict[Any, Any] | None]:
    """Every problem the rules find in SKILL.md, sorted, and its frontmatter (if it has one)."""
    file = str(parsed.path)
    problems = [
        SkillProblem(file, i.line, i.column, i.rule, i.severity, i.message, i.hint)
        for i in parsed.issues
    ]
    data = parsed.data
    if data is None:
        return problems, None
    for problem in check_frontmatter(data, folder_name=folder.name):
        line, column = parsed.position(problem.key_path, at_value=problem.at_value)
        problems.append(
            SkillProblem(
                file, line, column, problem.rule, problem.severity, problem.message, problem.hint
            )
        )
    if not parsed.body:
        problems.append(
            SkillProblem(
                file,
                parsed.body_line,
                1,
                "skill-body-empty",
                "warning",
                "SKILL.md has no instructions after the frontmatter",
                "Write the steps the model should follow below the closing '---'.",
            )
        )
    problems.extend(_placeholder_problems(parsed, data))
    problems.sort(key=lambda p: (p.line, p.column))
    return problems, data


def _build(folder: Path, parsed: ParsedSkillMd) -> tuple[Skill | None, list[SkillProblem]]:
    from pydantic import ValidationError

    from yadk.skills._models import Frontmatter, Skill
    from yadk.skills._resources import Resources

    problems, data = _rule_problems(folder, parsed)
    if data is None or any(p.severity == "error" for p in problems):
        return None, problems
    file = str(parsed.path)
    try:
        frontmatter = Frontmatter.model_validate(data)
    except ValidationError as exc:  # a shape the rule checks do not cover (e.g. odd keys)
        problems.extend(
            SkillProblem(
                file,
                *parsed.position(tuple(str(p) for p in error["loc"])),
                "skill-frontmatter-invalid",
                "error",
                f"{'.'.join(str(p) for p in error['loc'])}: {error['msg']}",
                "Fix the frontmatter value.",
            )
            for error in exc.errors()
        )
        return None, problems
    skill = Skill(
        frontmatter=frontmatter,
        instructions=parsed.body,
        resources=Resources.from_dir(folder),
    )
    skill._path = folder
    return skill, problems


def _placeholder_problems(parsed: ParsedSkillMd, data: dict[Any, Any]) -> list[SkillProblem]:
    metadata = data.get("metadata")
    if isinstance(metadata, dict) and metadata.get("adk_inject_state") is True:
        return []
    placeholders = [p for p in find_placeholders(parsed.body) if p.kind in ("state", "artifact")]
    if not placeholders:
        return []
    first = placeholders[0]
    start = first.span[0]
    line = parsed.body_line + parsed.body.count("\n", 0, start)
    column = start - parsed.body.rfind("\n", 0, start)
    shown = parsed.body[first.span[0] : first.span[1]]
    return [
        SkillProblem(
            str(parsed.path),
            line,
            column,
            "skill-placeholders-not-injected",
            "warning",
            f"The instructions contain {shown} but metadata.adk_inject_state is not true, so "
            "the model receives the placeholder text as is",
            "Add 'metadata:' with 'adk_inject_state: true' to fill placeholders from session "
            "state when the skill is loaded.",
        )
    ]


def expand_skill_paths(
    paths: Iterable[str | os.PathLike[str]], *, base_dir: str | os.PathLike[str] | None = None
) -> tuple[list[Path], list[SkillProblem]]:
    """The skill folders named by ``paths``: each path is a skill folder (it has SKILL.md), a
    folder of skill folders, or a SKILL.md file. Relative paths are resolved against
    ``base_dir``. Returns the folders in order and the problems with the paths themselves."""
    base = Path(base_dir) if base_dir is not None else Path.cwd()
    folders: list[Path] = []
    problems: list[SkillProblem] = []
    for raw in paths:
        path = Path(os.path.abspath(base / Path(raw)))
        if path.is_file() and path.name in ("SKILL.md", "skill.md"):
            path = path.parent
        if not path.exists():
            problems.append(
                _path_problem(
                    path,
                    "skill-path-missing",
                    f"Skill path '{raw}' does not exist (looked for '{path}').",
                    f"Relative skill paths are resolved against '{base}'.",
                )
            )
            continue
        if not path.is_dir():
            problems.append(
                _path_problem(
                    path,
                    "skill-not-a-directory",
                    f"'{path}' is not a directory.",
                    "Give a skill folder (holding SKILL.md) or a folder of skill folders.",
                )
            )
            continue
        if find_skill_md(path) is not None:
            if path not in folders:
                folders.append(path)
            continue
        found, empty = _skill_subfolders(path)
        folders.extend(f for f in found if f not in folders)
        if not found:
            problems.append(
                _path_problem(
                    path,
                    "skill-path-empty",
                    f"'{path}' is neither a skill folder (no SKILL.md) nor a folder of skills.",
                    "Point to a folder holding SKILL.md, or to a folder whose subfolders hold one.",
                )
            )
        else:
            problems.extend(
                _path_problem(
                    sub,
                    "skill-md-missing",
                    f"Folder '{sub.name}' in '{path}' has no SKILL.md, so it is not loaded as a "
                    "skill.",
                    f"Add {sub / 'SKILL.md'}, or move the folder out of the skills folder.",
                    warning=True,
                )
                for sub in empty
            )
    return folders, problems


def _skill_subfolders(folder: Path) -> tuple[list[Path], list[Path]]:
    found: list[Path] = []
    empty: list[Path] = []
    for child in sorted(folder.iterdir()):
        if not child.is_dir() or child.name.startswith((".", "_")):
            continue
        (found if find_skill_md(child) is not None else empty).append(child)
    return found, empty


def validate_skill_dir(path: str | os.PathLike[str]) -> list[SkillProblem]:
    """Every problem of one skill folder (errors and warnings); empty when it is clean."""
    return read_skill_dir(path)[1]


def validate_skill_paths(
    paths: Iterable[str | os.PathLike[str]], *, base_dir: str | os.PathLike[str] | None = None
) -> list[SkillProblem]:
    """Every problem of the skills named by ``paths`` (as for ``skills:`` in YAML), including
    two skills with the same name."""
    folders, problems = expand_skill_paths(paths, base_dir=base_dir)
    seen: dict[str, Path] = {}
    for folder in folders:
        name, found = _check_skill_dir(folder)
        problems.extend(found)
        if name is None:
            continue
        if name in seen:
            skill_md = find_skill_md(folder) or folder
            problems.append(
                SkillProblem(
                    str(skill_md),
                    0,
                    0,
                    "skill-name-duplicate",
                    "error",
                    f"Duplicate skill name '{name}'.",
                    f"Also loaded from '{seen[name]}'; list each skill once.",
                )
            )
        seen.setdefault(name, folder)
    return problems
