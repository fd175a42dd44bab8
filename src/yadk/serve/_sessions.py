"""Session routes of google-adk's api_server: list, create, get, update state, delete."""

from __future__ import annotations

import uuid
from collections.abc import Sequence
from typing import Any

from fastapi import APIRouter, Body
from fastapi.responses import Response
from pydantic import ValidationError

from yadk.errors import AlreadyExistsError, SessionError, SessionStoreError, SessionTooLargeError
from yadk.events import Event, EventActions
from yadk.serve._json import json_response
from yadk.serve._problems import Problem
from yadk.serve._served import Served
from yadk.serve._wire import (
    CreateSessionRequest,
    UpdateSessionRequest,
    event_from_json,
    session_json,
)
from yadk.sessions import Session

__all__ = ["session_routes"]

_OPTIONAL_BODY = Body(default=None)

SESSIONS = "/apps/{app_name}/users/{user_id}/sessions"
SESSION = SESSIONS + "/{session_id}"
SESSION_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "id": {"type": "string"},
        "appName": {"type": "string"},
        "userId": {"type": "string"},
        "state": {"type": "object"},
        "events": {"type": "array", "items": {"type": "object"}},
        "lastUpdateTime": {"type": "number"},
    },
}
_ONE: dict[int | str, dict[str, Any]] = {
    200: {"content": {"application/json": {"schema": SESSION_SCHEMA}}}
}
_MANY: dict[int | str, dict[str, Any]] = {
    200: {"content": {"application/json": {"schema": {"type": "array", "items": SESSION_SCHEMA}}}}
}


def session_routes(served: Served) -> APIRouter:
    router = APIRouter(tags=["sessions"])

    async def existing(app_name: str, user_id: str, session_id: str) -> Session:
        served.app(app_name)
        session = await served.sessions.get_session(
            app_name=app_name, user_id=user_id, session_id=session_id
        )
        if session is None:
            raise Problem(404, "Session not found")
        return session

    async def create(
        app_name: str,
        user_id: str,
        session_id: str | None,
        state: dict[str, Any] | None,
        events: Sequence[Event] = (),
    ) -> Response:
        if served.apps.reload:
            served.app(app_name)  # a broken app may come up once fixed: its session waits
        else:
            served.runner(app_name)  # an app that did not load: 503 with its diagnostics
        try:
            session = await served.sessions.create_session(
                app_name=app_name, user_id=user_id, state=state, session_id=session_id
            )
        except AlreadyExistsError:
            raise Problem(409, f"Session already exists: {session_id}") from None
        for event in events:
            await served.sessions.append_event(session, event)
        return json_response(session_json(session))

    @router.get(SESSION, responses=_ONE)
    async def get_session(app_name: str, user_id: str, session_id: str) -> Response:
        return json_response(session_json(await existing(app_name, user_id, session_id)))

    @router.get(SESSIONS, responses=_MANY)
    async def list_sessions(app_name: str, user_id: str) -> Response:
        served.app(app_name)
        listed = await served.sessions.list_sessions(app_name=app_name, user_id=user_id)
        return json_response([session_json(s) for s in listed.sessions])

    @router.post(SESSION, responses=_ONE, deprecated=True)
    async def create_session_with_id(
        app_name: str,
        user_id: str,
        session_id: str,
        state: dict[str, Any] | None = _OPTIONAL_BODY,
    ) -> Response:
        return await create(app_name, user_id, session_id, state)

    @router.post(SESSIONS, responses=_ONE)
    async def create_session(
        app_name: str, user_id: str, req: CreateSessionRequest | None = None
    ) -> Response:
        if req is None:
            return await create(app_name, user_id, None, None)
        events = []
        for index, raw in enumerate(req.events or []):
            try:
                events.append(event_from_json(raw))
            except (ValidationError, ValueError) as exc:
                raise Problem(422, f"events[{index}] is not a valid event: {exc}") from None
        return await create(app_name, user_id, req.session_id, req.state, events)

    @router.patch(SESSION, responses=_ONE)
    async def update_session(
        app_name: str, user_id: str, session_id: str, req: UpdateSessionRequest
    ) -> Response:
        key = (app_name, user_id, session_id)
        event = Event(
            invocation_id=f"p-{uuid.uuid4()}",
            author="user",
            actions=EventActions(state_delta=req.state_delta),
        )
        async with served.locked(key):
            session = await existing(app_name, user_id, session_id)
            try:
                await served.sessions.append_event(session, event)
            except (SessionStoreError, SessionTooLargeError):
                raise  # the store cannot be used (503), or the session would be too large (413)
            except SessionError as exc:
                raise Problem(409, exc.message) from None
        return json_response(session_json(session))

    @router.delete(SESSION)
    async def delete_session(app_name: str, user_id: str, session_id: str) -> Response:
        served.app(app_name)
        await served.sessions.delete_session(
            app_name=app_name, user_id=user_id, session_id=session_id
        )
        return json_response(None)

    return router
