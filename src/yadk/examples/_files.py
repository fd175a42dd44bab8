"""Loading few-shot examples from a YAML, JSON or JSONL file, with errors that name file and line.

A YAML or JSON file holds a list of examples (or a mapping with an ``examples:`` list); a JSONL
file holds one example per line (blank lines are skipped).

The example model (pydantic, ``_example``) is imported only by ``load_examples_file``:
``check_examples_file`` (``yadk validate``) builds no ``Example`` for plainly valid data.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

import yaml

from yadk import _yaml as bounded
from yadk._files import FileProblem, read_text
from yadk.examples._error import ExampleValidationError
from yadk.examples._shape import check_examples

if TYPE_CHECKING:
    from yadk.examples._example import Example

__all__ = [
    "EXAMPLE_FILE_SUFFIXES",
    "check_examples_file",
    "load_examples_file",
    "looks_like_examples_path",
    "yaml_node_line",
]

EXAMPLE_FILE_SUFFIXES = (".yaml", ".yml", ".json", ".jsonl")


def looks_like_examples_path(value: str) -> bool:
    """Whether an ``examples:`` string names a file rather than a dotted provider name."""
    return value.lower().endswith(EXAMPLE_FILE_SUFFIXES) or "/" in value or os.sep in value


def load_examples_file(path: str | os.PathLike[str]) -> list[Example]:
    """Read and validate the examples in ``path`` (``.yaml``/``.yml``, ``.json`` or ``.jsonl``).

    Raises ``ExampleValidationError`` (an ``ExampleError``, so a ``ValueError``) whose message
    starts with ``path:line:`` and whose ``path``/``line``/``index``/``loc`` say where.
    """
    from yadk.examples._example import coerce_examples

    return _load(Path(path), coerce_examples)


def check_examples_file(path: str | os.PathLike[str]) -> None:
    """Raise what ``load_examples_file(path)`` would raise, building no ``Example`` when the
    data is plainly valid (``yadk validate``: no pydantic import for a clean file)."""
    _load(Path(path), _check)


def _check(items: list[Any]) -> list[Example]:
    check_examples(items)
    return []


_Coerce = Callable[[list[Any]], "list[Example]"]


def _load(file: Path, coerce: _Coerce) -> list[Example]:
    suffix = file.suffix.lower()
    if suffix not in EXAMPLE_FILE_SUFFIXES:
        raise ExampleValidationError(
            f"{file}: cannot load examples from a {suffix or 'suffix-less'} file; "
            "use .yaml, .yml, .json or .jsonl.",
            path=str(file),
        )
    try:
        text = read_text(file, kind="examples")
    except FileProblem as problem:
        if problem.rule == "file-not-found":
            message = f"{file}: examples file not found."
        elif problem.line:
            message = f"{file}:{problem.line}:{problem.column}: {problem.message}"
        else:
            message = f"{file}: {problem.message}"
        raise ExampleValidationError(
            message, path=str(file), line=problem.line or None, column=problem.column or None
        ) from None
    if suffix == ".jsonl":
        return _load_jsonl(file, text, coerce)
    if suffix == ".json":
        return _load_json(file, text, coerce)
    data, node = _parse_yaml(file, text)
    return _validate_document(file, data, node, coerce)


def _load_json(file: Path, text: str, coerce: _Coerce) -> list[Example]:
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise ExampleValidationError(
            f"{file}:{exc.lineno}:{exc.colno}: invalid JSON: {exc.msg}",
            path=str(file),
            line=exc.lineno,
            column=exc.colno,
        ) from None
    # JSON is (nearly) YAML: reparse only to learn line numbers for validation errors.
    try:
        node = bounded.compose(text)
    except bounded.YamlProblem:
        node = None
    return _validate_document(file, data, node, coerce)


def _parse_yaml(file: Path, text: str) -> tuple[Any, yaml.Node | None]:
    try:
        node = bounded.compose(text)
        data = bounded.build(node) if node is not None else None
    except bounded.YamlProblem as problem:
        raise ExampleValidationError(
            f"{file}:{problem.line}:{problem.column}: "
            + (
                f"invalid YAML: {problem.detail}"
                if problem.rule == "yaml-syntax"
                else f"{problem.message} {problem.hint}".strip()
            ),
            path=str(file),
            line=problem.line,
            column=problem.column,
        ) from None
    return data, node


def _validate_document(
    file: Path, data: Any, node: yaml.Node | None, coerce: _Coerce
) -> list[Example]:
    if data is None:
        return []
    items_node: yaml.Node | None = node
    if isinstance(data, dict) and set(data) == {"examples"}:
        data = data["examples"]
        items_node = _child(node, "examples")
    if not isinstance(data, list):
        line = node.start_mark.line + 1 if node is not None else None
        raise ExampleValidationError(
            f"{_where(file, line)}: expected a list of examples (or a mapping with an 'examples:' "
            f"list), got {type(data).__name__}.",
            path=str(file),
            line=line,
        )
    try:
        return coerce(data)
    except ExampleValidationError as exc:
        line, column = _locate(items_node, exc.index, exc.loc)
        raise ExampleValidationError(
            f"{_where(file, line)}: {exc.message}",
            index=exc.index,
            loc=exc.loc,
            path=str(file),
            line=line,
            column=column,
        ) from None


def _load_jsonl(file: Path, text: str, coerce: _Coerce) -> list[Example]:
    items: list[Any] = []
    lines: list[int] = []
    for number, raw in enumerate(text.splitlines(), start=1):
        if not raw.strip():
            continue
        try:
            items.append(json.loads(raw))
        except json.JSONDecodeError as exc:
            raise ExampleValidationError(
                f"{file}:{number}:{exc.colno}: invalid JSON: {exc.msg}",
                path=str(file),
                line=number,
                column=exc.colno,
            ) from None
        lines.append(number)
    try:
        return coerce(items)
    except ExampleValidationError as exc:
        line = lines[exc.index] if exc.index is not None else None
        raise ExampleValidationError(
            f"{_where(file, line)}: {exc.message}",
            index=exc.index,
            loc=exc.loc,
            path=str(file),
            line=line,
        ) from None


def yaml_node_line(
    node: yaml.Node | None, loc: tuple[str | int, ...]
) -> tuple[int | None, int | None]:
    """The 1-based (line, column) of the deepest node along ``loc`` under ``node``.

    For config loaders: given the YAML node of an ``examples:`` list and an
    ``ExampleValidationError``, ``yaml_node_line(node, (err.index, *err.loc))`` points at the
    offending key (or at the nearest enclosing mapping when a required key is missing).
    """
    if node is None:
        return None, None
    current = node
    for key in loc:
        nxt = _child(current, key)
        if nxt is None:
            break
        current = nxt
    return current.start_mark.line + 1, current.start_mark.column + 1


def _locate(
    items_node: yaml.Node | None, index: int | None, loc: tuple[str | int, ...]
) -> tuple[int | None, int | None]:
    if index is None:
        return yaml_node_line(items_node, ())
    return yaml_node_line(items_node, (index, *loc))


def _child(node: yaml.Node | None, key: str | int) -> yaml.Node | None:
    if isinstance(node, yaml.SequenceNode) and isinstance(key, int):
        return node.value[key] if 0 <= key < len(node.value) else None
    if isinstance(node, yaml.MappingNode) and isinstance(key, str):
        wanted = {key, _camel(key)}
        for key_node, value_node in node.value:
            if isinstance(key_node, yaml.ScalarNode) and key_node.value in wanted:
                return value_node
    return None


def _where(file: Path, line: int | None) -> str:
    return f"{file}:{line}" if line is not None else str(file)


def _camel(name: str) -> str:
    head, *rest = name.split("_")
    return head + "".join(word.title() for word in rest)
