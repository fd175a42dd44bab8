"""``.env`` files for ``yadk run`` and ``yadk dev``: the nearest ``.env`` from the agent folder up
(as google-adk finds it), then the working directory's. A variable already set is never
overridden, so the agent's file wins over the working directory's and the shell wins over both.
Only names are ever reported, never values."""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from pathlib import Path

__all__ = ["DISABLE_VARIABLES", "LoadedFile", "load_dotenv_files", "loaded_notes", "parse_dotenv"]

DISABLE_VARIABLES = ("YADK_DISABLE_LOAD_DOTENV", "ADK_DISABLE_LOAD_DOTENV")
_MAX_BYTES = 1_000_000
_LINE = re.compile(r"\s*(?:export\s+)?([A-Za-z_][A-Za-z0-9_]*)\s*=\s*(.*)")


@dataclass(frozen=True)
class LoadedFile:
    """One ``.env`` file and the names it set (those not set before)."""

    path: Path
    names: tuple[str, ...]


def parse_dotenv(text: str) -> dict[str, str]:
    """``NAME=value`` lines: ``export`` allowed, ``#`` comments, single quotes taken literally,
    double quotes with ``\\n``, ``\\"`` and ``\\\\`` escapes; other lines are ignored."""
    values: dict[str, str] = {}
    for line in text.splitlines():
        match = _LINE.fullmatch(line)
        if match is None:
            continue
        values[match.group(1)] = _value(match.group(2).strip())
    return values


def _value(raw: str) -> str:
    if raw[:1] == "'":
        end = raw.find("'", 1)
        return raw[1:end] if end > 0 else raw[1:]
    if raw[:1] == '"':
        out: list[str] = []
        index = 1
        while index < len(raw) and raw[index] != '"':
            char = raw[index]
            if char == "\\" and index + 1 < len(raw):
                following = raw[index + 1]
                out.append({"n": "\n", "t": "\t"}.get(following, following))
                index += 2
                continue
            out.append(char)
            index += 1
        return "".join(out)
    comment = re.search(r"\s#", raw)
    return (raw[: comment.start()] if comment else raw).strip()


def _nearest(folder: Path) -> Path | None:
    for candidate in (folder, *folder.parents):
        if (candidate / ".env").is_file():
            return candidate / ".env"
    return None


def load_dotenv_files(agent: Path) -> list[LoadedFile]:
    """Load the agent's nearest ``.env``, then the working directory's, into ``os.environ``
    without overriding a variable already set; the files that set something, with the names."""
    if any(os.environ.get(name, "").strip().lower() in ("1", "true") for name in DISABLE_VARIABLES):
        return []
    folder = (agent if agent.is_dir() else agent.parent).resolve()
    files: list[Path] = []
    for file in (_nearest(folder), Path.cwd().resolve() / ".env"):
        if file is not None and file.is_file() and file.resolve() not in files:
            files.append(file.resolve())
    loaded: list[LoadedFile] = []
    for file in files:
        try:
            with file.open("rb") as handle:
                data = handle.read(_MAX_BYTES + 1)
            values = parse_dotenv(data[:_MAX_BYTES].decode("utf-8", errors="replace"))
        except OSError:
            continue
        names = tuple(name for name in values if name not in os.environ)
        for name in names:
            os.environ[name] = values[name]
        if names:
            loaded.append(LoadedFile(file, names))
    return loaded


def loaded_notes(loaded: list[LoadedFile]) -> list[str]:
    """One line per file: where, and which names (never values)."""
    return [f"loaded {', '.join(item.names)} from {_shown(item.path)}" for item in loaded]


def _shown(path: Path) -> str:
    try:
        return str(path.relative_to(Path.cwd().resolve()))
    except ValueError:
        return str(path)
