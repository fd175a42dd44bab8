"""Whole-tree checks: agent names unique per tree, instruction placeholders that can resolve.

A required placeholder (``{key}``, not ``{key?}``) must have a possible writer: an agent's
``output_key``, a key the ``state:`` block declares, a key a tool or callback module writes
(found with ``ast``, see ``_writers``), or a key the caller sets (``--state``). Plain ADK configs
have no ``state:`` block, so the writers are inferred; when a module writes computed keys, or an
agent of the tree could not be read (a missing sub-agent file), the inference is incomplete, and
that is said once instead of guessing per placeholder.

The templating engine is imported only for an agent with placeholders to check.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

from yadk._paths import display_path
from yadk.config._context import AgentRecord, Reporter, TextSource, did_you_mean
from yadk.config._writers import StateWrites, state_writes

__all__ = ["check_trees", "placeholder_location"]


def check_trees(
    reporter: Reporter,
    trees: Sequence[AgentRecord],
    *,
    code_files: Iterable[str] = (),
    given_keys: Iterable[str] = (),
    missing_agents: Sequence[tuple[Path, int, int]] = (),
) -> None:
    """Report duplicate agent names in each tree and suspicious placeholders in all of them.

    ``code_files`` are the Python modules the configs reference (tools, callbacks), searched
    for the state keys they write; ``given_keys`` are keys the caller provides (``--state``);
    ``missing_agents`` are where a referenced agent could not be read (already reported)."""
    for tree in trees:
        _duplicate_names(reporter, tree)
    _placeholders(reporter, trees, state_writes(code_files), set(given_keys), list(missing_agents))


def _where(record: AgentRecord) -> tuple[str, int, int]:
    assert record.scope is not None
    at = record.at if record.from_code else ("name",)
    line, column = record.scope.doc.where(at)
    return str(record.scope.file), line, column


def _duplicate_names(reporter: Reporter, tree: AgentRecord) -> None:
    first: dict[str, AgentRecord] = {}
    for record in tree.walk():
        if record.name is None or record.scope is None:
            continue
        if record.name not in first:
            first[record.name] = record
            continue
        path, line, column = _where(first[record.name])
        here = _where(record)
        reporter.report(
            here[0],
            here[1],
            here[2],
            "duplicate-agent-name",
            f"Agent name `{record.name}` is used twice in one agent tree.",
            f"The other one is at {path}:{line}:{column}; names must be unique in a tree "
            "(transfers and events refer to agents by name).",
        )


def _written_keys(trees: Sequence[AgentRecord]) -> tuple[set[str], bool]:
    """State keys some agent writes (output_key) or the configs declare; whether any declares."""
    keys: set[str] = set()
    declared = False
    for tree in trees:
        for record in tree.walk():
            if record.output_key:
                keys.add(record.output_key)
            if record.from_code and record.agent is not None:
                key = getattr(record.agent, "output_key", None)
                if isinstance(key, str):
                    keys.add(key)
            if record.state_keys is not None:
                declared = True
                keys.update(record.state_keys)
    return keys, declared


def _placeholders(
    reporter: Reporter,
    trees: Sequence[AgentRecord],
    writes: StateWrites,
    given: set[str],
    missing: list[tuple[Path, int, int]],
) -> None:
    from yadk.templating import find_placeholders

    known, declared = _written_keys(trees)
    unread = _unread_code_agents(trees)
    # With a `state:` block the declaration is the list; without one, what code writes counts.
    if not declared:
        known |= writes.keys
    known |= given
    why = _why_incomplete(writes, missing, unread, declared)
    said = False
    for tree in trees:
        for record in tree.walk():
            for source in record.instructions:
                for placeholder in find_placeholders(source.text):
                    if why is not None and _unresolved(placeholder, known):
                        if not said:
                            _incomplete(reporter, source, placeholder, why)
                            said = True
                        continue
                    _check(reporter, source, placeholder, known, declared)


def _places(found: list[tuple[Path, int, int]]) -> str:
    path, line, column = found[0]
    more = f" and {len(found) - 1} more" if len(found) > 1 else ""
    return f"{display_path(path)}:{line}:{column}{more}"


def _unread_code_agents(trees: Sequence[AgentRecord]) -> list[tuple[Path, int, int]]:
    """``code:`` agents not imported (``validate`` without ``--import``): their ``output_key``
    is unknown."""
    found = []
    for tree in trees:
        for record in tree.walk():
            if record.from_code and record.agent is None and record.scope is not None:
                line, column = record.scope.doc.where(record.at)
                found.append((record.scope.file, line, column))
    return found


def _why_incomplete(
    writes: StateWrites,
    missing: list[tuple[Path, int, int]],
    unread: list[tuple[Path, int, int]],
    declared: bool,
) -> tuple[str, str] | None:
    """Why writers cannot all be known, and the hint; None when they can."""
    if declared:
        return None
    if missing:
        return (
            f"the agent at {_places(missing)} could not be read (the keys it writes are unknown)",
            "Fix that error first; every placeholder is checked once the whole tree loads.",
        )
    if unread:
        return (
            f"the `code:` agent at {_places(unread)} is not imported (the keys it writes are"
            " unknown)",
            "Run `yadk validate --import` to import the code and check every placeholder.",
        )
    if writes.computed:
        where = ", ".join(writes.computed[:3]) + (" ..." if len(writes.computed) > 3 else "")
        return (
            f"code writes state keys it cannot name ({where})",
            "Declare the keys under `state:` to have every placeholder checked.",
        )
    return None


def _unresolved(placeholder: Any, known: set[str]) -> bool:
    return (
        placeholder.kind == "state"
        and not placeholder.problem
        and not placeholder.optional
        and placeholder.name not in known
    )


def _incomplete(
    reporter: Reporter, source: TextSource, placeholder: Any, why: tuple[str, str]
) -> None:
    _warn(
        reporter,
        source,
        placeholder,
        "placeholder-writers-unknown",
        f"`{placeholder.text}` has no writer yadk can see, but {why[0]}; placeholders with no"
        " visible writer are not checked.",
        why[1],
    )


def _check(
    reporter: Reporter, source: TextSource, placeholder: Any, known: set[str], declared: bool
) -> None:
    if placeholder.kind == "near_miss":
        problem = placeholder.problem or f"`{placeholder.text}` is not a placeholder."
        hint = ""
        if placeholder.suggestion and "Did you mean" not in problem:
            hint = f"Did you mean `{placeholder.suggestion}`?"
        elif not placeholder.suggestion:
            hint = "Placeholders are `{name}`, `{name?}` or `{artifact.file}`; other braces stay."
        _warn(reporter, source, placeholder, "placeholder-near-miss", problem, hint)
        return
    if placeholder.problem:
        _warn(reporter, source, placeholder, "placeholder-invalid", placeholder.problem, "")
        return
    if placeholder.kind != "state" or placeholder.name in known:
        return
    if not declared and (placeholder.optional or ":" in placeholder.name):
        # Inferred writers: an optional placeholder may stay empty, and app:/user: keys are
        # commonly set by earlier sessions or the caller.
        return
    guess = did_you_mean(placeholder.name, sorted(known))
    nothing = (
        "which no agent writes (output_key) and `state:` does not declare"
        if declared
        else "which nothing writes: no agent's output_key, no tool or callback"
    )
    _warn(
        reporter,
        source,
        placeholder,
        "placeholder-unknown-key",
        f"`{placeholder.text}` reads state key `{placeholder.name}`, {nothing}.",
        f"Did you mean `{{{guess}}}`?"
        if guess
        else "Declare it under `state:` if something else sets it (a tool, a callback, the "
        "caller), or fix the name.",
    )


def _warn(
    reporter: Reporter, source: TextSource, placeholder: Any, rule: str, message: str, hint: str
) -> None:
    path, line, column = placeholder_location(source, placeholder)
    reporter.report(path, line, column, rule, message, hint, severity="warning")


def placeholder_location(source: TextSource, placeholder: Any) -> tuple[Path, int, int]:
    """The file, line and column where ``placeholder`` of ``source`` is written."""
    if source.file is not None:
        return source.file, placeholder.line, placeholder.column
    assert source.scope is not None
    line, column = source.scope.doc.where_in_string(source.at, placeholder.span[0])
    return source.scope.file, line, column
