"""google-adk's ``Runner``, ``InMemoryRunner`` and ``RunConfig``: yadk's, taking google-adk's
arguments.

As in google-adk, a failure inside an invocation (a model or tool error) is raised from
``run_async`` rather than ended with an error event (yadk's own ``Runner`` does that).
"""

from __future__ import annotations

import dataclasses
import enum
import inspect
from collections.abc import AsyncGenerator, Mapping
from typing import Any

from yadk.agents import BaseAgent, TelemetryConfig
from yadk.agents import RunConfig as _YadkRunConfig
from yadk.artifacts import BaseArtifactService, InMemoryArtifactService
from yadk.events import Event
from yadk.memory import BaseMemoryService, InMemoryMemoryService
from yadk.runner import Runner as _YadkRunner
from yadk.sessions import BaseSessionService, InMemorySessionService
from yadk.types import Content

__all__ = ["InMemoryRunner", "RunConfig", "Runner", "StreamingMode"]


class StreamingMode(enum.Enum):
    """google-adk's streaming modes: ``SSE`` streams model answers as partial events."""

    NONE = None
    SSE = "sse"
    BIDI = "bidi"


class RunConfig(_YadkRunConfig):
    """yadk's ``RunConfig`` taking google-adk's ``streaming_mode`` (``SSE`` streams; ``BIDI``,
    live audio, is not provided) and ``telemetry`` (a ``TelemetryConfig``, or its fields as a
    mapping: its content capture is honoured, docs/tracing.md), and ignoring google-adk's speech and audio settings, which
    only its live mode reads. yadk's own fields are taken too (``dataclasses.replace`` passes
    them)."""

    def __init__(
        self,
        *,
        streaming_mode: StreamingMode | str | None = None,
        max_llm_calls: int = 500,
        raise_errors: bool = False,
        streaming: bool = False,
        telemetry: TelemetryConfig | Mapping[str, Any] | None = None,
        budget: Any = None,
        capture_message_content: str | None = None,
        tracer_provider: Any = None,
        **live_settings: Any,
    ) -> None:
        mode = streaming_mode.value if isinstance(streaming_mode, StreamingMode) else streaming_mode
        if mode == "bidi":
            raise ValueError(
                "StreamingMode.BIDI (google-adk's live mode) is not provided by yadk; use"
                " StreamingMode.SSE or none"
            )
        if isinstance(telemetry, Mapping):  # pydantic's coercion, as google-adk's RunConfig has
            telemetry = TelemetryConfig.model_validate(telemetry)
        super().__init__(
            max_llm_calls=max_llm_calls,
            raise_errors=raise_errors,
            streaming=streaming or bool(mode),
            budget=budget,
            capture_message_content=capture_message_content,
            telemetry=telemetry,
            tracer_provider=tracer_provider,
        )
        self.live_settings = live_settings


class Runner(_YadkRunner):
    """yadk's ``Runner`` with google-adk's constructor: ``Runner(app_name=..., agent=...,
    session_service=..., artifact_service=..., memory_service=...)``, or ``app=App(...)`` (with
    yadk's apps). ``auto_create_session=True`` creates a missing session on first use."""

    def __init__(
        self,
        *,
        app: Any = None,
        app_name: str | None = None,
        agent: BaseAgent | None = None,
        node: Any = None,
        plugins: list[Any] | None = None,
        artifact_service: BaseArtifactService | None = None,
        session_service: BaseSessionService | None = None,
        memory_service: BaseMemoryService | None = None,
        credential_service: Any = None,
        plugin_close_timeout: float = 5.0,
        auto_create_session: bool = False,
    ) -> None:
        if node is not None:
            raise ValueError("Runner(node=...) is not provided: run a Workflow agent instead")
        if credential_service is not None:
            raise ValueError(
                "Runner(credential_service=...) is not provided: yadk reads tool credentials"
                " from the tool's own settings (e.g. an MCP toolset's auth)"
            )
        if (app is None) == (agent is None):
            raise ValueError("Runner needs exactly one of app= or agent=.")
        if agent is not None and not app_name:
            raise ValueError("Runner(agent=...) needs app_name=.")
        extra: dict[str, Any] = {}
        if plugins:
            extra["plugins"] = plugins
        accepted = inspect.signature(_YadkRunner.__init__).parameters
        missing = [name for name in extra if name not in accepted]
        if missing:
            raise ValueError(
                f"Runner({missing[0]}=...) needs yadk's apps (yadk.apps), which this"
                " installation of yadk does not have."
            )
        super().__init__(
            app=app,
            app_name=app_name,
            agent=agent,
            session_service=session_service,
            artifact_service=artifact_service,
            memory_service=memory_service,
            **extra,
        )
        self.auto_create_session = auto_create_session
        self.plugin_close_timeout = plugin_close_timeout

    async def run_async(
        self,
        *,
        user_id: str,
        session_id: str,
        invocation_id: str | None = None,
        new_message: Content | str | None = None,
        state_delta: dict[str, Any] | None = None,
        run_config: _YadkRunConfig | None = None,
        yield_user_message: bool = False,
    ) -> AsyncGenerator[Event, None]:
        """google-adk's ``run_async``: the invocation's events; failures are raised."""
        if self.auto_create_session:
            found = await self.session_service.get_session(
                app_name=self.app_name, user_id=user_id, session_id=session_id
            )
            if found is None:
                await self.session_service.create_session(
                    app_name=self.app_name, user_id=user_id, session_id=session_id
                )
        config = dataclasses.replace(run_config or self.run_config, raise_errors=True)
        first = True
        async for event in super().run_async(
            user_id=user_id,
            session_id=session_id,
            new_message=new_message,
            state_delta=state_delta,
            run_config=config,
            invocation_id=invocation_id,
        ):
            # yadk yields the stored user message first; google-adk only when asked to.
            if first and event.author == "user" and not yield_user_message:
                first = False
                continue
            first = False
            yield event


class InMemoryRunner(Runner):
    """google-adk's ``InMemoryRunner(agent, app_name="InMemoryRunner")``: a Runner with
    in-memory session, artifact and memory services."""

    def __init__(
        self,
        agent: BaseAgent | None = None,
        *,
        node: Any = None,
        app_name: str | None = None,
        plugins: list[Any] | None = None,
        app: Any = None,
        plugin_close_timeout: float = 5.0,
    ) -> None:
        if app is None and app_name is None:
            app_name = "InMemoryRunner"
        super().__init__(
            app=app,
            app_name=app_name,
            agent=agent,
            node=node,
            plugins=plugins,
            artifact_service=InMemoryArtifactService(),
            session_service=InMemorySessionService(),
            memory_service=InMemoryMemoryService(),
            plugin_close_timeout=plugin_close_timeout,
        )
