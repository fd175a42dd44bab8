"""``validate_paths``: every problem of configs and skills under the given paths, at once."""

from __future__ import annotations

import os
from collections.abc import Iterable
from pathlib import Path

from yadk.config._api import ROOT_CONFIG_NAMES, validate_files
from yadk.config._diagnostics import Diagnostic, sort_diagnostics

__all__ = ["validate_paths"]

_CONFIG_SUFFIXES = (".yaml", ".yml")
_SKILL_FILES = ("SKILL.md", "skill.md")


def validate_paths(
    paths: Iterable[str | os.PathLike[str]], *, import_code: bool = False
) -> list[Diagnostic]:
    """Check config files, agent folders (``root_agent.yaml``), skill folders, folders of those,
    and SKILL.md files; return every problem (errors and warnings), grouped by file.

    Without ``import_code`` no user code runs: dotted names are checked against the module
    sources. With it, the configs are fully loaded (code imported, agents built).
    """
    configs: list[Path] = []
    skills: list[Path] = []
    found: list[Diagnostic] = []
    for raw in paths:
        path = Path(os.path.abspath(raw))
        if not path.exists():
            found.append(_path_problem(path, "file-not-found", f"{path} does not exist.", ""))
        elif not path.is_dir():  # a file, or something else the loader refuses to read
            if path.name in _SKILL_FILES:
                skills.append(path.parent)
            elif path.suffix.lower() in _CONFIG_SUFFIXES:
                configs.append(path)
            else:
                found.append(
                    _path_problem(
                        path,
                        "unsupported-file",
                        f"{path.name} is neither an agent config (.yaml, .yml) nor a SKILL.md.",
                        "Pass configs, agent folders or skill folders.",
                    )
                )
        else:
            before = len(configs) + len(skills)
            _collect_folder(path, configs, skills)
            if len(configs) + len(skills) == before:
                found.append(
                    _path_problem(
                        path,
                        "nothing-to-validate",
                        f"{path} holds no root_agent.yaml, no SKILL.md and no folders with one.",
                        "Pass a config file, an agent folder or a skill folder.",
                    )
                )
    found.extend(validate_files(dict.fromkeys(configs), import_code=import_code))
    if skills:
        found.extend(_skill_diagnostics(list(dict.fromkeys(skills))))
    return sort_diagnostics(found)


def _collect_folder(folder: Path, configs: list[Path], skills: list[Path]) -> None:
    root = _root_config(folder)
    if root is not None:
        configs.append(root)
        return
    if any((folder / name).is_file() for name in _SKILL_FILES):
        skills.append(folder)
        return
    for child in sorted(folder.iterdir()):
        if not child.is_dir() or child.name.startswith((".", "_")):
            continue
        root = _root_config(child)
        if root is not None:
            configs.append(root)
        elif any((child / name).is_file() for name in _SKILL_FILES):
            skills.append(child)


def _root_config(folder: Path) -> Path | None:
    for name in ROOT_CONFIG_NAMES:
        if (folder / name).is_file():
            return folder / name
    return None


def _skill_diagnostics(folders: list[Path]) -> list[Diagnostic]:
    from yadk.skills._validation import validate_skill_paths

    return [
        Diagnostic(p.path, p.line, p.column, p.rule, p.severity, p.message, p.hint)
        for p in validate_skill_paths(folders)
    ]


def _path_problem(path: Path, rule: str, message: str, hint: str) -> Diagnostic:
    return Diagnostic(str(path), 0, 0, rule, "error", message, hint)
