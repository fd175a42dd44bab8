"""``validate_paths``: every problem of configs and skills under the given paths, at once.

The checks of Python agents and skills are imported only when the paths hold one.
"""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Iterable
from pathlib import Path

from yadk.config._api import ROOT_CONFIG_NAMES, validate_files
from yadk.config._app_config import APP_FILE_NAMES
from yadk.config._diagnostics import Diagnostic, sort_diagnostics
from yadk.config._python_agent import python_agent_file

__all__ = ["Checked", "check_paths", "validate_paths"]

_CONFIG_SUFFIXES = (".yaml", ".yml")
_SKILL_FILES = ("SKILL.md", "skill.md")
_PYTHON_AGENT_FILES = ("agent.py", "__init__.py")


@dataclasses.dataclass
class Checked:
    """What a validation found: every problem, and how much was checked (the summary line)."""

    diagnostics: list[Diagnostic]
    agents: int = 0
    skills: int = 0


def validate_paths(
    paths: Iterable[str | os.PathLike[str]], *, import_code: bool = False, network: bool = False
) -> list[Diagnostic]:
    """Check config files, agent folders (``root_agent.yaml``, or ``agent.py`` / ``__init__.py``
    defining ``root_agent``), skill folders, folders of those, and SKILL.md files; return every
    problem (errors and warnings), grouped by file.

    Without ``import_code`` no user code runs: dotted names are checked against the module
    sources. With it, the configs are fully loaded (code imported, agents built). With
    ``network``, remote agents' cards (``agent_card:`` URLs) are fetched and checked too.
    """
    return check_paths(paths, import_code=import_code, network=network).diagnostics


def check_paths(
    paths: Iterable[str | os.PathLike[str]],
    *,
    import_code: bool = False,
    run_checks: bool = False,
    network: bool = False,
) -> Checked:
    """``validate_paths`` with the number of agents and skills checked; ``run_checks`` adds
    the warnings about running (``missing-model``, ``api-key-missing``), as ``yadk validate``
    reports them."""
    configs: list[Path] = []
    skills: list[Path] = []
    python: list[Path] = []
    found: list[Diagnostic] = []
    for raw in paths:
        path = Path(os.path.abspath(raw))
        if not path.exists():
            found.append(_path_problem(path, "file-not-found", f"{path} does not exist.", ""))
        elif not path.is_dir():  # a file, or something else the loader refuses to read
            if path.name in _SKILL_FILES:
                skills.append(path.parent)
            elif path.name in _PYTHON_AGENT_FILES:
                python.append(path)
            elif path.name in APP_FILE_NAMES and (root := _root_config(path.parent)):
                configs.append(root)  # app.yaml is checked with the agent it wraps
            elif path.suffix.lower() in _CONFIG_SUFFIXES:
                configs.append(path)
            else:
                found.append(
                    _path_problem(
                        path,
                        "unsupported-file",
                        f"{path.name} is neither an agent config (.yaml, .yml), a Python agent"
                        " (agent.py, __init__.py) nor a SKILL.md.",
                        "Pass configs, agent folders or skill folders.",
                    )
                )
        else:
            before = len(configs) + len(skills) + len(python)
            _collect_folder(path, configs, skills, python)
            if len(configs) + len(skills) + len(python) == before:
                found.append(
                    _path_problem(
                        path,
                        "nothing-to-validate",
                        f"{path} holds no root_agent.yaml, no agent.py defining root_agent, no"
                        " SKILL.md and no folders with one.",
                        "Pass a config file, an agent folder or a skill folder.",
                    )
                )
    in_configs, agents = validate_files(
        dict.fromkeys(configs), import_code=import_code, run_checks=run_checks, network=network
    )
    found.extend(in_configs)
    unique_python = list(dict.fromkeys(python))
    if unique_python:
        from yadk.config._python_check import validate_python_agents

        found.extend(validate_python_agents(unique_python, import_code=import_code))
    unique_skills = list(dict.fromkeys(skills))
    if unique_skills:
        found.extend(_skill_diagnostics(unique_skills))
    return Checked(
        sort_diagnostics(found), agents=agents + len(unique_python), skills=len(unique_skills)
    )


def _collect_folder(
    folder: Path, configs: list[Path], skills: list[Path], python: list[Path]
) -> None:
    root = _root_config(folder)
    if root is not None:
        configs.append(root)
        return
    if any((folder / name).is_file() for name in _SKILL_FILES):
        skills.append(folder)
        return
    if (folder / "agent.py").is_file():  # named: validated even without a root_agent
        python.append(folder / "agent.py")
        return
    if (agent_file := python_agent_file(folder)) is not None:
        python.append(agent_file)
        return
    for child in sorted(folder.iterdir()):
        if not child.is_dir() or child.name.startswith((".", "_")):
            continue
        root = _root_config(child)
        if root is not None:
            configs.append(root)
        elif any((child / name).is_file() for name in _SKILL_FILES):
            skills.append(child)
        elif (agent_file := python_agent_file(child, mentions_root_agent=True)) is not None:
            python.append(agent_file)


def _root_config(folder: Path) -> Path | None:
    for name in ROOT_CONFIG_NAMES:
        if (folder / name).is_file():
            return folder / name
    return None


def _skill_diagnostics(folders: list[Path]) -> list[Diagnostic]:
    from yadk.skills import validate_skill_paths

    return [
        Diagnostic(p.path, p.line, p.column, p.rule, p.severity, p.message, p.hint)
        for p in validate_skill_paths(folders)
    ]


def _path_problem(path: Path, rule: str, message: str, hint: str) -> Diagnostic:
    return Diagnostic(str(path), 0, 0, rule, "error", message, hint)
