"""The LLM call loop: model → function calls → function responses → model, until an answer."""

from __future__ import annotations

import asyncio
import dataclasses
import json
import logging
import uuid
from collections.abc import AsyncGenerator, Awaitable, Callable
from typing import TYPE_CHECKING, Any

from yadk._contexts import Context, InvocationContext, ToolContext
from yadk._resume import ResumeDecision, decide_resume
from yadk._sealed import thaw
from yadk.agents._budget import active_budget, charge_budget, check_budget, record_usage
from yadk.agents._callbacks import run_callbacks
from yadk.agents._code_images import save_generated_images
from yadk.agents._confirmation import (
    confirmation_gate,
    confirmation_request_event,
    confirmed_calls,
    is_confirmation_answer,
)
from yadk.agents._contents import CLIENT_CALL_ID_PREFIX
from yadk.agents._event_sink import Sink
from yadk.agents._request import build_request
from yadk.agents._set_model_response import answer_event
from yadk.agents._task import (
    is_delegation,
    refuse_early_finish,
    run_delegations,
    unresolved_delegations,
)
from yadk.agents._tool_spans import TracedCall, in_tool_span, run_attached
from yadk.errors import BudgetExceededError, ModelCallLimitError, ModelError, ToolExecutionError
from yadk.events import Event, EventActions, new_event_id
from yadk.models import BaseLlm, LlmRequest, LlmResponse
from yadk.tools import GROUNDING_STATE_KEY, BaseTool
from yadk.types import Content, FunctionCall, FunctionResponse, Part

if TYPE_CHECKING:
    from yadk._tool_confirmation import ToolConfirmation
    from yadk.agents._llm_agent import LlmAgent

__all__ = ["run_llm_flow"]

logger = logging.getLogger("yadk.flow")

# Runs a waiting tool's call on with the callbacks and plugins around ``invoke`` (its resumed
# run), traced in an ``execute_tool`` span as any call: the tool context, the call's arguments,
# ``invoke``, the id of the function response event to come; the function response.
ResumedCall = Callable[
    [ToolContext, dict[str, Any], Callable[[], Awaitable[Any]], str],
    Awaitable[dict[str, Any] | None],
]

# What a model event keeps of the (final) model response: every field the two share, so a field
# added to both is carried without a line here. ``partial`` is the event's own.
_KEPT_FROM_RESPONSE = tuple(
    name for name in LlmResponse.model_fields if name in Event.model_fields and name != "partial"
)


async def run_llm_flow(agent: LlmAgent, ctx: InvocationContext) -> AsyncGenerator[Event, None]:
    """Step until a final response, an error, a transfer, or the end of the invocation."""
    answering = ctx.user_content is not None and is_confirmation_answer(ctx.user_content)
    # An interrupted invocation goes on from what is stored; one that waits for a confirmation
    # goes on with the answer (it reruns the confirmed calls, below).
    if ctx.resume is not None and not answering:
        decision = decide_resume(ctx.resume, ctx.session.events, agent.name, ctx.branch)
        if decision is not None:
            ended = [False]
            async for event in _resume(agent, ctx, decision, ended):
                yield event
            if ended[0] or ctx.end_invocation or ctx.counter.failed:
                return
    if ctx.user_content is not None:
        # A tool whose run asked the user (a workflow called as a tool) takes the answer first.
        for unit in agent.tool_units():
            answer_waiting = getattr(unit, "answer_waiting", None)
            if answer_waiting is None or not isinstance(unit, BaseTool):
                continue
            async for event in answer_waiting(agent.name, ctx, _resumed_call(agent, unit)):
                yield event
            if ctx.end_invocation or ctx.counter.failed:
                return
        if answering:  # the user answered a confirmation request
            async for event in _answer_confirmations(agent, ctx):
                yield event
            if ctx.end_invocation or ctx.counter.failed:
                return
    # A task this agent delegated that is still open goes on first (with the user's reply).
    pending = unresolved_delegations(agent, ctx)
    if pending:
        async for event in run_delegations(agent, ctx, pending):
            yield event
        if ctx.end_invocation or ctx.counter.failed:
            return
    while True:
        last: Event | None = None
        async for event in _step(agent, ctx):
            last = event
            yield event
        if (
            last is None
            or last.is_final_response()
            or last.error_code
            or ctx.end_invocation
            or ctx.counter.failed
        ):
            return


async def _step(agent: LlmAgent, ctx: InvocationContext) -> AsyncGenerator[Event, None]:
    if ctx.counter.failed:  # a parallel branch failed: this one stops before its next call
        return
    compaction = ctx.app.events_compaction_config if ctx.app is not None else None
    if compaction is not None:  # a token threshold reached summarises before the next call
        await compaction.compact_before_model_call(ctx, agent)
    request = await build_request(agent, ctx)
    model_event = Event(invocation_id=ctx.invocation_id, author=agent.name, branch=ctx.branch)
    callback_context = Context(ctx, event_actions=model_event.actions)

    plugins = ctx.plugins
    if agent.before_model_callback or (
        plugins is not None and plugins.implements("before_model_callback")
    ):
        # A callback may edit the request in place (google-adk hands it copies of the history);
        # the history is sealed and shared, so the request gets contents of its own.
        request.contents = [thaw(content) for content in request.contents]
    response = None
    if plugins is not None:  # the app's plugins first; one that answers skips the rest
        response = await plugins.run(
            "before_model_callback", callback_context=callback_context, llm_request=request
        )
    if response is None:
        response = await run_callbacks(
            "before_model_callback",
            agent.before_model_callback,
            callback_context=callback_context,
            llm_request=request,
        )
    usage = None
    if response is None:
        budget = active_budget(ctx)
        trace = ctx.trace
        model_span = None
        model_error: Exception | None = None
        try:
            if budget is not None:  # before the call is sent, never after
                check_budget(budget, ctx, agent.canonical_model.model)
            if trace is not None:
                model_span = trace.start_model(
                    agent, agent.canonical_model, request, ctx, event_id=model_event.id
                )
            async for chunk in _model_responses(agent.canonical_model, request, ctx):
                if chunk.partial:
                    # Streamed text for the impatient; never stored (the runner appends only
                    # the final, aggregated event).
                    yield Event(
                        invocation_id=ctx.invocation_id,
                        author=agent.name,
                        branch=ctx.branch,
                        content=chunk.content,
                        partial=True,
                    )
                else:
                    response = chunk
            if response is None:
                raise ModelError(f"Model {agent.canonical_model.model!r} returned no response.")
        except (ModelError, BudgetExceededError) as exc:
            model_error = exc
            if model_span is not None:
                assert trace is not None
                trace.end_model(model_span, None, exc)
                model_span = None
            if plugins is not None and type(exc) is ModelError:
                response = await plugins.run(
                    "on_model_error_callback",
                    callback_context=callback_context,
                    llm_request=request,
                    error=exc.__cause__ if isinstance(exc.__cause__, Exception) else exc,
                )
            if response is None:
                if ctx.run_config.raise_errors:
                    raise
                # As in google-adk, a model that fails ends the whole invocation (loops and
                # sequences do not go on); the error event keeps what callbacks already wrote.
                ctx.counter.failed = True
                ctx.counter.failure = ctx.counter.failure or exc
                model_event.error_code = _error_code(exc)
                model_event.error_message = exc.message
                yield model_event
                return
        finally:
            if model_span is not None:  # ended here when the call succeeded or was abandoned
                assert trace is not None
                trace.end_model(model_span, response if model_error is None else None, None)
        if budget is not None:
            usage = charge_budget(budget, request, response, agent.canonical_model.model)
        altered = None
        if plugins is not None:
            altered = await plugins.run(
                "after_model_callback", callback_context=callback_context, llm_response=response
            )
        if altered is None:
            altered = await run_callbacks(
                "after_model_callback",
                agent.after_model_callback,
                callback_context=callback_context,
                llm_response=response,
            )
        if altered is not None:
            response = altered
    response = _as_response(response)
    _propagate_grounding(request, ctx, response)

    for name in _KEPT_FROM_RESPONSE:
        setattr(model_event, name, getattr(response, name))
    record_usage(model_event, usage)
    _assign_call_ids(model_event)
    if agent.code_executor is not None:
        saved = await save_generated_images(ctx, model_event)
        if saved is not None:
            yield saved
    calls = model_event.get_function_calls()
    long_running = {
        c.id
        for c in calls
        if c.id and getattr(request.tools_dict.get(c.name), "is_long_running", False)
    }
    if long_running:
        model_event.long_running_tool_ids = long_running
    _maybe_save_output(agent, model_event)
    yield model_event

    if not calls:
        return
    delegations = [c for c in calls if is_delegation(request.tools_dict.get(c.name or ""))]
    if delegations:  # task agents run once the other calls are answered (google-adk's order)
        others = [c for c in calls if c not in delegations]
        if others:
            async for event in _respond(agent, ctx, others, request):
                if agent.mode == "task":
                    refuse_early_finish(event)
                yield event
        async for event in run_delegations(agent, ctx, delegations):
            yield event
        return
    async for event in _respond(agent, ctx, calls, request):
        yield event


async def _respond(
    agent: LlmAgent,
    ctx: InvocationContext,
    calls: list[FunctionCall],
    request: LlmRequest,
    confirmations: dict[str, ToolConfirmation] | None = None,
) -> AsyncGenerator[Event, None]:
    """Run ``calls`` and yield what they produced: their own runs' events, the request for
    the user's confirmation of calls held back, the responses, then a transfer's events."""
    handled: list[tuple[list[Event], Event | None]] = []
    async for event in _run_calls(agent, ctx, calls, request, handled, confirmations):
        yield event
    side_events, response_event = handled[0]
    for event in side_events:
        yield event
    if response_event is None:
        return  # only long-running calls, none answered yet: the invocation waits
    asking = confirmation_request_event(ctx, agent.name, calls, response_event)
    if asking is not None:
        yield asking
    yield response_event
    answer = answer_event(ctx, agent, response_event)
    if answer is not None:  # the model's set_model_response call: its answer, as JSON text
        _maybe_save_output(agent, answer)
        yield answer
    if response_event.actions.transfer_to_agent:
        async for event in _transfer(agent, ctx, response_event.actions.transfer_to_agent):
            yield event


async def _answer_confirmations(
    agent: LlmAgent, ctx: InvocationContext
) -> AsyncGenerator[Event, None]:
    """Rerun the calls the user's message confirms (or refuses); a confirmation already acted
    on (a resent answer) ends the invocation."""
    request = await build_request(agent, ctx)
    resolved = await confirmed_calls(agent.name, ctx, request.tools_dict)
    if resolved is None:
        ctx.end_invocation = True
        return
    calls, confirmations = resolved
    if not calls:
        return
    last: Event | None = None
    async for event in _respond(agent, ctx, calls, request, confirmations):
        last = event
        yield event
    if last is None or last.is_final_response() or last.actions.transfer_to_agent:
        ctx.end_invocation = True


async def _transfer(
    agent: LlmAgent, ctx: InvocationContext, target_name: str
) -> AsyncGenerator[Event, None]:
    target = agent.root_agent.find_agent(target_name)
    if target is None:  # the transfer tool validates names; a custom tool might not
        raise ModelError(f"Agent {target_name!r} not found in the agent tree.")
    # Traced, the target's span hangs beside this agent's (google-adk's nesting of a transfer).
    target_ctx = ctx if ctx.trace is None else dataclasses.replace(ctx, span=ctx.outer_span)
    async for event in target.run_async(target_ctx):
        yield event
    ctx.end_invocation = True


async def _resume(
    agent: LlmAgent, ctx: InvocationContext, decision: ResumeDecision, ended: list[bool]
) -> AsyncGenerator[Event, None]:
    """The resumed agent's first step: the tool calls it made but did not run, or the transfer
    it made; ``ended`` is set when the agent has nothing more to do (done, or waiting)."""
    ended[0] = decision.done or decision.waiting
    transfer = decision.transfer
    if decision.calls:
        request = await build_request(agent, ctx)
        handled: list[tuple[list[Event], Event | None]] = []
        async for event in _run_calls(agent, ctx, decision.calls, request, handled):
            yield event
        side_events, response_event = handled[0]
        for event in side_events:
            yield event
        if response_event is None:
            ended[0] = True
            return
        asking = confirmation_request_event(ctx, agent.name, decision.calls, response_event)
        if asking is not None:
            yield asking
        yield response_event
        if response_event.is_final_response():  # held back for confirmation: nothing more
            ended[0] = True
        answer = answer_event(ctx, agent, response_event)
        if answer is not None:
            ended[0] = True
            _maybe_save_output(agent, answer)
            yield answer
        transfer = response_event.actions.transfer_to_agent
    if transfer:
        ended[0] = True
        async for event in _transfer(agent, ctx, transfer):
            yield event


async def _model_responses(
    model: BaseLlm, request: LlmRequest, ctx: InvocationContext
) -> AsyncGenerator[LlmResponse, None]:
    """The model's responses: partial chunks (when ``RunConfig.streaming``), then the final one.

    Counts the call against ``max_llm_calls``; any failure becomes a ``ModelError``.
    """
    ctx.counter.llm_calls += 1
    limit = ctx.run_config.max_llm_calls
    if limit > 0 and ctx.counter.llm_calls > limit:
        raise ModelCallLimitError(
            f"The invocation reached its limit of {limit} model calls (RunConfig.max_llm_calls)"
            f" when agent {request.agent_name!r} asked for one more, so it ended. A tool the"
            " model keeps calling, or a LoopAgent without max_iterations whose agents never call"
            " exit_loop, usually causes this; if the task really needs more calls, raise"
            " RunConfig(max_llm_calls=...) (0 means no limit)."
        )
    stream = ctx.run_config.streaming
    try:
        async for chunk in model.generate_content_async(request, stream=stream):
            if chunk.partial and not stream:
                continue
            yield chunk
    except ModelError:
        raise
    except Exception as exc:
        raise ModelError(f"Model {model.model!r} failed: {type(exc).__name__}: {exc}") from exc


def _error_code(exc: ModelError | BudgetExceededError) -> str:
    if isinstance(exc, BudgetExceededError):
        return "BUDGET_EXCEEDED"
    return "MODEL_CALL_LIMIT" if isinstance(exc, ModelCallLimitError) else "MODEL_ERROR"


def _as_response(value: Any) -> LlmResponse:
    if isinstance(value, LlmResponse):
        return value
    if isinstance(value, Content):
        return LlmResponse(content=value)
    return LlmResponse.model_validate(value)


def _propagate_grounding(
    request: LlmRequest, ctx: InvocationContext, response: LlmResponse
) -> None:
    """A search sub-agent's grounding, kept by its tool in temp state, rides on this answer."""
    if not any(
        getattr(t, "propagate_grounding_metadata", False) for t in request.tools_dict.values()
    ):
        return
    grounding = ctx.session.state.get(GROUNDING_STATE_KEY)
    if grounding:
        response.grounding_metadata = grounding


def _assign_call_ids(event: Event) -> None:
    if event.content is None:
        return
    for part in event.content.parts:
        if part.function_call is not None and not part.function_call.id:
            part.function_call.id = CLIENT_CALL_ID_PREFIX + str(uuid.uuid4())


def _maybe_save_output(agent: LlmAgent, event: Event) -> None:
    if (
        not agent.output_key
        or agent.mode == "task"  # its output is finish_task's, saved when the task ends
        or not event.is_final_response()
        or event.content is None
    ):
        return
    text = "".join(p.text for p in event.content.parts if p.text and not p.thought)
    if not text and not event.content.parts:
        return
    value: Any = text
    if agent.output_schema is not None and text.strip():
        try:
            value = agent.output_schema.model_validate_json(text).model_dump(exclude_none=True)
        except ValueError as exc:
            event.error_code = "OUTPUT_SCHEMA_ERROR"
            event.error_message = (
                f"Agent {agent.name!r}: the model's answer does not match output_schema"
                f" {agent.output_schema.__name__}: {exc}"
            )
            return
    event.actions.state_delta[agent.output_key] = value


async def _run_calls(
    agent: LlmAgent,
    ctx: InvocationContext,
    calls: list[FunctionCall],
    request: LlmRequest,
    handled: list[tuple[list[Event], Event | None]],
    confirmations: dict[str, ToolConfirmation] | None = None,
) -> AsyncGenerator[Event, None]:
    """``_handle_function_calls``, its outcome put in ``handled``; the events a tool publishes
    while it runs (a single-turn sub-agent's) are yielded as they come."""
    if not any(getattr(request.tools_dict.get(c.name), "publishes_events", False) for c in calls):
        handled.append(await _handle_function_calls(agent, ctx, calls, request, confirmations))
        return
    sink = Sink()

    async def run() -> None:
        handled.append(
            await _handle_function_calls(
                agent, ctx, calls, request, confirmations, publish=sink.emit
            )
        )

    async for event in sink.drive(run()):
        yield event


async def _handle_function_calls(
    agent: LlmAgent,
    ctx: InvocationContext,
    calls: list[FunctionCall],
    request: LlmRequest,
    confirmations: dict[str, ToolConfirmation] | None = None,
    *,
    publish: Callable[[Event], Awaitable[None]] | None = None,
) -> tuple[list[Event], Event | None]:
    """Run every call (concurrently, results kept in call order) and merge their actions: the
    events the tools' own runs produced (in call order), and the event of the responses.
    ``confirmations``: the user's answers to confirmation requests, by call id; ``publish``:
    how a tool hands up an event while it runs."""
    contexts = [ToolContext(ctx, function_call_id=call.id) for call in calls]
    for tool_context in contexts:
        tool_context.publish = publish
    if confirmations:
        for call, tool_context in zip(calls, contexts, strict=True):
            tool_context.tool_confirmation = confirmations.get(call.id or "")
    event_id = new_event_id()
    responses = await asyncio.gather(
        *(
            _run_one_call(agent, call, request.tools_dict, tool_context, event_id)
            for call, tool_context in zip(calls, contexts, strict=True)
        )
    )
    merged = EventActions()
    parts = []
    for call, tool_context, response in zip(calls, contexts, responses, strict=True):
        if tool_context.waiting:
            continue  # its run asked the user: google-adk keeps nothing of this call yet
        _merge_actions(merged, tool_context.actions)
        if response is None:
            continue  # a long-running tool that answered nothing yet
        parts.append(
            Part(function_response=FunctionResponse(id=call.id, name=call.name, response=response))
        )
    side_events = [event for tool_context in contexts for event in tool_context.events]
    if not parts and not merged.state_delta and not merged.artifact_delta:
        return side_events, None
    return side_events, Event(
        id=event_id,
        invocation_id=ctx.invocation_id,
        author=agent.name,
        branch=ctx.branch,
        content=Content(role="user", parts=parts) if parts else None,
        actions=merged,
    )


async def _run_one_call(
    agent: LlmAgent,
    call: FunctionCall,
    tools: dict[str, BaseTool],
    tool_context: ToolContext,
    event_id: str,
) -> dict[str, Any] | None:
    tool = tools.get(call.name)
    if tool is None:
        available = ", ".join(sorted(tools)) or "(none)"
        logger.warning("agent %s: model called unknown tool %r", agent.name, call.name)
        return {
            "error": f"Tool '{call.name}' is not available to agent '{agent.name}'."
            f" Available tools: {available}."
        }
    return await _call_in_span(agent, call, tool, tool_context, event_id)


def _resumed_call(agent: LlmAgent, tool: BaseTool) -> ResumedCall:
    """How a tool's call that waited for the user goes on: with the callbacks and plugins
    around it, as any call (google-adk reruns the whole call when the answer comes)."""

    async def call_tool(
        tool_context: ToolContext,
        args: dict[str, Any],
        invoke: Callable[[], Awaitable[Any]],
        event_id: str,
    ) -> dict[str, Any] | None:
        call = FunctionCall(id=tool_context.function_call_id, name=tool.name, args=args)
        return await _call_in_span(agent, call, tool, tool_context, event_id, invoke)

    return call_tool


async def _call_in_span(
    agent: LlmAgent,
    call: FunctionCall,
    tool: BaseTool,
    tool_context: ToolContext,
    event_id: str,
    invoke: Callable[[], Awaitable[Any]] | None = None,
) -> dict[str, Any] | None:
    """``_call_tool``, in an ``execute_tool`` span naming ``event_id`` when the invocation is
    traced."""
    trace = tool_context.invocation_context.trace
    if trace is None:
        return await _call_tool(agent, call, tool, tool_context, None, invoke)
    return await in_tool_span(
        trace,
        agent,
        call,
        tool,
        tool_context,
        event_id,
        lambda traced: _call_tool(agent, call, tool, tool_context, traced, invoke),
    )


async def _call_tool(
    agent: LlmAgent,
    call: FunctionCall,
    tool: BaseTool,
    tool_context: ToolContext,
    traced: TracedCall | None,
    invoke: Callable[[], Awaitable[Any]] | None = None,
) -> dict[str, Any] | None:
    """The callbacks and the tool (or ``invoke``, a resumed run of it); a tool that raises is
    reported to the model (and, traced, kept on ``traced``)."""
    args = thaw(call.args)  # the tool's and the callbacks' own (the call's are sealed history)
    plugins = tool_context.invocation_context.plugins
    result = None
    if plugins is not None:  # the app's plugins first; one that answers skips the rest
        result = await plugins.run(
            "before_tool_callback", tool=tool, tool_args=args, tool_context=tool_context
        )
    if result is None:
        result = await run_callbacks(
            "before_tool_callback",
            agent.before_tool_callback,
            tool=tool,
            args=args,
            tool_context=tool_context,
        )
    if result is None:
        try:
            if invoke is not None:
                result = await invoke()
            else:  # held back for the user's confirmation, or refused by the user
                result = await confirmation_gate(tool, args, tool_context)
            if result is None and invoke is None:
                if traced is None:
                    result = await tool.run_async(args=args, tool_context=tool_context)
                else:
                    result = await run_attached(tool, args, tool_context, traced.span)
        except Exception as exc:
            if traced is not None:
                traced.error = exc
            result = await _tool_failed(call, tool, args, tool_context, exc)
        if tool_context.waiting:
            return None  # its run asked the user: the response comes with the answer
    altered = None
    if plugins is not None:
        altered = await plugins.run(
            "after_tool_callback",
            tool=tool,
            tool_args=args,
            tool_context=tool_context,
            result=result,
        )
    if altered is None:
        altered = await run_callbacks(
            "after_tool_callback",
            agent.after_tool_callback,
            tool=tool,
            args=args,
            tool_context=tool_context,
            tool_response=result,
        )
    if altered is not None:
        result = altered
    if getattr(tool, "is_long_running", False) and not result:
        return None  # its response arrives later (google-adk: no response event for it now)
    if not isinstance(result, dict):
        result = {"result": result}
    return _jsonable(result)


async def _tool_failed(
    call: FunctionCall,
    tool: BaseTool,
    args: dict[str, Any],
    tool_context: ToolContext,
    exc: Exception,
) -> Any:
    """What the model gets for a tool that raised: a plugin's answer (``on_tool_error_callback``),
    else the error, so the model can recover and the run goes on."""
    plugins = tool_context.invocation_context.plugins
    if plugins is not None:
        answer = await plugins.run(
            "on_tool_error_callback",
            tool=tool,
            tool_args=args,
            tool_context=tool_context,
            error=exc,
        )
        if answer is not None:
            return answer
    if isinstance(exc, ToolExecutionError):
        logger.warning("tool %s failed: %s", call.name, exc.message)
        return {"error": exc.message, "error_type": exc.error_type.value}
    logger.warning("tool %s raised %s: %s", call.name, type(exc).__name__, exc, exc_info=exc)
    return {"error": f"Tool '{call.name}' raised {type(exc).__name__}: {exc}"}


def _jsonable(value: dict[str, Any]) -> dict[str, Any]:
    try:
        json.dumps(value)
        return value
    except (TypeError, ValueError):
        converted: dict[str, Any] = json.loads(json.dumps(value, default=_fallback))
        return converted


def _fallback(obj: Any) -> Any:
    if hasattr(obj, "model_dump"):
        return obj.model_dump(mode="json")
    return str(obj)


def _merge_actions(into: EventActions, source: EventActions) -> None:
    into.state_delta.update(source.state_delta)
    into.artifact_delta.update(source.artifact_delta)
    if source.transfer_to_agent:
        into.transfer_to_agent = source.transfer_to_agent
    if source.escalate:
        into.escalate = True
    if source.skip_summarization:
        into.skip_summarization = True
    if source.set_model_response is not None:
        into.set_model_response = source.set_model_response
    into.requested_tool_confirmations.update(source.requested_tool_confirmations)
