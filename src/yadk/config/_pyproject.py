"""Where the trust policy comes from: ``[tool.yadk]`` in pyproject.toml files and ``--trust``.

Trust comes from the project root (the nearest pyproject.toml at or above the working directory)
and ``yadk --trust``; every other pyproject.toml at or above an agent folder can only narrow it,
and what one tries to add is reported (``trust-not-widened``). Tables are read once per file
version (by mtime); problems carry the file's line and column. What the policy means is in
``_trust``.

``tomllib`` is imported only when a pyproject.toml is read.
"""

from __future__ import annotations

import dataclasses
import os
import re
from collections.abc import Callable, Iterable
from pathlib import Path

from yadk._files import FileProblem, read_text
from yadk.config._trust import (
    CODE_EXECUTION_KINDS,
    TrustPolicy,
    TrustProblem,
    blocked_module,
    command_line_code_execution,
    command_line_trust,
)

__all__ = ["effective_trust_policy", "find_trust_policy"]


def find_trust_policy(start: Path) -> tuple[TrustPolicy, list[str]]:
    """The policy of the nearest ``pyproject.toml`` at or above ``start``, and problems with it.

    The first pyproject.toml found decides, even without a ``[tool.yadk]`` table (then nothing
    beyond the defaults is trusted). Loading uses ``effective_trust_policy``, which takes trust
    from the project root only.
    """
    source = _nearest_pyproject(start)
    if source is None:
        return TrustPolicy(), []
    policy, problems = _cached(source)
    return policy or TrustPolicy(source=source), [p.message for p in problems]


def effective_trust_policy(
    folder: Path, *, cwd: Path | None = None
) -> tuple[TrustPolicy, list[TrustProblem]]:
    """The policy for configs in ``folder``.

    Trust comes from the project root, the nearest pyproject.toml at or above the working
    directory (plus ``--trust``), never from the folder being loaded: every other pyproject.toml
    at or above ``folder`` can only narrow it, and what one tries to add is reported.
    """
    root_file = _nearest_pyproject(cwd or Path.cwd())
    root, problems = _cached(root_file) if root_file is not None else (None, [])
    extra = tuple(_checked_names(command_line_trust(), "--trust", None, "", problems))
    base = root or TrustPolicy(source=root_file)
    base = dataclasses.replace(
        base,
        trusted_modules=base.trusted_modules + extra,
        code_execution=base.code_execution | command_line_code_execution(),
    )
    stop = root_file.parent if root_file is not None else None
    narrowing: list[TrustPolicy] = []
    for candidate in _pyprojects_above(folder, stop):
        if candidate == root_file:
            continue
        nested, nested_problems = _cached(candidate)
        problems.extend(nested_problems)
        if nested is None:
            continue
        narrowing.append(nested)
        problems.extend(_widening(nested, base, candidate))
    return dataclasses.replace(base, narrowed_by=tuple(narrowing)), problems


def _nearest_pyproject(start: Path) -> Path | None:
    for folder in (start, *start.parents):
        candidate = folder / "pyproject.toml"
        if os.path.lexists(candidate):
            return candidate
    return None


def _pyprojects_above(folder: Path, stop: Path | None) -> list[Path]:
    found = []
    for place in (folder, *folder.parents):
        if stop is not None and place == stop:
            break
        candidate = place / "pyproject.toml"
        if os.path.lexists(candidate):
            found.append(candidate)
    return found


def _widening(nested: TrustPolicy, base: TrustPolicy, path: Path) -> list[TrustProblem]:
    text = _text_of(path)
    where = f" ({base.source})" if base.source else ""
    found = []
    for key, names in (
        ("trusted_modules", nested.trusted_modules),
        ("allow_args", nested.allow_args),
        ("trusted_hosts", nested.trusted_hosts),
    ):
        for name in names:
            if base.trusts_host(name) if key == "trusted_hosts" else base.allows_args(name):
                continue
            line, column = _locate(text, name)
            found.append(
                TrustProblem(
                    path,
                    line,
                    column,
                    "trust-not-widened",
                    f"[tool.yadk] {key} here lists {name!r}, but trust comes only from the project"
                    f" root{where} or --trust: a nested pyproject.toml can narrow it, never widen"
                    " it, so this entry has no effect.",
                    f"To trust it, add it to the project root's [tool.yadk] {key}"
                    + (
                        "."
                        if key == "trusted_hosts"
                        else f", or pass --trust {name.split('.')[0]}."
                    ),
                    "warning",
                )
            )
    for key, widened in (
        ("trust_project", nested.trust_project and not base.trust_project),
        (
            "allow_code_execution",
            bool(nested.code_execution - base.code_execution),
        ),
    ):
        if widened:
            line, column = _locate_key(text, key)
            found.append(
                TrustProblem(
                    path,
                    line,
                    column,
                    "trust-not-widened",
                    f"[tool.yadk] {key} here allows more than the project root{where} does, but"
                    " trust comes only from the project root: a nested pyproject.toml can narrow"
                    " it, never widen it, so this setting has no effect.",
                    f"To allow it, set {key} under [tool.yadk] in the project root's"
                    " pyproject.toml.",
                    "warning",
                )
            )
    return found


_cache: dict[Path, tuple[float, TrustPolicy | None, list[TrustProblem]]] = {}


def _cached(path: Path) -> tuple[TrustPolicy | None, list[TrustProblem]]:
    try:
        mtime = os.stat(path).st_mtime
    except OSError:
        mtime = -1.0
    cached = _cache.get(path)
    if cached is None or cached[0] != mtime:
        policy, problems = _read(path)
        cached = _cache[path] = (mtime, policy, problems)
    return cached[1], list(cached[2])


def _read(path: Path) -> tuple[TrustPolicy | None, list[TrustProblem]]:
    """The ``[tool.yadk]`` table of ``path`` (``None`` when it has none), and its problems."""
    import tomllib

    try:
        text = read_text(path, kind="pyproject")
        document = tomllib.loads(text)
    except FileProblem as problem:
        return TrustPolicy(source=path), [
            TrustProblem(
                path,
                problem.line or 1,
                problem.column or 1,
                "pyproject-invalid",
                f"cannot read the [tool.yadk] table: {problem.message}",
                problem.hint,
            )
        ]
    except tomllib.TOMLDecodeError as exc:
        at = re.search(r"\(at line (\d+), column (\d+)\)", str(exc))
        line, column = (int(at.group(1)), int(at.group(2))) if at else (1, 1)
        return TrustPolicy(source=path), [
            TrustProblem(
                path, line, column, "pyproject-invalid", f"cannot read the [tool.yadk] table: {exc}"
            )
        ]
    problems: list[TrustProblem] = []

    def invalid(key: str, message: str) -> None:
        line, column = _locate_key(text, key)
        problems.append(TrustProblem(path, line, column, "pyproject-invalid", message))

    tool = document.get("tool")
    if tool is None:
        return None, []
    if not isinstance(tool, dict):
        invalid("tool", "`tool` must be a table, such as [tool.yadk]")
        return TrustPolicy(source=path), problems
    table = tool.get("yadk")
    if table is None:
        return None, []
    if not isinstance(table, dict):
        invalid("yadk", "[tool] yadk must be a table: [tool.yadk]")
        return TrustPolicy(source=path), problems
    hosts = table.get("trusted_hosts", [])
    if not isinstance(hosts, list) or not all(isinstance(item, str) for item in hosts):
        invalid("trusted_hosts", "[tool.yadk] trusted_hosts must be a list of strings")
        hosts = []
    values: dict[str, tuple[str, ...]] = {}
    for key in ("trusted_modules", "allow_args"):
        raw = table.get(key, [])
        if not isinstance(raw, list) or not all(isinstance(item, str) for item in raw):
            invalid(key, f"[tool.yadk] {key} must be a list of strings")
            raw = []
        values[key] = tuple(_checked_names(raw, f"[tool.yadk] {key}", path, text, problems))
    flags: dict[str, bool] = {}
    for key in ("trust_project", "allow_stdio_mcp_servers"):
        flag = table.get(key, False)
        if not isinstance(flag, bool):
            invalid(key, f"[tool.yadk] {key} must be true or false")
            flag = False
        flags[key] = flag
    kinds = _execution_kinds(table.get("allow_code_execution", False), invalid)
    if flags["allow_stdio_mcp_servers"]:
        kinds.add("stdio_mcp")  # the older spelling of allow_code_execution = ["stdio_mcp"]
    policy = TrustPolicy(
        values["trusted_modules"],
        values["allow_args"],
        source=path,
        code_execution=frozenset(kinds),
        trust_project=flags["trust_project"],
        trusted_hosts=tuple(hosts),
    )
    return policy, problems


def _execution_kinds(raw: object, invalid: Callable[[str, str], None]) -> set[str]:
    """``allow_code_execution``: true (every kind), false, or a list of kinds."""
    expected = "[tool.yadk] allow_code_execution must be true, false or a list of " + ", ".join(
        f'"{kind}"' for kind in CODE_EXECUTION_KINDS
    )
    if isinstance(raw, bool):
        return set(CODE_EXECUTION_KINDS) if raw else set()
    if not isinstance(raw, list) or not all(isinstance(kind, str) for kind in raw):
        invalid("allow_code_execution", expected)
        return set()
    unknown = [kind for kind in raw if kind not in CODE_EXECUTION_KINDS]
    if unknown:
        invalid("allow_code_execution", f"{expected}; got {unknown[0]!r}")
    return {kind for kind in raw if kind in CODE_EXECUTION_KINDS}


def _checked_names(
    names: Iterable[str], key: str, path: Path | None, text: str, problems: list[TrustProblem]
) -> Iterable[str]:
    for name in names:
        blocked = blocked_module(name)
        if blocked is not None:
            line, column = _locate(text, name)
            problems.append(
                TrustProblem(
                    path or Path("--trust"),
                    line if path else 0,
                    column if path else 0,
                    "pyproject-invalid",
                    f"{key} cannot trust {name!r}: the {blocked!r} module is always blocked",
                    "The standard library and YAML loaders can run arbitrary code; trust your"
                    " own package that wraps what you need instead.",
                )
            )
            continue
        yield name


def _text_of(path: Path) -> str:
    try:
        return read_text(path, kind="pyproject")
    except FileProblem:
        return ""


def _locate(text: str, name: str) -> tuple[int, int]:
    """Where the string ``name`` is written in a TOML text (quoted), else line 1."""
    for quote in ('"', "'"):
        offset = text.find(f"{quote}{name}{quote}")
        if offset >= 0:
            return _position(text, offset)
    return (1, 1)


def _locate_key(text: str, key: str) -> tuple[int, int]:
    match = re.search(rf"^[ \t]*\[?[ \t]*{re.escape(key)}\b", text, re.MULTILINE)
    if match is None:
        return (1, 1)
    return _position(text, match.start() + len(match.group()) - len(key))


def _position(text: str, offset: int) -> tuple[int, int]:
    line = text.count("\n", 0, offset) + 1
    return line, offset - (text.rfind("\n", 0, offset) + 1) + 1
