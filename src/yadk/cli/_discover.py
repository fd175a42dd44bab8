"""Agent folders and skills under a folder, at any depth, for ``yadk validate .``.

The walk skips hidden folders (``.git``, ``.venv``...), folders starting with ``_``,
``node_modules``, ``venv``, ``site-packages`` and what ``.gitignore`` files list, and does not descend into an agent folder
(``root_agent.yaml``, or an ``agent.py`` / ``__init__.py`` that mentions ``root_agent``) or a
skill folder (``SKILL.md``): the agent's config names what it uses.

``.gitignore`` support is a documented subset: blank lines and ``#`` comments are skipped, a
trailing ``/`` matches folders only, a pattern with another ``/`` is anchored to the folder of
its ``.gitignore`` and matched against the relative path, any other pattern against the name at
any depth; ``*``, ``?`` and ``[...]`` as in ``fnmatch``; ``!`` negations are not supported (such
lines are ignored, so a re-included folder stays skipped).
"""

from __future__ import annotations

import fnmatch
import os
from dataclasses import dataclass
from pathlib import Path

from yadk.config import python_agent_file

__all__ = ["discover", "ignore_rules"]

_ROOT_FILES = ("root_agent.yaml", "root_agent.yml")
_SKILL_FILES = ("SKILL.md", "skill.md")
_ALWAYS_SKIPPED = frozenset({"node_modules", "__pycache__", "venv", "site-packages"})
_MAX_GITIGNORE_BYTES = 256_000


@dataclass(frozen=True)
class _Rule:
    base: Path
    pattern: str
    anchored: bool
    folders_only: bool

    def matches(self, path: Path, *, is_dir: bool) -> bool:
        if self.folders_only and not is_dir:
            return False
        if self.anchored:
            try:
                relative = path.relative_to(self.base).as_posix()
            except ValueError:
                return False
            return fnmatch.fnmatchcase(relative, self.pattern)
        return fnmatch.fnmatchcase(path.name, self.pattern)


def ignore_rules(folder: Path) -> list[_Rule]:
    """The rules of ``folder/.gitignore`` (none when it is missing or unreadable)."""
    try:
        with (folder / ".gitignore").open("rb") as handle:
            text = handle.read(_MAX_GITIGNORE_BYTES).decode("utf-8", errors="replace")
    except OSError:
        return []
    rules = []
    for raw in text.splitlines():
        line = raw.strip()
        if not line or line.startswith(("#", "!")):
            continue
        folders_only = line.endswith("/")
        line = line.rstrip("/")
        anchored = "/" in line
        if line:
            rules.append(_Rule(folder, line.lstrip("/"), anchored, folders_only))
    return rules


def _is_agent(folder: Path) -> bool:
    if any((folder / name).is_file() for name in _ROOT_FILES):
        return True
    return python_agent_file(folder, mentions_root_agent=True) is not None


def _is_skill(folder: Path) -> bool:
    return any((folder / name).is_file() for name in _SKILL_FILES)


def discover(root: Path) -> list[Path]:
    """Every agent folder and skill folder under ``root`` (``root`` itself when it is one), sorted."""
    if _is_agent(root) or _is_skill(root):
        return [root]
    found: list[Path] = []
    stack: list[tuple[Path, list[_Rule]]] = [(root, ignore_rules(root))]
    while stack:
        folder, rules = stack.pop()
        try:
            children = sorted(os.scandir(folder), key=lambda entry: entry.name)
        except OSError:
            continue
        for entry in children:
            if not entry.is_dir(follow_symlinks=False):
                continue
            child = Path(entry.path)
            if entry.name.startswith((".", "_")) or entry.name in _ALWAYS_SKIPPED:
                continue
            if any(rule.matches(child, is_dir=True) for rule in rules):
                continue
            if _is_agent(child) or _is_skill(child):
                found.append(child)
            else:
                stack.append((child, rules + ignore_rules(child)))
    return sorted(found)
