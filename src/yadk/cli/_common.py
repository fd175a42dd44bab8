"""What every command shares: exit codes, the error it raises, and loading an agent.

Every command, ``yadk --help`` too, imports this module, so what only some of its functions
need (the config loader, the engine, the session stores) is imported inside them.
"""

from __future__ import annotations

import os
import socket
import sys
import traceback as tracebacks
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from yadk._files import FileProblem
    from yadk.agents import BaseAgent, LlmAgent
    from yadk.errors import YadkError
    from yadk.models import BaseLlm
    from yadk.types import Part

__all__ = [
    "EXIT_FAILURE",
    "EXIT_OK",
    "EXIT_USAGE",
    "OFFLINE_HINT",
    "CommandError",
    "agent_path",
    "check_models",
    "file_error",
    "listen",
    "llm_agents",
    "load_agent",
    "local_store",
    "not_loaded",
    "not_utf8",
    "parse_artifacts",
    "parse_state",
    "print_error",
    "print_unexpected",
    "resolve_model_option",
    "set_model",
    "show_tracebacks",
]

EXIT_OK = 0
EXIT_FAILURE = 1
EXIT_USAGE = 2


class CommandError(Exception):
    """A command failed in a way the user can fix; ``main`` prints it and exits, no traceback.

    ``details`` (e.g. formatted diagnostics) are printed before the one-line message.
    """

    def __init__(
        self, message: str, *, exit_code: int = EXIT_FAILURE, details: list[str] | None = None
    ) -> None:
        super().__init__(message)
        self.message = message
        self.exit_code = exit_code
        self.details = list(details or [])


def print_error(prog: str, error: CommandError) -> None:
    sys.stdout.flush()  # keep stdout output that came before the error in front of it
    from yadk._secrets import mask_secrets

    for line in error.details:
        print(mask_secrets(line), file=sys.stderr)
    print(mask_secrets(f"{prog}: error: {error.message}"), file=sys.stderr)


def show_tracebacks(args: object = None) -> bool:
    """Whether to print full tracebacks: the global ``--verbose`` flag, or ``YADK_DEBUG`` set to
    anything but ``""``/``0``. Commands use it for tracebacks of user code (tools, callbacks) too."""
    if getattr(args, "verbose", False):
        return True
    return os.environ.get("YADK_DEBUG", "").strip() not in ("", "0")


def _one_line(text: str, limit: int = 300) -> str:
    line = " ".join(text.split())
    return line if len(line) <= limit else line[: limit - 3] + "..."


def print_unexpected(prog: str, error: BaseException, *, traceback: bool) -> None:
    """Report an exception no command expected: one line naming the command and the exception.

    The traceback is printed (before that line) only when asked for; otherwise the line says how
    to get it. A ``YadkError`` is yadk refusing something on purpose, so its message is enough.
    """
    from yadk.errors import YadkError

    sys.stdout.flush()
    if traceback:
        tracebacks.print_exception(error, file=sys.stderr)
    if isinstance(error, YadkError):
        detail = _one_line(error.message)
    else:
        message = _one_line(str(error))
        detail = f"unexpected {type(error).__name__}" + (f": {message}" if message else "")
    from yadk._secrets import mask_secrets

    print(mask_secrets(f"{prog}: error: {detail}"), file=sys.stderr)
    if not traceback and not isinstance(error, YadkError):
        print(
            f"  hint: run 'yadk --verbose {prog.removeprefix('yadk ')} ...' or set YADK_DEBUG=1"
            " to see the full traceback",
            file=sys.stderr,
        )


def not_utf8(text: str, what: str) -> str | None:
    """Why ``text`` (from argv or stdin, where undecodable bytes arrive as surrogate escapes)
    cannot be sent to a model, or None when it is valid text."""
    for index, char in enumerate(text):
        if "\udc80" <= char <= "\udcff":
            return (
                f"{what} is not valid UTF-8 (byte 0x{ord(char) - 0xDC00:02x} at character"
                f" {index + 1}); send UTF-8 text (is the terminal's locale UTF-8?)"
            )
        if "\ud800" <= char <= "\udfff":
            return f"{what} holds a lone surrogate at character {index + 1}; send UTF-8 text"
    return None


def parse_state(text: str | None, *, option: str = "--state") -> dict[str, Any]:
    """A ``--state`` value as a dict; anything but a JSON object is a usage error."""
    from yadk._files import FileProblem, load_json

    if text is None:
        return {}
    undecodable = not_utf8(text, option)
    if undecodable is not None:
        raise CommandError(undecodable, exit_code=EXIT_USAGE)
    example = f'expected an object such as {option} \'{{"customer_name": "Ada"}}\''
    try:
        value = load_json(text, what=option)
    except FileProblem as problem:
        if problem.rule == "json-syntax":
            reason = f"is not valid JSON ({problem.reason.split(': ', 1)[1]} at column"
            reason += f" {problem.column})"
        elif problem.rule == "json-too-deep":
            reason = f"is {problem.reason}"
        else:
            reason = f"has {problem.reason}"
        raise CommandError(f"{option} {reason}; {example}", exit_code=EXIT_USAGE) from None
    if not isinstance(value, dict):
        raise CommandError(
            f'{option} must be a JSON object such as \'{{"customer_name": "Ada"}}\','
            f" not {type(value).__name__}",
            exit_code=EXIT_USAGE,
        )
    return value


def parse_artifacts(values: list[str]) -> dict[str, Part]:
    """``--artifact NAME=FILE`` values as artifact parts: text if the file is UTF-8, else bytes
    with a MIME type guessed from its name. Only a regular file up to the ``artifact`` limit is
    read (a pipe or a device would block or never end)."""
    from yadk._files import FileProblem, read_bytes
    from yadk.types import Part

    artifacts: dict[str, Part] = {}
    for value in values:
        name, sep, file = value.partition("=")
        if not sep or not name or not file:
            raise CommandError(
                f"--artifact {value!r}: expected NAME=FILE, e.g. --artifact notes.txt=./notes.txt",
                exit_code=EXIT_USAGE,
            )
        try:
            data = read_bytes(file, kind="artifact")
        except FileProblem as problem:
            raise CommandError(
                f"--artifact {name}: {problem.message}"
                + (f" {problem.hint}" if problem.hint else ""),
                exit_code=EXIT_USAGE,
            ) from None
        try:
            artifacts[name] = Part(text=data.decode("utf-8"))
        except UnicodeDecodeError:
            import mimetypes  # only binary artifacts need a type guess

            mime = mimetypes.guess_type(file)[0] or "application/octet-stream"
            artifacts[name] = Part.from_bytes(data=data, mime_type=mime)
    return artifacts


def file_error(problem: FileProblem, path: str | os.PathLike[str]) -> CommandError:
    """A bounded reader's refusal as the command's error, and how to fix it: a problem inside
    the file (its JSON) is ``path:line:col: reason`` (exit 1), one with the file itself is a
    usage error (exit 2)."""
    hint = f" {problem.hint}" if problem.hint else ""
    if problem.line:
        where = f"{os.fspath(path)}:{problem.line}:{problem.column}"
        return CommandError(f"{where}: {problem.reason}.{hint}", exit_code=EXIT_FAILURE)
    return CommandError(f"{problem.message}{hint}", exit_code=EXIT_USAGE)


def agent_path(text: str) -> Path:
    """The AGENT argument as a path; a path that does not exist is a usage error."""
    path = Path(text)
    if not os.path.exists(path):  # unlike Path.exists, False for a name too long to look up
        raise CommandError(
            f"AGENT {text!r} does not exist; expected a YAML config file or a folder holding"
            " root_agent.yaml",
            exit_code=EXIT_USAGE,
        )
    return path


def load_agent(path: Path) -> BaseAgent:
    """The agent tree a config defines; config problems become one CommandError listing every
    diagnostic."""
    from yadk.config import load_agent as load_config
    from yadk.errors import YadkError

    try:
        return load_config(path)
    except YadkError as exc:
        raise not_loaded(path, exc) from None


def not_loaded(path: Path, error: YadkError) -> CommandError:
    """The CommandError for a config that did not load: every diagnostic of a ``ConfigError``,
    then one line pointing at ``yadk validate``."""
    from yadk.reload import load_failure

    failure = load_failure(path, error)
    return CommandError(failure.message, details=failure.details)


def llm_agents(root: BaseAgent) -> list[LlmAgent]:
    from yadk.reload import llm_agents as listed

    return listed(root)


def set_model(root: BaseAgent, model: str | BaseLlm) -> None:
    """Make every LlmAgent in the tree use ``model``."""
    from yadk.reload import set_model as set_everywhere

    set_everywhere(root, model)


def resolve_model_option(name: str) -> BaseLlm:
    """The model ``--model NAME`` names; an unknown one is a CommandError."""
    from yadk.errors import ModelError
    from yadk.models import resolve_model

    try:
        return resolve_model(name)
    except ModelError as exc:
        raise CommandError(f"--model {name}: {exc.message}") from None


OFFLINE_HINT = "to run offline, pass --model scripted:FILE"


def check_models(root: BaseAgent) -> None:
    """Resolve every LlmAgent's model before the first message, so a missing model or backend
    is reported up front rather than as an error event mid-conversation."""
    from yadk.errors import AgentLoadError
    from yadk.reload import check_models as check

    try:
        check(root, hint=OFFLINE_HINT)
    except AgentLoadError as exc:
        raise CommandError(exc.message) from None


def listen(host: str, port: int, *, backlog: int = 128) -> socket.socket:
    """A listening socket on host:port; a port in use (or an address that cannot be bound) is
    one line and exit 2, for yadk serve and yadk web alike."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    listener = socket.socket(family, socket.SOCK_STREAM)
    listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        listener.bind((host, port))
    except OSError as exc:
        listener.close()
        raise CommandError(
            f"cannot listen on {host}:{port}: {exc.strerror or exc};"
            " choose another --port (0 picks a free one) or stop the program using it",
            exit_code=EXIT_USAGE,
        ) from None
    listener.listen(backlog)
    listener.setblocking(False)
    return listener


def local_store(db: str | None, default: str) -> str:
    """The store to open: ``--db`` as given, or the default local file, which is first
    upgraded in place (copied aside, and said so) when an older yadk wrote it."""
    if db is not None:
        return db
    from yadk.errors import YadkError
    from yadk.sessions import upgrade_local_store

    try:
        note = upgrade_local_store(default)
    except YadkError as exc:
        raise CommandError(f"{default}: {exc.message}") from None
    if note is not None:
        print(f"yadk: {note}", file=sys.stderr)
    return default
