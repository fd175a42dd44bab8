"""The one way yadk reads a file that a config, a skill or a script names.

A config is untrusted input, and so is every file it points at. ``read_bytes``/``read_text``
enforce, for every such file:

* the path is text a file system can hold (no NUL byte, no lone surrogate);
* with ``root``, the file, symlinks resolved, lies inside that folder;
* it is a regular file: a FIFO, a device or a socket is refused without being opened for a
  blocking read, so naming ``/dev/zero`` or a pipe cannot hang a load;
* it is at most ``LIMITS[kind]`` bytes, and no more than that is ever read;
* text is UTF-8, and a bad byte is reported with its line and column;
* JSON (``read_json``/``load_json``) is nested at most ``MAX_JSON_DEPTH`` deep (checked before
  parsing, so no parser or later walk over it can run out of stack) and its integers have at
  most as many digits as Python converts; either problem, like a syntax error, is located.

Problems are ``FileProblem`` (a rule, a message, a hint, and for encoding errors a position),
which each caller turns into its own diagnostic or error.
"""

from __future__ import annotations

import itertools
import json
import os
import re
import stat
import sys
from pathlib import Path
from typing import Any, Final

__all__ = [
    "LIMITS",
    "MAX_JSON_DEPTH",
    "FileProblem",
    "check_json_depth",
    "check_path",
    "confine",
    "load_json",
    "read_bytes",
    "read_json",
    "read_text",
]

_MIB: Final = 1024 * 1024

# Size caps per kind of file (bytes). Documented in docs/config.md ("Limits").
LIMITS: Final[dict[str, int]] = {
    "config": 1 * _MIB,  # an agent config (YAML)
    "prompt": 1 * _MIB,  # an instruction or static_instruction file
    "examples": 8 * _MIB,  # a few-shot examples file (YAML, JSON, JSONL)
    "scripted": 8 * _MIB,  # a scripted model file
    "skill_md": 1 * _MIB,  # SKILL.md
    "resource": 4 * _MIB,  # a skill reference, asset or script
    "pyproject": 1 * _MIB,  # pyproject.toml, for the [tool.yadk] trust table
    "agent_card": 1 * _MIB,  # an A2A card: agent_card: card.json, an app folder's agent.json
    # Files named on the command line. Documented in docs/cli.md ("Input limits").
    "artifact": 32 * _MIB,  # yadk run --artifact NAME=FILE
    "replay": 8 * _MIB,  # yadk run --replay FILE
    "session_export": 256 * _MIB,  # yadk sessions import FILE
    "evalset": 32 * _MIB,  # an eval set, eval config or test file
}

# How deep JSON from a file or the command line may nest (objects and arrays).
MAX_JSON_DEPTH: Final = 100

_WHAT: Final = {
    "config": "config file",
    "prompt": "instruction file",
    "examples": "examples file",
    "scripted": "scripted model file",
    "skill_md": "SKILL.md",
    "resource": "skill resource",
    "pyproject": "pyproject.toml",
    "agent_card": "agent card file",
    "artifact": "artifact file",
    "replay": "replay file",
    "session_export": "session export",
    "evalset": "eval file",
}


class FileProblem(Exception):
    """A file that may not or cannot be read; ``line``/``column`` locate encoding and JSON
    errors, and ``reason`` says what is wrong at that spot without naming the file (for a
    ``file:line:col: reason`` line)."""

    def __init__(
        self,
        rule: str,
        message: str,
        hint: str = "",
        *,
        line: int = 0,
        column: int = 0,
        reason: str = "",
    ) -> None:
        super().__init__(message)
        self.rule = rule
        self.message = message
        self.hint = hint
        self.line = line
        self.column = column
        self.reason = reason or message


def check_path(path: str | os.PathLike[str]) -> str:
    """``path`` as text, if a file system can hold it; else ``FileProblem("invalid-path")``."""
    text = os.fspath(path)
    if "\x00" in text:
        raise FileProblem(
            "invalid-path",
            f"The path {_shown(text)} contains a NUL byte.",
            "Remove it: no file name can contain one.",
        )
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        raise FileProblem(
            "invalid-path",
            f"The path {_shown(text)} contains a lone surrogate escape (\\ud800-\\udfff).",
            "Write the file name as plain text.",
        ) from None
    return text


def _shown(text: str) -> str:
    return repr(text.encode("utf-8", "backslashreplace").decode("utf-8"))


def confine(path: str | os.PathLike[str], root: str | os.PathLike[str]) -> Path:
    """``path`` with symlinks resolved, if it lies inside ``root`` (also resolved); else
    ``FileProblem("path-outside-folder")``."""
    real = os.path.realpath(check_path(path))
    base = os.path.realpath(os.fspath(root))
    if os.path.commonpath([real, base]) != base:
        raise FileProblem(
            "path-outside-folder",
            f"{os.fspath(path)} is outside the folder {base}"
            + (" (through a symlink)." if os.path.islink(path) else "."),
            "Keep every file an agent or skill uses inside its folder.",
        )
    return Path(real)


def read_bytes(
    path: str | os.PathLike[str],
    *,
    kind: str,
    root: str | os.PathLike[str] | None = None,
    limit: int | None = None,
) -> bytes:
    """The bytes of a regular file of ``kind`` (a key of ``LIMITS``); see the module docstring."""
    text = check_path(path)
    target = confine(text, root) if root is not None else Path(text)
    cap = LIMITS[kind] if limit is None else limit
    what = _WHAT.get(kind, "file")
    try:
        # O_NONBLOCK: opening a FIFO with no writer must not wait; fstat then refuses it.
        fd = os.open(target, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
    except FileNotFoundError:
        raise FileProblem("file-not-found", f"The {what} {text} does not exist.") from None
    except OSError as exc:
        raise FileProblem(
            "file-unreadable", f"Cannot read the {what} {text}: {exc.strerror or exc}."
        ) from None
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise FileProblem(
                "not-a-regular-file",
                f"The {what} {text} is {_kind_of(info.st_mode)}, not a regular file.",
                "Name a regular file; pipes, devices and folders are never read.",
            )
        if info.st_size > cap:
            raise FileProblem(
                "file-too-large",
                f"The {what} {text} is {info.st_size:,} bytes; the limit for {_a(what)} is"
                f" {cap:,} bytes.",
                "Split it or shorten it.",
            )
        os.set_blocking(fd, True)
        chunks: list[bytes] = []
        size = 0
        while size <= cap:
            chunk = os.read(fd, min(1 << 20, cap + 1 - size))
            if not chunk:
                break
            chunks.append(chunk)
            size += len(chunk)
    except OSError as exc:
        raise FileProblem(
            "file-unreadable", f"Cannot read the {what} {text}: {exc.strerror or exc}."
        ) from None
    finally:
        os.close(fd)
    if size > cap:  # it grew after fstat
        raise FileProblem(
            "file-too-large",
            f"The {what} {text} is over the limit of {cap:,} bytes for {_a(what)}.",
            "Split it or shorten it.",
        )
    return b"".join(chunks)


def read_text(
    path: str | os.PathLike[str],
    *,
    kind: str,
    root: str | os.PathLike[str] | None = None,
    limit: int | None = None,
) -> str:
    """The UTF-8 text of a regular file of ``kind``; a BOM is dropped."""
    data = read_bytes(path, kind=kind, root=root, limit=limit)
    try:
        return data.decode("utf-8").removeprefix("\ufeff")
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        column = exc.start - (data.rfind(b"\n", 0, exc.start) + 1) + 1
        raise FileProblem(
            "file-encoding",
            f"The {_WHAT.get(kind, 'file')} {os.fspath(path)} is not valid UTF-8"
            f" (byte 0x{data[exc.start]:02x} at line {line}, column {column}).",
            "Save the file as UTF-8.",
            line=line,
            column=column,
        ) from None


def _a(noun: str) -> str:
    return f"an {noun}" if noun[:1].lower() in "aeiou" else f"a {noun}"


def _kind_of(mode: int) -> str:
    if stat.S_ISDIR(mode):
        return "a folder"
    if stat.S_ISFIFO(mode):
        return "a named pipe (FIFO)"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "a device"
    if stat.S_ISSOCK(mode):
        return "a socket"
    return "not a regular file"


def read_json(
    path: str | os.PathLike[str],
    *,
    kind: str,
    root: str | os.PathLike[str] | None = None,
    limit: int | None = None,
) -> Any:
    """The JSON value of a regular UTF-8 file of ``kind``; see ``load_json``."""
    text = read_text(path, kind=kind, root=root, limit=limit)
    return load_json(text, what=f"The {_WHAT.get(kind, 'file')} {os.fspath(path)}")


# A JSON string (unrolled, so the regex engine does not backtrack per character), and anything
# that is neither a string nor a bracket.
_JSON_STRING: Final = re.compile(r'"[^"\\]*(?:\\.[^"\\]*)*"')
_NOT_BRACKETS: Final = re.compile(r"[^\[\]{}]+")
_BRACKET_STEP: Final = {"[": 1, "{": 1, "]": -1, "}": -1}
_TOKENS: Final = re.compile(r'"[^"\\]*(?:\\.[^"\\]*)*"|[\[{]|[\]}]')


def load_json(text: str, *, what: str, **hooks: Any) -> Any:
    """``json.loads(text, **hooks)`` for untrusted text: ``what`` (``"The replay file x"``)
    names it in problems, each located by line and column (``json-syntax``, ``json-too-deep``,
    ``json-number-too-long``)."""
    check_json_depth(text, what=what)
    _check_surrogates(text, what)
    try:
        return json.loads(text, **hooks)
    except json.JSONDecodeError as exc:
        raise FileProblem(
            "json-syntax",
            f"{what} is not valid JSON: {exc.msg} (line {exc.lineno}, column {exc.colno}).",
            "",
            line=exc.lineno,
            column=exc.colno,
            reason=f"not valid JSON: {exc.msg}",
        ) from None
    except ValueError as exc:  # Python refuses to convert integers with too many digits
        if "integer string conversion" not in str(exc):
            raise
        line, column = _long_number_at(text)
        reason = f"a number of more than {sys.get_int_max_str_digits():,} digits"
        raise FileProblem(
            "json-number-too-long",
            f"{what} has {reason} (line {line}, column {column}).",
            "Write such a value as a string.",
            line=line,
            column=column,
            reason=reason,
        ) from None
    except RecursionError:  # pragma: no cover - _check_depth refuses such text first
        raise FileProblem(
            "json-too-deep", f"{what} is nested too deeply.", _DEPTH_HINT, line=1, column=1
        ) from None


_DEPTH_HINT: Final = f"Nest objects and arrays at most {MAX_JSON_DEPTH} deep."


def check_json_depth(text: str, *, what: str) -> None:
    """Refuse JSON text nested more than ``MAX_JSON_DEPTH`` deep (``json-too-deep``, located)."""
    # Cheap tests first: too few brackets to be too deep, then the deepest point computed in C
    # over the brackets outside strings; the exact spot only when there is one to report.
    if text.count("[") + text.count("{") <= MAX_JSON_DEPTH:
        return
    brackets = _NOT_BRACKETS.sub("", _JSON_STRING.sub("", text))
    steps = map(_BRACKET_STEP.__getitem__, brackets)
    if max(itertools.accumulate(steps), default=0) <= MAX_JSON_DEPTH:
        return
    depth = 0
    offset = 0
    for token in _TOKENS.finditer(text):
        mark = token.group()
        if mark in "[{":
            depth += 1
            if depth > MAX_JSON_DEPTH:
                offset = token.start()
                break
        elif mark in "]}":
            depth -= 1
    line = text.count("\n", 0, offset) + 1
    column = offset - (text.rfind("\n", 0, offset) + 1) + 1
    raise FileProblem(
        "json-too-deep",
        f"{what} is nested more than {MAX_JSON_DEPTH} deep (line {line}, column {column}).",
        _DEPTH_HINT,
        line=line,
        column=column,
        reason=f"nested more than {MAX_JSON_DEPTH} deep",
    )


# A \\uD800-\\uDFFF escape: JSON allows one alone, but no text encoding can hold it.
_SURROGATE_ESCAPE: Final = re.compile(r"\\[uU][dD][89a-fA-F][0-9a-fA-F]{2}")


def _check_surrogates(text: str, what: str) -> None:
    if "\\u" not in text and "\\U" not in text:
        return
    pending: re.Match[str] | None = None  # a high surrogate waiting for its low half
    for match in _SURROGATE_ESCAPE.finditer(text):
        start = match.start()
        before = start
        while before and text[before - 1] == "\\":
            before -= 1
        if (start - before) % 2:  # "\\\\uDFFF" is a backslash, then plain text
            continue
        high = match.group()[3] in "89abAB"
        paired = pending is not None and pending.end() == start and not high
        if pending is not None and not paired:
            _lone_surrogate(text, pending, what)
        pending = match if high else None
        if not high and not paired:
            _lone_surrogate(text, match, what)
    if pending is not None:
        _lone_surrogate(text, pending, what)


def _lone_surrogate(text: str, match: re.Match[str], what: str) -> None:
    start = match.start()
    line = text.count("\n", 0, start) + 1
    column = start - (text.rfind("\n", 0, start) + 1) + 1
    reason = f"a lone surrogate escape ({match.group()}) that no text can hold"
    raise FileProblem(
        "json-lone-surrogate",
        f"{what} has {reason} (line {line}, column {column}).",
        "Write the character itself, or both halves of a surrogate pair.",
        line=line,
        column=column,
        reason=reason,
    )


def _long_number_at(text: str) -> tuple[int, int]:
    limit = sys.get_int_max_str_digits()
    for match in re.finditer(r"-?\d+", text):
        # A digit run inside a string is no number: the first long run outside one is.
        start = match.start()
        if len(match.group().lstrip("-")) > limit and not _inside_string(text, start):
            line = text.count("\n", 0, start) + 1
            return line, start - (text.rfind("\n", 0, start) + 1) + 1
    return 1, 1


def _inside_string(text: str, offset: int) -> bool:
    line_start = text.rfind("\n", 0, offset) + 1
    quotes = _JSON_STRING.sub("", text[line_start:offset]).count('"')
    return quotes % 2 == 1
