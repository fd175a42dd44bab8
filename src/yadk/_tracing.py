"""What the engine calls when an invocation is traced (the spans themselves are yadk.telemetry's).

The runner decides once per invocation whether to trace, and puts an ``InvocationTrace`` on the
``InvocationContext`` (``ctx.trace``); ``None`` means tracing is off, and every place that would
start a span costs one ``is None`` test. Spans are opaque handles here: the engine starts them
with an explicit parent (``ctx.span``, the span of the agent, node or tool it runs under) and
ends each one exactly once, never through a context manager held across an ``async`` generator's
``yield``.

Objects loaded from YAML carry where they were declared (``config_location``), so a span can
name the file and line of the agent or tool it covers.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    from yadk._contexts import InvocationContext

__all__ = ["CONFIG_LOCATION_ATTRIBUTE", "InvocationTrace", "config_location", "set_config_location"]

# Set on an agent or tool by the config loader: "path/to/agent.yaml:12" (a private attribute
# of BaseAgent; a plain attribute of a tool, or of the function a FunctionTool wraps).
CONFIG_LOCATION_ATTRIBUTE = "_yadk_config_location"


def config_location(obj: object) -> str | None:
    """The ``file:line`` ``obj`` (or the function it wraps) was declared at in YAML, if it was
    loaded from a config."""
    location = getattr(obj, CONFIG_LOCATION_ATTRIBUTE, None)
    if location is None:
        location = getattr(getattr(obj, "func", None), CONFIG_LOCATION_ATTRIBUTE, None)
    return location if isinstance(location, str) else None


def set_config_location(obj: object, location: str) -> None:
    """Record that ``obj`` was declared at ``location`` (``file:line``); objects that refuse
    new attributes are left alone."""
    try:
        setattr(obj, CONFIG_LOCATION_ATTRIBUTE, location)
    except (AttributeError, TypeError):
        pass


class InvocationTrace(Protocol):
    """One traced invocation: starts the spans of its agents, nodes, model calls and tools.

    Every ``start_*`` returns a span handle (``None`` when nothing is opened, e.g. for the
    workflow an invocation starts at, which runs in the invocation's own span) that is ended with
    the matching ``end*`` call; ``error`` marks the span failed.
    """

    @property
    def root(self) -> Any:
        """The invocation's span (``invoke_workflow <root agent>``)."""

    def start_agent(self, agent: Any, ctx: InvocationContext, parent: Any) -> Any: ...

    def start_node(self, node: Any, ctx: InvocationContext, parent: Any) -> Any: ...

    def node_event(self, span: Any, event_id: str) -> None:
        """Note that the node running in ``span`` emitted the event ``event_id``."""

    def start_model(
        self, agent: Any, model: Any, request: Any, ctx: InvocationContext, *, event_id: str
    ) -> Any: ...

    def end_model(self, span: Any, response: Any, error: BaseException | None) -> None: ...

    def start_tool(
        self,
        agent: Any,
        tool: Any,
        call: Any,
        ctx: InvocationContext,
        *,
        response_event_id: str,
    ) -> Any: ...

    def end_tool(
        self,
        span: Any,
        result: Any,
        error: BaseException | None,
        *,
        error_type: str | None,
    ) -> None:
        """``result`` ``None``: the call has no response yet (a node called as a tool asked the
        user, a long-running tool answered nothing) or failed, so the span names neither the call
        id nor a response event, as google-adk's."""

    def end(self, span: Any, error: BaseException | None) -> None: ...

    def end_invocation(self, error: BaseException | None) -> None:
        """End the invocation's span, failed by ``error``: the exception that ended the
        invocation (google-adk raises it; yadk made it the invocation's error event)."""

    def propagation_headers(self, span: Any) -> dict[str, str]:
        """The headers that carry ``span``'s context to another service (W3C ``traceparent``,
        or what ``OTEL_PROPAGATORS`` names), for an outgoing call made under it."""

    def attach(self, span: Any) -> Any:
        """Make ``span`` current for code that reads the ambient context (a tool's own HTTP
        instrumentation, a nested runner); returns the token for ``detach``. Only around an
        ``await`` in one task, never across a ``yield``."""

    def detach(self, token: Any) -> None: ...
