"""The one bounded YAML reader every yadk file format goes through.

Configs, scripted model files, SKILL.md frontmatter and example files are untrusted input, so
reading them is bounded: nesting depth (``MAX_DEPTH``), the number of nodes after aliases are
expanded (``MAX_NODES``: a "billion laughs" document stops at the limit instead of eating memory),
and aliases that contain themselves. Only YAML's safe types are built: a tag that would construct
a Python object is refused. Every problem is a ``YamlProblem`` with a 1-based line and column and
a named rule, never a bare ``ValueError`` or ``RecursionError``.

The config layer builds its position-tracking documents from ``compose``, ``NodeBudget`` and
``construct_scalar``; the engine's own formats use ``load``.

Scanning and parsing run in libyaml's C parser when PyYAML was built with it (its events carry the
same line and column marks); composing stays in Python, in PyYAML's own composer, so the limits
are checked on the same events in the same order. A document libyaml rejects is read again by the
pure-Python parser, so a syntax error is worded and located as it always was, with or without
libyaml; without libyaml everything takes the pure-Python path.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any, Final

import yaml
from yaml.composer import Composer
from yaml.constructor import SafeConstructor
from yaml.reader import Reader
from yaml.resolver import Resolver

try:
    from yaml.cyaml import CParser
except ImportError:  # PyYAML built without libyaml
    CParser = None

__all__ = [
    "MAPPING_TAGS",
    "MAX_DEPTH",
    "MAX_NODES",
    "MERGE_TAG",
    "SCALAR_TAGS",
    "SEQUENCE_TAGS",
    "NodeBudget",
    "YamlProblem",
    "build",
    "compose",
    "construct_scalar",
    "load",
    "locate",
    "position",
    "type_name",
]

MAX_DEPTH: Final = 100
MAX_NODES: Final = 100_000

MERGE_TAG: Final = "tag:yaml.org,2002:merge"
SEQUENCE_TAGS: Final = frozenset(
    {"tag:yaml.org,2002:seq", "tag:yaml.org,2002:omap", "tag:yaml.org,2002:pairs"}
)
MAPPING_TAGS: Final = frozenset({"tag:yaml.org,2002:map", "tag:yaml.org,2002:set"})
SCALAR_TAGS: Final = frozenset(SafeConstructor.yaml_constructors) - {
    MERGE_TAG,
    *SEQUENCE_TAGS,
    *MAPPING_TAGS,
    None,
}


class YamlProblem(Exception):
    """A document that cannot be read: ``rule``, ``message`` and ``hint`` at ``line``:``column``."""

    def __init__(
        self, line: int, column: int, rule: str, message: str, hint: str = "", *, detail: str = ""
    ) -> None:
        super().__init__(f"{line}:{column}: {message}")
        self.line = line
        self.column = column
        self.rule = rule
        self.message = message
        self.hint = hint
        # A syntax error's bare problem ("expected ',' or ']'..."), for formats that word it so.
        self.detail = detail or message


def position(node: yaml.Node) -> tuple[int, int]:
    """The 1-based (line, column) where ``node`` starts."""
    return node.start_mark.line + 1, node.start_mark.column + 1


class _Bounds:
    """PyYAML's composer with limits checked while composing, so the problem is reported where it
    is written (the alias that expands too much, the bracket that nests too deep) and before
    anything large is built.

    The composer is PyYAML's one recursive part; ``MAX_DEPTH`` keeps it far from Python's stack
    limit. Each finished node records its size and height (aliases expanded), so an alias adds
    what it would expand to, and an alias to a node still being composed contains itself.
    """

    anchors: dict[Any, yaml.Node]
    peek_event: Callable[[], yaml.Event]

    def _start_bounds(self) -> None:
        self._depth = 0
        self._expanded = 0
        self._sizes: dict[int, tuple[int, int]] = {}  # id(node) -> (nodes, height)

    def compose_node(self, parent: yaml.Node | None, index: Any) -> yaml.Node | None:
        event = self.peek_event()
        line, column = event.start_mark.line + 1, event.start_mark.column + 1
        if self._depth >= MAX_DEPTH:
            raise _too_deep(line, column)
        if isinstance(event, yaml.AliasEvent) and event.anchor in self.anchors:
            target = self.anchors[event.anchor]
            size = self._sizes.get(id(target))
            if size is None:
                raise YamlProblem(
                    line,
                    column,
                    "yaml-recursive-alias",
                    f"The alias `*{event.anchor}` is inside the value it refers to, so it would"
                    " repeat itself forever.",
                    "An alias (*name) can only repeat a value that is complete before it.",
                )
            if self._depth + size[1] > MAX_DEPTH:
                raise _too_deep(line, column)
            self._count(size[0], line, column)
            alias: yaml.Node = super().compose_node(parent, index)  # type: ignore[misc]
            return alias
        self._depth += 1
        try:
            node: yaml.Node | None = super().compose_node(parent, index)  # type: ignore[misc]
        finally:
            self._depth -= 1
        if node is not None:
            self._record(node, line, column)
        return node

    def _record(self, node: yaml.Node, line: int, column: int) -> None:
        if isinstance(node, yaml.ScalarNode):
            self._sizes[id(node)] = (1, 1)
        else:
            if isinstance(node, yaml.SequenceNode):
                children: list[yaml.Node] = node.value
            else:
                children = [part for pair in node.value for part in pair]
            nodes, height = 1, 1
            sizes = self._sizes
            for child in children:
                child_nodes, child_height = sizes.get(id(child), (1, 1))
                nodes += child_nodes
                if child_height >= height:
                    height = child_height + 1
            sizes[id(node)] = (nodes, height)
        self._count(1, line, column)

    def _count(self, nodes: int, line: int, column: int) -> None:
        self._expanded += nodes
        if self._expanded > MAX_NODES:
            raise YamlProblem(
                line,
                column,
                "yaml-too-large",
                f"The YAML expands to more than {MAX_NODES:,} values (an alias counts the values"
                " it repeats each time it is used).",
                "Remove the repeated aliases; no yadk file needs this many values.",
            )


class _PurePythonLoader(_Bounds, yaml.SafeLoader):  # type: ignore[misc]
    """PyYAML's pure-Python reader, scanner and parser (as google-adk's ``yaml.safe_load``)."""

    def __init__(self, stream: str) -> None:
        yaml.SafeLoader.__init__(self, stream)
        self._start_bounds()


# A block scalar's header as PyYAML reads it: indicators, then spaces and a comment, or nothing.
_BLOCK_HEADER: Final = re.compile(r"[|>](?:[1-9][+-]?|[+-][1-9]?)?(?: +(?:#.*)?)?\r?$")
# An explicit key (`? key`): PyYAML and libyaml place an empty key or value after it differently.
_EXPLICIT_KEY: Final = re.compile(r"^[ -]*\?(?: |$)", re.MULTILINE)


class _PurePythonNeeded(Exception):
    """Raised on the libyaml path where the two parsers place a node differently."""


if CParser is not None:

    class _LibyamlLoader(_Bounds, Composer, CParser, Resolver):  # type: ignore[misc]
        """libyaml's scanner and parser under PyYAML's composer and resolver.

        The two parsers agree on every node's position except an empty value inside brackets or
        braces (`{key: }`: libyaml puts it at the next token, PyYAML after the colon), and
        libyaml accepts a little that PyYAML refuses (`?` inside a plain value in brackets, a
        comment right after a block scalar's `|`, some malformed tags). A document with any of these is read by the
        pure-Python parser instead, so what is accepted, and where, never depends on libyaml.
        """

        def __init__(self, stream: str) -> None:
            CParser.__init__(self, stream)
            Composer.__init__(self)
            Resolver.__init__(self)
            self._start_bounds()
            self._text = stream
            self._lines: list[str] | None = None
            self._flow = 0

        def compose_node(self, parent: yaml.Node | None, index: Any) -> yaml.Node | None:
            event = self.peek_event()
            tag = getattr(event, "tag", None)
            if tag is not None and tag not in SafeConstructor.yaml_constructors:
                raise _PurePythonNeeded  # refused either way; PyYAML words a malformed tag
            if isinstance(event, yaml.ScalarEvent):
                if not event.style and self._flow and (not event.value or "?" in event.value):
                    raise _PurePythonNeeded
                if event.style in ("|", ">") and not self._plain_header(event.start_mark):
                    raise _PurePythonNeeded
            return super().compose_node(parent, index)

        def _plain_header(self, mark: yaml.Mark) -> bool:
            if self._lines is None:
                self._lines = self._text.split("\n")
            line = self._lines[mark.line] if mark.line < len(self._lines) else ""
            return _BLOCK_HEADER.match(line, mark.column) is not None

        def compose_sequence_node(self, anchor: Any) -> yaml.Node:
            return self._collection(super().compose_sequence_node, anchor)

        def compose_mapping_node(self, anchor: Any) -> yaml.Node:
            return self._collection(super().compose_mapping_node, anchor)

        def _collection(self, compose: Callable[[Any], yaml.Node], anchor: Any) -> yaml.Node:
            flow = bool(self.peek_event().flow_style)
            self._flow += flow
            try:
                return compose(anchor)
            finally:
                self._flow -= flow

        def compose_scalar_node(self, anchor: Any) -> yaml.Node:
            node: yaml.ScalarNode = super().compose_scalar_node(anchor)
            if node.style == "":  # libyaml's plain style; the pure-Python parser's is None
                node.style = None
            return node


def _too_deep(line: int, column: int) -> YamlProblem:
    return YamlProblem(
        line,
        column,
        "yaml-too-deep",
        f"The YAML nests deeper than {MAX_DEPTH} levels (aliases expanded).",
        "Flatten the structure; no yadk file needs this much nesting.",
    )


def compose(text: str) -> yaml.Node | None:
    """The node tree of the single document in ``text`` (``None`` when it is empty)."""
    if CParser is not None and _libyaml_reads_alike(text):
        loader = _LibyamlLoader(text)
        try:
            node: yaml.Node | None = loader.get_single_node()
            return node
        except (yaml.YAMLError, RecursionError, _PurePythonNeeded):
            pass  # read again below, for the pure-Python parser's wording and position
        finally:
            loader.dispose()
    return _compose_pure_python(text)


def _libyaml_reads_alike(text: str) -> bool:
    """Whether libyaml reads ``text`` as the pure-Python parser does, as far as a scan can tell:
    not with characters PyYAML refuses, tabs (PyYAML refuses them in places libyaml accepts) or
    a byte-order mark past the start (libyaml counts it as a column), or explicit keys."""
    return (
        Reader.NON_PRINTABLE.search(text) is None
        and "\t" not in text
        and "\ufeff" not in text[1:]
        and _EXPLICIT_KEY.search(text) is None
    )


def _compose_pure_python(text: str) -> yaml.Node | None:
    loader = None
    try:
        loader = _PurePythonLoader(text)
        node: yaml.Node | None = loader.get_single_node()
        return node
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        line, column = (mark.line + 1, mark.column + 1) if mark is not None else (1, 1)
        problem = exc.problem or "invalid YAML"
        context = f" ({exc.context})" if exc.context else ""
        raise YamlProblem(
            line, column, "yaml-syntax", f"Invalid YAML: {problem}{context}.", detail=problem
        ) from None
    except yaml.reader.ReaderError as exc:
        line, column = _offset_position(text, exc.position)
        raise YamlProblem(
            line,
            column,
            "yaml-invalid-character",
            f"The character {_codepoint(exc.character)} is not allowed in YAML.",
            'Remove it, or write it as an escape inside a double-quoted string (e.g. "\\x7f").',
        ) from None
    except yaml.YAMLError as exc:
        raise YamlProblem(1, 1, "yaml-syntax", f"Invalid YAML: {exc}.") from None
    except RecursionError:  # pragma: no cover - the depth limit comes first
        raise YamlProblem(1, 1, "yaml-too-deep", "The YAML nests too deeply.") from None
    finally:
        if loader is not None:
            loader.dispose()


def _codepoint(character: Any) -> str:
    if isinstance(character, int):
        return f"byte 0x{character:02x}"
    return f"U+{ord(character):04X}" if isinstance(character, str) and character else "?"


def _offset_position(text: str, offset: int) -> tuple[int, int]:
    line = text.count("\n", 0, offset) + 1
    return line, offset - (text.rfind("\n", 0, offset) + 1) + 1


class NodeBudget:
    """Counts the nodes built from one composed document, aliases expanded, and tracks the nodes
    being built: the builders' second line behind the composer's checks, for node trees that did
    not come from ``compose``."""

    def __init__(self, limit: int = MAX_NODES) -> None:
        self.limit = limit
        self.used = 0
        self._open: set[int] = set()

    def enter(self, node: yaml.Node, depth: int) -> None:
        """Account for building ``node`` at ``depth``; raises ``YamlProblem`` past a limit."""
        line, column = position(node)
        if id(node) in self._open:
            raise YamlProblem(
                line,
                column,
                "yaml-recursive-alias",
                "This alias refers to a value that contains the alias itself.",
                "An alias (*name) can only repeat a value defined before it, outside itself.",
            )
        if depth > MAX_DEPTH:
            raise YamlProblem(
                line,
                column,
                "yaml-too-deep",
                f"The YAML nests deeper than {MAX_DEPTH} levels (aliases included).",
                "Flatten the structure; no yadk file needs this much nesting.",
            )
        self.used += 1
        if self.used > self.limit:
            raise YamlProblem(
                line,
                column,
                "yaml-too-large",
                f"The YAML expands to more than {self.limit:,} values (anchors and aliases"
                " count each time they are repeated).",
                "Remove the repeated aliases; no yadk file needs this many values.",
            )
        if not isinstance(node, yaml.ScalarNode):
            self._open.add(id(node))

    def leave(self, node: yaml.Node) -> None:
        self._open.discard(id(node))


_constructor = SafeConstructor()


def construct_scalar(node: yaml.ScalarNode) -> Any:
    """The value of a scalar with a safe tag; anything else is a located ``YamlProblem``."""
    line, column = position(node)
    if node.tag not in SCALAR_TAGS:
        raise YamlProblem(
            line,
            column,
            "yaml-unsafe-tag",
            f"The YAML tag `{node.tag}` is not allowed: yadk reads YAML with a safe loader that "
            "never builds Python objects.",
            "Remove the tag; reference Python objects by dotted name instead "
            "(e.g. `name: my_agent.tools.search`).",
        )
    try:
        value = _constructor.construct_object(node, deep=True)
    except (yaml.YAMLError, ValueError, TypeError, OverflowError) as exc:
        tag = node.tag.rsplit(":", 1)[-1]
        detail = _first_line(str(exc))
        raise YamlProblem(
            line,
            column,
            "yaml-invalid-value",
            f"`{_shorten(node.value)}` is not a valid !!{tag} value ({detail}).",
            "Fix the value, or quote it to make it a string."
            + (" Integers may have at most 4300 digits." if "digits" in detail else ""),
        ) from None
    if isinstance(value, str) and _has_surrogate(value):
        raise YamlProblem(
            line,
            column,
            "yaml-invalid-string",
            "This string holds a lone surrogate escape (\\ud800-\\udfff), which is not a"
            " character and cannot be written as UTF-8.",
            "Remove the escape, or write the character itself (or a \\U escape of it).",
        )
    return value


def _has_surrogate(text: str) -> bool:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return True
    return False


def _first_line(text: str) -> str:
    return text.strip().splitlines()[0] if text.strip() else "invalid"


def _shorten(text: str, limit: int = 40) -> str:
    text = text.encode("utf-8", "backslashreplace").decode("utf-8")
    return text if len(text) <= limit else text[: limit - 3] + "..."


def locate(root: yaml.Node, at: tuple[Any, ...], *, key: bool = False) -> tuple[int, int]:
    """The 1-based position of the value at ``at`` (keys and list indexes from ``root``), or of
    its key with ``key=True``; else of the nearest ancestor that exists."""
    found = position(root)
    node = root
    for depth, part in enumerate(at):
        key_node: yaml.Node | None = None
        value: yaml.Node | None = None
        if isinstance(node, yaml.MappingNode):
            for candidate, item in node.value:  # the last of duplicate keys is the one built
                if _scalar_equals(candidate, part):
                    key_node, value = candidate, item
        elif isinstance(node, yaml.SequenceNode) and isinstance(part, int):
            if 0 <= part < len(node.value):
                value = node.value[part]
        if value is None:
            return found
        if key and key_node is not None and depth == len(at) - 1:
            return position(key_node)
        node = value
        found = position(node)
    return found


def _scalar_equals(node: yaml.Node, value: Any) -> bool:
    if not isinstance(node, yaml.ScalarNode):
        return False
    try:
        return bool(construct_scalar(node) == value)
    except YamlProblem:
        return False


def load(text: str) -> Any:
    """The data of the single YAML document in ``text`` (``None`` when empty), built within the
    limits; raises ``YamlProblem``."""
    node = compose(text)
    return None if node is None else build(node)


def build(node: yaml.Node) -> Any:
    """The data of a node tree from ``compose``, built within the limits."""
    return _Builder().build(node, 0)


class _Builder:
    def __init__(self) -> None:
        self.budget = NodeBudget()

    def build(self, node: yaml.Node, depth: int) -> Any:
        self.budget.enter(node, depth)
        try:
            if isinstance(node, yaml.ScalarNode):
                return construct_scalar(node)
            if isinstance(node, yaml.SequenceNode) and node.tag in SEQUENCE_TAGS:
                return [self.build(item, depth + 1) for item in node.value]
            if isinstance(node, yaml.MappingNode) and node.tag in MAPPING_TAGS:
                return self._mapping(node, depth)
            line, column = position(node)
            raise YamlProblem(
                line,
                column,
                "yaml-unsafe-tag",
                f"The YAML tag `{node.tag}` is not allowed: yadk reads YAML with a safe loader "
                "that never builds Python objects.",
                "Remove the tag.",
            )
        finally:
            self.budget.leave(node)

    def _mapping(self, node: yaml.MappingNode, depth: int) -> dict[Any, Any]:
        result: dict[Any, Any] = {}
        merged: dict[Any, Any] = {}
        for key_node, value_node in node.value:
            if key_node.tag == MERGE_TAG:
                sources = (
                    value_node.value if isinstance(value_node, yaml.SequenceNode) else [value_node]
                )
                for source in sources:
                    built = self.build(source, depth + 1)
                    if isinstance(built, dict):
                        for key, value in built.items():
                            merged.setdefault(key, value)
                continue
            key = self.build(key_node, depth + 1)
            try:
                hash(key)
            except TypeError:
                line, column = position(key_node)
                raise YamlProblem(
                    line,
                    column,
                    "yaml-invalid-key",
                    "A mapping key must be a plain value, not a list or mapping.",
                    "Write the key as a string.",
                ) from None
            result[key] = self.build(value_node, depth + 1)
        for key, value in merged.items():
            result.setdefault(key, value)
        return result


def type_name(value: Any, *, mapping: str = "a mapping", integer: str = "an integer") -> str:
    """How a message names the type of a parsed YAML or JSON ``value``, with an article: YAML's
    words by default (``mapping="an object", integer="a number"`` gives JSON's)."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, int):
        return integer
    if isinstance(value, float):
        return "a number"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, list):
        return "a list"
    if isinstance(value, dict):
        return mapping
    return f"a {type(value).__name__}"
