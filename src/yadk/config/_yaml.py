"""Reading a YAML config with the line and column of every key and value: the config layer's
position map over the nodes of ``yadk._yaml``, the one bounded YAML reader.

Only YAML's safe types are built: a tag that would construct a Python object is reported, not
obeyed. Duplicate keys, which YAML loaders silently resolve to the last value, are reported too.
``${env:...}`` references are substituted in string values (never in keys) on the way.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from pathlib import Path
from typing import Any

import yaml
from yaml.constructor import SafeConstructor

from yadk import _yaml as bounded
from yadk.config._env import as_scalar, env_references, substitute_env, whole_reference

__all__ = ["Document", "KeyPath", "parse_document"]

KeyPath = tuple[Any, ...]
Report = Callable[[int, int, str, str, str], None]

_MERGE_TAG = bounded.MERGE_TAG
_SEQUENCE_TAGS = bounded.SEQUENCE_TAGS
_MAPPING_TAGS = bounded.MAPPING_TAGS
_UNREADABLE_KEY = object()


@dataclasses.dataclass
class Document:
    """A parsed config file: the data and where each part of it is written.

    Positions are 1-based ``(line, column)``, keyed by the path of keys and list indexes from
    the top (``("tools", 0, "name")``).
    """

    path: Path
    text: str
    data: Any
    values: dict[KeyPath, tuple[int, int]] = dataclasses.field(default_factory=dict)
    keys: dict[KeyPath, tuple[int, int]] = dataclasses.field(default_factory=dict)
    styles: dict[KeyPath, str | None] = dataclasses.field(default_factory=dict)
    invalid: set[KeyPath] = dataclasses.field(default_factory=set)
    # The values that took text from the environment (``${env:VAR}``): the variables' names.
    env: dict[KeyPath, tuple[str, ...]] = dataclasses.field(default_factory=dict)

    def is_invalid(self, at: KeyPath) -> bool:
        """Whether the value at ``at`` (or around it) was already reported as unreadable, so
        checks of it would only repeat the problem."""
        return any(at[:n] in self.invalid for n in range(len(at) + 1))

    def where(self, at: KeyPath, *, key: bool = False) -> tuple[int, int]:
        """The position of the value at ``at`` (or of its key), else of the nearest ancestor."""
        if key and at in self.keys:
            return self.keys[at]
        probe = at
        while probe:
            if probe in self.values:
                return self.values[probe]
            if probe in self.keys:
                return self.keys[probe]
            probe = probe[:-1]
        return self.values.get((), (1, 1))

    def where_in_string(
        self, at: KeyPath, offset: int, value: str | None = None
    ) -> tuple[int, int]:
        """The position of character ``offset`` of the string at ``at`` (whose text is
        ``value``, read from the data when not given), where the scalar's layout makes that exact
        (one-line scalars, ``|`` blocks); else the value's position."""
        line, column = self.where(at)
        if value is None:
            value = self.get(at)
        style = self.styles.get(at)
        if not isinstance(value, str) or at not in self.values:
            return line, column
        if style == "|":
            before = value[:offset]
            row = before.count("\n")
            col = offset - (before.rfind("\n") + 1)
            return line + 1 + row, self._block_indent(line) + col + 1
        if "\n" in value[:offset] or style not in (None, '"', "'"):
            return line, column
        # Exact only while the source spells the text verbatim (no escapes before the offset).
        start = column - 1 + (0 if style is None else 1)
        lines = self.text.splitlines()
        source = lines[line - 1] if line <= len(lines) else ""
        if source[start : start + offset] != value[:offset]:
            return line, column
        return line, start + offset + 1

    def _block_indent(self, indicator_line: int) -> int:
        for text in self.text.splitlines()[indicator_line:]:
            if text.strip():
                return len(text) - len(text.lstrip(" "))
        return 0

    def get(self, at: KeyPath) -> Any:
        value = self.data
        for part in at:
            value = value[part]
        return value


def parse_document(path: Path, text: str, report: Report) -> Document | None:
    """Parse ``text`` (the contents of ``path``); problems go to ``report(line, col, rule,
    message, hint)``. Returns ``None`` when the file has no usable document.

    Reading is bounded (see ``yadk._yaml``): a document past the depth or size limits, or with
    an alias that contains itself, is reported once at the place the limit was hit."""
    try:
        root = bounded.compose(text)
    except bounded.YamlProblem as problem:
        report(problem.line, problem.column, problem.rule, problem.message, problem.hint)
        return None
    if root is None:
        report(
            1,
            1,
            "empty-config",
            "The config file is empty.",
            "An agent config needs at least `name` (and `instruction` for an LlmAgent).",
        )
        return None
    document = Document(path=path, text=text, data=None)
    try:
        document.data = _Walker(document, report).convert(root, ())
    except bounded.YamlProblem as problem:
        report(problem.line, problem.column, problem.rule, problem.message, problem.hint)
        return None
    return document


class _Walker:
    def __init__(self, document: Document, report: Report) -> None:
        self.document = document
        self.report = report
        self.budget = bounded.NodeBudget()

    def convert(self, node: yaml.Node, at: KeyPath) -> Any:
        self.budget.enter(node, len(at))
        try:
            return self._convert(node, at)
        finally:
            self.budget.leave(node)

    def _convert(self, node: yaml.Node, at: KeyPath) -> Any:
        self.document.values[at] = (node.start_mark.line + 1, node.start_mark.column + 1)
        if isinstance(node, yaml.ScalarNode):
            return self._scalar(node, at)
        if isinstance(node, yaml.SequenceNode):
            if node.tag not in _SEQUENCE_TAGS:
                return self._unsafe(node, at)
            return [self.convert(item, (*at, index)) for index, item in enumerate(node.value)]
        if isinstance(node, yaml.MappingNode):
            if node.tag not in _MAPPING_TAGS:
                return self._unsafe(node, at)
            return self._mapping(node, at)
        return None  # pragma: no cover - compose only yields the three node kinds

    def _scalar(self, node: yaml.ScalarNode, at: KeyPath) -> Any:
        if node.tag not in bounded.SCALAR_TAGS:
            return self._unsafe(node, at)
        try:
            value = bounded.construct_scalar(node)
        except bounded.YamlProblem as problem:
            self.report(problem.line, problem.column, problem.rule, problem.message, problem.hint)
            self.document.invalid.add(at)
            return None
        if not isinstance(value, str):
            return value
        self.document.styles[at] = node.style
        substituted, missing = substitute_env(value)
        if substituted != value or missing:
            names = tuple(reference.name for reference in env_references(value))
            if names:
                self.document.env[at] = names
        for reference in missing:
            line, column = self.document.where_in_string(at, reference.offset, value)
            self.report(
                line,
                column,
                "env-missing",
                f"Environment variable `{reference.name}` is not set.",
                f"Export it (`export {reference.name}=...`) or give a default: "
                f"`${{env:{reference.name}:-default}}`.",
            )
        if node.style is None and substituted != value and whole_reference(value):
            return as_scalar(substituted)
        return substituted

    def _key(self, node: yaml.ScalarNode) -> Any:
        if node.tag not in SafeConstructor.yaml_constructors:
            return self._unsafe(node, None)
        try:
            return bounded.construct_scalar(node)
        except bounded.YamlProblem as problem:
            self.report(problem.line, problem.column, problem.rule, problem.message, problem.hint)
            return _UNREADABLE_KEY

    def _mapping(self, node: yaml.MappingNode, at: KeyPath) -> dict[Any, Any]:
        result: dict[Any, Any] = {}
        first_seen: dict[Any, tuple[int, int]] = {}
        for key_node, value_node in node.value:
            key_mark = (key_node.start_mark.line + 1, key_node.start_mark.column + 1)
            if key_node.tag == _MERGE_TAG:
                self._merge(value_node, at, result)
                continue
            if not isinstance(key_node, yaml.ScalarNode):
                self.report(
                    *key_mark,
                    "wrong-type",
                    "A mapping key must be a plain value, not a list or mapping.",
                    "",
                )
                continue
            key = self._key(key_node)
            if key is _UNREADABLE_KEY or not _hashable(key):
                continue
            if key in first_seen:
                line, column = first_seen[key]
                self.report(
                    *key_mark,
                    "duplicate-key",
                    f"Key `{key}` appears twice in this mapping; YAML would silently keep only "
                    "the last value.",
                    f"Remove one of them (the first is at line {line}, column {column}).",
                )
                continue
            first_seen[key] = key_mark
            self.document.keys[(*at, key)] = key_mark
            result[key] = self.convert(value_node, (*at, key))
        return result

    def _merge(self, node: yaml.Node, at: KeyPath, result: dict[Any, Any]) -> None:
        sources = node.value if isinstance(node, yaml.SequenceNode) else [node]
        for source in sources:
            if not isinstance(source, yaml.MappingNode):
                continue
            self.budget.enter(source, len(at) + 1)
            try:
                merged = self._mapping(source, at)
            finally:
                self.budget.leave(source)
            for key, value in merged.items():
                result.setdefault(key, value)

    def _unsafe(self, node: yaml.Node, at: KeyPath | None) -> None:
        if at is not None:
            self.document.invalid.add(at)
        self.report(
            node.start_mark.line + 1,
            node.start_mark.column + 1,
            "yaml-unsafe-tag",
            f"The YAML tag `{node.tag}` is not allowed: configs are read with a safe loader that "
            "never builds Python objects.",
            "Remove the tag; reference Python objects by dotted name instead "
            "(e.g. `name: my_agent.tools.search`).",
        )


def _hashable(value: Any) -> bool:
    try:
        hash(value)
    except TypeError:
        return False
    return True
