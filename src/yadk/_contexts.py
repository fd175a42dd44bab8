"""Contexts handed to instruction providers, callbacks and tools.

They live below the agents package so templating and tools can use them without importing
agents; ``yadk.agents`` re-exports them.

* ``InvocationContext``: everything one invocation shares (session, services, current agent).
* ``ReadonlyContext``: read-only state view, for instruction providers.
* ``Context`` (= ``CallbackContext``): state writes recorded in an ``EventActions`` delta, and
  artifact helpers.
* ``ToolContext``: a ``Context`` that also knows the function call it serves.
"""

from __future__ import annotations

import dataclasses
import uuid
from collections.abc import AsyncIterator, Awaitable, Callable, Mapping
from types import MappingProxyType
from typing import TYPE_CHECKING, Any, Protocol

from yadk._telemetry_config import TelemetryConfig
from yadk._tool_confirmation import ToolConfirmation
from yadk.artifacts import BaseArtifactService
from yadk.errors import TemplateValueError
from yadk.events import Event, EventActions
from yadk.sessions import BaseSessionService, Session, State
from yadk.types import Content, Part

if TYPE_CHECKING:
    from yadk._plugin_manager import PluginManager
    from yadk._resume import ResumePlan
    from yadk._tracing import InvocationTrace
    from yadk._usage import Budget, BudgetTracker
    from yadk.agents import BaseAgent
    from yadk.memory import BaseMemoryService, SearchMemoryResponse

__all__ = [
    "AppSettings",
    "CallbackContext",
    "Context",
    "InvocationContext",
    "NestedRunner",
    "ReadonlyContext",
    "RunConfig",
    "RunnerFactory",
    "ToolContext",
    "new_invocation_id",
]


def new_invocation_id() -> str:
    return "e-" + str(uuid.uuid4())


@dataclasses.dataclass
class RunConfig:
    """Per-invocation settings.

    ``max_llm_calls`` (google-adk's default, 500; 0 or less means no limit) ends an invocation
    that keeps calling the model (a tool loop, a loop that never exits) with one error event; ``raise_errors`` makes the
    runner raise failures instead of ending the invocation with an error event; ``streaming``
    asks models to stream, and the runner yields their chunks as ``partial`` events (never stored)
    before the final event. ``budget`` (a ``yadk.apps.Budget``) limits tokens and cost; it
    replaces the app's budget for this invocation.
    """

    max_llm_calls: int = 500
    raise_errors: bool = False
    streaming: bool = False
    budget: Budget | None = None
    # Where traced model and tool content goes (google-adk's ``telemetry.capture_message_content``):
    # "NO_CONTENT", "SPAN_ONLY", "EVENT_ONLY" or "SPAN_AND_EVENT"; None reads
    # OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT (off when unset). See docs/tracing.md.
    capture_message_content: str | None = None
    # google-adk's per-request telemetry settings (``TelemetryConfig``); its content capture
    # replaces ``capture_message_content``, which must then be left unset.
    telemetry: TelemetryConfig | None = None
    # An OpenTelemetry TracerProvider for this invocation's spans instead of the global one
    # (a yadk addition: tests, hosts that keep one provider per tenant).
    tracer_provider: Any = None

    def __post_init__(self) -> None:
        if self.telemetry is not None and not isinstance(self.telemetry, TelemetryConfig):
            raise TypeError(
                f"RunConfig(telemetry=...) takes a TelemetryConfig (yadk.agents.TelemetryConfig,"
                f" or google-adk's name for it), not {type(self.telemetry).__name__}"
            )
        capture = self.capture_message_content
        if capture is not None and self.telemetry is not None:
            raise ValueError(
                "RunConfig: set the content capture in one place, either"
                " capture_message_content=... or telemetry=TelemetryConfig("
                "capture_message_content=...), not both"
            )
        if capture is not None:
            value = str(getattr(capture, "value", capture)).upper()
            if value not in _CAPTURE_MODES:
                raise ValueError(
                    f"RunConfig(capture_message_content={capture!r}): expected one of"
                    f" {', '.join(sorted(_CAPTURE_MODES))} (or None to follow"
                    " OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT)"
                )


# google-adk's ContentCapturingMode values (yadk.telemetry reads them).
_CAPTURE_MODES = frozenset({"NO_CONTENT", "SPAN_ONLY", "EVENT_ONLY", "SPAN_AND_EVENT"})


class AppSettings(Protocol):
    """What the engine reads of an ``App`` (``yadk.apps`` sits above the runner, so the runner
    and agents see an app through this protocol)."""

    name: str
    root_agent: Any
    plugins: list[Any]
    events_compaction_config: Any
    context_cache_config: Any
    resumability_config: Any
    budget: Any


class NestedRunner(Protocol):
    """What ``RunnerFactory`` builds: runs one agent against sessions, as ``yadk.Runner`` does."""

    def run_async(
        self, *, user_id: str, session_id: str, new_message: Content
    ) -> AsyncIterator[Event]: ...


class RunnerFactory(Protocol):
    """Builds a runner for an invocation inside another (``AgentTool`` runs its agent so). The
    runner hands itself down in the ``InvocationContext``: tools sit below it, so they are given
    it rather than import it."""

    def __call__(
        self,
        *,
        app_name: str,
        agent: BaseAgent,
        session_service: BaseSessionService,
        artifact_service: BaseArtifactService | None,
        run_config: RunConfig | None,
    ) -> NestedRunner: ...


@dataclasses.dataclass
class _Counter:
    """What every agent of one invocation shares: the model calls made so far, and whether a
    failure (a model error, the call limit) has ended the invocation for all of them."""

    llm_calls: int = 0
    failed: bool = False
    # The exception behind the error event that ended the invocation (where google-adk would
    # have raised it): the invocation's span records it. None for an error event nothing raised
    # (a model's error code), which leaves the span unfailed, as google-adk's.
    failure: BaseException | None = None
    # The error events of workflow node attempts that were retried: they do not end the
    # invocation in an error (its compaction still runs after it).
    retried_errors: set[str] = dataclasses.field(default_factory=set)
    # Agent run paths (google-adk's ``node_info.path``): how often each agent has started under
    # each parent path, and the path each agent last ran at, so a transfer target's path hangs
    # under its tree parent's.
    agent_runs: dict[tuple[str, str], int] = dataclasses.field(default_factory=dict)
    agent_paths: dict[str, str] = dataclasses.field(default_factory=dict)
    # The invocation's token budget and what it has spent (agents/_budget.py), read once.
    budget: BudgetTracker | None = None
    budget_checked: bool = False


@dataclasses.dataclass
class InvocationContext:
    """State shared by everything one invocation runs; copied (not mutated) per agent."""

    invocation_id: str
    agent: BaseAgent
    session: Session
    session_service: BaseSessionService
    artifact_service: BaseArtifactService | None = None
    user_content: Content | None = None
    branch: str | None = None
    # Set for what a workflow node runs with ``override_isolation_scope``: stamped on its events,
    # and an agent under it sees only that scope's events (yadk.agents._isolation).
    isolation_scope: str | None = None
    run_config: RunConfig = dataclasses.field(default_factory=RunConfig)
    end_invocation: bool = False
    counter: _Counter = dataclasses.field(default_factory=_Counter)
    root_agent: BaseAgent | None = None
    memory_service: BaseMemoryService | None = None
    runner_factory: RunnerFactory | None = None
    # The App the runner was given (plugins and settings), if any.
    app: AppSettings | None = None
    # The app's plugins, or None when it has none (every plugin hook is skipped then).
    plugins: PluginManager | None = None
    # Set when this invocation resumes an interrupted one (run_async(invocation_id=...)).
    resume: ResumePlan | None = None
    # The run path stamped on the events of ``agent`` (``""``: none, as for the agents a
    # SequentialAgent at the root runs).
    node_path: str = ""
    # Set for an LlmAgent a workflow runs single-turn (LlmAgent.node_mode): its node input, the
    # one user turn it is given; it sees only that and the events of its own run.
    single_turn_input: Content | None = None
    # Set for such an agent run again after a long-running call of its waited for the user: it
    # is not given its input again, but the turn its run began in (google-adk's).
    single_turn_resumed: bool = False
    # Tracing (yadk._tracing): the invocation's trace when it is traced (None: off), the span of
    # the agent or node running, and the span that one hangs under (a transfer target's parent).
    trace: InvocationTrace | None = None
    span: Any = None
    outer_span: Any = None

    @property
    def app_name(self) -> str:
        return self.session.app_name

    @property
    def user_id(self) -> str:
        return self.session.user_id

    def for_agent(
        self,
        agent: BaseAgent,
        *,
        branch: str | None = None,
        node_path: str | None = None,
        single_turn_input: Content | None = None,
        single_turn_resumed: bool = False,
    ) -> InvocationContext:
        """A context for ``agent`` (sharing session, services and the call counter); it runs
        single-turn only when given its input."""
        return dataclasses.replace(
            self,
            agent=agent,
            branch=self.branch if branch is None else branch,
            node_path=self.node_path if node_path is None else node_path,
            single_turn_input=single_turn_input,
            single_turn_resumed=single_turn_resumed and single_turn_input is not None,
        )


class ReadonlyContext:
    """What an instruction provider may look at."""

    __slots__ = ("_invocation_context",)

    def __init__(self, invocation_context: InvocationContext) -> None:
        self._invocation_context = invocation_context

    @property
    def invocation_context(self) -> InvocationContext:
        return self._invocation_context

    @property
    def invocation_id(self) -> str:
        return self._invocation_context.invocation_id

    @property
    def agent_name(self) -> str:
        return self._invocation_context.agent.name

    @property
    def user_content(self) -> Content | None:
        return self._invocation_context.user_content

    @property
    def session(self) -> Session:
        return self._invocation_context.session

    @property
    def state(self) -> Mapping[str, Any]:
        """The session state, read-only."""
        return MappingProxyType(self._invocation_context.session.state)

    @property
    def branch(self) -> str | None:
        return self._invocation_context.branch


class Context(ReadonlyContext):
    """A context that can write state and artifacts; writes ride on ``actions``."""

    __slots__ = ("_event_actions", "_state")

    def __init__(
        self, invocation_context: InvocationContext, *, event_actions: EventActions | None = None
    ) -> None:
        super().__init__(invocation_context)
        self._event_actions = event_actions if event_actions is not None else EventActions()
        self._state = State(invocation_context.session.state, self._event_actions.state_delta)

    @property
    def state(self) -> State:  # type: ignore[override]
        """Read and write session state; a write is readable at once and persisted with the
        next event this context's actions ride on."""
        return self._state

    @property
    def actions(self) -> EventActions:
        return self._event_actions

    def _artifact_service(self) -> BaseArtifactService:
        service = self._invocation_context.artifact_service
        if service is None:
            raise TemplateValueError("Artifact service is not initialized.")
        return service

    async def load_artifact(self, filename: str, version: int | None = None) -> Part | None:
        ic = self._invocation_context
        return await self._artifact_service().load_artifact(
            app_name=ic.app_name,
            user_id=ic.user_id,
            session_id=ic.session.id,
            filename=filename,
            version=version,
        )

    async def save_artifact(self, filename: str, artifact: Part) -> int:
        ic = self._invocation_context
        version = await self._artifact_service().save_artifact(
            app_name=ic.app_name,
            user_id=ic.user_id,
            session_id=ic.session.id,
            filename=filename,
            artifact=artifact,
        )
        self._event_actions.artifact_delta[filename] = version
        return version

    async def list_artifacts(self) -> list[str]:
        ic = self._invocation_context
        return await self._artifact_service().list_artifact_keys(
            app_name=ic.app_name, user_id=ic.user_id, session_id=ic.session.id
        )

    def _memory_service(self) -> BaseMemoryService:
        service = self._invocation_context.memory_service
        if service is None:
            raise ValueError(
                "Memory service is not available: pass memory_service= to the Runner"
                " (e.g. InMemoryMemoryService())."
            )
        return service

    async def search_memory(self, query: str) -> SearchMemoryResponse:
        """The user's remembered messages matching ``query`` (google-adk's ``search_memory``)."""
        ic = self._invocation_context
        return await self._memory_service().search_memory(
            app_name=ic.app_name, user_id=ic.user_id, query=query
        )

    async def add_session_to_memory(self) -> None:
        """Remember the current session (e.g. from an after_agent_callback)."""
        await self._memory_service().add_session_to_memory(self._invocation_context.session)


CallbackContext = Context


class ToolContext(Context):
    """The context a tool receives: a ``Context`` plus the id of the call it answers, and
    ``events``: events the tool's own run produced (a workflow called as a tool), handed up
    before the event with its response; ``publish``: when the agent's flow offers it, hands
    one such event up at once (it is stored in the session before ``publish`` returns, so the
    run reads it back, as a sub-agent reads its own history); ``waiting``: the run asked the
    user a question;
    ``tool_confirmation``: the user's answer when the call reruns after a confirmation request
    (``None`` on its first run)."""

    __slots__ = ("events", "function_call_id", "publish", "tool_confirmation", "waiting")

    def __init__(
        self,
        invocation_context: InvocationContext,
        *,
        function_call_id: str | None = None,
        event_actions: EventActions | None = None,
    ) -> None:
        super().__init__(invocation_context, event_actions=event_actions)
        self.function_call_id = function_call_id
        self.events: list[Event] = []
        self.publish: Callable[[Event], Awaitable[None]] | None = None
        # Set by a tool whose run asked the user a question: it answers when the user does.
        self.waiting = False
        self.tool_confirmation: ToolConfirmation | None = None

    def request_confirmation(self, *, hint: str | None = None, payload: Any = None) -> None:
        """Ask the user to confirm this tool call (google-adk's): once the tool returns, the
        user is sent an ``adk_request_confirmation`` call; their answer reruns the tool with
        ``tool_confirmation`` set (``confirmed``, and the ``payload`` they sent back)."""
        if not self.function_call_id:
            raise ValueError(
                "request_confirmation requires function_call_id. This method can only be used"
                " in a tool context."
            )
        self.actions.requested_tool_confirmations[self.function_call_id] = ToolConfirmation(
            hint=hint or "", payload=payload
        )
