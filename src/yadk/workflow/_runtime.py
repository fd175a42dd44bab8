"""Running a graph: nodes started as their triggers arrive (up to ``max_concurrency`` at once),
each run's yields turned into events with its path, outputs routed along edges, joins fed once
all their inputs are in, failures retried, timed out, or ending the run."""

from __future__ import annotations

import asyncio
import dataclasses
import functools
from collections import Counter, deque
from collections.abc import Awaitable, Callable, Coroutine
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel

from yadk._contexts import InvocationContext
from yadk.events import Event, EventActions
from yadk.types import Content
from yadk.workflow._adapters import AgentNode, ParallelWorker, WorkflowNode
from yadk.workflow._base_node import START, BaseNode
from yadk.workflow._build import build_node
from yadk.workflow._confirmation import confirmation_gate
from yadk.workflow._context import NodeContext
from yadk.workflow._errors import (
    NodeInterruptedError,
    NodeTimeoutError,
    WorkflowConfigurationError,
)
from yadk.workflow._events import (
    NodeResult,
    bare_event,
    error_event,
    event_of,
    output_event,
    stamp,
)
from yadk.workflow._function_node import FunctionNode, NodeInputError
from yadk.workflow._request_input import RequestInput
from yadk.workflow._resume import RESUME_KEY, CompletedRuns, ResumePoint, input_record
from yadk.workflow._schemas import check_data

if TYPE_CHECKING:
    from yadk.agents import Sink
    from yadk.workflow._workflow import Workflow

__all__ = ["NodeFailed", "NodeResult", "Runtime", "error_event"]

Sleep = Callable[[float], Awaitable[None]]


class NodeFailed(Exception):
    """A node failed for good; the invocation ends with one error event naming it (and
    carrying the state the run wrote before it failed)."""

    def __init__(
        self,
        error: BaseException,
        *,
        path: str,
        author: str,
        actions: EventActions | None = None,
        isolation_scope: str | None = None,
    ) -> None:
        self.error = error
        self.path = path
        self.author = author
        self.actions = actions
        self.isolation_scope = isolation_scope
        super().__init__(str(error))


@dataclass
class _GraphRun:
    """One run of one workflow's graph: what has completed and what is queued."""

    workflow: Workflow
    path: str
    author: str
    ic: InvocationContext
    output_for: list[str]
    state_schema: type[BaseModel] | None = None
    counters: dict[str, int] = field(default_factory=dict)
    outputs: dict[str, Any] = field(default_factory=dict)
    completed: set[str] = field(default_factory=set)
    waiting_for: dict[str, set[str]] = field(default_factory=dict)
    triggers: deque[tuple[str, Any]] = field(default_factory=deque)
    running: dict[str, asyncio.Task[NodeResult]] = field(default_factory=dict)
    waiting: set[str] = field(default_factory=set)


class Runtime:
    """Everything one invocation of a workflow shares: the event stream, the back-off sleep,
    the point to resume at, and the counters of nodes scheduled at run time."""

    def __init__(
        self,
        *,
        sink: Sink,
        sleep: Sleep,
        resume: ResumePoint | None = None,
        done: CompletedRuns | None = None,
    ) -> None:
        self.sink = sink
        self.sleep = sleep
        self.resume = resume
        # Resuming: what the runs did before the question (by path), and the path of the run
        # that asked it.
        done = done or CompletedRuns()
        self._completed = done.outputs
        self._routes = done.routes
        self._runs = done.runs
        self._asked_at = resume.path if resume is not None else None
        # The inputs of the runs that started each ``run_node`` child (by the child's path).
        self._lineage: dict[str, dict[str, Any]] = {}
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
        state_schema: type[BaseModel] | None = None,
    ) -> NodeResult:
        graph = workflow.graph
        if graph is None:
            return NodeResult()
        schema = workflow.state_schema or state_schema  # a nested workflow inherits it
        run = _GraphRun(workflow, path, workflow.name, ic, output_for, schema)
        if not self._seed_resume(run, node_input):
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

    def _seed_resume(self, run: _GraphRun, node_input: Any) -> bool:
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
        self._restore(run, node_input, f"{run.path}/{segment}")
        run.counters[name] = int(run_id) - 1
        leaf = resume.path == f"{run.path}/{segment}"
        node = graph.by_name[name]
        if leaf and not node.rerun_on_resume:
            # The answer is the node's output: it completes without running again.
            self.resume = None
            run.counters[name] = int(run_id)
            self._complete(run, name, NodeResult(output=resume.answer, has_output=True))
            return True
        if leaf:
            run.triggers.append((name, resume.node_input))
        else:  # a nested workflow (it seeds itself), or a node that ran the waiting one
            run.triggers.append((name, resume.inputs.get(f"{run.path}/{segment}")))
        return True

    def _restore(self, run: _GraphRun, node_input: Any, resumed: str) -> None:
        """What the runs of this graph before the question still count for, as google-adk
        replays them: the outputs of those that completed (with or without one), the joins they
        fed (a join fires once its other inputs complete after the answer), their run ids (a
        node's next run takes the next id). A node they triggered that left no event runs
        (again), as in google-adk. ``resumed``: the run the resume goes through."""
        graph = run.workflow.graph
        assert graph is not None
        prefix = run.path + "/"
        ran: dict[str, bool] = {}  # this graph's runs, in the order they first left an event
        for path, completed in self._runs.items():
            if not path.startswith(prefix):
                continue
            segment = path[len(prefix) :].split("/", 1)[0]
            if f"{prefix}{segment}" == path:
                ran[path] = completed
            else:  # a run inside it: it ran, it did not complete (else it would be listed)
                ran.setdefault(f"{prefix}{segment}", False)
        ran.setdefault(resumed, False)
        expected: dict[str, list[Any]] = {}  # the triggers of each node, in order
        for target in graph.next_nodes(START.name, None):
            if not graph.by_name[target].requires_all_predecessors:
                expected.setdefault(target, []).append(node_input)
        runs: Counter[str] = Counter()
        for path, completed in ran.items():
            name, _, run_id = path[len(prefix) :].rpartition("@")
            if name not in graph.by_name or not run_id.isdigit():
                continue  # one of a ``run_node`` call
            run.counters[name] = max(run.counters.get(name, 0), int(run_id))
            runs[name] += 1
            if not completed or path == self._asked_at:
                continue
            output = self._completed.get(path)
            if path in self._completed:
                run.outputs[name] = output
            run.completed.add(name)
            for target in graph.next_nodes(name, self._routes.get(path)):
                if graph.by_name[target].requires_all_predecessors:
                    self._trigger(run, target, None, name, replayed=True)
                else:
                    expected.setdefault(target, []).append(output)
        for name, inputs in expected.items():
            missing = len(inputs) - runs[name]
            for value in inputs[len(inputs) - missing :] if missing > 0 else ():
                run.triggers.append((name, value))

    def _trigger(
        self, run: _GraphRun, target: str, value: Any, source: str, *, replayed: bool = False
    ) -> None:
        graph = run.workflow.graph
        assert graph is not None
        node = graph.by_name[target]
        if not node.requires_all_predecessors:
            if not replayed:
                run.triggers.append((target, value))
            return
        predecessors = graph.predecessors[target]
        waiting = run.waiting_for.get(target)
        if waiting is None:  # counted down, so a join of n inputs costs n steps, not n * n
            waiting = run.waiting_for[target] = set(predecessors) - {START.name}
        waiting.discard(source)
        if not waiting:
            del run.waiting_for[target]
            if replayed:  # it fired before the question
                return
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
            state_schema=run.state_schema,
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
        run_id: int | str,
        author: str,
        node_input: Any,
        output_for: list[str],
        state_schema: type[BaseModel] | None = None,
    ) -> NodeResult:
        """One run of ``node`` (with its retries): its events emitted, its result returned;
        raises ``NodeFailed`` when it fails for good. Traced, each attempt has a span of its
        own, as in google-adk (an agent's is its own ``invoke_agent``)."""
        path = f"{parent_path}/{node.name}@{run_id}"
        own_output_for = [path, *output_for]
        resume_inputs: dict[str, Any] = {}
        if self.resume is not None and self.resume.path == path:
            resume_inputs = {self.resume.interrupt_id: self.resume.answer}
            self.resume = None
        attempt = 1
        while True:
            span = _start_span(node, ic)
            ctx = NodeContext(
                ic if span is None else dataclasses.replace(ic, span=span, outer_span=ic.span),
                runtime=self,
                node_path=path,
                author=author,
                attempt_count=attempt,
                resume_inputs=resume_inputs,
                state_schema=node.state_schema or state_schema,
                output_for=own_output_for,
                node_input=node_input,
            )
            try:
                result = await self._attempt_in_time(node, ctx, node_input, own_output_for)
            except NodeFailed as failed:
                _end_span(ic, span, failed.error if isinstance(failed.error, Exception) else failed)
                raise
            except NodeInterruptedError:
                # A node it ran with ctx.run_node asked the user: it waits too, and runs again
                # when the answer comes (the children that completed are not run again).
                result = await self._flush(ctx, NodeResult(interrupted=True))
            except NodeInputError as exc:
                _end_span(ic, span, exc.error)
                raise NodeFailed(exc.error, path=parent_path, author=author) from exc
            except Exception as exc:
                _end_span(ic, span, exc)
                config = node.retry_config
                actions = ctx.take_actions()
                if config is None or not config.should_retry(exc, attempt):
                    raise NodeFailed(
                        exc,
                        path=path,
                        author=author,
                        actions=actions,
                        isolation_scope=ic.isolation_scope,
                    ) from exc
                # Between the attempts' spans, as in google-adk; the invocation goes on.
                failed_attempt = error_event(ic, exc, path=path, author=author, actions=actions)
                ic.counter.retried_errors.add(failed_attempt.id)
                await self._emit(ctx, failed_attempt, in_span=False)
                await self.sleep(config.delay(attempt))
                attempt += 1
                continue
            except BaseException:
                _end_span(ic, span, None)
                raise
            _end_span(ic, span, None)
            return result

    async def _attempt_in_time(
        self, node: BaseNode, ctx: NodeContext, node_input: Any, output_for: list[str]
    ) -> NodeResult:
        run = self._attempt(node, ctx, node_input, output_for)
        if node.timeout is None:
            return await run
        try:
            async with asyncio.timeout(node.timeout):
                return await run
        except TimeoutError:
            raise NodeTimeoutError(node_name=node.name, timeout=node.timeout) from None

    async def _attempt(
        self, node: BaseNode, ctx: NodeContext, node_input: Any, output_for: list[str]
    ) -> NodeResult:
        result = NodeResult()
        try:
            return await self._attempt_run(node, ctx, node_input, output_for, result)
        except NodeInterruptedError as stop:
            if stop.path is not None:
                raise  # a question: the node waits (``run_node``)
            # ``raise_on_wait``: the child is still waiting, so this run ends here, with what
            # it yielded so far (google-adk then goes on to the node's successors).
            return await self._flush(ctx, result)

    async def _attempt_run(
        self,
        node: BaseNode,
        ctx: NodeContext,
        node_input: Any,
        output_for: list[str],
        result: NodeResult,
    ) -> NodeResult:
        if isinstance(node, WorkflowNode):
            return await self._run_child_workflow(node, ctx, node_input, output_for)
        if isinstance(node, ParallelWorker):
            return await self._run_workers(node, ctx, node_input, output_for)
        schema = node.output_schema
        if isinstance(node, FunctionNode):
            if node.require_confirmation:
                gate = await confirmation_gate(
                    node, ctx, node_input, node.bind_checked(ctx, node_input)
                )
                if gate is not None:
                    await self._emit_item(gate, ctx, result, node_input, output_for, None)
                    return await self._flush(ctx, result)
            if not node.yields:
                # A plain function: called directly, without an async generator around it.
                item = await node.call(ctx, node_input)
                if item is None:
                    return await self._flush(ctx, result)
                if isinstance(item, (Event, RequestInput, Content)):
                    await self._emit_item(item, ctx, result, node_input, output_for, schema)
                elif ctx.output_claimed:
                    # A child run's output is this node's (``use_as_output``): no event of its own.
                    result.output, result.has_output = item, True
                else:
                    await self._emit(ctx, output_event(item, ctx, result, output_for, schema))
                return await self._flush(ctx, result)
        elif node.input_schema is not None:
            try:
                node_input = check_data(node.input_schema, node_input)
            except ValueError as exc:
                raise NodeInputError(exc) from exc
        agen = node._run_impl(ctx=ctx, node_input=node_input)
        try:
            async for item in agen:
                if item is not None:
                    await self._emit_item(item, ctx, result, node_input, output_for, schema)
        finally:
            await agen.aclose()
        return await self._flush(ctx, result)

    async def _emit_item(
        self,
        item: Any,
        ctx: NodeContext,
        result: NodeResult,
        node_input: Any,
        output_for: list[str],
        schema: Any,
    ) -> None:
        event = event_of(item, ctx, result, node_input)
        stamp(event, ctx, result, output_for, schema)
        if event.long_running_tool_ids and RESUME_KEY not in (event.custom_metadata or {}):
            # An agent's long-running call (a tool's, a confirmation request): the node waits
            # for its function response, as for a question, and resumes from what is kept here.
            result.interrupted = True
            event.custom_metadata = {
                **(event.custom_metadata or {}),
                RESUME_KEY: input_record(ctx.node_path, node_input, ctx.parent_inputs()),
            }
        if ctx.output_claimed and event.output is not None:
            # A child run's output is this node's (``use_as_output``): the output is not sent
            # again; what else the event carries is.
            event.output = None
            event.node_info.output_for = None  # type: ignore[union-attr]
            if event.content is None and event.actions.is_empty():
                return
        await self._emit(ctx, event)

    async def _emit(self, ctx: NodeContext, event: Event, *, in_span: bool = True) -> None:
        ic = ctx.invocation_context
        if ic.isolation_scope is not None and event.isolation_scope is None:
            event.isolation_scope = ic.isolation_scope
        if in_span and ic.trace is not None:  # the node's span lists its events (google-adk's)
            ic.trace.node_event(ic.span, event.id)
        await self.sink.emit(event)

    async def _flush(self, ctx: NodeContext, result: NodeResult) -> NodeResult:
        """State written after the node's last event goes out on an event of its own."""
        actions = ctx.take_actions()
        if not actions.is_empty():
            await self._emit(ctx, bare_event(ctx, actions))
        return result

    async def _run_child_workflow(
        self, node: WorkflowNode, ctx: NodeContext, node_input: Any, output_for: list[str]
    ) -> NodeResult:
        return await self.run_graph(
            node.workflow,
            ic=ctx.invocation_context,
            path=ctx.node_path,
            node_input=node_input,
            output_for=output_for,
            state_schema=ctx.state_schema,
        )

    async def _run_workers(
        self, node: ParallelWorker, ctx: NodeContext, node_input: Any, output_for: list[str]
    ) -> NodeResult:
        items = list(node_input) if isinstance(node_input, (list, tuple)) else [node_input]
        bound = asyncio.Semaphore(node.max_parallel_workers or max(1, len(items)))

        async def one(index: int, item: Any) -> NodeResult:
            path = f"{ctx.node_path}/{node.node.name}@{index + 1}"
            if path in self._completed and path != self._asked_at:
                # Resuming after one item's question: the items done before are not redone.
                return NodeResult(output=self._completed[path], has_output=True)
            self._lineage[path] = {ctx.node_path: node_input}
            async with bound:
                return await self.run_node(
                    node.node,
                    ic=ctx.invocation_context,
                    parent_path=ctx.node_path,
                    run_id=index + 1,
                    author=ctx.author,
                    node_input=item,
                    output_for=[],
                    state_schema=ctx.state_schema,
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
        stamp(event, ctx, result, output_for)
        await self._emit(ctx, event)
        return result

    # --- nodes scheduled at run time -------------------------------------------------------

    async def run_dynamic(
        self,
        ctx: NodeContext,
        value: Any,
        node_input: Any,
        *,
        use_as_output: bool = False,
        run_id: str | None = None,
        use_sub_branch: bool = False,
        override_branch: str | None = None,
        override_isolation_scope: str | None = None,
        raise_on_wait: bool = False,
    ) -> Any:
        node = self._dynamic_nodes.get(id(value))
        if node is None:
            node = build_node(value)
            self._dynamic_nodes[id(value)] = node
            self._dynamic_keep.append(value)
        key = f"{ctx.node_path}/{node.name}"
        run: int | str
        if run_id is None:
            run = self._dynamic_counters.get(key, 0) + 1
            self._dynamic_counters[key] = run
        else:
            run = run_id
        path = f"{ctx.node_path}/{node.name}@{run}"
        if path in self._completed and path != self._asked_at:
            return self._completed[path]  # completed before the question: not run again
        if path == self._asked_at and self.resume is not None and not node.rerun_on_resume:
            answer = self.resume.answer  # the answer is its output
            self.resume = None
            return answer
        self._lineage[path] = {ctx.node_path: ctx.node_input}
        ic = ctx.invocation_context
        branch = ic.branch if override_branch is None else override_branch
        if use_sub_branch:
            segment = f"{node.name}@{run}"
            branch = f"{branch}.{segment}" if branch else segment
        if branch != ic.branch:
            ic = dataclasses.replace(ic, branch=branch)
        if override_isolation_scope is not None:
            ic = dataclasses.replace(ic, isolation_scope=override_isolation_scope)
        output_for: list[str] = []
        if use_as_output:
            output_for = ctx.output_for
            ctx.claim_output()
        result = await self.run_node(
            node,
            ic=ic,
            parent_path=ctx.node_path,
            run_id=run,
            author=ctx.author,
            node_input=node_input,
            output_for=output_for,
            state_schema=ctx.state_schema,
        )
        if result.interrupted:
            raise NodeInterruptedError(path)
        if (
            raise_on_wait
            and result.output is None
            and (isinstance(node, WorkflowNode) or node.wait_for_output)
        ):
            raise NodeInterruptedError()
        return result.output

    def parent_inputs(self, path: str) -> dict[str, Any]:
        """The inputs of every run that started a run on ``path`` with ``run_node``."""
        found: dict[str, Any] = {}
        prefix = path
        while prefix:
            found.update(self._lineage.get(prefix, {}))
            prefix = prefix.rpartition("/")[0]
        return found


def _report(
    done: asyncio.Queue[tuple[str, asyncio.Task[NodeResult]]],
    name: str,
    task: asyncio.Task[NodeResult],
) -> None:
    done.put_nowait((name, task))


async def _cancel(tasks: Any) -> None:
    pending = [t for t in tasks if not t.done()]
    for task in pending:
        task.cancel()
    if pending:
        await asyncio.gather(*pending, return_exceptions=True)


def _start_span(node: BaseNode, ic: InvocationContext) -> Any:
    """The span of one attempt of ``node``, or None (not traced; an agent's span is its own)."""
    if ic.trace is None or isinstance(node, AgentNode):
        return None
    return ic.trace.start_node(node, ic, ic.span)


def _end_span(ic: InvocationContext, span: Any, error: BaseException | None) -> None:
    if span is not None and ic.trace is not None:
        ic.trace.end(span, error if isinstance(error, Exception) else None)
