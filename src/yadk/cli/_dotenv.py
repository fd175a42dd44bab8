"""``.env`` files for ``yadk run`` and ``yadk dev``: the nearest ``.env`` from the agent folder up
(as google-adk finds it), then the working directory's. A variable already set is never
overridden, so the agent's file wins over the working directory's and the shell wins over both.
Only names are ever reported, never values.

A ``.env`` file travels with an agent folder, so it is untrusted like a config: it never sets
yadk's or google-adk's trust and endpoint variables, nor what decides where requests go or what
a child process runs (``refused_variable``). Such a line is reported (file, line, name) and
ignored; only the real environment (the shell) sets those."""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from pathlib import Path

__all__ = [
    "DISABLE_VARIABLES",
    "REFUSED_NAMES",
    "REFUSED_PREFIXES",
    "REFUSED_SUFFIXES",
    "LoadedFile",
    "load_dotenv_files",
    "loaded_notes",
    "parse_dotenv",
    "refused_variable",
]

DISABLE_VARIABLES = ("YADK_DISABLE_LOAD_DOTENV", "ADK_DISABLE_LOAD_DOTENV")
_MAX_BYTES = 1_000_000
# Variables a .env file may not set (docs/config.md lists them; keep the two in step).
REFUSED_PREFIXES = (
    "YADK_",  # yadk's own settings: model-request switch, serve token, endpoints, limits
    "ADK_ALLOW_",  # google-adk's trust switches (ADK_ALLOW_CONFIG_STDIO_MCP_SERVERS)
    "LD_",  # what every child process loads (LD_PRELOAD, LD_LIBRARY_PATH)
    "DYLD_",
    "PYTHON",  # what Python child processes (skill scripts, MCP servers) import and run
)
REFUSED_SUFFIXES = (
    "_BASE_URL",  # model endpoints: OPENAI_BASE_URL, ANTHROPIC_BASE_URL, GOOGLE_GEMINI_BASE_URL
    "_ENDPOINT",  # OTEL_EXPORTER_OTLP_ENDPOINT and the like: where traces of prompts go
)
REFUSED_NAMES = frozenset(
    {
        "ADK_DISABLE_LOAD_DOTENV",
        "GOOGLE_GENAI_USE_VERTEXAI",  # sends Gemini requests (and credentials) to Vertex AI
        "GOOGLE_CLOUD_PROJECT",
        "GOOGLE_CLOUD_LOCATION",
        "GOOGLE_APPLICATION_CREDENTIALS",
        "PATH",  # which program a stdio MCP server's `command` is
        # Proxies and certificate authorities: together they read HTTPS traffic, API keys included.
        "HTTP_PROXY",
        "HTTPS_PROXY",
        "ALL_PROXY",
        "NO_PROXY",
        "SSL_CERT_FILE",
        "SSL_CERT_DIR",
        "REQUESTS_CA_BUNDLE",
        "CURL_CA_BUNDLE",
    }
)


def refused_variable(name: str) -> bool:
    """Whether a ``.env`` file may not set ``name`` (only the real environment may)."""
    upper = name.upper()  # proxies are read in either case (https_proxy)
    return (
        upper in REFUSED_NAMES
        or upper.startswith(REFUSED_PREFIXES)
        or upper.endswith(REFUSED_SUFFIXES)
    )


_LINE = re.compile(r"\s*(?:export\s+)?([A-Za-z_][A-Za-z0-9_]*)\s*=\s*(.*)")


@dataclass(frozen=True)
class LoadedFile:
    """One ``.env`` file and the names it set (those not set before)."""

    path: Path
    names: tuple[str, ...]
    refused: tuple[tuple[int, str], ...] = ()  # (line, name) of lines that were ignored


def parse_dotenv(text: str) -> dict[str, str]:
    """``NAME=value`` lines: ``export`` allowed, ``#`` comments, single quotes taken literally,
    double quotes with ``\\n``, ``\\"`` and ``\\\\`` escapes; other lines are ignored."""
    return {name: value for _, name, value in _assignments(text)}


def _assignments(text: str) -> list[tuple[int, str, str]]:
    """(1-based line, name, value) of every ``NAME=value`` line."""
    found = []
    for number, line in enumerate(text.splitlines(), start=1):
        match = _LINE.fullmatch(line)
        if match is not None:
            found.append((number, match.group(1), _value(match.group(2).strip())))
    return found


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
            assignments = _assignments(data[:_MAX_BYTES].decode("utf-8", errors="replace"))
        except OSError:
            continue
        refused = tuple((line, name) for line, name, _ in assignments if refused_variable(name))
        values = {name: value for _, name, value in assignments if not refused_variable(name)}
        names = tuple(name for name in values if name not in os.environ)
        for name in names:
            os.environ[name] = values[name]
        if names or refused:
            loaded.append(LoadedFile(file, names, refused))
    return loaded


def loaded_notes(loaded: list[LoadedFile]) -> list[str]:
    """One line per file: where, and which names (never values); then one warning per refused
    line, naming the file, the line and the variable."""
    notes = [
        f"loaded {', '.join(item.names)} from {_shown(item.path)}" for item in loaded if item.names
    ]
    for item in loaded:
        for line, name in item.refused:
            notes.append(
                f"warning: {_shown(item.path)}:{line}: {name} ignored: a .env file cannot set"
                " yadk's or google-adk's trust, endpoint or process variables; set it in the"
                " shell's environment if you mean it"
            )
    return notes


def _shown(path: Path) -> str:
    try:
        return str(path.relative_to(Path.cwd().resolve()))
    except ValueError:
        return str(path)
