"""The web UI's session routes: what the page opens with, and the session downloads, built by
the same code as their command-line twins:

    GET /dev/open?app=NAME&user=ID                            {"apps", "app", "sessions",
                                                              "session"}: the page's first answer
    GET /dev/apps/{app}/users/{user}/sessions/{id}/export     the document `yadk sessions export`
                                                              writes (format "yadk.session/1")
    GET /dev/apps/{app}/users/{user}/sessions/{id}/evalcase   an EvalSet file with the session as
                                                              its one case, as `yadk run
                                                              --save-evalcase` writes it
    GET /dev/apps/{app}/users/{user}/sessions/{id}/usage      the session's token usage per
                                                              invocation and in all (cost where
                                                              priced, estimates marked) and the
                                                              lines `/usage` prints

``/dev/open`` saves the page two round trips before it is usable: the served apps, the chosen
app (``app`` if served, else the first), its sessions for the user (newest first, without
events) and the newest one with its events (``null`` when there is none yet), all as google-adk's
api_server shows them. The downloads are sent as attachments named after the app and the session.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from typing import Any

from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from yadk._usage import session_usage, usage_lines
from yadk.eval import EVALSET_SUFFIX, eval_case_from_session, new_eval_set
from yadk.serve._json import dumps, json_response
from yadk.serve._wire import session_json
from yadk.sessions import BaseSessionService, Session, export_document

__all__ = ["web_session_routes"]

SESSION = "/dev/apps/{app}/users/{user}/sessions/{session}"


def web_session_routes(
    sessions: Callable[[], BaseSessionService], app_names: Callable[[], list[str]]
) -> list[Route]:
    """The routes above; ``sessions`` gives the store, ``app_names`` the served apps."""

    async def open_page(request: Request) -> Response:
        names = app_names()
        wanted = request.query_params.get("app")
        app = wanted if wanted in names else (names[0] if names else None)
        user = request.query_params.get("user") or "user"
        listed: list[Session] = []
        newest = None
        if app is not None:
            store = sessions()
            listed = (await store.list_sessions(app_name=app, user_id=user)).sessions
            listed.sort(key=lambda s: s.last_update_time, reverse=True)
            if listed:
                newest = await store.get_session(
                    app_name=app, user_id=user, session_id=listed[0].id
                )
        return json_response(
            {
                "apps": names,
                "app": app,
                "sessions": [session_json(s) for s in listed],
                "session": None if newest is None else session_json(newest),
            }
        )

    async def found(request: Request) -> Session | Response:
        params = request.path_params
        if params["app"] not in app_names():
            return _problem(404, f"App not found: {params['app']!r}")
        session = await sessions().get_session(
            app_name=params["app"], user_id=params["user"], session_id=params["session"]
        )
        if session is None:
            return _problem(404, "Session not found")
        return session

    async def export(request: Request) -> Response:
        session = await found(request)
        if isinstance(session, Response):
            return session
        name = f"{session.app_name}-{session.id}.json"
        return _attachment(export_document(session), name)

    async def evalcase(request: Request) -> Response:
        session = await found(request)
        if isinstance(session, Response):
            return session
        case = eval_case_from_session(session, eval_id=_safe(session.id))
        if not case["conversation"]:
            return _problem(
                409, "This session has no user turn yet: send a message, then export it."
            )
        name = _safe(f"{session.app_name}-{session.id}")
        return _attachment(new_eval_set(name, [case]), name + EVALSET_SUFFIX)

    async def usage(request: Request) -> Response:
        session = await found(request)
        if isinstance(session, Response):
            return session
        counted = session_usage(session.events)
        return json_response({**counted.to_dict(), "lines": usage_lines(counted)})

    return [
        Route("/dev/open", open_page, methods=["GET"]),
        Route(SESSION + "/usage", usage, methods=["GET"]),
        Route(SESSION + "/export", export, methods=["GET"]),
        Route(SESSION + "/evalcase", evalcase, methods=["GET"]),
    ]


def _safe(text: str) -> str:
    """``text`` usable as a file name and an id: letters, digits, ``-``, ``_`` and ``.``."""
    return re.sub(r"[^A-Za-z0-9_.-]+", "_", text).strip(".") or "session"


def _attachment(document: dict[str, Any], filename: str) -> Response:
    return Response(
        (json.dumps(document, ensure_ascii=False, indent=2) + "\n").encode(),
        media_type="application/json",
        headers={"content-disposition": f'attachment; filename="{_safe(filename)}"'},
    )


def _problem(status: int, detail: str) -> Response:
    return Response(dumps({"detail": detail}).encode(), status, media_type="application/json")
