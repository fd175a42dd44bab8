"""What the A2A methods do: start a task's invocation, wait for it, read tasks, cancel them.

A context is a session of the user ``A2A_USER_<contextId>`` (google-adk's identity for callers
the server did not authenticate; ``yadk serve``'s token admits a caller, it does not name one).
A task's invocation runs in its own asyncio task holding the session's turn lock, so a caller
that goes away does not stop it; ``CancelTask`` does. Tasks of this process are tracked in
``runs`` only while they run: everything else is read from the session store.
"""

from __future__ import annotations

import asyncio
import json
import logging
import uuid
from typing import Any, Final

from yadk._contexts import RunConfig
from yadk._tool_confirmation import REQUEST_CONFIRMATION, plain_answer
from yadk.a2a import PartError, parts_from_a2a
from yadk.errors import AlreadyExistsError, SessionNotFoundError
from yadk.events import Event
from yadk.runner import Runner
from yadk.serve._a2a_rpc import (
    INTERNAL_ERROR,
    INVALID_PARAMS,
    TASK_NOT_CANCELABLE,
    TASK_NOT_FOUND,
    RpcError,
)
from yadk.serve._a2a_tasks import (
    CANCEL_KEY,
    TASK_KEY,
    TERMINAL,
    TaskView,
    context_of,
    new_task_id,
    task_view,
)
from yadk.serve._served import Served
from yadk.sessions import Session, SessionBusy
from yadk.types import Content, FunctionResponse, Part

__all__ = ["USER_PREFIX", "A2AService", "TaskRun", "user_of"]

logger = logging.getLogger("yadk.serve.a2a")

MAX_CONTEXT_ID: Final = 200
USER_PREFIX: Final = "A2A_USER_"


def user_of(context_id: str) -> str:
    return USER_PREFIX + context_id


class TaskRun:
    """One task's invocation running in this process, and who listens to it."""

    def __init__(self, app: str, task_id: str, context_id: str) -> None:
        self.app = app
        self.task_id = task_id
        self.context_id = context_id
        self.events: list[Event] = []
        self.listeners: list[asyncio.Queue[Event | None]] = []
        self.stored = asyncio.Event()  # the message is in the session: GetTask finds the task
        self.finished = asyncio.Event()
        self.cancel_requested = False
        self.error: str | None = None  # what stopped the invocation other than an error event
        self.resumed = False  # the task began in an earlier message: its past is in the store
        self.job: asyncio.Task[None] | None = None
        self.key = ("", "", "")  # the session's turn lock it holds

    def listen(self, *, replay: bool = False) -> asyncio.Queue[Event | None]:
        """A queue of the events from now on (with ``replay``, from the start), ``None`` at
        the end."""
        queue: asyncio.Queue[Event | None] = asyncio.Queue()
        if replay:
            for event in self.events:
                queue.put_nowait(event)
        if self.finished.is_set():
            queue.put_nowait(None)
        else:
            self.listeners.append(queue)
        return queue

    def publish(self, event: Event) -> None:
        self.events.append(event)
        self.stored.set()
        for queue in self.listeners:
            queue.put_nowait(event)

    def close(self) -> None:
        self.stored.set()
        self.finished.set()
        for queue in self.listeners:
            queue.put_nowait(None)
        self.listeners.clear()


class A2AService:
    def __init__(self, served: Served) -> None:
        self.served = served
        self.runs: dict[str, TaskRun] = {}

    async def stop(self) -> None:
        """Cancel the invocations still running (the server is shutting down)."""
        jobs = [run.job for run in self.runs.values() if run.job is not None]
        for job in jobs:
            job.cancel()
        await asyncio.gather(*jobs, return_exceptions=True)

    # --- reading -------------------------------------------------------------------------------

    async def session(self, app: str, context_id: str) -> Session | None:
        return await self.served.sessions.get_session(
            app_name=app, user_id=user_of(context_id), session_id=context_id
        )

    async def task(self, app: str, task_id: Any) -> TaskView:
        """The task ``task_id`` of ``app`` as stored; -32001 when there is none."""
        if not isinstance(task_id, str) or not task_id:
            raise RpcError(INVALID_PARAMS, "Invalid params: 'id' must be the task's id (a string)")
        context_id = context_of(task_id)
        session = await self.session(app, context_id) if context_id else None
        view = await self.stored_task(app, session, task_id) if session is not None else None
        if view is None:
            raise RpcError(TASK_NOT_FOUND, f"Task not found: {task_id!r}")
        return view

    async def stored_task(self, app: str, session: Session, task_id: str) -> TaskView | None:
        """The task ``task_id`` of ``session`` (``None`` if it has none). A task its events
        leave unfinished that no process runs (its session's turn lock is free: every
        invocation holds it, and a dead process's lock is released with it) has failed; the
        session is read again under the lock, in case its invocation ended meanwhile."""
        run = self.runs.get(task_id)
        view = task_view(session.id, session.events, task_id, running=run is not None)
        if view is None or view.state != "working" or run is not None:
            return view
        key = (app, session.user_id, session.id)
        try:
            await self.served.locks.acquire(key, wait=0)
        except SessionBusy:
            return view  # running elsewhere (another replica), or starting here
        try:
            again = await self.session(app, session.id)
            if again is None or task_id in self.runs:
                return view
            return task_view(again.id, again.events, task_id, lost=True)
        finally:
            await self.served.locks.released(key)

    async def saved_files(self, app: str, view: TaskView) -> list[tuple[str, Part]]:
        """The files the task saved as artifacts (latest version each task saved)."""
        files = []
        for name, version in view.saved_artifacts.items():
            part = await self.served.artifacts.load_artifact(
                app_name=app,
                user_id=user_of(view.context_id),
                session_id=view.context_id,
                filename=name,
                version=version,
            )
            if part is not None:
                files.append((name, part))
        return files

    # --- sending -------------------------------------------------------------------------------

    async def send(self, app: str, params: dict[str, Any]) -> TaskRun:
        """Start the invocation a message asks for (a new task, or the next turn of one that
        waits for input) and return it running."""
        runner = self.served.runner(app)
        message = params.get("message")
        if not isinstance(message, dict):
            raise RpcError(INVALID_PARAMS, "Invalid params: 'message' must be an object")
        role = message.get("role")
        if role not in ("user", "ROLE_USER"):
            raise RpcError(
                INVALID_PARAMS, f"Invalid params: message.role must be the user's, got {role!r}"
            )
        try:
            parts = parts_from_a2a(message.get("parts"), where="message.parts")
        except PartError as exc:
            raise RpcError(INVALID_PARAMS, f"Invalid params: {exc}") from None
        if not parts:
            raise RpcError(INVALID_PARAMS, "Invalid params: message.parts is empty")
        context_id = _text(message.get("contextId"), "message.contextId")
        task_id = _text(message.get("taskId"), "message.taskId")
        if task_id is not None:
            view = await self.task(app, task_id)
            if context_id is not None and context_id != view.context_id:
                raise RpcError(
                    INVALID_PARAMS,
                    f"Invalid params: task {task_id!r} belongs to context {view.context_id!r},"
                    f" not {context_id!r}",
                )
            if view.state in TERMINAL or view.state == "working":
                raise RpcError(
                    INVALID_PARAMS,
                    f"Task {task_id!r} is {view.state}: only a task waiting for input takes"
                    " another message. Send it without taskId to start a new task.",
                )
            content = _resume_content(parts, view)
            context_id = view.context_id
            resumed = True
        else:
            context_id = context_id or str(uuid.uuid4())
            if len(context_id) > MAX_CONTEXT_ID:
                raise RpcError(
                    INVALID_PARAMS,
                    f"Invalid params: message.contextId is longer than {MAX_CONTEXT_ID} characters",
                )
            task_id = new_task_id(context_id)
            content = Content(role="user", parts=parts)
            resumed = False
        return await self._start(runner, app, context_id, task_id, content, resumed)

    async def _create_session(self, app: str, context_id: str) -> None:
        try:
            await self.served.sessions.create_session(
                app_name=app, user_id=user_of(context_id), session_id=context_id
            )
        except AlreadyExistsError:
            pass  # another request of the same context created it meanwhile

    async def _start(
        self,
        runner: Runner,
        app: str,
        context_id: str,
        task_id: str,
        content: Content,
        resumed: bool,
    ) -> TaskRun:
        key = (app, user_of(context_id), context_id)
        try:
            await self.served.locks.acquire(key)
        except SessionBusy:
            raise RpcError(
                INTERNAL_ERROR,
                f"Context {context_id!r} is busy: another task is running in it. Wait for it to"
                " finish (GetTask), or send in another context.",
            ) from None
        run = TaskRun(app, task_id, context_id)
        run.key = key
        run.resumed = resumed
        self.runs[task_id] = run
        run.job = asyncio.create_task(self._drive(run, runner, content, key))
        return run

    async def _drive(
        self, run: TaskRun, runner: Runner, content: Content, key: tuple[str, str, str]
    ) -> None:
        try:
            for attempt in range(2):
                stream = runner.run_async(
                    user_id=key[1],
                    session_id=key[2],
                    new_message=content,
                    state_delta={TASK_KEY: run.task_id},
                    run_config=RunConfig(),
                )
                try:
                    async for event in stream:
                        run.publish(event)
                    break
                except SessionNotFoundError:
                    # A new context: its session is made on its first message (no read of the
                    # store before each message of a context that exists).
                    if attempt or run.events:
                        raise
                    await self._create_session(run.app, run.context_id)
        except asyncio.CancelledError:
            if run.cancel_requested:
                await self._mark_canceled(run)
        except Exception as exc:
            logger.exception("A2A task %s of app %s failed", run.task_id, run.app)
            run.error = f"{type(exc).__name__}: {exc}"
        finally:
            await self._end(run)

    async def _end(self, run: TaskRun) -> None:
        """Forget the run, release its session, tell its listeners (once)."""
        if run.finished.is_set():
            return
        self.runs.pop(run.task_id, None)
        try:
            await self.served.locks.released(run.key)
        finally:
            run.close()

    async def _mark_canceled(self, run: TaskRun, session: Session | None = None) -> None:
        if session is None:
            session = await self.session(run.app, run.context_id)
        if session is None:
            return
        invocation = next(
            (e.invocation_id for e in reversed(run.events) if e.author == "user"), None
        )
        if invocation is None:
            invocation = next(
                (
                    e.invocation_id
                    for e in reversed(session.events)
                    if e.actions.state_delta.get(TASK_KEY) == run.task_id
                ),
                None,
            )
        if invocation is None:  # cancelled before its message was stored: no task to mark
            return
        await self.served.sessions.append_event(
            session,
            Event(
                invocation_id=invocation,
                author=self.served.runner(run.app).agent.name,
                custom_metadata={CANCEL_KEY: run.task_id},
            ),
        )

    async def cancel(self, app: str, task_id: Any) -> TaskView:
        view = await self.task(app, task_id)
        run = self.runs.get(view.id)
        if run is not None and run.job is not None:
            run.cancel_requested = True
            run.job.cancel()
            await asyncio.wait({run.job})
            # A job cancelled before it began never ran its own cleanup.
            await self._end(run)
        elif view.state in TERMINAL:
            raise RpcError(
                TASK_NOT_CANCELABLE, f"Task {view.id!r} cannot be canceled: it is {view.state}"
            )
        else:  # waiting for input, or its invocation's process is gone
            key = (app, user_of(view.context_id), view.context_id)
            async with self.served.locked(key):
                session = await self.session(app, view.context_id)
                stopped = TaskRun(app, view.id, view.context_id)
                await self._mark_canceled(stopped, session)
        return await self.task(app, view.id)

    async def finished_view(self, run: TaskRun) -> TaskView:
        """The task once its run has ended: from the run's own events when the task began with
        this message (no store read), else from the store."""
        await run.finished.wait()
        if run.resumed or run.cancel_requested:
            view = await self.task(run.app, run.task_id)
        else:
            view = self.view_of(run, done=True)
        if run.error is not None and view.state not in TERMINAL:
            view.state = "failed"
            view.status_parts = [Part(text=f"The agent's invocation stopped: {run.error}")]
        return view

    def view_of(self, run: TaskRun, *, done: bool, asked_only: bool = False) -> TaskView:
        """The task as its own run's events show it (a task started by this message); with
        ``asked_only``, its user's events only."""
        events = [e for e in run.events if e.author == "user"] if asked_only else run.events
        view = task_view(run.context_id, events, run.task_id, running=not done)
        if view is None:  # nothing stored yet: the message is on its way
            return TaskView(
                id=run.task_id,
                context_id=run.context_id,
                state="submitted",
                status_parts=[],
                answer=[],
                history=[],
                timestamp=0.0,
                pending=[],
                saved_artifacts={},
                last_invocation="",
                agent="",
            )
        return view


def _text(value: Any, where: str) -> str | None:
    if value is None or value == "":
        return None
    if not isinstance(value, str):
        raise RpcError(INVALID_PARAMS, f"Invalid params: {where} must be a string")
    return value


def _resume_content(parts: list[Part], view: TaskView) -> Content:
    """The message that answers what the task waits for: function responses as sent; a text
    answering the only waiting long-running call as that call's response (a workflow's
    question reads the text itself)."""
    if any(p.function_response is not None for p in parts):
        return Content(role="user", parts=parts)
    calls = [c for c in view.pending if c.name != "adk_request_input"]
    if len(calls) == 1 and len(view.pending) == 1:
        call = calls[0]
        text = "\n".join(p.text for p in parts if p.text is not None)
        answer = _confirmation(text, view) if call.name == REQUEST_CONFIRMATION else None
        response = FunctionResponse(
            id=call.id, name=call.name, response=answer if answer else {"result": text}
        )
        return Content(role="user", parts=[Part(function_response=response)])
    if len(calls) > 1:
        names = ", ".join(f"{c.name} ({c.id})" for c in calls)
        raise RpcError(
            INVALID_PARAMS,
            f"Task {view.id!r} waits for {len(calls)} calls ({names}): answer each with a"
            " function_response data part (metadata adk_type: function_response).",
        )
    return Content(role="user", parts=parts)


def _confirmation(text: str, view: TaskView) -> dict[str, Any]:
    """A text answering a tool confirmation request as the ``ToolConfirmation`` it means:
    yes/no words, or the JSON object itself (as ``yadk run`` reads a typed answer)."""
    try:
        value: Any = json.loads(text)
    except ValueError:
        value = text
    value = plain_answer(value if isinstance(value, dict | bool) else text)
    if isinstance(value, dict):
        return value
    original = view.pending[0].args.get("originalFunctionCall") or {}
    raise RpcError(
        INVALID_PARAMS,
        f"Task {view.id!r} waits for the confirmation of the tool call"
        f" {original.get('name', '?')}(): answer yes or no, or a JSON object"
        f' ({{"confirmed": true, "payload": ...}}), not {text[:80]!r}',
    )
