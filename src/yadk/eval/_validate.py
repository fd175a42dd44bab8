"""``yadk validate`` with eval sets: configs and skills as before, plus every eval file found.

A ``.json`` path is an eval input (``test_config.json`` a config, anything else an eval set); a
folder contributes its ``*.evalset.json`` and ``*.test.json`` files and the ``test_config.json``
beside each. With ``import_code``, an eval set inside an agent folder also has its expected tool
names checked against that agent's tools (which needs the agent built, so its code imported).
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from pathlib import Path
from typing import TYPE_CHECKING

from yadk.config import (
    ROOT_CONFIG_NAMES,
    Checked,
    Diagnostic,
    check_paths,
    load_agent,
    sort_diagnostics,
)
from yadk.errors import YadkError
from yadk.eval._discovery import CONFIG_FILE_NAME, find_eval_files

if TYPE_CHECKING:
    from yadk.eval._model import EvalSet

__all__ = ["check_with_eval_sets", "validate_with_eval_sets"]


def validate_with_eval_sets(
    paths: Iterable[str | os.PathLike[str]], *, import_code: bool = False
) -> list[Diagnostic]:
    """Every problem of the configs, skills and eval files under ``paths``."""
    return check_with_eval_sets(paths, import_code=import_code)[0].diagnostics


def check_with_eval_sets(
    paths: Iterable[str | os.PathLike[str]],
    *,
    import_code: bool = False,
    run_checks: bool = False,
    network: bool = False,
) -> tuple[Checked, int]:
    """``validate_with_eval_sets`` with what was checked, and the number of eval files."""
    others: list[Path] = []
    eval_files: list[Path] = []
    folders_with_evals: set[str] = set()
    for raw in paths:
        path = Path(os.path.abspath(raw))
        if path.is_file() and path.suffix == ".json":
            eval_files.append(path)
            continue
        others.append(path)
        if path.is_dir():
            inside = find_eval_files(path)
            if inside:
                folders_with_evals.add(str(path))
            eval_files.extend(inside)
    checked = (
        check_paths(others, import_code=import_code, run_checks=run_checks, network=network)
        if others
        else Checked([])
    )
    diagnostics = [
        d
        for d in checked.diagnostics
        if not (d.rule == "nothing-to-validate" and d.path in folders_with_evals)
    ]
    unique_evals = list(dict.fromkeys(eval_files))
    if unique_evals:
        diagnostics.extend(_eval_file_diagnostics(unique_evals, import_code=import_code))
    checked.diagnostics = sort_diagnostics(diagnostics)
    return checked, len(unique_evals)


def _eval_file_diagnostics(eval_files: list[Path], *, import_code: bool) -> list[Diagnostic]:
    # The eval readers load only when there are eval files; the engine only with import_code.
    from yadk.eval._criteria import load_eval_config
    from yadk.eval._evalset import load_eval_set_file
    from yadk.eval._rubric_coverage import missing_rubrics

    diagnostics: list[Diagnostic] = []
    configs_seen: set[Path] = set()
    for file in dict.fromkeys(eval_files):
        if file.name == CONFIG_FILE_NAME:
            if file not in configs_seen:
                configs_seen.add(file)
                diagnostics.extend(load_eval_config(file)[1])
            continue
        eval_set, found = load_eval_set_file(file)
        diagnostics.extend(found)
        beside = file.parent / CONFIG_FILE_NAME
        if beside.is_file() and beside not in configs_seen:
            configs_seen.add(beside)
            diagnostics.extend(load_eval_config(beside)[1])
        if eval_set is not None and beside.is_file():
            config = load_eval_config(beside)[0]
            if config is not None:
                diagnostics.extend(missing_rubrics(config, eval_set))
        if eval_set is not None and import_code:
            diagnostics.extend(_tool_name_warnings(eval_set))
    return diagnostics


def _agent_folder(file: Path) -> Path | None:
    for folder in (file.parent, *file.parent.parents):
        if any((folder / name).is_file() for name in ROOT_CONFIG_NAMES):
            return folder
        if folder == Path.cwd():
            break
    return None


def _tool_name_warnings(eval_set: EvalSet) -> list[Diagnostic]:
    folder = _agent_folder(eval_set.path)
    if folder is None:
        return []
    import asyncio  # only here: `yadk validate` without --import-code never starts a loop

    from yadk.eval._api import EvalTarget, check_tool_names
    from yadk.eval._criteria import DEFAULT_CONFIG

    target = EvalTarget(eval_set, [], DEFAULT_CONFIG)

    try:
        agent = load_agent(folder)
    except YadkError:
        return []  # the agent's own problems are reported by the config checks
    return asyncio.run(check_tool_names([target], agent))
