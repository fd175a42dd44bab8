"""Runner: one invocation = the user's message and the agents' events appended to a session."""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextlib
import dataclasses
import logging
import sys
from collections import OrderedDict
from collections.abc import AsyncGenerator, AsyncIterator, Callable
from typing import Any

from yadk._contexts import AppSettings, InvocationContext, RunConfig, new_invocation_id
from yadk._plugin_manager import PluginManager, plugin_manager_for
from yadk._resume import ResumePlan, invocation_answered, plan_resume
from yadk._tracing import InvocationTrace
from yadk.agents import BaseAgent, LlmAgent, open_task_scope
from yadk.artifacts import BaseArtifactService, InMemoryArtifactService
from yadk.errors import (
    A2AClientError,
    AgentDefinitionError,
    CallbackError,
    ModelError,
    PluginError,
    SessionNotFoundError,
    TemplateError,
    YadkError,
)
from yadk.events import Event, EventActions
from yadk.memory import BaseMemoryService
from yadk.sessions import BaseSessionService, InMemorySessionService, Session, SessionLocks
from yadk.tools import close_toolsets
from yadk.types import Content, UserContent

__all__ = ["Runner"]

logger = logging.getLogger("yadk.runner")

_ERROR_CODES: list[tuple[type[BaseException], str]] = [
    (CallbackError, "CALLBACK_ERROR"),
    (PluginError, "PLUGIN_ERROR"),
    (TemplateError, "TEMPLATE_ERROR"),
    (AgentDefinitionError, "AGENT_DEFINITION_ERROR"),
    (ModelError, "MODEL_ERROR"),
    (A2AClientError, "A2A_ERROR"),
]


def _import_turn_path() -> None:
    """Import the modules a turn runs (they load lazily, as ``yadk inspect`` and ``validate``
    need few of them) now, while the runner is built, so a server's first turn does not import
    them on its event loop (hundreds of milliseconds on a busy machine)."""
    from yadk.agents import run_llm_flow  # noqa: F401


class Runner:
    """Runs an agent tree against sessions of one app.

    The runner keeps the sessions of its last ``max_kept_sessions`` invocations and brings them up
    to date with ``refresh_session`` at the next turn, so a turn costs what is new, not the whole
    history (whatever another process appended in between is read too).

    Every non-partial event is appended to the session before it is yielded, so a consumer that
    stops reading never loses what it has seen. A failure inside the invocation (a callback or
    template error, a model error) becomes a final event with ``error_code``/``error_message``,
    appended like any other; pass ``RunConfig(raise_errors=True)`` to get the exception instead.

    The runner owns the per-session turn locks (``locks``, ``turn``): whoever starts turns for
    several clients (``yadk serve``, ``yadk run``) holds ``turn`` around each, so two turns on one
    session never interleave their events while turns on different sessions run side by side.
    Runners given the same ``session_locks`` (serve's apps on one store) share them.
    """

    max_kept_sessions = 256
    # How long ``turn`` waits for a busy session when the locks are the runner's own.
    turn_wait = 10.0

    def __init__(
        self,
        *,
        app: AppSettings | None = None,
        app_name: str | None = None,
        agent: BaseAgent | None = None,
        session_service: BaseSessionService | None = None,
        artifact_service: BaseArtifactService | None = None,
        memory_service: BaseMemoryService | None = None,
        run_config: RunConfig | None = None,
        plugins: list[Any] | None = None,
        session_locks: SessionLocks | None = None,
    ) -> None:
        if (app is None) == (agent is None):
            raise ValueError("Runner needs exactly one of app= or agent=.")
        if app is not None:
            agent = app.root_agent
            app_name = app_name or app.name
        if app_name is None:
            raise ValueError("Runner(agent=...) needs app_name=.")
        assert agent is not None
        self.app = app
        # The app's plugins (None without any: then no hook costs more than an ``is None``).
        self.plugin_manager: PluginManager | None = plugin_manager_for(app)
        if plugins:  # google-adk's Runner(agent=..., plugins=[...])
            if app is not None:
                raise ValueError(
                    "Runner(app=...) runs the app's plugins; pass plugins= only with agent=,"
                    " or put them in App(plugins=[...])."
                )
            self.plugin_manager = PluginManager(plugins)
        self.app_name = app_name
        self.agent: BaseAgent = agent
        self.session_service = session_service or InMemorySessionService()
        self.artifact_service = (
            artifact_service if artifact_service is not None else InMemoryArtifactService()
        )
        self.run_config = run_config or RunConfig()
        self.memory_service = memory_service
        # The last-used sessions, so the next turn reads only what is new (see _checkout).
        self._sessions: OrderedDict[tuple[str, str], Session] = OrderedDict()
        self._locks = session_locks
        self._own_locks = False
        _import_turn_path()

    @property
    def locks(self) -> SessionLocks:
        """The per-session turn locks (given as ``session_locks``, else made on first use with
        ``turn_wait`` and the store's cross-process locks)."""
        if self._locks is None:
            self._locks = SessionLocks(
                wait=self.turn_wait, shared=self.session_service.turn_locks()
            )
            self._own_locks = True
        return self._locks

    @contextlib.asynccontextmanager
    async def turn(
        self, user_id: str, session_id: str, *, wait: float | None = None
    ) -> AsyncIterator[None]:
        """Hold the session's turn lock for the block: waits up to ``wait`` seconds (default:
        the locks' wait) for a turn already running on it, then raises ``SessionBusy``. On
        leaving, the store's cross-process lock is released before the block's caller goes on,
        so a client that sends its next turn to another process finds the session free."""
        key = (self.app_name, user_id, session_id)
        await self.locks.acquire(key, wait=wait)
        try:
            yield
        finally:
            await self.locks.released(key)

    def retarget(self, target: AppSettings | BaseAgent) -> None:
        """Run ``target`` (an App, or a root agent) from the next invocation on, keeping the
        app name, services and kept sessions: the dev loop's swap after a reload."""
        if isinstance(target, BaseAgent):
            self.app, self.agent, self.plugin_manager = None, target, None
        else:
            self.app, self.agent = target, target.root_agent
            self.plugin_manager = plugin_manager_for(target)

    async def run_async(
        self,
        *,
        user_id: str,
        session_id: str,
        new_message: Content | str | None = None,
        state_delta: dict[str, Any] | None = None,
        run_config: RunConfig | None = None,
        invocation_id: str | None = None,
    ) -> AsyncGenerator[Event, None]:
        """Append the user's message (with ``state_delta``), then run the agent that should
        answer it: the agent that answered last if it may keep the conversation, else the root.

        In a resumable app (``ResumabilityConfig(is_resumable=True)``), ``invocation_id``
        resumes that interrupted invocation from its last completed step, as does a message
        answering one of its long-running calls."""
        key = (user_id, session_id)
        session = await self._checkout(key)
        if session is None:
            raise SessionNotFoundError(
                f"Session {session_id!r} not found for user {user_id!r} in app"
                f" {self.app_name!r}; create it first with"
                " session_service.create_session()."
            )
        config = run_config or self.run_config
        message = UserContent(new_message) if isinstance(new_message, str) else new_message
        resume = self._resume_plan(session, message, invocation_id)
        if resume is None:
            agent = self._agent_answered(session, message) or self.find_agent_to_run(session)
        else:  # the agent the interrupted invocation started with
            before = dataclasses.replace(session, events=session.events[: resume.start])
            answered = self._agent_answered(before, resume.user_content)
            agent = answered or self.find_agent_to_run(before)
        ctx = InvocationContext(
            invocation_id=new_invocation_id() if resume is None else resume.invocation_id,
            agent=agent,
            session=session,
            session_service=self.session_service,
            artifact_service=self.artifact_service,
            user_content=message if resume is None or message else resume.user_content,
            resume=resume,
            run_config=config,
            root_agent=self.agent,
            memory_service=self.memory_service,
            runner_factory=Runner,
            app=self.app,
            plugins=self.plugin_manager,
        )
        trace = _trace_for(ctx, self.agent)
        if trace is not None:
            ctx.trace, ctx.span = trace, trace.root
        error_code: str | None = None
        try:
            plugins = self.plugin_manager
            invocation = (
                self._invoke(ctx, session, message, state_delta, config)
                if plugins is None
                else self._invoke_with_plugins(plugins, ctx, session, message, state_delta, config)
            )
            async with contextlib.aclosing(invocation) as events:
                async for event in events:
                    if (
                        event.error_code is not None
                        and error_code is None
                        and event.id not in ctx.counter.retried_errors
                    ):
                        error_code = event.error_code
                    yield event
            compaction = self.app.events_compaction_config if self.app is not None else None
            if compaction is not None and error_code is None:
                # Summarised after the answer, not before it (google-adk's post-invocation
                # compaction): the summary is stored, not yielded.
                await compaction.compact_after_invocation(
                    session=session, session_service=self.session_service, root_agent=self.agent
                )
        except Exception as exc:  # raise_errors, or the caller's own failure while it read
            ctx.counter.failure = ctx.counter.failure or exc
            raise
        finally:
            self._checkin(key, session)
            if trace is not None:
                trace.end_invocation(ctx.counter.failure)

    def _resume_plan(
        self, session: Session, message: Content | None, invocation_id: str | None
    ) -> ResumePlan | None:
        config = self.app.resumability_config if self.app is not None else None
        resumable = bool(config is not None and config.is_resumable)
        if invocation_id is None and resumable:
            invocation_id = invocation_answered(session, message)
        if invocation_id is None:
            return None
        return plan_resume(session, invocation_id, resumable=resumable)

    async def _invoke(
        self,
        ctx: InvocationContext,
        session: Session,
        message: Content | None,
        state_delta: dict[str, Any] | None,
        config: RunConfig,
    ) -> AsyncGenerator[Event, None]:
        user_event = await self._append_user_message(ctx, session, message, state_delta)
        if user_event is not None:
            yield user_event
        try:
            async for event in ctx.agent.run_async(ctx):
                if not event.partial:
                    await self.session_service.append_event(session, event)
                yield event
        except Exception as exc:
            if config.raise_errors:
                raise
            yield await self._error_event(ctx, session, exc)

    async def _invoke_with_plugins(
        self,
        plugins: PluginManager,
        ctx: InvocationContext,
        session: Session,
        message: Content | None,
        state_delta: dict[str, Any] | None,
        config: RunConfig,
    ) -> AsyncGenerator[Event, None]:
        """``_invoke`` with the app's plugins: google-adk's on_user_message, before_run,
        on_event (each event before it is stored), after_run (only when the run succeeded) and
        on_run_error."""
        try:
            if message is not None and plugins.implements("on_user_message_callback"):
                replaced = await plugins.run(
                    "on_user_message_callback", invocation_context=ctx, user_message=message
                )
                if replaced is not None:
                    message = ctx.user_content = replaced
            user_event = await self._append_user_message(ctx, session, message, state_delta)
            if user_event is not None:
                yield user_event
            early = await plugins.run("before_run_callback", invocation_context=ctx)
            if isinstance(early, Content):
                # A plugin answered for the whole run: its content is the one event.
                events: AsyncGenerator[Event, None] = _one(
                    Event(invocation_id=ctx.invocation_id, author="model", content=early)
                )
            else:
                events = ctx.agent.run_async(ctx)
            async with contextlib.aclosing(events):
                async for event in events:
                    event = await _on_event(plugins, ctx, event)
                    if not event.partial:
                        await self.session_service.append_event(session, event)
                    yield event
            await plugins.run("after_run_callback", invocation_context=ctx)
        except Exception as exc:
            if config.raise_errors:
                await plugins.notify("on_run_error_callback", invocation_context=ctx, error=exc)
                raise
            error = self._failure_event(ctx, exc)
            with contextlib.suppress(PluginError):  # a failing on_event must not hide the error
                error = await _on_event(plugins, ctx, error)
            await self.session_service.append_event(session, error)
            await plugins.notify("on_run_error_callback", invocation_context=ctx, error=exc)
            yield error

    async def _append_user_message(
        self,
        ctx: InvocationContext,
        session: Session,
        message: Content | None,
        state_delta: dict[str, Any] | None,
    ) -> Event | None:
        if message is None and not state_delta:
            return None
        event = Event(
            invocation_id=ctx.invocation_id,
            author="user",
            content=message,
            actions=EventActions(state_delta=dict(state_delta or {})),
            isolation_scope=_answered_scope(session.events, message),
        )
        if event.isolation_scope is None and _has_task_agents(self.agent):
            # A task waits for the user's reply: the message is the task agent's to see.
            event.isolation_scope = open_task_scope(session)
        await self.session_service.append_event(session, event)
        return event

    def run(
        self,
        *,
        user_id: str,
        session_id: str,
        new_message: Content | str | None = None,
        state_delta: dict[str, Any] | None = None,
        run_config: RunConfig | None = None,
        invocation_id: str | None = None,
    ) -> list[Event]:
        """Synchronous ``run_async``: runs the invocation and returns its events."""

        async def collect() -> list[Event]:
            return [
                event
                async for event in self.run_async(
                    user_id=user_id,
                    session_id=session_id,
                    new_message=new_message,
                    state_delta=state_delta,
                    run_config=run_config,
                    invocation_id=invocation_id,
                )
            ]

        try:
            asyncio.get_running_loop()
        except RuntimeError:
            return asyncio.run(collect())
        # Called from inside an event loop: run on a private loop in a worker thread.
        with concurrent.futures.ThreadPoolExecutor(max_workers=1) as pool:
            return pool.submit(asyncio.run, collect()).result()

    async def close(self) -> None:
        """Release what the agent tree holds open (MCP servers and other toolsets), as
        google-adk's ``Runner.close``. Also ``async with Runner(...) as runner:``."""
        await close_toolsets(self.agent)
        if self.plugin_manager is not None:
            await self.plugin_manager.close()
        if self._own_locks and self._locks is not None:
            await self._locks.drain()

    async def __aenter__(self) -> Runner:
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        await self.close()

    async def _checkout(self, key: tuple[str, str]) -> Session | None:
        """The session to run in: the copy kept from this session's last invocation brought up
        to date (reading only what is new), or a fresh read. A kept copy belongs to one
        invocation at a time; a concurrent one on the same session reads its own."""
        session = self._sessions.pop(key, None)
        if session is not None and await self.session_service.refresh_session(session):
            return session
        return await self.session_service.get_session(
            app_name=self.app_name, user_id=key[0], session_id=key[1]
        )

    def _checkin(self, key: tuple[str, str], session: Session) -> None:
        self._sessions[key] = session
        self._sessions.move_to_end(key)
        while len(self._sessions) > self.max_kept_sessions:
            self._sessions.popitem(last=False)

    def _agent_answered(self, session: Session, message: Content | None) -> BaseAgent | None:
        """The agent whose function call ``message`` answers (a long-running tool's final
        response, google-adk's human-in-the-loop), if any."""
        ids = {
            p.function_response.id
            for p in (message.parts if message is not None else [])
            if p.function_response is not None and p.function_response.id
        }
        if not ids:
            return None
        for event in reversed(session.events):
            if ids & {c.id for c in event.get_function_calls() if c.id}:
                if event.author == self.agent.name:
                    return self.agent
                return self.agent.find_sub_agent(event.author)
        return None

    def find_agent_to_run(self, session: Session) -> BaseAgent:
        """The agent that last spoke, if it and every ancestor are LlmAgents that allow transfer
        back up the tree; otherwise the root agent."""
        for event in reversed(session.events):
            if event.author == "user":
                continue
            if event.author == self.agent.name:
                return self.agent
            agent = self.agent.find_sub_agent(event.author)
            if agent is None:
                continue
            agent = _delegator(agent)
            if agent is self.agent:
                return agent
            if _transferable_across_tree(agent):
                return agent
            return self.agent
        return self.agent

    async def _error_event(
        self, ctx: InvocationContext, session: Session, exc: BaseException
    ) -> Event:
        event = self._failure_event(ctx, exc)
        await self.session_service.append_event(session, event)
        return event

    def _failure_event(self, ctx: InvocationContext, exc: BaseException) -> Event:
        """The one error event that ends a failed invocation: what failed, never a traceback
        (that is logged: at debug level for yadk's own errors, for ``yadk run --verbose``)."""
        if isinstance(exc, YadkError):
            logger.debug("invocation %s ended in an error", ctx.invocation_id, exc_info=exc)
        else:
            logger.exception("invocation %s failed", ctx.invocation_id, exc_info=exc)
        ctx.counter.failure = ctx.counter.failure or exc
        code = next((c for t, c in _ERROR_CODES if isinstance(exc, t)), "INTERNAL_ERROR")
        message = exc.message if isinstance(exc, YadkError) else f"{type(exc).__name__}: {exc}"
        return Event(
            invocation_id=ctx.invocation_id,
            author=getattr(exc, "yadk_agent_name", ctx.agent.name),
            branch=getattr(exc, "yadk_branch", ctx.branch),
            error_code=code,
            error_message=message,
        )


def _trace_for(ctx: InvocationContext, root_agent: BaseAgent) -> InvocationTrace | None:
    """The invocation's trace, decided once as it starts; None (tracing off) unless the process
    has loaded OpenTelemetry, so an untraced process never imports it (yadk.telemetry)."""
    if ctx.run_config.tracer_provider is None and "opentelemetry.trace" not in sys.modules:
        return None
    decide = _decider[0]
    if decide is None:
        from yadk.telemetry import invocation_trace

        decide = _decider[0] = invocation_trace
    return decide(ctx, root_agent)


# yadk.telemetry's invocation_trace, once imported (an import statement per invocation costs).
_decider: list[Callable[[InvocationContext, BaseAgent], InvocationTrace | None] | None] = [None]


async def _one(event: Event) -> AsyncGenerator[Event, None]:
    yield event


async def _on_event(plugins: PluginManager, ctx: InvocationContext, event: Event) -> Event:
    """The event as the plugins' ``on_event_callback`` leave it: a returned event's set
    fields replace the original's (its id, invocation id and time stay), as google-adk does."""
    modified = await plugins.run("on_event_callback", invocation_context=ctx, event=event)
    if not isinstance(modified, Event):
        return event
    update = {
        name: getattr(modified, name)
        for name in modified.model_fields_set - {"id", "invocation_id", "timestamp"}
    }
    replaced = event.model_copy(update=update)
    if not replaced.author:
        replaced.author = event.author
    return replaced


def _delegator(agent: BaseAgent) -> BaseAgent:
    """The agent that delegated to ``agent`` when it runs inside a task or single-turn call (the
    delegating agent takes the user's next message and goes on with the task); else ``agent``."""
    found = current = agent
    while current.parent_agent is not None:
        if isinstance(current, LlmAgent) and current.mode in ("task", "single_turn"):
            found = current.parent_agent
        current = current.parent_agent
    return found


def _has_task_agents(root: BaseAgent) -> bool:
    return any(isinstance(a, LlmAgent) and a.mode == "task" for a in root.walk())


def _transferable_across_tree(agent: BaseAgent) -> bool:
    current: BaseAgent | None = agent
    while current is not None:
        if not isinstance(current, LlmAgent) or current.disallow_transfer_to_parent:
            return False
        current = current.parent_agent
    return True


def _answered_scope(events: list[Event], message: Content | None) -> str | None:
    """The isolation scope of the call a message's function response answers: the answer
    belongs to the scope that asked, so the agent waiting there sees it (as in google-adk)."""
    if message is None:
        return None
    ids = {p.function_response.id for p in message.parts if p.function_response is not None}
    ids.discard(None)
    if not ids:
        return None
    for event in reversed(events):
        if any(call.id in ids for call in event.get_function_calls()):
            return event.isolation_scope
    return None
