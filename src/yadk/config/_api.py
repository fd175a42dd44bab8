"""The public entry points: load an agent (with the files it depends on), validate paths.

Engine imports are inside the functions that build objects, off ``import yadk.config``
and ``yadk validate`` (see the package docstring).
"""

from __future__ import annotations

import dataclasses
import importlib
import os
import sys
from collections.abc import Iterable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from yadk.config._app_config import app_file, build_app, read_app_file
from yadk.config._context import AgentRecord
from yadk.config._diagnostics import Diagnostic, sort_diagnostics
from yadk.config._lint import check_trees
from yadk.config._loader import Loader
from yadk.config._model_checks import check_model_names, check_models
from yadk.errors import ConfigError

if TYPE_CHECKING:
    from yadk.agents import BaseAgent

__all__ = [
    "LoadedAgent",
    "load_agent",
    "load_agent_with_sources",
    "read_config_tree",
    "resolve_config_path",
]

ROOT_CONFIG_NAMES = ("root_agent.yaml", "root_agent.yml")


@dataclasses.dataclass
class LoadedAgent:
    """An agent built from YAML, and where it came from.

    ``files`` is every file the agent depends on: config files, instruction and example files,
    skill folders, and the Python modules imported from the agent folder (what a dev loop
    watches). ``modules`` names those modules (drop them from ``sys.modules`` before reloading).
    ``agent_files`` maps each agent defined in YAML to its config file. ``diagnostics`` are the
    warnings found (errors raise ``ConfigError`` instead).
    """

    agent: BaseAgent
    path: Path
    files: set[Path]
    modules: set[str]
    agent_files: dict[str, Path]
    diagnostics: list[Diagnostic]
    # The App around the agent (yadk.apps.App): the folder's app.yaml, or a Python agent's
    # ``app = App(...)``; None when there is neither.
    app: Any = None


def resolve_config_path(path: str | os.PathLike[str]) -> Path:
    """The config file ``path`` names: the file itself, or ``root_agent.yaml`` in a folder."""
    target = Path(os.path.abspath(path))
    if target.is_dir():
        for name in ROOT_CONFIG_NAMES:
            if (target / name).is_file():
                return target / name
        from yadk.config._python_agent import python_agent_file

        python_file = python_agent_file(target)
        if python_file is not None:
            return python_file
        raise ConfigError(
            [
                Diagnostic(
                    str(target),
                    0,
                    0,
                    "file-not-found",
                    "error",
                    f"No root_agent.yaml in folder {target}.",
                    "Pass the config file itself, or add root_agent.yaml to the folder.",
                )
            ]
        )
    if not target.is_file():
        raise ConfigError(
            [
                Diagnostic(
                    str(target),
                    0,
                    0,
                    "file-not-found",
                    "error",
                    f"Config file {target} not found.",
                    "Pass a YAML config file or a folder holding root_agent.yaml.",
                )
            ]
        )
    return target


def read_config_tree(
    file: Path,
    *,
    import_code: bool,
    run_checks: bool = False,
    given_keys: Iterable[str] = (),
    models_replaced: bool = False,
    network: bool = False,
    validating: bool = False,
) -> tuple[Loader, AgentRecord | None]:
    """Read the agent tree rooted at ``file``; every problem is in ``loader.diagnostics``.

    ``run_checks`` adds what only matters for running the tree, once it has no errors: agents
    without a model, built-in models without their API key (see ``_model_checks``).
    ``given_keys`` are state keys the caller sets (``--state``), for the placeholder check;
    ``network`` lets checks fetch what a config names over the network (remote agents' cards);
    ``validating`` (``yadk validate``) adds the app.yaml warnings a load leaves to the App."""
    loader = Loader(file.parent, import_code=import_code)
    loader.network = network
    try:
        record = loader.load_file(file)
        if record is not None:
            code = [f for f in loader.resolver.module_files if not _installed(f)]
            trees = [record, *loader.separate_trees]
            check_trees(
                loader,
                trees,
                code_files=code,
                given_keys=given_keys,
                missing_agents=loader.missing_agents,
            )
            if not loader.errors and not models_replaced:
                check_model_names(loader, trees)
            if run_checks and not loader.errors:
                check_models(loader, trees)
        if file.name in ROOT_CONFIG_NAMES and (app := app_file(file.parent)) is not None:
            trees = [record, *loader.separate_trees] if record is not None and validating else []
            loader.app_spec = read_app_file(loader, app, _tree_models(trees))
    except Exception as exc:
        loader.report(
            file,
            0,
            0,
            "internal-error",
            f"yadk failed while reading this config: {type(exc).__name__}: {exc}.",
            "This is a bug in yadk; please report it with the config.",
        )
        record = None
    return loader, record


def _tree_models(trees: list[AgentRecord]) -> list[tuple[str, str]]:
    """``(agent name, model:)`` of every agent of ``trees`` that names a model in its config."""
    found: list[tuple[str, str]] = []
    pending = list(trees)
    while pending:
        record = pending.pop(0)
        if record.model and record.name and not record.from_code:
            found.append((record.name, record.model))
        pending.extend(record.children)
    return found


def load_agent(path: str | os.PathLike[str]) -> BaseAgent:
    """Load an agent from a YAML config file or a folder holding ``root_agent.yaml``.

    Raises ``ConfigError`` carrying every problem of every file of the tree.
    """
    return load_agent_with_sources(path).agent


def load_agent_with_sources(
    path: str | os.PathLike[str],
    *,
    reload_modules: bool = False,
    run_checks: bool = False,
    given_keys: Iterable[str] = (),
    models_replaced: bool = False,
) -> LoadedAgent:
    """``load_agent`` plus the files the agent depends on (see ``LoadedAgent``).

    ``reload_modules`` first forgets the modules previously imported from the agent folder, so
    edited Python files take effect (the dev loop's reload). ``run_checks`` adds the warnings
    that matter for running (``missing-model``, ``api-key-missing``, model names no backend
    serves, unless ``models_replaced``: a ``--model`` replaces them all); ``given_keys`` are
    state keys the caller sets, which placeholders may read.
    """
    file = resolve_config_path(path)
    root = file.parent
    if reload_modules:
        _forget_modules(root)
    if file.suffix == ".py":
        return _python_agent(file)
    loader, record = read_config_tree(
        file,
        import_code=True,
        run_checks=run_checks,
        given_keys=given_keys,
        models_replaced=models_replaced,
    )
    diagnostics = sort_diagnostics(loader.diagnostics)
    errors = [d for d in diagnostics if d.is_error]
    if errors or record is None or record.agent is None:
        if not errors:
            errors = [
                Diagnostic(
                    str(file),
                    0,
                    0,
                    "internal-error",
                    "error",
                    "The agent could not be built, but no problem was reported.",
                    "This is a bug in yadk; please report it with the config.",
                )
            ]
            diagnostics = errors + diagnostics
        raise ConfigError(diagnostics, "\n".join(d.format() for d in errors))
    from yadk.config._sources import attach_sources

    attach_sources([record, *loader.separate_trees], diagnostics)
    modules = _modules_under(root)
    files = set(loader.files)
    files.update(Path(sys.modules[name].__file__ or "") for name in modules)
    files.update(Path(f) for f in loader.resolver.module_files if not _installed(f))
    return LoadedAgent(
        agent=record.agent,
        path=file,
        files=files,
        modules=modules,
        agent_files=dict(loader.agent_files),
        diagnostics=diagnostics,
        app=_app(loader.app_spec, record.agent, root),
    )


def _app(spec: Any, agent: BaseAgent, root: Path) -> Any:
    """The App app.yaml describes around ``agent`` (None without an app.yaml)."""
    if spec is None:
        return None
    from pydantic import ValidationError

    try:
        return build_app(spec, agent, default_name=root.name)
    except ValidationError as exc:  # no `name:`, and the folder's name is no app name
        diagnostic = Diagnostic(
            str(spec.file),
            1,
            1,
            "invalid-name",
            "error",
            f"The app needs a name: {exc.errors()[0]['msg'].removeprefix('Value error, ')}",
            "Add `name: my_app` to app.yaml (a letter, then letters, digits, `_` or `-`).",
        )
        raise ConfigError([diagnostic], diagnostic.format()) from None


def _python_agent(file: Path) -> LoadedAgent:
    """A Python agent folder (``agent.py`` / ``__init__.py`` defining ``root_agent``)."""
    from yadk.config._python_agent import load_python_agent

    agent, modules, app = load_python_agent(file)
    files = {Path(sys.modules[name].__file__ or "") for name in modules if name in sys.modules}
    files.add(file)
    return LoadedAgent(
        agent=agent,
        path=file,
        files=files,
        modules=modules,
        agent_files={},
        diagnostics=[],
        app=app,
    )


def _modules_under(root: Path) -> set[str]:
    # Modules of the agent folder were imported through the folder paths the loader put on
    # sys.path, so a prefix test on the recorded file names finds them without resolving every
    # module's path.
    prefixes = tuple({str(root) + os.sep, os.path.realpath(root) + os.sep})
    found: set[str] = set()
    for name, module in list(sys.modules.items()):
        file = getattr(module, "__file__", None)
        if isinstance(file, str) and file.startswith(prefixes):
            found.add(name)
    return found


def _forget_modules(root: Path) -> None:
    for name in _modules_under(root):
        sys.modules.pop(name, None)
    importlib.invalidate_caches()


def _installed(file: str) -> bool:
    real = os.path.realpath(file)
    prefixes = {os.path.realpath(p) for p in (sys.prefix, sys.base_prefix, sys.exec_prefix)}
    return any(real.startswith(p + os.sep) for p in prefixes)


def validate_files(
    paths: Iterable[Path], *, import_code: bool, run_checks: bool = False, network: bool = False
) -> tuple[list[Diagnostic], int]:
    """Diagnostics of the config trees rooted at ``paths`` (config files), and how many agents
    those trees define (each config file read, and each ``code:`` agent)."""
    found: list[Diagnostic] = []
    agents = 0
    for file in paths:
        loader, record = read_config_tree(
            file,
            import_code=import_code,
            run_checks=run_checks,
            network=network,
            validating=True,
        )
        found.extend(loader.diagnostics)
        agents += _count_agents(file, [] if record is None else [record, *loader.separate_trees])
    return found, agents


def _count_agents(root: Path, trees: list[AgentRecord]) -> int:
    files: set[Path] = {root}
    code = 0
    for tree in trees:
        for record in tree.walk():
            if record.from_code:
                code += 1
            elif record.scope is not None:
                files.add(record.scope.file)
    return len(files) + code
