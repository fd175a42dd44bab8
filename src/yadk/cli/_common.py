"""What every command shares: exit codes, the error it raises, and loading an agent."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from yadk.agents import BaseAgent, LlmAgent
    from yadk.models import BaseLlm

__all__ = [
    "EXIT_FAILURE",
    "EXIT_OK",
    "EXIT_USAGE",
    "CommandError",
    "agent_path",
    "llm_agents",
    "load_agent",
    "parse_state",
    "print_error",
    "set_model",
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
    for line in error.details:
        print(line, file=sys.stderr)
    print(f"{prog}: error: {error.message}", file=sys.stderr)


def parse_state(text: str | None, *, option: str = "--state") -> dict[str, Any]:
    """A ``--state`` value as a dict; anything but a JSON object is a usage error."""
    if text is None:
        return {}
    try:
        value = json.loads(text)
    except json.JSONDecodeError as exc:
        raise CommandError(
            f"{option} is not valid JSON ({exc.msg} at column {exc.colno});"
            f' expected an object such as {option} \'{{"customer_name": "Ada"}}\'',
            exit_code=EXIT_USAGE,
        ) from None
    if not isinstance(value, dict):
        raise CommandError(
            f'{option} must be a JSON object such as \'{{"customer_name": "Ada"}}\','
            f" not {type(value).__name__}",
            exit_code=EXIT_USAGE,
        )
    return value


def agent_path(text: str) -> Path:
    """The AGENT argument as a path; a path that does not exist is a usage error."""
    path = Path(text)
    if not path.exists():
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
    from yadk.errors import ConfigError, YadkError

    try:
        return load_config(path)
    except ConfigError as exc:
        details = [d.format() for d in exc.diagnostics] or [exc.message]
        count = len(exc.diagnostics) or 1
        raise CommandError(
            f"{path} was not loaded: {count} problem{'s' if count != 1 else ''}"
            f" (run 'yadk validate {path}' to check it)",
            details=details,
        ) from None
    except YadkError as exc:
        raise CommandError(f"{path} was not loaded: {exc.message}") from None


def llm_agents(root: BaseAgent) -> list[LlmAgent]:
    from yadk.agents import LlmAgent

    return [agent for agent in root.walk() if isinstance(agent, LlmAgent)]


def set_model(root: BaseAgent, model: str | BaseLlm) -> None:
    """Make every LlmAgent in the tree use ``model`` (agents without their own model would
    inherit it anyway; setting it everywhere also covers trees whose root is a workflow agent)."""
    for agent in llm_agents(root):
        agent.model = model
