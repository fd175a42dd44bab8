"""Placeholder analysis for linters and tooling: what a template reads, and what it gets wrong.

``find_placeholders`` reports every placeholder the default engine will fill, and the
near-misses it will silently leave in the prompt: ``{customer name}``, ``{foo:bar}``,
``{name ?}``, an unclosed ``{name``, a stray ``name}``, nested ``{outer{inner}}``. JSON examples,
``{}``, ``${x}`` and ``\\{x}`` are literal on purpose and are not reported.
"""

from __future__ import annotations

import bisect
import dataclasses
import re
from typing import Final, Literal

from yadk.templating._syntax import (
    ARTIFACT_PREFIX,
    PLACEHOLDER_PATTERN,
    STATE_PREFIXES,
    is_valid_state_name,
    parse_inner,
)

__all__ = ["Placeholder", "find_placeholders"]

PlaceholderKind = Literal["state", "artifact", "near_miss"]

_NAME_WORD: Final = re.compile(r"[\w:.?\-]+")
_TOKEN_AFTER: Final = re.compile(r"[ \t]*((?:artifact\.)?[^\W\d][\w:.\-]*\??)")
_TOKEN_BEFORE: Final = re.compile(r"((?:artifact\.)?[^\W\d][\w:.\-]*\??)[ \t]*$")
_BRACES: Final = re.compile(r"\{+|\}+")


@dataclasses.dataclass(frozen=True, slots=True)
class Placeholder:
    """One placeholder of a template, or one near-miss that will stay literal.

    ``kind`` is ``"state"`` (``name`` is the state key, prefix included), ``"artifact"``
    (``name`` is the artifact file name) or ``"near_miss"`` (``name`` is the text between the
    braces; ``problem`` says why it is not a placeholder and ``suggestion`` may hold a fix).
    ``span`` is the ``[start, end)`` offset range in the template; ``line`` and ``column`` are
    the 1-based position of ``span[0]``. ``problem`` can also be set on a real placeholder that
    can never resolve (``{artifact.}``).
    """

    name: str
    kind: PlaceholderKind
    optional: bool
    span: tuple[int, int]
    text: str
    line: int
    column: int
    problem: str | None = None
    suggestion: str | None = None

    @property
    def is_near_miss(self) -> bool:
        return self.kind == "near_miss"

    @property
    def scope(self) -> str | None:
        """For a state placeholder: ``"app"``, ``"user"``, ``"temp"`` or ``"session"``."""
        if self.kind != "state":
            return None
        prefix, sep, _ = self.name.partition(":")
        return prefix if sep else "session"


def find_placeholders(template: str) -> list[Placeholder]:
    """Every placeholder of ``template`` (default engine) and every near-miss, by position."""
    if "{" not in template and "}" not in template:
        return []
    locate = _Locator(template)
    found: list[Placeholder] = []
    matches = list(PLACEHOLDER_PATTERN.finditer(template))
    for match in matches:
        raw = match.group()
        inner = parse_inner(raw)
        span = (match.start(), match.end())
        if inner.kind == "literal":
            miss = _explain_literal(raw)
            if miss is not None:
                name = inner.name.strip()
                found.append(locate.make(name, "near_miss", inner.optional, span, raw, *miss))
            continue
        problem = None
        if inner.kind == "artifact" and not inner.name:
            problem = f"`{raw}` names no artifact, so it can never be filled."
        found.append(locate.make(inner.name, inner.kind, inner.optional, span, raw, problem))
    found.extend(_stray_braces(template, matches, locate))
    found.sort(key=lambda p: p.span)
    return found


class _Locator:
    __slots__ = ("_starts",)

    def __init__(self, text: str) -> None:
        self._starts = [0] + [i + 1 for i, ch in enumerate(text) if ch == "\n"]

    def make(
        self,
        name: str,
        kind: PlaceholderKind,
        optional: bool,
        span: tuple[int, int],
        text: str,
        problem: str | None = None,
        suggestion: str | None = None,
    ) -> Placeholder:
        line = bisect.bisect_right(self._starts, span[0])
        column = span[0] - self._starts[line - 1] + 1
        return Placeholder(name, kind, optional, span, text, line, column, problem, suggestion)


def _explain_literal(raw: str) -> tuple[str, str | None] | None:
    """(problem, suggestion) for a match that stays literal but looks meant as a placeholder."""
    inner = raw.lstrip("{").rstrip("}").strip()
    if not _looks_like_a_name(inner):
        return None
    reason, fixed = _why_invalid(inner)
    lead = f"`{raw}` is not a placeholder and stays in the prompt as written: {reason}"
    suggestion = None
    if fixed is not None and (fixed.startswith(ARTIFACT_PREFIX) or _valid(fixed)):
        suggestion = "{" + fixed + "}"
        lead += f" Did you mean `{suggestion}`?"
    return lead, suggestion


def _looks_like_a_name(inner: str) -> bool:
    """Whether a person plausibly meant ``inner`` as a placeholder name: words of letters,
    digits, ``_:.?-``, each with a letter. JSON, code (``{a: 1}``), ``{}`` and ``{0}`` are
    deliberate literal text and not worth a warning."""
    words = [word for word in inner.split() if word.strip("?")]
    return bool(words) and all(
        _NAME_WORD.fullmatch(word) and any(ch.isalpha() for ch in word) for word in words
    )


def _valid(inner: str) -> bool:
    return is_valid_state_name(inner.removesuffix("?"))


def _why_invalid(inner: str) -> tuple[str, str | None]:
    """Why ``inner`` (stripped, ``?`` included) is no state name, and a corrected inner text."""
    optional = "?" if inner.endswith("?") else ""
    name = inner.removesuffix("?")
    if optional and name != name.rstrip():
        return "`?` must follow the name directly.", name.rstrip() + "?"
    if name.endswith("?"):
        return "only one trailing `?` is allowed.", name.rstrip("?") + "?"
    if name.startswith("?"):
        return "`?` goes after the name.", name.lstrip("?") + "?"
    if re.search(r"\s", name):
        fixed = re.sub(r"\s*:\s*", ":", name)
        if fixed != name and _valid(fixed):
            return "no spaces are allowed around `:`.", fixed + optional
        return "a state name cannot contain spaces.", re.sub(r"\s+", "_", name) + optional
    if "." in name:
        head, _, tail = name.partition(".")
        if head.lower() in ("artifact", "artifacts"):
            return "artifacts are written `{artifact.NAME}`.", ARTIFACT_PREFIX + tail + optional
        reason = (
            "a state name cannot contain `.` (state values cannot be indexed; only "
            "`{artifact.NAME}` uses a dot)."
        )
        return reason, None
    if ":" in name:
        return _why_bad_prefix(name, optional)
    if "-" in name:
        return "a state name cannot contain `-`.", name.replace("-", "_") + optional
    if name[:1].isdigit():
        return "a state name cannot start with a digit.", None
    return "it is not a valid state name.", None


def _why_bad_prefix(name: str, optional: str) -> tuple[str, str | None]:
    prefix, _, rest = name.partition(":")
    allowed = ", ".join(f"`{p}`" for p in STATE_PREFIXES)
    if prefix + ":" not in STATE_PREFIXES:
        if prefix.lower() + ":" in STATE_PREFIXES:
            return "state prefixes are lowercase.", f"{prefix.lower()}:{rest}{optional}"
        return f"`{prefix}:` is not a state prefix (use {allowed}).", None
    if not rest:
        return f"nothing follows `{prefix}:`.", None
    if ":" in rest:
        return "a state name has at most one prefix.", None
    return f"`{rest}` is not a valid identifier.", f"{prefix}:{rest.replace('-', '_')}{optional}"


def _stray_braces(
    template: str, matches: list[re.Match[str]], locate: _Locator
) -> list[Placeholder]:
    """Unclosed ``{name``, unopened ``name}`` and nested ``{outer{inner}}`` outside matches."""
    found: list[Placeholder] = []
    open_runs: list[re.Match[str]] = []
    starts = [m.start() for m in matches]
    for run in _BRACES.finditer(template):
        index = bisect.bisect_right(starts, run.start()) - 1
        if index >= 0 and run.start() < matches[index].end():
            continue  # part of a placeholder match
        if run.group()[0] == "{":
            open_runs.append(run)
        elif open_runs:
            open_runs.pop()  # closes an escaped or otherwise literal "{": "${x}", "\{x}"
        else:
            line_start = template.rfind("\n", 0, run.start()) + 1
            token = _TOKEN_BEFORE.search(template, line_start, run.start())
            if token is not None:
                span = (token.start(1), run.end())
                raw = template[span[0] : span[1]]
                found.append(
                    locate.make(
                        token.group(1),
                        "near_miss",
                        False,
                        span,
                        raw,
                        f"`{raw}` has no opening `{{` and stays in the prompt as written.",
                        "{" + raw,
                    )
                )
    for run in open_runs:
        if run.start() > 0 and template[run.start() - 1] in "$\\":
            continue  # deliberately escaped
        token = _TOKEN_AFTER.match(template, run.end())
        if token is None:
            continue
        span = (run.start(), token.end(1))
        raw = template[span[0] : span[1]]
        rest = template[token.end(1) :].lstrip(" \t")
        suggestion = None
        if rest.startswith("{"):
            nested = PLACEHOLDER_PATTERN.match(rest)
            inner = f"; only `{nested.group()}` is a placeholder" if nested else ""
            problem = (
                f"`{raw}` stays in the prompt as written: placeholders cannot be nested{inner}."
            )
        else:
            problem = f"`{raw}` is never closed with `}}` and stays in the prompt as written."
            suggestion = raw + "}"
        found.append(
            locate.make(token.group(1), "near_miss", False, span, raw, problem, suggestion)
        )
    return found
