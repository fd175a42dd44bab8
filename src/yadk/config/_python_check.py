"""``yadk validate`` of Python agent folders (``agent.py`` / ``__init__.py`` defining
``root_agent``).

Always, without running anything (``ast``): the agent file parses (a syntax error is reported at
its line and column), it defines ``root_agent`` at module level, and the folder's modules import
from google-adk only what yadk's compatibility shim provides (rule ``adk-import``).

With ``--import``, and only when the project trusts the folder's package (``trusted_modules`` of
``[tool.yadk]`` in the project root's pyproject.toml, or ``yadk --trust PACKAGE``): the module is
imported as ``yadk run`` would, and ``root_agent`` must be a yadk agent (a google-adk object is
rule ``adk-object``); its tools and callbacks are checked by the agents' own constructors (an
error is ``import-failed`` at the failing line), and the instruction placeholders of the agent
tree are checked against the state keys that can be known, as for YAML configs. An untrusted
folder is not imported: a warning says how to trust it. Importing runs the module's top-level
code, which is why trust is asked for.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

from yadk.config._context import AgentRecord, Reporter, TextSource
from yadk.config._diagnostics import Diagnostic
from yadk.config._lint import check_trees
from yadk.config._model_checks import NameCheck
from yadk.config._pyproject import effective_trust_policy
from yadk.config._python_agent import load_python_agent
from yadk.config._refs import check_adk_imports
from yadk.errors import ConfigError

__all__ = ["root_agent_position", "validate_python_agents"]

_MAX_MODULE_FILES = 200
_SKIPPED = frozenset({"__pycache__", "node_modules", "venv", "site-packages"})


def validate_python_agents(files: Iterable[Path], *, import_code: bool) -> list[Diagnostic]:
    """Every problem of the Python agent files ``files`` (see the module docstring)."""
    reporter = Reporter()
    trust_reported: set[tuple[str, int, int, str]] = set()
    for file in files:
        _check(reporter, file, import_code=import_code, trust_reported=trust_reported)
    return reporter.diagnostics


def _check(reporter: Reporter, file: Path, *, import_code: bool, trust_reported: set[Any]) -> None:
    before = reporter.errors
    try:
        tree = ast.parse(file.read_bytes(), filename=str(file))
    except SyntaxError as exc:
        reporter.report(
            file,
            exc.lineno or 1,
            exc.offset or 1,
            "syntax-error",
            f"Python syntax error: {exc.msg}.",
            f"Fix the code in {file.name}; validate reads it without importing it.",
        )
        return
    except (OSError, ValueError) as exc:
        reporter.report(file, 0, 0, "file-not-readable", f"Cannot read {file.name}: {exc}.")
        return
    for module in _module_files(file.parent):
        check_adk_imports(reporter, module)
    where = root_agent_position(tree)
    if where is None:
        reporter.report(
            file,
            1,
            1,
            "missing-root-agent",
            f"{file.name} defines no `root_agent`.",
            "Define the agent as `root_agent = LlmAgent(...)` (from yadk import LlmAgent),"
            " or add a root_agent.yaml to the folder.",
        )
    _check_model_names(reporter, file, tree)
    if not import_code or reporter.errors != before:
        return
    package = file.parent.name
    policy, problems = effective_trust_policy(file.parent)
    for problem in problems:
        key = (str(problem.path), problem.line, problem.column, problem.message)
        if key not in trust_reported:
            trust_reported.add(key)
            reporter.report(
                problem.path,
                problem.line,
                problem.column,
                problem.rule,
                problem.message,
                problem.hint,
                severity="warning" if problem.severity == "warning" else "error",
            )
    line, column = where or (1, 1)
    if not policy.trusts_module(package):
        reporter.report(
            file,
            line,
            column,
            "untrusted-python-agent",
            f"`{package}` was not imported: --import runs a Python agent's code only when the"
            " project trusts its package; only the static checks ran.",
            f'Add `trusted_modules = ["{package}"]` under [tool.yadk] in the project\'s'
            f" pyproject.toml, or run `yadk --trust {package} validate --import ...`.",
            severity="warning",
        )
        return
    _imported(reporter, file, (line, column))


_AGENT_CLASSES = frozenset({"Agent", "LlmAgent"})


def _check_model_names(reporter: Reporter, file: Path, tree: ast.Module) -> None:
    """``LlmAgent(model="...")`` with a literal name: the checks a config's ``model:`` gets
    (the rules the model registry resolves names by), at the literal."""
    names = NameCheck(reporter)
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call):
            continue
        func = node.func
        called = func.id if isinstance(func, ast.Name) else getattr(func, "attr", None)
        if called not in _AGENT_CLASSES:
            continue
        for keyword in node.keywords:
            value = keyword.value
            if keyword.arg != "model" or not isinstance(value, ast.Constant):
                continue
            if not isinstance(value.value, str):
                continue
            found = names.problem(value.value)
            if found is not None:
                severity, rule, message, hint = found
                reporter.report(
                    file, value.lineno, value.col_offset + 1, rule, message, hint,
                    severity=severity,
                )  # fmt: skip


def _imported(reporter: Reporter, file: Path, where: tuple[int, int]) -> None:
    try:
        agent, modules, _ = load_python_agent(file)
    except ConfigError as exc:
        for d in exc.diagnostics:
            line, column = (d.line, d.column) if d.line else where
            reporter.report(d.path, line, column, d.rule, d.message, d.hint, severity=d.severity)
        return
    text = file.read_text(encoding="utf-8", errors="replace")
    found = Reporter()
    # Tools and callbacks that write state live in the agent's folder: its modules.
    del modules
    check_trees(
        found, [_record(agent, file)], code_files=[str(p) for p in _module_files(file.parent)]
    )
    for d in found.diagnostics:
        line, column = _locate(text, d.message) or where
        reporter.report(file, line, column, d.rule, d.message, d.hint, severity=d.severity)


def _record(agent: Any, file: Path) -> AgentRecord:
    instruction = getattr(agent, "instruction", None)
    return AgentRecord(
        name=getattr(agent, "name", None),
        scope=None,
        at=(),
        agent=agent,
        kind=type(agent).__name__,
        from_code=True,
        children=[_record(child, file) for child in getattr(agent, "sub_agents", None) or []],
        instructions=[TextSource(instruction, file=file)] if isinstance(instruction, str) else [],
        output_key=getattr(agent, "output_key", None),
    )


_PLACEHOLDER = re.compile(r"`(\{[^`]*\})`")


def _locate(text: str, message: str) -> tuple[int, int] | None:
    """Where the placeholder a lint message quotes first appears in the agent file."""
    quoted = _PLACEHOLDER.search(message)
    if quoted is None:
        return None
    offset = text.find(quoted.group(1))
    if offset < 0:
        return None
    line = text.count("\n", 0, offset) + 1
    return line, offset - (text.rfind("\n", 0, offset) + 1) + 1


_ROOT_NAMES = frozenset({"root_agent", "app"})


def root_agent_position(tree: ast.Module) -> tuple[int, int] | None:
    """Line and column (1-based) where the module binds ``root_agent`` (or google-adk's ``app``)
    at top level."""
    for node in _top_level(tree.body):
        if _binds_root_agent(node):
            return node.lineno, node.col_offset + 1
    return None


def _top_level(body: list[ast.stmt]) -> Iterator[ast.stmt]:
    for node in body:
        yield node
        if isinstance(node, ast.If | ast.Try | ast.With):
            for block in ("body", "orelse", "finalbody", "handlers"):
                for child in getattr(node, block, []):
                    if isinstance(child, ast.ExceptHandler):
                        yield from _top_level(child.body)
                    else:
                        yield from _top_level([child])


def _binds_root_agent(node: ast.stmt) -> bool:
    if isinstance(node, ast.Assign):
        return any(_is_name(target) for target in node.targets)
    if isinstance(node, ast.AnnAssign | ast.AugAssign):
        return _is_name(node.target)
    if isinstance(node, ast.ImportFrom | ast.Import):
        return any((alias.asname or alias.name) in _ROOT_NAMES for alias in node.names)
    if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
        return node.name in _ROOT_NAMES
    return False


def _is_name(target: ast.expr) -> bool:
    if isinstance(target, ast.Tuple | ast.List):
        return any(_is_name(item) for item in target.elts)
    return isinstance(target, ast.Name) and target.id in _ROOT_NAMES


def _module_files(folder: Path) -> Iterator[Path]:
    """The Python files of the agent's folder and its subfolders (bounded)."""
    count = 0
    stack = [folder]
    while stack and count < _MAX_MODULE_FILES:
        current = stack.pop()
        try:
            entries = sorted(current.iterdir())
        except OSError:
            continue
        for entry in entries:
            if entry.is_dir() and not entry.name.startswith(".") and entry.name not in _SKIPPED:
                stack.append(entry)
            elif entry.suffix == ".py" and entry.is_file():
                count += 1
                yield entry
                if count >= _MAX_MODULE_FILES:
                    return
