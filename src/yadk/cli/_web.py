"""``yadk web``: the dev loop in the browser, ``yadk serve --reload`` plus the UI at ``/``."""

from __future__ import annotations

import argparse
import socket
import sys
import threading
import webbrowser
from pathlib import Path
from typing import Any

import uvicorn

from yadk._secrets import mask_url
from yadk.cli._common import (
    EXIT_OK,
    EXIT_USAGE,
    CommandError,
    listen,
    local_store,
    resolve_model_option,
)
from yadk.cli._otel import start_otel
from yadk.serve import create_web_app, start_web_tracing
from yadk.stores import DEFAULT_DB, open_stores

__all__ = ["LOOPBACK", "execute"]

PROG = "yadk web"
LOOPBACK = frozenset({"127.0.0.1", "localhost", "::1"})


def execute(args: argparse.Namespace) -> int:
    path = Path(args.path)
    if not path.exists():
        raise CommandError(
            f"PATH {args.path!r} does not exist; expected an agent folder (holding"
            " root_agent.yaml) or a folder of agent folders",
            exit_code=EXIT_USAGE,
        )
    if args.host not in LOOPBACK and not args.token:
        raise CommandError(
            f"--host {args.host} lets other machines reach a server that runs and reloads code;"
            " pass --token TOKEN too (the page then needs the URL printed with the token)",
            exit_code=EXIT_USAGE,
        )
    model = resolve_model_option(args.model) if args.model else None
    start_otel(args)
    listener = listen(args.host, args.port)
    port = listener.getsockname()[1]

    tracing = start_web_tracing()
    stores = open_stores(local_store(args.db, DEFAULT_DB))
    try:
        app = create_web_app(
            path,
            host=args.host,
            port=port,
            session_service=stores.sessions,
            artifact_service=stores.artifacts,
            memory_service=stores.memory,
            token=args.token,
            model=model,
            tracing=tracing,
        )
        shown = f"[{args.host}]" if ":" in args.host else args.host
        url = f"http://{shown}:{port}/"
        opened = url + (f"#token={args.token}" if args.token else "")
        print(f"{PROG}: serving {path} at {url}", flush=True)
        if args.token:
            print(f"{PROG}: open {opened} (the token stays in the browser tab)", flush=True)
        where = mask_url(stores.where) if stores.where else "memory"
        print(f"{PROG}: sessions in {where}; press Ctrl-C to stop", flush=True)
        if tracing.ring is None:
            print(f"{PROG}: {tracing.hint}", flush=True)
        if not args.no_browser:
            # After the server starts accepting: the socket already listens, so the browser's
            # first request waits in the backlog rather than failing.
            threading.Thread(target=webbrowser.open, args=(opened,), daemon=True).start()
        _run(app, listener)
    finally:
        stores.close()
    return EXIT_OK


def _run(app: Any, listener: socket.socket) -> None:
    config = uvicorn.Config(
        app, log_level="warning", access_log=False, lifespan="on", timeout_graceful_shutdown=2
    )
    server = uvicorn.Server(config)
    try:
        server.run(sockets=[listener])
    finally:
        listener.close()
    sys.stdout.flush()
