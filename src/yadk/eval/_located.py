"""Reading eval JSON files with problems located at file:line:col, and checking their shapes.

Files are parsed with ``json.loads`` (exact JSON semantics; duplicate keys are noticed through
the object hook). Positions are computed only when there is something to report: JSON is YAML,
so the config layer's position-tracking reader maps each problem's key path to a line and
column. The fast path (a clean file) never pays for it.
"""

from __future__ import annotations

import dataclasses
import functools
import re
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import Any

from yadk._files import FileProblem, load_json, read_text
from yadk._yaml import type_name
from yadk.config import Diagnostic, KeyPath, Severity, parse_document

__all__ = [
    "MAX_FILE_BYTES",
    "MAX_UNKNOWN_KEYS",
    "Fields",
    "JsonFile",
    "did_you_mean",
    "read_json",
    "to_camel",
]

MAX_FILE_BYTES = 32 * 1024 * 1024
# Unknown keys reported one by one (with a suggestion) per object; the rest are counted.
MAX_UNKNOWN_KEYS = 20

# The bounded reader's rules, spelt as eval diagnostics always spelt them.
_RULES = {"file-encoding": "not-utf8", "file-unreadable": "file-not-readable"}

# A field's checker: True when the value has the expected type; and how to name that type.
Fields = dict[str, tuple[Callable[[Any], bool], str]]


class _Object(dict[str, Any]):
    """A JSON object that remembers keys it saw more than once."""

    duplicates: tuple[str, ...] = ()


def _object_hook(pairs: list[tuple[str, Any]]) -> _Object:
    result = _Object(pairs)
    if len(result) != len(pairs):
        seen: set[str] = set()
        repeated: list[str] = []
        for key, _ in pairs:
            if key in seen:
                repeated.append(key)
            seen.add(key)
        result.duplicates = tuple(repeated)
    return result


@dataclasses.dataclass
class _Problem:
    at: KeyPath
    rule: str
    message: str
    hint: str
    severity: Severity
    on_key: bool


class JsonFile:
    """One eval JSON file being checked: its data and the problems found so far."""

    def __init__(self, path: Path, text: str, data: Any) -> None:
        self.path = path
        self.text = text
        self.data = data
        self._problems: list[_Problem] = []

    @property
    def has_errors(self) -> bool:
        return any(p.severity == "error" for p in self._problems)

    def problem(
        self,
        at: KeyPath,
        rule: str,
        message: str,
        hint: str = "",
        *,
        severity: Severity = "error",
        on_key: bool = False,
    ) -> None:
        self._problems.append(_Problem(at, rule, message, hint, severity, on_key))

    def diagnostics(self) -> list[Diagnostic]:
        """Every problem, located; positions are computed here, once, only if needed."""
        if not self._problems:
            return []
        repeats: list[tuple[str, int, int]] = []

        def keep_repeats(line: int, column: int, rule: str, message: str, hint: str) -> None:
            # The YAML reader sees the second spelling of a repeated key; json.loads does not.
            if rule == "duplicate-key":
                repeats.append((message.split("`")[1], line, column))

        document = parse_document(self.path, self.text, keep_repeats)
        located: list[Diagnostic] = []
        for p in self._problems:
            line, column = document.where(p.at, key=p.on_key) if document else (1, 1)
            if p.rule == "duplicate-key":
                spot = next((r for r in repeats if r[0] == str(p.at[-1])), None)
                if spot is not None:
                    repeats.remove(spot)
                    line, column = spot[1], spot[2]
            located.append(
                Diagnostic(str(self.path), line, column, p.rule, p.severity, p.message, p.hint)
            )
        return located

    def check_object(
        self,
        value: Any,
        at: KeyPath,
        *,
        what: str,
        fields: Fields,
        required: Iterable[str] = (),
        unknown: Severity | None = "error",
    ) -> dict[str, Any] | None:
        """``value`` as a dict with snake_case keys, after checking it is an object whose keys
        (snake_case or camelCase) are ``fields`` of the right types; ``None`` if not an object.

        Unknown keys are reported with ``unknown`` severity (``None``: accepted silently).
        """
        if not isinstance(value, dict):
            self.problem(
                at, "wrong-type", f"{_article(what)} must be an object, not {kind(value)}."
            )
            return None
        for duplicate in getattr(value, "duplicates", ()):
            self.problem(
                (*at, duplicate),
                "duplicate-key",
                f"Key `{duplicate}` appears twice in {_article(what).lower()}; JSON readers "
                "silently keep only the last value.",
                "Remove one of them.",
                on_key=True,
            )
        camel = _camel_names(fields)
        result: dict[str, Any] = {}
        unknown_keys = 0
        for key, item in value.items():
            name = key if key in fields else camel.get(key)
            if name is None:
                unknown_keys += 1
                if unknown is not None and unknown_keys <= MAX_UNKNOWN_KEYS:
                    self.problem(
                        (*at, key),
                        "unknown-key",
                        f"Unknown key `{key}` in {_article(what).lower()}.",
                        did_you_mean(key, tuple(fields)),
                        severity=unknown,
                        on_key=True,
                    )
                continue
            if name in result:
                self.problem(
                    (*at, key),
                    "duplicate-key",
                    f"`{name}` is given twice (as snake_case and camelCase).",
                    "Keep one spelling.",
                    on_key=True,
                )
                continue
            check, expected = fields[name]
            if not check(item):
                self.problem(
                    (*at, key), "wrong-type", f"`{key}` must be {expected}, not {kind(item)}."
                )
                continue
            result[name] = item
        if unknown is not None and unknown_keys > MAX_UNKNOWN_KEYS:
            self.problem(
                at,
                "unknown-key",
                f"{_article(what)} has {unknown_keys - MAX_UNKNOWN_KEYS:,} more unknown keys.",
                "Remove them; only the first are reported one by one.",
                severity=unknown,
            )
        missing = [name for name in required if name not in result and _absent(value, name)]
        for name in missing:
            self.problem(at, "missing-key", f"{_article(what)} needs `{name}`.")
        return result


def to_camel(name: str) -> str:
    """The camelCase spelling of a snake_case field name (``eval_set_id`` -> ``evalSetId``),
    as google-adk's models accept it."""
    first, *rest = name.split("_")
    return first + "".join(part[:1].upper() + part[1:] for part in rest)


# Word boundaries inside a camelCase or kebab-case key: before a capital that starts a word
# (``HTTPServer`` -> ``HTTP_Server``, ``evalId`` -> ``eval_Id``), between letters and digits.
_BOUNDARY = re.compile(r"(?<=[A-Z])(?=[A-Z][a-z])|(?<=[a-z0-9])(?=[A-Z])|(?<=[a-z])(?=[0-9])")


def _to_snake(key: str) -> str:
    return _BOUNDARY.sub("_", key).replace("-", "_").lower()


def _absent(value: dict[str, Any], name: str) -> bool:
    # A key given with the wrong type was reported already; do not also call it missing.
    return name not in value and to_camel(name) not in value


def _article(what: str) -> str:
    return f"An {what}" if what[:1] in "aeiou" else f"A {what}"


def kind(value: Any) -> str:
    """The JSON name of ``value``'s type, with an article, for messages."""
    return type_name(value, mapping="an object", integer="a number")


def _camel_names(fields: Fields) -> dict[str, str]:
    """camelCase spelling -> field name, computed once per field table."""
    known = _CAMEL.get(id(fields))
    if known is None or known[0] is not fields:
        known = (fields, {to_camel(name): name for name in fields})
        _CAMEL[id(fields)] = known
    return known[1]


_CAMEL: dict[int, tuple[Fields, dict[str, str]]] = {}


def did_you_mean(word: str, choices: Sequence[str]) -> str:
    """``Did you mean `x`?`` for the closest choice, else the list of valid choices."""
    return _did_you_mean(word, tuple(choices))


# A key misspelt the same way in every eval case is matched once.
@functools.lru_cache(maxsize=1024)
def _did_you_mean(word: str, choices: tuple[str, ...]) -> str:
    import difflib  # only when a key is misspelt: a clean file never loads it

    normal = {choice.lower().replace("-", "_"): choice for choice in choices}
    probe = _to_snake(word)
    close = difflib.get_close_matches(probe, list(normal), n=1, cutoff=0.6)
    if close:
        return f"Did you mean `{normal[close[0]]}`?"
    return "Expected one of: " + ", ".join(f"`{c}`" for c in choices) + "."


def read_json(path: Path, *, what: str) -> tuple[JsonFile | None, list[Diagnostic]]:
    """Read and parse ``path``; on failure, ``None`` and the diagnostics saying why."""

    def fail(line: int, column: int, rule: str, message: str, hint: str = "") -> None:
        found.append(Diagnostic(str(path), line, column, rule, "error", message, hint))

    found: list[Diagnostic] = []
    try:
        text = read_text(path, kind="evalset", limit=MAX_FILE_BYTES)
        data = load_json(text, what=what[:1].upper() + what[1:], object_pairs_hook=_object_hook)
    except FileProblem as problem:
        rule = _RULES.get(problem.rule, problem.rule)
        message = problem.reason if problem.rule.startswith("json-") else problem.message
        if problem.rule == "json-syntax":
            message = f"Invalid JSON: {message.split(': ', 1)[1]}."
        elif problem.rule == "json-too-deep":
            message = f"{what[:1].upper() + what[1:]} is {message}."
        elif problem.rule == "json-number-too-long":
            message = f"{what[:1].upper() + what[1:]} has {message}."
        fail(problem.line, problem.column, rule, message, problem.hint)
        return None, found
    return JsonFile(path, text, data), found


def is_str(value: Any) -> bool:
    return isinstance(value, str)


def is_opt_str(value: Any) -> bool:
    return value is None or isinstance(value, str)


def is_number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def is_opt_number(value: Any) -> bool:
    return value is None or is_number(value)


def is_count(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value >= 1


def is_bool(value: Any) -> bool:
    return isinstance(value, bool)


def is_list(value: Any) -> bool:
    return isinstance(value, list)


def is_opt_list(value: Any) -> bool:
    return value is None or isinstance(value, list)


def is_object(value: Any) -> bool:
    return isinstance(value, dict)


def is_opt_object(value: Any) -> bool:
    return value is None or isinstance(value, dict)


def anything(value: Any) -> bool:
    return True
