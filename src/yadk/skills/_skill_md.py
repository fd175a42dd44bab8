"""Reading SKILL.md: the frontmatter block, the body, and where each frontmatter key sits.

Parsing never raises for a malformed file: it returns the problems it found, each with a line and
column in SKILL.md, so ``validate`` can report them all and the loader can raise them all at once.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Any, Final, Literal

import yaml

from yadk import _yaml as bounded
from yadk._files import FileProblem, read_bytes

__all__ = [
    "SKILL_MD_NAMES",
    "Issue",
    "ParsedSkillMd",
    "Severity",
    "find_skill_md",
    "parse_skill_md",
]

SKILL_MD_NAMES: Final = ("SKILL.md", "skill.md")

Severity = Literal["error", "warning"]

_FENCE: Final = "---"


@dataclasses.dataclass(frozen=True)
class Issue:
    """One problem in a SKILL.md, at a 1-based line and column of that file."""

    rule: str
    message: str
    hint: str
    line: int = 1
    column: int = 1
    severity: Severity = "error"


@dataclasses.dataclass
class ParsedSkillMd:
    """What a SKILL.md holds. ``data`` is ``None`` when the frontmatter could not be read."""

    path: Path
    data: dict[Any, Any] | None
    body: str
    body_line: int
    issues: list[Issue]
    # (key,) or (key, subkey) -> (line, column) of the key and of its value, 1-based.
    key_positions: dict[tuple[str, ...], tuple[int, int]] = dataclasses.field(default_factory=dict)
    value_positions: dict[tuple[str, ...], tuple[int, int]] = dataclasses.field(
        default_factory=dict
    )

    def position(self, key_path: tuple[str, ...], *, at_value: bool = True) -> tuple[int, int]:
        """Where to point for a problem with ``key_path``: its value, its key, or the fence."""
        table = self.value_positions if at_value else self.key_positions
        for end in range(len(key_path), 0, -1):
            found = table.get(key_path[:end]) or self.key_positions.get(key_path[:end])
            if found is not None:
                return found
        return (1, 1)


def find_skill_md(skill_dir: Path) -> Path | None:
    """The SKILL.md (or skill.md) of ``skill_dir``, if it has one."""
    for name in SKILL_MD_NAMES:
        candidate = skill_dir / name
        if candidate.is_file():
            return candidate
    return None


_EXAMPLE = (
    "a line '---', then 'name: <folder name>' and 'description: <what it does and when to use "
    "it>', then a line '---'"
)


def parse_skill_md(path: Path, text: str | None = None) -> ParsedSkillMd:
    """Split SKILL.md into frontmatter and body and read the frontmatter as YAML."""
    if text is None:
        try:
            # SKILL.md must be a regular file inside its skill folder (a symlink may not lead
            # out of it), of at most LIMITS["skill_md"] bytes.
            raw = read_bytes(path, kind="skill_md", root=path.parent)
        except FileProblem as problem:
            return _failed(path, Issue(problem.rule, problem.message, problem.hint))
        try:
            text = raw.decode("utf-8")
        except UnicodeDecodeError as exc:
            line = raw.count(b"\n", 0, exc.start) + 1
            column = exc.start - (raw.rfind(b"\n", 0, exc.start) + 1) + 1
            return _failed(
                path,
                Issue(
                    "skill-md-encoding",
                    f"SKILL.md is not valid UTF-8 (byte 0x{raw[exc.start]:02x})",
                    "Save SKILL.md as UTF-8.",
                    line,
                    column,
                ),
            )
    text = text.removeprefix("\ufeff")
    lines = text.splitlines(keepends=True)
    if not lines or lines[0].rstrip() != _FENCE:
        return _failed(
            path,
            Issue(
                "skill-frontmatter-missing",
                "SKILL.md must start with YAML frontmatter (---)",
                f"Begin SKILL.md with {_EXAMPLE}.",
            ),
        )
    close = next((i for i in range(1, len(lines)) if lines[i].rstrip() == _FENCE), None)
    if close is None:
        return _failed(
            path,
            Issue(
                "skill-frontmatter-unclosed",
                "SKILL.md frontmatter not properly closed with ---",
                "Add a line holding only '---' after the last frontmatter key.",
            ),
        )
    body_lines = lines[close + 1 :]
    leading_blank = next((i for i, line in enumerate(body_lines) if line.strip()), len(body_lines))
    body = "".join(body_lines).strip()
    parsed = ParsedSkillMd(path, None, body, close + 2 + leading_blank, [])
    _read_frontmatter(parsed, "".join(lines[1:close]))
    return parsed


def _failed(path: Path, issue: Issue) -> ParsedSkillMd:
    return ParsedSkillMd(path, None, "", 1, [issue])


def _read_frontmatter(parsed: ParsedSkillMd, source: str) -> None:
    try:
        node = bounded.compose(source)
        data = bounded.build(node) if node is not None else None
    except bounded.YamlProblem as problem:
        # The frontmatter starts on line 2 of SKILL.md.
        syntax = problem.rule == "yaml-syntax"
        parsed.issues.append(
            Issue(
                "skill-frontmatter-yaml" if syntax else problem.rule,
                f"Invalid YAML in frontmatter: {problem.message.removeprefix('Invalid YAML: ')}",
                "Fix the YAML syntax; quote values that contain ': ', '#', or start with '[' "
                "or '{'."
                if syntax
                else problem.hint,
                problem.line + 1,
                problem.column,
            )
        )
        return
    if not isinstance(data, dict):
        parsed.issues.append(
            Issue(
                "skill-frontmatter-not-mapping",
                "SKILL.md frontmatter must be a YAML mapping",
                "Write the frontmatter as 'key: value' lines, at least 'name: <folder name>' and "
                "'description: <what it does and when to use it>'.",
                2,
                1,
            )
        )
        return
    parsed.data = data
    assert isinstance(node, yaml.MappingNode)
    _record_positions(parsed, node, ())


def _record_positions(
    parsed: ParsedSkillMd, node: yaml.MappingNode, prefix: tuple[str, ...]
) -> None:
    seen: dict[str, int] = {}
    for key_node, value_node in node.value:
        if not isinstance(key_node, yaml.ScalarNode):
            continue
        key = str(key_node.value)
        path = (*prefix, key)
        key_at = (key_node.start_mark.line + 2, key_node.start_mark.column + 1)
        if key in seen:
            parsed.issues.append(
                Issue(
                    "skill-frontmatter-duplicate-key",
                    f"Duplicate frontmatter key '{'.'.join(path)}' (first set on line "
                    f"{seen[key]}); the last value wins",
                    "Remove one of the two entries.",
                    *key_at,
                    severity="warning",
                )
            )
        seen[key] = key_at[0]
        parsed.key_positions[path] = key_at
        parsed.value_positions[path] = (
            value_node.start_mark.line + 2,
            value_node.start_mark.column + 1,
        )
        if not prefix and isinstance(value_node, yaml.MappingNode):
            _record_positions(parsed, value_node, path)
