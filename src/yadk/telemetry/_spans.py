"""The spans of one traced invocation, named and nested as google-adk 2.13 does.

``invoke_workflow <root>`` (the invocation) holds ``invoke_agent <agent>`` spans; each holds its
``generate_content <model>`` and ``execute_tool <tool>`` spans; the agent a transfer hands over
to runs beside the agent that transferred (both under the invocation's span). Workflow nodes get
``invoke_node <node>``, nested workflows ``invoke_workflow <name>`` with
``gen_ai.workflow.nested``. Attributes follow the OpenTelemetry GenAI semantic conventions; what
costs work to compute (JSON of tools and messages) is computed only when the span records.
"""

from __future__ import annotations

from typing import Any

from opentelemetry import context as otel_context
from opentelemetry import propagate
from opentelemetry.trace import Span, Status, StatusCode, Tracer, set_span_in_context

from yadk._contexts import InvocationContext
from yadk._tracing import config_location
from yadk._usage import reported_usage
from yadk.telemetry import _messages as messages
from yadk.telemetry._capture import Capture
from yadk.workflow import Workflow

__all__ = ["OtelInvocationTrace"]

DETAILS_EVENT = "gen_ai.client.inference.operation.details"
LOCATION = "yadk.config.location"
NOT_SPECIFIED = "<not specified>"  # google-adk's word for a tool call id it cannot name

# What a model call's request config maps to (google-genai's names -> the conventions').
_REQUEST_SETTINGS = {
    "max_output_tokens": "gen_ai.request.max_tokens",
    "temperature": "gen_ai.request.temperature",
    "top_p": "gen_ai.request.top_p",
    "top_k": "gen_ai.request.top_k",
}


def _provider(model: Any, name: str) -> str:
    """The model's ``provider_name``; a model that names none is ``gcp.gemini`` when its name
    says Gemini (google-adk's guess for every model), else ``unknown``."""
    provider = getattr(model, "provider_name", "")
    if isinstance(provider, str) and provider:
        return provider
    return "gcp.gemini" if name.startswith("gemini") else "unknown"


def start_root(tracer: Tracer, ctx: InvocationContext, entry: Any) -> Span:
    """The invocation's span, under the caller's current span if any (a server request's), else
    the root of a trace of its own."""
    return tracer.start_span(
        f"invoke_workflow {entry.name}",
        attributes={
            "gen_ai.operation.name": "invoke_workflow",
            "gen_ai.conversation.id": ctx.session.id,
            "gen_ai.workflow.name": entry.name,
        },
    )


# The JSON of each tool set's definitions, by the tools' identities: an agent sends the same
# tools call after call, and building their declarations is the costliest part of a model span.
_definitions: dict[tuple[Any, ...], tuple[tuple[Any, ...], str | None]] = {}
_MAX_DEFINITIONS = 256


def _tool_definitions(request: Any, *, with_parameters: bool) -> str | None:
    tools = tuple(request.tools_dict.values())
    key = (with_parameters, *map(id, tools))
    cached = _definitions.get(key)
    if cached is not None and all(a is b for a, b in zip(cached[0], tools, strict=True)):
        return cached[1]
    declarations = request.function_declarations
    text = (
        messages.to_json(messages.tool_definitions(declarations, with_parameters=with_parameters))
        if declarations
        else None
    )
    if len(_definitions) >= _MAX_DEFINITIONS:
        _definitions.clear()
    _definitions[key] = (tools, text)  # the tools kept alive with their ids, so no id is reused
    return text


def _error_type(error: Exception) -> str:
    """``error.type``: the reason a ``ToolExecutionError`` carries (``TIMEOUT``, ...), as
    google-adk prefers an error's own ``error_type``; else the exception's class."""
    reason = getattr(error, "error_type", None)
    if reason is not None:
        return str(getattr(reason, "value", reason))
    return type(error).__name__


def _exception_type(error: Exception) -> str:
    """``exception.type`` as the SDK's ``record_exception`` names it: the class, qualified by
    its module unless it is a builtin."""
    cls = type(error)
    return (
        cls.__qualname__ if cls.__module__ == "builtins" else f"{cls.__module__}.{cls.__qualname__}"
    )


class _ModelSpan:
    __slots__ = ("details", "span")

    def __init__(self, span: Span, details: dict[str, str] | None) -> None:
        self.span = span
        self.details = details


class OtelInvocationTrace:
    """``yadk._tracing.InvocationTrace`` on an OpenTelemetry tracer."""

    __slots__ = (
        "_nested_workflows",
        "_node_events",
        "_responses",
        "_tracer",
        "capture",
        "conversation_id",
        "entry",
        "invocation_id",
        "root",
    )

    def __init__(
        self, tracer: Tracer, root: Span, *, ctx: InvocationContext, entry: Any, capture: Capture
    ) -> None:
        self._tracer = tracer
        self.root = root
        self.capture = capture
        self.conversation_id = ctx.session.id
        self.invocation_id = ctx.invocation_id
        self.entry = entry
        self._node_events: dict[Any, list[str]] = {}
        # The spans of workflows inside the invocation's: google-adk fails one with the failed
        # node's exception as data, its status the message alone.
        self._nested_workflows: set[Any] = set()
        # A tool span's call id and response event id, named when the call ends with a response:
        # google-adk reads both from the response event, so a call that has none yet (it waits
        # for the user, or a long-running tool answered nothing) says "<not specified>".
        self._responses: dict[Any, tuple[str, str]] = {}

    def _start(self, name: str, parent: Any, attributes: dict[str, Any]) -> Span:
        return self._tracer.start_span(
            name, context=set_span_in_context(parent), attributes=attributes
        )

    # --- agents and nodes -------------------------------------------------------------------

    def start_agent(self, agent: Any, ctx: InvocationContext, parent: Any) -> Span | None:
        if isinstance(agent, Workflow):
            if agent is self.entry and parent is self.root:
                return None  # the invocation's span is this workflow's
            return self._workflow(agent.name, parent)
        attributes = {
            "gen_ai.operation.name": "invoke_agent",
            "gen_ai.agent.description": agent.description,
            "gen_ai.agent.name": agent.name,
            "gen_ai.conversation.id": self.conversation_id,
        }
        location = config_location(agent)
        if location is not None:
            attributes[LOCATION] = location
        return self._start(f"invoke_agent {agent.name}", parent, attributes)

    def _workflow(self, name: str, parent: Any) -> Span:
        span = self._start(
            f"invoke_workflow {name}",
            parent,
            {
                "gen_ai.operation.name": "invoke_workflow",
                "gen_ai.conversation.id": self.conversation_id,
                "gen_ai.workflow.name": name,
                "gen_ai.workflow.nested": True,
            },
        )
        self._nested_workflows.add(span)
        return span

    def start_node(self, node: Any, ctx: InvocationContext, parent: Any) -> Span:
        workflow = getattr(node, "workflow", None)
        if workflow is not None:  # a workflow inside a workflow
            return self._workflow(workflow.name, parent)
        return self._start(
            f"invoke_node {node.name}",
            parent,
            {
                "gen_ai.operation.name": "invoke_node",
                "gen_ai.conversation.id": self.conversation_id,
            },
        )

    def node_event(self, span: Any, event_id: str) -> None:
        if span is not self.root:
            self._node_events.setdefault(span, []).append(event_id)

    # --- model calls ------------------------------------------------------------------------

    def start_model(
        self, agent: Any, model: Any, request: Any, ctx: InvocationContext, *, event_id: str
    ) -> _ModelSpan:
        name = request.model or model.model
        span = self._start(
            f"generate_content {name}",
            ctx.span,
            {
                "gen_ai.operation.name": "generate_content",
                "gen_ai.agent.name": agent.name,
                "gen_ai.conversation.id": self.conversation_id,
                "gen_ai.provider.name": _provider(model, name),
                "gen_ai.request.model": name,
                "gcp.vertex.agent.event_id": event_id,
                "gcp.vertex.agent.invocation_id": self.invocation_id,
            },
        )
        details = None
        if span.is_recording():
            for key, attribute in _REQUEST_SETTINGS.items():
                value = request.config.get(key)
                if isinstance(value, int | float) and not isinstance(value, bool):
                    span.set_attribute(attribute, value)
            capture = self.capture
            if request.tools_dict:
                definitions = _tool_definitions(request, with_parameters=capture.on_spans)
                if definitions is not None:
                    span.set_attribute("gen_ai.tool.definitions", definitions)
            if capture.any:
                details = {
                    "gen_ai.input.messages": messages.to_json(
                        messages.input_messages(request.contents)
                    ),
                    "gen_ai.system_instructions": messages.to_json(
                        messages.system_instructions(request.system_instruction)
                    ),
                }
                if capture.on_spans:
                    span.set_attributes(details)
        return _ModelSpan(span, details)

    def end_model(self, handle: _ModelSpan, response: Any, error: BaseException | None) -> None:
        span = handle.span
        if span.is_recording():
            if response is not None:
                usage = reported_usage(response.usage_metadata)
                if usage is not None:
                    span.set_attribute("gen_ai.usage.input_tokens", usage.input_tokens)
                    span.set_attribute("gen_ai.usage.output_tokens", usage.output_tokens)
                reason = messages.finish_reason(response.finish_reason)
                if reason is not None:
                    span.set_attribute("gen_ai.response.finish_reasons", [reason])
            details = handle.details
            if details is not None:
                output = messages.to_json(messages.output_messages(response))
                if self.capture.on_spans:
                    span.set_attribute("gen_ai.output.messages", output)
                if self.capture.in_events:
                    span.add_event(DETAILS_EVENT, {**details, "gen_ai.output.messages": output})
        self._finish(span, error)

    # --- tools ------------------------------------------------------------------------------

    def start_tool(
        self,
        agent: Any,
        tool: Any,
        call: Any,
        ctx: InvocationContext,
        *,
        response_event_id: str,
    ) -> Span:
        attributes = {
            "gen_ai.operation.name": "execute_tool",
            "gen_ai.agent.name": agent.name,
            "gen_ai.tool.name": tool.name,
            "gen_ai.tool.description": tool.description,
            "gen_ai.tool.type": type(tool).__name__,
        }
        location = config_location(tool)
        if location is not None:
            attributes[LOCATION] = location
        span = self._start(f"execute_tool {tool.name}", ctx.span, attributes)
        self._responses[span] = (call.id or NOT_SPECIFIED, response_event_id)
        if self.capture.on_spans and span.is_recording():
            span.set_attribute(
                "gen_ai.tool.call.arguments", messages.to_json(call.args, compact=False)
            )
        return span

    def end_tool(
        self,
        span: Span,
        result: Any,
        error: BaseException | None,
        *,
        error_type: str | None,
    ) -> None:
        named = self._responses.pop(span, None)
        if result is not None and named is not None:
            call_id, response_event = named
            span.set_attribute("gen_ai.tool.call.id", call_id)
            span.set_attribute("gcp.vertex.agent.event_id", response_event)
        else:
            span.set_attribute("gen_ai.tool.call.id", NOT_SPECIFIED)
        if result is not None and self.capture.on_spans and span.is_recording():
            shown = result if isinstance(result, dict) else {"result": result}
            span.set_attribute("gen_ai.tool.call.result", messages.to_json(shown, compact=False))
        if error is None and error_type is not None:
            span.set_attribute("error.type", error_type)
            span.set_status(Status(StatusCode.ERROR, error_type))
        self._finish(span, error)

    # --- ending -----------------------------------------------------------------------------

    def end(self, span: Span | None, error: BaseException | None) -> None:
        if span is None:
            return
        events = self._node_events.pop(span, None)
        if events:
            span.set_attribute("gcp.vertex.agent.associated_event_ids", events)
        if span in self._nested_workflows:
            self._nested_workflows.discard(span)
            self._finish(span, error, error_type=False, message_only=True)
        else:
            self._finish(span, error, error_type=False)

    def end_invocation(self, error: BaseException | None) -> None:
        self._finish(self.root, error, error_type=False)

    def _finish(
        self,
        span: Span,
        error: BaseException | None,
        *,
        error_type: bool = True,
        message_only: bool = False,
    ) -> None:
        """End ``span``, failed when ``error`` is an exception (not a consumer that stopped
        reading, GeneratorExit). ``error_type``: set ``error.type``, which google-adk sets on
        tool and model spans only, not on an agent's, a node's or the invocation's;
        ``message_only``: the status (content captured) is the message without the type, as
        google-adk's nested workflow span has it."""
        if isinstance(error, Exception):
            if error_type:
                kind = _error_type(error)
                span.set_attribute("error.type", kind)
            else:
                kind = type(error).__name__
            if self.capture.on_spans:
                span.record_exception(error)
                described = str(error) if message_only else f"{kind}: {error}"
                span.set_status(Status(StatusCode.ERROR, described))
            else:  # the message may hold user content: only its type, as content capture is off
                span.add_event(
                    "exception",
                    {"exception.type": _exception_type(error), "exception.escaped": "False"},
                )
                span.set_status(Status(StatusCode.ERROR, kind))
        span.end()

    # --- the ambient context ----------------------------------------------------------------

    def propagation_headers(self, span: Any) -> dict[str, str]:
        carrier: dict[str, str] = {}
        propagate.inject(carrier, context=set_span_in_context(span))
        return carrier

    def attach(self, span: Any) -> Any:
        return otel_context.attach(set_span_in_context(span))

    def detach(self, token: Any) -> None:
        otel_context.detach(token)
