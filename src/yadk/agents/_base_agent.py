"""BaseAgent: the agent tree, agent callbacks and the run protocol every agent follows."""

from __future__ import annotations

import re
from collections.abc import AsyncGenerator, Iterator
from typing import Any, ClassVar

from pydantic import BaseModel, ConfigDict, Field, PrivateAttr, ValidationError, field_validator

from yadk._contexts import Context, InvocationContext
from yadk.agents._callbacks import as_callback_list, run_callbacks
from yadk.agents._node_paths import node_path_for
from yadk.errors import AgentDefinitionError
from yadk.events import Event, NodeInfo
from yadk.types import Content, Part

__all__ = ["BaseAgent"]

_IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")


class BaseAgent(BaseModel):
    """An agent: a name, optional sub-agents, and ``before``/``after_agent_callback``.

    Subclasses implement ``_run_async_impl``. Agents are pydantic models, so custom agents declare
    extra fields as annotations (and YAML configs can set them).
    """

    model_config = ConfigDict(arbitrary_types_allowed=True, extra="forbid")

    name: str
    description: str = ""
    sub_agents: list[BaseAgent] = Field(default_factory=list)
    before_agent_callback: Any = None
    after_agent_callback: Any = None

    _parent: BaseAgent | None = PrivateAttr(default=None)
    # Where the agent was declared in YAML ("file:line"), for traced spans (yadk._tracing).
    _yadk_config_location: str | None = PrivateAttr(default=None)

    # Whether google-adk runs this kind of agent as a graph node of its own (an LlmAgent), so
    # its events carry its own run path; the agents any other agent runs carry that agent's.
    _runs_as_node: ClassVar[bool] = False

    def __init__(self, **data: Any) -> None:
        try:
            super().__init__(**data)
        except ValidationError as exc:
            name = data.get("name", "?")
            problems = "; ".join(
                f"{'.'.join(str(p) for p in err['loc']) or 'agent'}: "
                f"{err['msg'].removeprefix('Value error, ')}"
                for err in exc.errors()
            )
            raise AgentDefinitionError(
                f"Invalid {type(self).__name__} {name!r}: {problems}"
            ) from None

    # Identity semantics: agents form a tree with parent links, so structural equality would
    # recurse and is never what a caller means.
    __eq__ = object.__eq__
    __hash__ = object.__hash__

    @field_validator("name")
    @classmethod
    def _valid_name(cls, value: str) -> str:
        if not _IDENTIFIER.match(value):
            raise ValueError(
                f"Found invalid agent name: `{value}`. Agent name must be a valid identifier."
                " It should start with a letter (a-z, A-Z) or an underscore (_), and can only"
                " contain letters, digits (0-9), and underscores."
            )
        if value == "user":
            raise ValueError(
                "Agent name cannot be `user`. `user` is reserved for end-user's input."
            )
        return value

    @field_validator("before_agent_callback", "after_agent_callback")
    @classmethod
    def _callables(cls, value: Any) -> Any:
        for fn in as_callback_list(value):
            if not callable(fn):
                raise ValueError(f"callback {fn!r} is not callable")
        return value

    def model_post_init(self, __context: Any) -> None:
        seen: set[str] = set()
        for sub in self.sub_agents:
            if sub._parent is not None and sub._parent is not self:
                raise AgentDefinitionError(
                    f"Agent {sub.name!r} already has parent agent {sub._parent.name!r}; it cannot"
                    f" also be a sub-agent of {self.name!r}. Create a separate instance."
                )
            if sub.name in seen:
                raise AgentDefinitionError(
                    f"Agent {self.name!r} has two sub-agents named {sub.name!r}; names must be"
                    " unique in an agent tree."
                )
            seen.add(sub.name)
            sub._parent = self

    # --- the tree ---------------------------------------------------------------------------

    @property
    def parent_agent(self) -> BaseAgent | None:
        return self._parent

    @property
    def root_agent(self) -> BaseAgent:
        agent = self
        while agent._parent is not None:
            agent = agent._parent
        return agent

    def walk(self) -> Iterator[BaseAgent]:
        """This agent and all its descendants, depth first."""
        yield self
        for sub in self.sub_agents:
            yield from sub.walk()

    def find_agent(self, name: str) -> BaseAgent | None:
        """This agent or a descendant with that name."""
        return next((a for a in self.walk() if a.name == name), None)

    def find_sub_agent(self, name: str) -> BaseAgent | None:
        for sub in self.sub_agents:
            found = sub.find_agent(name)
            if found is not None:
                return found
        return None

    # --- running ----------------------------------------------------------------------------

    async def run_async(self, parent_context: InvocationContext) -> AsyncGenerator[Event, None]:
        """Run this agent: before-agent callbacks, the agent itself, after-agent callbacks."""
        ctx = parent_context.for_agent(
            self,
            node_path=node_path_for(self, parent_context),
            # A workflow node's context made for this agent: it keeps its single-turn input.
            single_turn_input=(
                parent_context.single_turn_input if parent_context.agent is self else None
            ),
            single_turn_resumed=parent_context.single_turn_resumed and parent_context.agent is self,
        )
        trace = ctx.trace
        span = None
        if trace is not None:
            span = trace.start_agent(self, ctx, parent_context.span)
            if span is not None:
                ctx.outer_span, ctx.span = parent_context.span, span
        error: Exception | None = None
        try:
            event = await self._before_agent(ctx)
            if event is not None:
                yield _stamped(event, ctx)
            if ctx.end_invocation:
                return
            async for event in self._run_async_impl(ctx):
                yield _stamped(event, ctx)
            if ctx.end_invocation or ctx.counter.failed:
                return
            event = await self._after_agent(ctx)
            if event is not None:
                yield _stamped(event, ctx)
        except Exception as exc:
            error = exc
            if ctx.plugins is not None:  # as google-adk: every agent the failure leaves hears it
                await ctx.plugins.notify(
                    "on_agent_error_callback", agent=self, callback_context=Context(ctx), error=exc
                )
            # The innermost agent marks the failure, so the runner's error event names the agent
            # (and branch) where it happened, not the root.
            if not hasattr(exc, "yadk_agent_name"):
                exc.yadk_agent_name = self.name  # type: ignore[attr-defined]
                exc.yadk_branch = ctx.branch  # type: ignore[attr-defined]
            raise
        finally:
            if span is not None:
                assert trace is not None
                trace.end(span, error)

    async def _run_async_impl(self, ctx: InvocationContext) -> AsyncGenerator[Event, None]:
        raise NotImplementedError(f"{type(self).__name__} must implement _run_async_impl")
        yield  # pragma: no cover - makes this an async generator

    async def _before_agent(self, ctx: InvocationContext) -> Event | None:
        if not self.before_agent_callback and ctx.plugins is None:
            return None
        callback_context = Context(ctx)
        content = await _agent_callbacks(
            self, "before_agent_callback", self.before_agent_callback, callback_context
        )
        if content is not None:
            # The callback answered for the agent: the agent itself is skipped.
            ctx.end_invocation = True
            return self._event(ctx, callback_context, _as_content(content))
        if callback_context.state.has_delta() or not callback_context.actions.is_empty():
            return self._event(ctx, callback_context, None)
        return None

    async def _after_agent(self, ctx: InvocationContext) -> Event | None:
        if not self.after_agent_callback and ctx.plugins is None:
            return None
        callback_context = Context(ctx)
        content = await _agent_callbacks(
            self, "after_agent_callback", self.after_agent_callback, callback_context
        )
        if content is not None:
            return self._event(ctx, callback_context, _as_content(content))
        if callback_context.state.has_delta() or not callback_context.actions.is_empty():
            return self._event(ctx, callback_context, None)
        return None

    def _event(self, ctx: InvocationContext, context: Context, content: Content | None) -> Event:
        return Event(
            invocation_id=ctx.invocation_id,
            author=self.name,
            branch=ctx.branch,
            content=content,
            actions=context.actions,
        )


async def _agent_callbacks(
    agent: BaseAgent, kind: str, callbacks: Any, callback_context: Context
) -> Any:
    """The app's plugins first, then the agent's own callbacks unless a plugin answered."""
    plugins = callback_context.invocation_context.plugins
    if plugins is not None:
        result = await plugins.run(kind, agent=agent, callback_context=callback_context)
        if result is not None:
            return result
    if not callbacks:
        return None
    return await run_callbacks(kind, callbacks, callback_context=callback_context)


def _stamped(event: Event, ctx: InvocationContext) -> Event:
    """The event with the running agent's path, unless it has one (from a deeper agent or a
    workflow node)."""
    if event.node_info is None and ctx.node_path:
        event.node_info = NodeInfo(path=ctx.node_path)
    return event


def _as_content(value: Any) -> Content:
    if isinstance(value, Content):
        return value
    if isinstance(value, str):
        return Content(role="model", parts=[Part(text=value)])
    return Content.model_validate(value)
