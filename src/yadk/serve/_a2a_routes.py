"""``POST /a2a/{app}``: each served app as an A2A agent (JSON-RPC, protocol 1.0 and 0.3), and
its card at ``/a2a/{app}/.well-known/agent-card.json``.

Errors of the call (bad JSON, unknown method, missing task) are JSON-RPC error answers with
HTTP 200, as JSON-RPC over HTTP has them; a path naming no served app is a 404 like every route.
Streams are server-sent events, one JSON-RPC response per event.
"""

from __future__ import annotations

import datetime
from collections.abc import AsyncGenerator, AsyncIterator, Awaitable, Callable
from contextlib import aclosing
from typing import TYPE_CHECKING, Any

from fastapi import APIRouter, Request
from fastapi.responses import Response

from yadk.errors import SessionStoreError
from yadk.serve._a2a_card import app_card
from yadk.serve._a2a_follow import follow, stopped
from yadk.serve._a2a_rpc import (
    INTERNAL_ERROR,
    INVALID_PARAMS,
    PUSH_NOT_SUPPORTED,
    TASK_NOT_FOUND,
    UNSUPPORTED_OPERATION,
    RpcCall,
    RpcError,
    error_body,
    read_call,
    result_body,
)
from yadk.serve._a2a_service import USER_PREFIX, A2AService, TaskRun, user_of
from yadk.serve._a2a_tasks import TERMINAL, TaskView, answer_parts, task_ids
from yadk.serve._a2a_wire import (
    artifact_update,
    status_update,
    task_json,
    wrap,
)
from yadk.serve._json import json_response
from yadk.serve._served import Served
from yadk.serve._sse import EventStream, frame
from yadk.types import Part

if TYPE_CHECKING:
    from yadk.sessions import Session, SessionKey

__all__ = ["a2a_routes"]

MAX_PAGE = 100
DEFAULT_PAGE = 50
CONTEXT_PAGE = 100  # session keys read at a time by ListTasks without contextId


def a2a_routes(
    served: Served, *, on_stop: Callable[[Callable[[], Awaitable[None]]], None]
) -> APIRouter:
    router = APIRouter(tags=["a2a"])
    service = A2AService(served)
    on_stop(service.stop)

    @router.post("/a2a/{app_name}", response_class=Response, response_model=None)
    async def a2a_call(app_name: str, request: Request) -> Response:
        served.app(app_name)  # 404 for an app that is not served
        call: RpcCall | None = None
        try:
            call = read_call(await request.body(), request.headers.get("a2a-version"))
            return await _answer(service, app_name, call, request)
        except RpcError as exc:
            request_id = call.id if call is not None else exc.request_id
            return json_response(error_body(request_id, exc))
        except SessionStoreError as exc:
            return json_response(error_body(call.id if call else None, _store_error(exc)))

    @router.get("/a2a/{app_name}/.well-known/agent-card.json")
    async def a2a_card(app_name: str, request: Request) -> Response:
        return json_response(await app_card(served, app_name, request))

    return router


async def _answer(service: A2AService, app: str, call: RpcCall, request: Request) -> Response:
    params = call.params
    if call.action == "push":
        raise RpcError(
            PUSH_NOT_SUPPORTED, "Push Notification is not supported: this agent does not push."
        )
    if call.action == "card":
        card = await app_card(service.served, app, request)
        return json_response(result_body(call.id, card))
    if call.action == "send":
        run = await service.send(app, params)
        if _returns_immediately(params, call):
            await run.stored.wait()
            view = service.view_of(run, done=False)
        else:
            view = await service.finished_view(run)
        task = await _task_json(service, app, view, call, params)
        return json_response(result_body(call.id, wrap("task", task, call.version)))
    if call.action == "stream":
        run = await service.send(app, params)
        return _stream(_run_frames(service, call, run, first=True))
    if call.action == "get":
        view = await service.task(app, params.get("id"))
        task = await _task_json(service, app, view, call, params)
        return json_response(result_body(call.id, task))
    if call.action == "cancel":
        view = await service.cancel(app, params.get("id"))
        task = await _task_json(service, app, view, call, params)
        return json_response(result_body(call.id, task))
    if call.action == "subscribe":
        view = await service.task(app, params.get("id"))
        if view.state in TERMINAL:
            raise RpcError(
                UNSUPPORTED_OPERATION,
                f"Task {view.id!r} is {view.state}: there is nothing to subscribe to",
            )
        running = service.runs.get(view.id)
        task = await _task_json(service, app, view, call, params)
        if running is not None:
            return _stream(_run_frames(service, call, running, first=False, snapshot=task))
        if stopped(view):  # waiting for input: the snapshot
            return _stream(_single(call, task))
        return _stream(_stored_frames(service, app, call, view, task))
    assert call.action == "list"
    return json_response(result_body(call.id, await _list(service, app, call)))


def _returns_immediately(params: dict[str, Any], call: RpcCall) -> bool:
    config = params.get("configuration")
    if not isinstance(config, dict):
        return False
    if call.version == "0.3":
        return config.get("blocking") is False
    return config.get("returnImmediately") is True


def _history_length(params: dict[str, Any]) -> int | None:
    config = params.get("configuration")
    value = params.get("historyLength")
    if value is None and isinstance(config, dict):
        value = config.get("historyLength")
    if value is None:
        return None
    if isinstance(value, str) and value.isdigit():
        value = int(value)
    if not isinstance(value, int) or isinstance(value, bool) or value < 0:
        raise RpcError(INVALID_PARAMS, "Invalid params: historyLength must be a whole number >= 0")
    return value


async def _task_json(
    service: A2AService, app: str, view: TaskView, call: RpcCall, params: dict[str, Any]
) -> dict[str, Any]:
    saved = await service.saved_files(app, view) if view.saved_artifacts else []
    return task_json(
        view,
        call.version,
        history_length=_history_length(params),
        saved=saved,
        include_artifacts=params.get("includeArtifacts", True) is not False,
    )


def _stream(frames: AsyncIterator[bytes]) -> Response:
    stream = EventStream(frames)
    stream.start()
    return stream


async def _single(call: RpcCall, task: dict[str, Any]) -> AsyncIterator[bytes]:
    yield frame(result_body(call.id, wrap("task", task, call.version)))


async def _run_frames(
    service: A2AService,
    call: RpcCall,
    run: TaskRun,
    *,
    first: bool,
    snapshot: dict[str, Any] | None = None,
) -> AsyncIterator[bytes]:
    """The stream of a running task: the task, working, each answer as an artifact update,
    then the final status. A caller that goes away stops listening, not the task."""
    queue = run.listen(replay=first)
    version = call.version

    def out(kind: str, payload: dict[str, Any]) -> bytes:
        return frame(result_body(call.id, wrap(kind, payload, version)))

    try:
        await run.stored.wait()
        view = service.view_of(run, done=False)
        if snapshot is None:  # the task as submitted: the caller's message; the rest follows
            submitted = task_json(service.view_of(run, done=False, asked_only=True), version)
            submitted["status"]["state"] = (
                "submitted" if version == "0.3" else "TASK_STATE_SUBMITTED"
            )
            yield out("task", submitted)
        else:
            yield out("task", snapshot)
        yield out("statusUpdate", status_update(view, version, "working"))
        appended = not first
        held: list[Part] = []  # words beside a long-running call: the question, if it stops
        while True:
            event = await queue.get()
            if event is None:
                break
            parts = answer_parts(event)
            if parts and event.long_running_tool_ids:
                held = parts
                continue
            if parts or held:
                parts, held = held + parts, []
                yield out("artifactUpdate", artifact_update(view, parts, version, append=appended))
                appended = True
        final = await service.finished_view(run)
        if held and final.state != "input-required":
            yield out("artifactUpdate", artifact_update(view, held, version, append=appended))
        yield out("statusUpdate", status_update(final, version))
    except RpcError as exc:
        yield frame(error_body(call.id, exc))
    except SessionStoreError as exc:
        yield frame(error_body(call.id, _store_error(exc)))
    finally:
        if queue in run.listeners:
            run.listeners.remove(queue)


async def _stored_frames(
    service: A2AService, app: str, call: RpcCall, view: TaskView, snapshot: dict[str, Any]
) -> AsyncIterator[bytes]:
    """The stream of a task another process runs (a replica sharing the store), read from the
    store as it goes: the task, working, each new answer as an artifact update, then the final
    status once the task ends or waits for input."""
    version = call.version

    def out(kind: str, payload: dict[str, Any]) -> bytes:
        return frame(result_body(call.id, wrap(kind, payload, version)))

    session: Session | None = None

    async def read() -> TaskView:
        nonlocal session
        found = None
        if session is None:
            session = await service.session(app, view.context_id)
        elif not await service.served.sessions.refresh_session(session):
            session = None
        if session is not None:
            found = await service.stored_task(app, session, view.id)
        if found is None:
            raise RpcError(TASK_NOT_FOUND, f"Task not found: {view.id!r} (its context was deleted)")
        return found

    try:
        yield out("task", snapshot)
        yield out("statusUpdate", status_update(view, version, "working"))
        sent = len(view.answer)
        latest = view
        async for latest in follow(read, service.served.locks.clock, seen=view):
            if len(latest.answer) > sent:
                parts = latest.answer[sent:]
                yield out("artifactUpdate", artifact_update(latest, parts, version, append=True))
                sent = len(latest.answer)
        yield out("statusUpdate", status_update(latest, version))
    except RpcError as exc:
        yield frame(error_body(call.id, exc))
    except SessionStoreError as exc:
        yield frame(error_body(call.id, _store_error(exc)))


def _store_error(exc: SessionStoreError) -> RpcError:
    """The JSON-RPC error a session store that cannot be used answers."""
    return RpcError(INTERNAL_ERROR, f"The session store cannot be used: {exc.message}")


async def _list(service: A2AService, app: str, call: RpcCall) -> dict[str, Any]:
    params = call.params
    size = params.get("pageSize") or DEFAULT_PAGE
    token = params.get("pageToken") or "0"
    if not isinstance(size, int) or isinstance(size, bool) or not 1 <= size <= MAX_PAGE:
        raise RpcError(INVALID_PARAMS, f"Invalid params: pageSize must be 1..{MAX_PAGE}")
    if not isinstance(token, str) or not token.isdigit():
        raise RpcError(INVALID_PARAMS, "Invalid params: pageToken is not one this server gave")
    wanted = params.get("status")
    after = _timestamp_param(params.get("statusTimestampAfter"))
    context = params.get("contextId")
    start = int(token)
    contexts: AsyncGenerator[str, None]
    if context:
        if not isinstance(context, str):
            raise RpcError(INVALID_PARAMS, "Invalid params: contextId must be a string")
        contexts = _one(context)
    else:
        contexts = _recent_contexts(service, app, after)
    views: list[TaskView] = []
    async with aclosing(contexts):
        async for context_id in contexts:
            if len(views) > start + size:
                break  # the page is full and a next one exists: older contexts are not read
            session = await service.session(app, context_id)
            if session is None:
                continue
            for task_id in reversed(task_ids(session)):
                view = await service.stored_task(app, session, task_id)
                if view is None or (wanted and wanted not in (view.state, _state_1_0(view))):
                    continue
                if after is None or view.timestamp >= after:
                    views.append(view)
    page = views[start : start + size]
    tasks = [await _task_json(service, app, v, call, params) for v in page]
    following = start + size
    return {
        "tasks": tasks,
        "nextPageToken": str(following) if following < len(views) else "",
        "pageSize": size,
        # Exact on the last page; before it, the tasks read so far (there are more).
        "totalSize": len(views),
    }


async def _one(context_id: str) -> AsyncGenerator[str, None]:
    yield context_id


async def _recent_contexts(
    service: A2AService, app: str, after: float | None
) -> AsyncGenerator[str, None]:
    """The app's A2A contexts, most recently updated first, read from the store a page of
    session keys at a time (no state, no events): a caller that stops early reads no more. A
    context updated before ``after`` holds no task that passes it, nor do the older ones."""
    cursor: SessionKey | None = None
    while True:
        keys = await service.served.sessions.list_recent_session_keys(
            app_name=app, limit=CONTEXT_PAGE, user_prefix=USER_PREFIX, after=cursor
        )
        for updated, user_id, session_id in keys:
            if after is not None and updated < after:
                return
            if user_id == user_of(session_id):
                yield session_id
        if len(keys) < CONTEXT_PAGE:
            return
        cursor = keys[-1]


def _timestamp_param(value: Any) -> float | None:
    """``statusTimestampAfter``: an RFC 3339 time (protobuf's JSON for a Timestamp)."""
    if value is None:
        return None
    try:
        moment = datetime.datetime.fromisoformat(str(value).replace("Z", "+00:00"))
    except ValueError:
        raise RpcError(
            INVALID_PARAMS,
            "Invalid params: statusTimestampAfter must be an RFC 3339 time"
            " (e.g. 2026-01-31T12:00:00Z)",
        ) from None
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=datetime.UTC)
    return moment.timestamp()


def _state_1_0(view: TaskView) -> str:
    return "TASK_STATE_" + view.state.upper().replace("-", "_")
