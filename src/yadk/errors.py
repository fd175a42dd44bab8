"""Every exception yadk raises, in one tree.

Developer mistakes (a bad config, a bad template, a bad agent definition) are separate from run
failures (a model or tool that fails while an invocation runs). Errors that google-adk raises as
``KeyError`` or ``ValueError`` also subclass that builtin, so ``except KeyError`` code keeps working.

    YadkError
    ├── ConfigError (ValueError)            a YAML config is invalid; carries ``diagnostics``
    ├── AgentDefinitionError (ValueError)   an agent built in Python is invalid (name, model, tools)
    │   └── ToolDeclarationError            a function tool's parameter cannot become a schema
    ├── AgentLoadError                      an agent could not be built from its files (any cause)
    ├── TemplateError
    │   ├── TemplateKeyError (KeyError)     a required state key or artifact is missing
    │   ├── TemplateValueError (ValueError) e.g. no artifact service for ``{artifact.x}``
    │   └── TemplateSyntaxError (ValueError) a Jinja2 template does not parse
    ├── SkillError (ValueError)             a skill folder or SKILL.md is invalid
    ├── ExampleError (ValueError)           few-shot examples are invalid
    ├── SessionError
    │   ├── SessionNotFoundError (KeyError) no such session
    │   ├── AlreadyExistsError (ValueError) a session id is taken
    │   ├── StaleSessionError (ValueError)  the session changed since it was read
    │   ├── SessionTooLargeError (ValueError) an event or a session's state over its size cap
    │   ├── ImmutableEventError (TypeError) an appended (sealed) event was changed in place
    │   └── SessionStoreError               the database cannot be used; the message says why
    │       ├── SessionStoreBusyError       locked too long, statement timeout, pool exhausted
    │       ├── SessionStoreSchemaError     foreign, older (``yadk db upgrade``) or newer schema
    │       └── SessionStoreCorruptError    a stored row cannot be read back
    ├── ArtifactError (ValueError)          an artifact name or version is invalid
    ├── ResumeError (ValueError)            an invocation cannot be resumed (unknown id, the app
    │                                       is not resumable)
    ├── TracingSetupError                   OpenTelemetry export was asked for (``--otel``) without
    │                                       ``yadk[otel]`` installed
    └── RunError                            something failed while an invocation ran
        ├── ModelError                      a model failed or a script is exhausted
        │   └── ModelCallLimitError         too many model calls in one invocation
        ├── BudgetExceededError             a token or cost budget is spent (before the next call)
        ├── ToolExecutionError              a tool could not run; ``error_type`` says why
        ├── CallbackError                   a user callback raised
        ├── PluginError                     an app plugin's callback raised
        └── A2AClientError                  a remote A2A agent could not be called
            └── AgentCardResolutionError    its agent card could not be read, fetched or trusted

``Located`` is the shape of the problems a ``ConfigError`` carries (``yadk.config.Diagnostic``
has it): errors sit below the config layer, so they name the shape, not the class.
"""

from __future__ import annotations

import enum
from collections.abc import Sequence
from typing import Any, Literal, Protocol

__all__ = [
    "A2AClientError",
    "AgentCardResolutionError",
    "AgentDefinitionError",
    "AgentLoadError",
    "AlreadyExistsError",
    "ArtifactError",
    "BudgetExceededError",
    "CallbackError",
    "ConfigError",
    "ExampleError",
    "ImmutableEventError",
    "Located",
    "ModelCallLimitError",
    "ModelError",
    "PluginError",
    "ResumeError",
    "RunError",
    "SessionError",
    "SessionNotFoundError",
    "SessionStoreBusyError",
    "SessionStoreCorruptError",
    "SessionStoreError",
    "SessionStoreSchemaError",
    "SessionTooLargeError",
    "SkillError",
    "StaleSessionError",
    "TemplateError",
    "TemplateKeyError",
    "TemplateSyntaxError",
    "TemplateValueError",
    "ToolDeclarationError",
    "ToolErrorType",
    "ToolExecutionError",
    "TracingSetupError",
    "YadkError",
]


class Located(Protocol):
    """A located problem as ``ConfigError`` carries it: ``yadk.config.Diagnostic`` is one.

    Errors sit below the config layer, so they name the shape, not the class."""

    @property
    def path(self) -> str: ...
    @property
    def line(self) -> int: ...
    @property
    def column(self) -> int: ...
    @property
    def rule(self) -> str: ...
    @property
    def message(self) -> str: ...
    @property
    def hint(self) -> str: ...
    @property
    def severity(self) -> Literal["error", "warning"]: ...
    @property
    def is_error(self) -> bool: ...

    def format(self) -> str: ...
    def to_dict(self) -> dict[str, Any]: ...


class YadkError(Exception):
    """Root of every error yadk raises on purpose."""

    @property
    def message(self) -> str:
        """The human message, without the quotes ``KeyError.__str__`` adds."""
        return str(self.args[0]) if self.args else ""


class TracingSetupError(YadkError):
    """OpenTelemetry export was asked for (``--otel``, ``OTEL_EXPORTER_OTLP_ENDPOINT``) but the
    OpenTelemetry SDK or its OTLP exporter is not installed (``pip install 'yadk[otel]'``)."""


class ConfigError(YadkError, ValueError):
    """A YAML config (or a file it references) is invalid.

    ``diagnostics`` lists every problem found, each with file, line, column and rule.
    """

    def __init__(self, diagnostics: Sequence[Located], message: str | None = None) -> None:
        self.diagnostics = list(diagnostics)
        if message is None:
            message = "\n".join(d.format() for d in self.diagnostics) or "invalid config"
        super().__init__(message)


class AgentLoadError(YadkError):
    """An agent could not be built from its files, for any reason (config, model, user code).

    ``details`` are lines to show before the message (formatted diagnostics); ``diagnostics``
    are the config diagnostics themselves, when the cause was a ``ConfigError``.
    """

    def __init__(
        self,
        message: str,
        *,
        diagnostics: Sequence[Located] = (),
        details: Sequence[str] = (),
    ) -> None:
        super().__init__(message)
        self.diagnostics = list(diagnostics)
        self.details = list(details)


class AgentDefinitionError(YadkError, ValueError):
    """An agent, tool or callback built in Python is invalid."""


class ToolDeclarationError(AgentDefinitionError):
    """A function tool's parameter type cannot become a JSON schema for the model. Names the
    function's ``file`` and ``line`` (its ``def``), so validate and run locate it alike;
    ``problem`` and ``hint`` are the message's two parts."""

    def __init__(
        self, message: str, *, hint: str, parameter: str, file: str | None, line: int
    ) -> None:
        super().__init__(message)
        self.problem = message
        self.hint = hint
        self.parameter = parameter
        self.file = file
        self.line = line

    def __str__(self) -> str:
        where = f"{self.file}:{self.line}: " if self.file else ""
        return f"{where}{self.problem} {self.hint}"


class TemplateError(YadkError):
    """An instruction template could not be rendered."""


class TemplateKeyError(TemplateError, KeyError):
    """A required state key or artifact is missing (ADK raises ``KeyError`` here).

    ``key`` is the missing state key, when a state placeholder is what failed."""

    key: str | None = None


class TemplateValueError(TemplateError, ValueError):
    """A template needs something the invocation does not have (ADK raises ``ValueError``)."""


class TemplateSyntaxError(TemplateError, ValueError):
    """A Jinja2 template does not parse."""


class SkillError(YadkError, ValueError):
    """A skill folder or its SKILL.md is invalid."""


class ExampleError(YadkError, ValueError):
    """Few-shot examples are malformed."""


class SessionError(YadkError):
    """A session service refused an operation."""


class SessionNotFoundError(SessionError, KeyError):
    """The session does not exist."""


class AlreadyExistsError(SessionError, ValueError):
    """A session with that id already exists."""


class StaleSessionError(SessionError, ValueError):
    """The session object is older than the stored session: re-read it before appending."""


class SessionTooLargeError(SessionError, ValueError):
    """An event, or the state a session would have after it, is larger than the service's size
    cap; nothing was written. ``yadk serve`` answers it with 413."""


class ImmutableEventError(SessionError, TypeError):
    """An event a session service has appended (or read back) was changed in place: appended
    events are sealed and shared with every reader (copy one to change it)."""


class SessionStoreError(SessionError):
    """The session or artifact database cannot be used (full, read-only, unreachable...)."""


class SessionStoreBusyError(SessionStoreError):
    """The database stayed busy past a bounded wait (a lock, a statement timeout, the pool)."""


class SessionStoreSchemaError(SessionStoreError):
    """The database holds tables yadk did not write, or a schema older or newer than this yadk's."""


class SessionStoreCorruptError(SessionStoreError):
    """A stored row cannot be read back."""


class ArtifactError(YadkError, ValueError):
    """An artifact name or version is invalid."""


class ResumeError(YadkError, ValueError):
    """``run_async(invocation_id=...)`` names an invocation that cannot be resumed: the app is
    not resumable, or the session holds no such invocation."""


class RunError(YadkError):
    """Something failed while an invocation ran."""


class ModelError(RunError):
    """A model call failed, or a scripted model ran out of turns."""


class ModelCallLimitError(ModelError):
    """An invocation made more model calls than its limit allows."""


class BudgetExceededError(RunError):
    """An invocation or session reached a token or cost limit of its ``Budget``; raised before
    the model call that would have gone over it."""


class ToolErrorType(str, enum.Enum):
    """Why a tool could not run."""

    BAD_REQUEST = "BAD_REQUEST"
    NOT_FOUND = "NOT_FOUND"
    INTERNAL_ERROR = "INTERNAL_ERROR"
    TIMEOUT = "TIMEOUT"


class ToolExecutionError(RunError):
    """A tool could not run; ``error_type`` classifies the failure."""

    def __init__(
        self, message: str, *, error_type: ToolErrorType = ToolErrorType.INTERNAL_ERROR
    ) -> None:
        super().__init__(message)
        self.error_type = error_type


class CallbackError(RunError):
    """A user callback raised; ``__cause__`` holds the original exception."""

    def __init__(self, message: str, *, callback: Any = None) -> None:
        super().__init__(message)
        self.callback = callback


class PluginError(RunError):
    """An app plugin's callback raised; ``__cause__`` holds the original exception."""

    def __init__(self, message: str, *, plugin: str = "", callback: str = "") -> None:
        super().__init__(message)
        self.plugin = plugin
        self.callback = callback


class A2AClientError(RunError):
    """A remote A2A agent could not be called: the connection, the HTTP status, a JSON-RPC
    error, a reply that is not A2A, or a task the remote agent reported as failed."""


class AgentCardResolutionError(A2AClientError):
    """A remote A2A agent's card could not be read (file), fetched (URL) or trusted (it sends
    calls to another origin, or over plain HTTP to a host that is not this machine)."""
