"""The one way yadk reads a file that a config, a skill or a script names.

A config is untrusted input, and so is every file it points at. ``read_bytes``/``read_text``
enforce, for every such file:

* the path is text a file system can hold (no NUL byte, no lone surrogate);
* with ``root``, the file, symlinks resolved, lies inside that folder;
* it is a regular file: a FIFO, a device or a socket is refused without being opened for a
  blocking read, so naming ``/dev/zero`` or a pipe cannot hang a load;
* it is at most ``LIMITS[kind]`` bytes, and no more than that is ever read;
* text is UTF-8, and a bad byte is reported with its line and column.

Problems are ``FileProblem`` (a rule, a message, a hint, and for encoding errors a position),
which each caller turns into its own diagnostic or error.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path
from typing import Final

__all__ = ["LIMITS", "FileProblem", "check_path", "confine", "read_bytes", "read_text"]

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
}

_WHAT: Final = {
    "config": "config file",
    "prompt": "instruction file",
    "examples": "examples file",
    "scripted": "scripted model file",
    "skill_md": "SKILL.md",
    "resource": "skill resource",
    "pyproject": "pyproject.toml",
}


class FileProblem(Exception):
    """A file that may not or cannot be read; ``line``/``column`` locate encoding errors."""

    def __init__(
        self, rule: str, message: str, hint: str = "", *, line: int = 0, column: int = 0
    ) -> None:
        super().__init__(message)
        self.rule = rule
        self.message = message
        self.hint = hint
        self.line = line
        self.column = column


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
