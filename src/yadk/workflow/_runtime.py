"""Running a graph: nodes started as their triggers arrive (up to ``max_concurrency`` at once),
each run's yields turned into events with its path, outputs routed along edges, joins fed once
all their inputs are in, failures retried, timed out, or ending the run."""

from __future__ import annotations

import asyncio
import functools
from collections import deque
from collections.abc import Awaitable, Callable, Coroutine
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from yadk._contexts import InvocationContext
from yadk.events import Event, EventActions, NodeInfo
from yadk.types import Content, FunctionCall, Part
from yadk.workflow._adapters import ParallelWorker, WorkflowNode
from yadk.workflow._base_node import START, BaseNode
from yadk.workflow._build import build_node
from yadk.workflow._context import NodeContext
from yadk.workflow._errors import NodeTimeoutError, WorkflowConfigurationError
from yadk.workflow._function_node import FunctionNode, NodeInputError
from yadk.workflow._params import as_output
from yadk.workflow._request_input import REQUEST_INPUT_FUNCTION_CALL_NAME, RequestInput
from yadk.workflow._resume import ResumePoint, input_record

if TYPE_CHECKING:
    from yadk.workflow._sink import Sink
    from yadk.workflow._workflow import Workflow

__all__ = ["NodeFailed", "NodeResult", "Runtime"]

Sleep = Callable[[float], Awaitable[None]]


@dataclass
class NodeResult:
    """What one run of a node came to."""

    output: Any = None
    has_output: bool = False
    route: Any = None
    interrupted: bool = False


class NodeFailed(Exception):
    """A node failed for good; the invocation ends with one error event naming it."""

    def __init__(self, error: BaseException, *, path: str, author: str) -> None:
        self.error = error
        self.path = path
        self.author = author
        super().__init__(str(error))


@dataclass
class _GraphRun:
    """One run of one workflow's graph: what has completed and what is queued."""

    workflow: Workflow
    path: str
    author: str
    ic: InvocationContext
    output_for: list[str]
    counters: dict[str, int] = field(default_factory=dict)
    outputs: dict[str, Any] = field(default_factory=dict)
    completed: set[str] = field(default_factory=set)
    arrivals: dict[str, set[str]] = field(default_factory=dict)
    triggers: deque[tuple[str, Any]] = field(default_factory=deque)
    running: dict[str, asyncio.Task[NodeResult]] = field(default_factory=dict)
    waiting: set[str] = field(default_factory=set)


class Runtime:
    """Everything one invocation of a workflow shares: the event stream, the back-off sleep,
    the point to resume at, and the counters of nodes scheduled at run time."""

    def __init__(self, *, sink: Sink, sleep: Sleep, resume: ResumePoint | None = None) -> None:
        self.sink = sink
        self.sleep = sleep
        self.resume = resume
        self._dynamic_counters: dict[str, int] = {}
        self._dynamic_nodes: dict[int, BaseNode] = {}
        self._dynamic_keep: list[Any] = []

    # --- a graph ---------------------------------------------------------------------------

    async def run_graph(
        self,
        workflow: Workflow,
        *,
        ic: InvocationContext,
        path: str,
        node_input: Any,
        output_for: list[str],
    ) -> NodeResult:
        graph = workflow.graph
        if graph is None:
            return NodeResult()
        run = _GraphRun(workflow, path, workflow.name, ic, output_for)
        if not self._seed_resume(run):
            for target in graph.next_nodes(START.name, None):
                self._trigger(run, target, node_input, START.name)
        done: asyncio.Queue[tuple[str, asyncio.Task[NodeResult]]] = asyncio.Queue()
        limit = workflow.max_concurrency if (workflow.max_concurrency or 0) > 0 else None
        try:
            while True:
                if not run.running and len(run.triggers) == 1:
                    # One node to run and nothing else running (a chain, a loop): run it in
                    # this task, without a task of its own and the hand-over back.
                    name, value = run.triggers.popleft()
                    self._complete(run, name, await self._run_trigger(run, name, value))
                    continue
                self._start_ready(run, done, limit)
                if not run.running:
                    break
                name, task = await done.get()
                del run.running[name]
                if task.cancelled():
                    raise asyncio.CancelledError
                error = task.exception()
                if error is not None:
                    raise error
                self._complete(run, name, task.result())
        finally:
            await _cancel(run.running.values())
        if run.waiting:
            return NodeResult(interrupted=True)
        outputs = [run.outputs[n] for n in graph.terminal if n in run.outputs]
        if len(outputs) > 1:
            raise WorkflowConfigurationError(
                f"Workflow {workflow.name}: multiple terminal nodes produced output"
                f" ({len(outputs)}). A workflow must have at most one terminal output."
            )
        if outputs:
            return NodeResult(output=outputs[0], has_output=True)
        return NodeResult()

    def _seed_resume(self, run: _GraphRun) -> bool:
        """Start a resumed run at the node that was waiting (or at the workflow node above it)."""
        resume = self.resume
        if resume is None or not resume.path.startswith(run.path + "/"):
            return False
        segment = resume.path[len(run.path) + 1 :].split("/", 1)[0]
        name, _, run_id = segment.rpartition("@")
        graph = run.workflow.graph
        assert graph is not None
        if name not in graph.by_name:
            return False
        run.counters[name] = int(run_id) - 1
        leaf = resume.path == f"{run.path}/{segment}"
        node = graph.by_name[name]
        if leaf and not node.rerun_on_resume:
            # The answer is the node's output: it completes without running again.
            self.resume = None
            run.counters[name] = int(run_id)
            self._complete(run, name, NodeResult(output=resume.answer, has_output=True))
            return True
        run.triggers.append((name, resume.node_input if leaf else None))
        return True

    def _trigger(self, run: _GraphRun, target: str, value: Any, source: str) -> None:
        graph = run.workflow.graph
        assert graph is not None
        node = graph.by_name[target]
        if not node.requires_all_predecessors:
            run.triggers.append((target, value))
            return
        arrived = run.arrivals.setdefault(target, set())
        arrived.add(source)
        predecessors = graph.predecessors[target]
        if all(p == START.name or p in arrived for p in predecessors):
            del run.arrivals[target]
            run.triggers.append((target, {p: run.outputs.get(p) for p in predecessors}))

    def _start_ready(
        self,
        run: _GraphRun,
        done: asyncio.Queue[tuple[str, asyncio.Task[NodeResult]]],
        limit: int | None,
    ) -> None:
        if not run.triggers:
            return
        graph = run.workflow.graph
        assert graph is not None
        held: deque[tuple[str, Any]] = deque()
        while run.triggers and (limit is None or len(run.running) < limit):
            name, value = run.triggers.popleft()
            if name in run.running:  # one run of a node at a time; the next waits its turn
                held.append((name, value))
                continue
            task = asyncio.create_task(self._run_trigger(run, name, value))
            run.running[name] = task
            task.add_done_callback(functools.partial(_report, done, name))
        held.extend(run.triggers)
        run.triggers = held

    def _run_trigger(
        self, run: _GraphRun, name: str, value: Any
    ) -> Coroutine[Any, Any, NodeResult]:
        graph = run.workflow.graph
        assert graph is not None
        run_id = run.counters.get(name, 0) + 1
        run.counters[name] = run_id
        run.waiting.discard(name)
        return self.run_node(
            graph.by_name[name],
            ic=run.ic,
            parent_path=run.path,
            run_id=run_id,
            author=run.author,
            node_input=value,
            output_for=run.output_for if name in graph.terminal else [],
        )

    def _complete(self, run: _GraphRun, name: str, result: NodeResult) -> None:
        if result.interrupted:
            run.waiting.add(name)
            return
        graph = run.workflow.graph
        assert graph is not None
        node = graph.by_name[name]
        if node.wait_for_output and not result.has_output and result.route is None:
            return
        if result.has_output:
            run.outputs[name] = result.output
        else:
            run.outputs.pop(name, None)
        run.completed.add(name)
        for target in graph.next_nodes(name, result.route):
            self._trigger(run, target, result.output, name)

    # --- one node ---------------------------------------------------------------------------

    async def run_node(
        self,
        node: BaseNode,
        *,
        ic: InvocationContext,
        parent_path: str,
        run_id: int,
        author: str,
        node_input: Any,
        output_for: list[str],
    ) -> NodeResult:
        """One run of ``node`` (with its retries): its events emitted, its result returned;
        raises ``NodeFailed`` when it fails for good."""
        path = f"{parent_path}/{node.name}@{run_id}"
        own_output_for = [path, *output_for]
        resume_inputs: dict[str, Any] = {}
        if self.resume is not None and self.resume.path == path:
            resume_inputs = {self.resume.interrupt_id: self.resume.answer}
            self.resume = None
        attempt = 1
        while True:
            ctx = NodeContext(
                ic,
                runtime=self,
                node_path=path,
                author=author,
                attempt_count=attempt,
                resume_inputs=resume_inputs,
            )
            try:
                run = self._attempt(node, ctx, node_input, own_output_for)
                if node.timeout is not None:
                    try:
                        async with asyncio.timeout(node.timeout):
                            return await run
                    except TimeoutError:
                        raise NodeTimeoutError(node_name=node.name, timeout=node.timeout) from None
                return await run
            except NodeFailed:
                raise
            except NodeInputError as exc:
                raise NodeFailed(exc.error, path=parent_path, author=author) from exc
            except Exception as exc:
                config = node.retry_config
                if config is None or not config.should_retry(exc, attempt):
                    raise NodeFailed(exc, path=path, author=author) from exc
                await self.sink.emit(error_event(ic, exc, path=path, author=author))
                await self.sleep(config.delay(attempt))
                attempt += 1

    async def _attempt(
        self, node: BaseNode, ctx: NodeContext, node_input: Any, output_for: list[str]
    ) -> NodeResult:
        if isinstance(node, WorkflowNode):
            return await self._run_child_workflow(node, ctx, node_input, output_for)
        if isinstance(node, ParallelWorker):
            return await self._run_workers(node, ctx, node_input, output_for)
        result = NodeResult()
        if isinstance(node, FunctionNode) and not node.yields:
            # A plain function: called directly, without an async generator around it.
            item = await node.call(ctx, node_input)
            if item is None:
                return await self._flush(ctx, result)
            if isinstance(item, (Event, RequestInput, Content)):
                event = self._event_of(item, ctx, result, node_input)
                self._stamp(event, ctx, result, output_for)
            else:
                event = self._output_event(item, ctx, result, output_for)
            await self.sink.emit(event)
            return await self._flush(ctx, result)
        agen = node._run_impl(ctx=ctx, node_input=node_input)
        try:
            async for item in agen:
                if item is None:
                    continue
                event = self._event_of(item, ctx, result, node_input)
                self._stamp(event, ctx, result, output_for)
                await self.sink.emit(event)
        finally:
            await agen.aclose()
        return await self._flush(ctx, result)

    async def _flush(self, ctx: NodeContext, result: NodeResult) -> NodeResult:
        """State written after the node's last event goes out on an event of its own."""
        actions = ctx.take_actions()
        if not actions.is_empty():
            await self.sink.emit(self._bare_event(ctx, actions))
        return result

    def _event_of(self, item: Any, ctx: NodeContext, result: NodeResult, node_input: Any) -> Event:
        if isinstance(item, Event):
            return item
        if isinstance(item, RequestInput):
            result.interrupted = True
            return request_event(item, ctx, node_input)
        if isinstance(item, Content):
            return Event(content=item)
        return Event(output=item)

    def _output_event(
        self, value: Any, ctx: NodeContext, result: NodeResult, output_for: list[str]
    ) -> Event:
        """The event of a returned value, built whole (what ``_stamp`` does field by field)."""
        ic = ctx.invocation_context
        output = as_output(value)
        result.output = output
        result.has_output = True
        return Event(
            invocation_id=ic.invocation_id,
            author=ctx.author,
            branch=ic.branch,
            output=output,
            actions=ctx.take_actions(),
            node_info=NodeInfo(path=ctx.node_path, output_for=output_for),
        )

    def _stamp(
        self, event: Event, ctx: NodeContext, result: NodeResult, output_for: list[str]
    ) -> None:
        ic = ctx.invocation_context
        if not event.author:
            event.author = ctx.author
        if not event.invocation_id:
            event.invocation_id = ic.invocation_id
        if event.branch is None:
            event.branch = ic.branch
        info = event.node_info
        if info is None:
            info = event.node_info = NodeInfo()
        if not info.path:
            info.path = ctx.node_path
        pending = ctx.take_actions()
        if not pending.is_empty():
            _merge(event.actions, pending)
        if event.output is not None:
            event.output = as_output(event.output)
            result.output = event.output
            result.has_output = True
            info.output_for = output_for
        elif info.message_as_output:
            result.output = event.text
            result.has_output = True
            info.output_for = output_for
        if event.actions.route is not None:
            result.route = event.actions.route

    def _bare_event(self, ctx: NodeContext, actions: EventActions) -> Event:
        ic = ctx.invocation_context
        return Event(
            invocation_id=ic.invocation_id,
            author=ctx.author,
            branch=ic.branch,
            actions=actions,
            node_info=NodeInfo(path=ctx.node_path),
        )

    async def _run_child_workflow(
        self, node: WorkflowNode, ctx: NodeContext, node_input: Any, output_for: list[str]
    ) -> NodeResult:
        return await self.run_graph(
            node.workflow,
            ic=ctx.invocation_context,
            path=ctx.node_path,
            node_input=node_input,
            output_for=output_for,
        )

    async def _run_workers(
        self, node: ParallelWorker, ctx: NodeContext, node_input: Any, output_for: list[str]
    ) -> NodeResult:
        items = list(node_input) if isinstance(node_input, (list, tuple)) else [node_input]
        bound = asyncio.Semaphore(node.max_parallel_workers or max(1, len(items)))

        async def one(index: int, item: Any) -> NodeResult:
            async with bound:
                return await self.run_node(
                    node.node,
                    ic=ctx.invocation_context,
                    parent_path=ctx.node_path,
                    run_id=index + 1,
                    author=ctx.author,
                    node_input=item,
                    output_for=[],
                )

        tasks = [asyncio.create_task(one(i, item)) for i, item in enumerate(items)]
        try:
            results = await asyncio.gather(*tasks)
        finally:
            await _cancel(tasks)
        if any(r.interrupted for r in results):
            return NodeResult(interrupted=True)
        result = NodeResult()
        event = Event(output=[r.output for r in results])
        self._stamp(event, ctx, result, output_for)
        await self.sink.emit(event)
        return result

    # --- nodes scheduled at run time -------------------------------------------------------

    async def run_dynamic(self, ctx: NodeContext, value: Any, node_input: Any) -> Any:
        node = self._dynamic_nodes.get(id(value))
        if node is None:
            node = build_node(value)
            self._dynamic_nodes[id(value)] = node
            self._dynamic_keep.append(value)
        key = f"{ctx.node_path}/{node.name}"
        run_id = self._dynamic_counters.get(key, 0) + 1
        self._dynamic_counters[key] = run_id
        result = await self.run_node(
            node,
            ic=ctx.invocation_context,
            parent_path=ctx.node_path,
            run_id=run_id,
            author=ctx.author,
            node_input=node_input,
            output_for=[],
        )
        if result.interrupted:
            raise WorkflowConfigurationError(
                f"Node {node.name!r} asked for input while run by ctx.run_node(); only nodes of"
                " the graph may wait for the user."
            )
        return result.output


def _report(
    done: asyncio.Queue[tuple[str, asyncio.Task[NodeResult]]],
    name: str,
    task: asyncio.Task[NodeResult],
) -> None:
    done.put_nowait((name, task))


def _merge(actions: EventActions, extra: EventActions) -> None:
    actions.state_delta.update(extra.state_delta)
    actions.artifact_delta.update(extra.artifact_delta)
    for name in ("transfer_to_agent", "escalate", "skip_summarization"):
        if getattr(actions, name) is None and getattr(extra, name) is not None:
            setattr(actions, name, getattr(extra, name))


async def _cancel(tasks: Any) -> None:
    pending = [t for t in tasks if not t.done()]
    for task in pending:
        task.cancel()
    if pending:
        await asyncio.gather(*pending, return_exceptions=True)


def request_event(request: RequestInput, ctx: NodeContext, node_input: Any) -> Event:
    """The ``adk_request_input`` call a waiting node shows, with what a later invocation needs
    to resume it (the node's input) kept in its metadata."""
    ic = ctx.invocation_context
    return Event(
        invocation_id=ic.invocation_id,
        author=ctx.author,
        content=Content(
            role="model",
            parts=[
                Part(
                    function_call=FunctionCall(
                        id=request.interrupt_id,
                        name=REQUEST_INPUT_FUNCTION_CALL_NAME,
                        args=request.call_args(),
                    )
                )
            ],
        ),
        long_running_tool_ids={request.interrupt_id},
        custom_metadata={"yadk_workflow": input_record(ctx.node_path, node_input)},
    )


def error_event(ic: InvocationContext, error: BaseException, *, path: str, author: str) -> Event:
    return Event(
        invocation_id=ic.invocation_id,
        author=author,
        branch=ic.branch,
        error_code=type(error).__name__,
        error_message=str(error),
        node_info=NodeInfo(path=path),
    )
