"""``ServeOptions``: everything ``create_app`` is told besides the folder it serves, in one
frozen object that ``yadk serve`` (and each of its workers) and ``yadk web`` build once."""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass

from fastapi import APIRouter

from yadk.agents import BaseAgent
from yadk.artifacts import BaseArtifactService
from yadk.memory import BaseMemoryService
from yadk.models import BaseLlm
from yadk.reload import ChangeSource, WatchfilesChanges
from yadk.serve._guard import MAX_BODY
from yadk.serve._limits import Limits
from yadk.serve._served import Served
from yadk.sessions import BaseSessionService

__all__ = ["BUSY_WAIT", "RouterFactory", "ServeOptions"]

BUSY_WAIT = 10.0

RouterFactory = Callable[[Served], APIRouter]
"""Builds extra routes (e.g. the web UI's ``/dev/*``) from what the server serves."""


@dataclass(frozen=True, kw_only=True)
class ServeOptions:
    """How ``create_app`` serves a folder of agents.

    Sessions go to ``session_service`` (default: the store ``db`` names, a ``--db`` value: a
    SQLite path, ``postgresql://...``, ``:memory:``; without it the SQLite file
    ``.yadk/sessions.db``, with artifacts in ``.yadk/artifacts`` and memory in
    ``.yadk/sessions.memory.db``; a store the app opens is closed at shutdown).
    ``memory_service`` is what ``load_memory``/``preload_memory`` and ``add_session_to_memory``
    use (default: that file when sessions default, else none).

    ``reload`` re-validates and swaps an app's agent when its files change (``watcher`` sees
    the changes, applied every ``reload_interval`` seconds), and streams the results at
    ``GET /dev/events``. ``token`` requires ``Authorization: Bearer TOKEN`` on every route but
    ``/health``; ``allow_origins`` enables CORS for those origins only. ``hosts`` are the
    ``Host`` values answered (``name:port``, ``*`` for any; default: no check): a request for
    another (DNS rebinding) or with an ``Origin`` neither of these hosts nor in
    ``allow_origins`` gets 403. ``limits`` are the timeouts and caps (``Limits``, its defaults
    when ``None``: the body's and the write's are enforced by the app, the connection's by
    ``yadk.serve._connections.LimitedHttp``, which finds them in the lifespan state);
    ``max_body`` caps a request body in bytes. A turn on a busy session waits up to
    ``busy_wait`` seconds, then gets 409. ``routers`` add routes (each factory receives the
    ``Served`` state). ``model`` replaces every agent's model; ``on_agent`` is called with each
    agent loaded (at start or by a reload) before it serves.
    """

    session_service: BaseSessionService | None = None
    artifact_service: BaseArtifactService | None = None
    memory_service: BaseMemoryService | None = None
    db: str | os.PathLike[str] | None = None
    reload: bool = False
    reload_interval: float = 0.25
    watcher: Callable[[], ChangeSource] = WatchfilesChanges
    token: str | None = None
    allow_origins: Sequence[str] = ()
    hosts: Iterable[str] | None = None
    limits: Limits | None = None
    busy_wait: float = BUSY_WAIT
    max_body: int = MAX_BODY
    routers: Sequence[RouterFactory] = ()
    model: BaseLlm | None = None
    on_agent: Callable[[BaseAgent], None] | None = None
