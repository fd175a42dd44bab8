"""``yadk serve``: uvicorn around ``yadk.serve.create_app``, with safe defaults (loopback only;
any other address needs ``--token`` or an explicit ``--no-auth``).

``--workers N`` uses uvicorn's worker processes: the command binds the port once, and each
worker (a spawned interpreter, so nothing opened before crosses into it) builds its own app,
connection pool and event loop from the options passed in the environment.
"""

from __future__ import annotations

import argparse
import asyncio
import dataclasses
import ipaddress
import json
import logging
import math
import os
import socket
import sys
from pathlib import Path
from typing import Any

import uvicorn

from yadk.cli._common import EXIT_OK, EXIT_USAGE, CommandError, listen, local_store
from yadk.cli._otel import start_otel
from yadk.config import (
    allow_code_execution_on_command_line,
    command_line_code_execution,
    command_line_trust,
    trust_on_command_line,
)
from yadk.errors import ConfigError, YadkError
from yadk.memory import SqliteMemoryService
from yadk.serve import Limits, ServeOptions, allowed_hosts, configure_logging, create_app, with_port
from yadk.sessions import (
    InMemorySessionService,
    PostgresSessionService,
    SqliteSessionService,
    open_session_service,
)
from yadk.stores import DEFAULT_DB

__all__ = ["TOKEN_ENV", "execute", "is_loopback"]

TOKEN_ENV = "YADK_SERVE_TOKEN"
_WORKER_ENV = "YADK_SERVE_WORKER_OPTIONS"


def is_loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def execute(args: argparse.Namespace) -> int:
    path = Path(args.path)
    if not path.exists():
        raise CommandError(
            f"PATH {args.path!r} does not exist; expected an agent folder (holding"
            " root_agent.yaml) or a folder of agent folders",
            exit_code=EXIT_USAGE,
        )
    token = args.token or os.environ.get(TOKEN_ENV) or None
    if token and args.no_auth:
        raise CommandError("--token and --no-auth contradict each other", exit_code=EXIT_USAGE)
    if not is_loopback(args.host) and not token and not args.no_auth:
        raise CommandError(
            f"--host {args.host} would expose the agents to the network without"
            " authentication; pass --token TOKEN (clients then send 'Authorization: Bearer"
            f" TOKEN'; or set {TOKEN_ENV}), or --no-auth if something else guards the port",
            exit_code=EXIT_USAGE,
        )
    if not 0 <= args.port <= 65535:
        raise CommandError(f"--port {args.port} is not a port number", exit_code=EXIT_USAGE)
    limits = _limits(args)
    # Bound before anything is built: a port in use is one line and exit 2, as in yadk web.
    listener = listen(args.host, args.port, backlog=2048)
    try:
        return _serve(args, listener, limits=limits, token=token, path=path)
    finally:
        listener.close()


def _serve(
    args: argparse.Namespace,
    listener: socket.socket,
    *,
    limits: Limits,
    token: str | None,
    path: Path,
) -> int:
    port = listener.getsockname()[1]
    configure_logging(args.log_format)
    start_otel(args)
    db = local_store(args.db, DEFAULT_DB)
    _check_workers(args, db)
    options = {
        "path": str(path),
        "db": db,
        "reload": args.reload,
        "token": token,
        "allow_origins": list(args.allow_origin or ()),
        "hosts": sorted(_hosts(args)),
        "limits": dataclasses.asdict(limits),
        "busy_wait": args.busy_wait,
    }
    # Built here once even with workers: a config or store problem stops the command before
    # any worker starts, and the log line below can name the apps that did not load.
    app = _build_app(options)
    _check_store(app.state.served.sessions, db)
    served = app.state.served
    broken = [a.name for a in served.apps.by_name.values() if a.failure is not None]
    logger = logging.getLogger("yadk.serve")
    logger.info(
        "serving %s at http://%s:%d%s%s%s",
        ", ".join(served.apps.names),
        args.host if ":" not in args.host else f"[{args.host}]",
        port,
        f" with {args.workers} worker processes" if args.workers > 1 else "",
        " (reloading on change)" if args.reload else "",
        f"; not loaded: {', '.join(broken)} (answering 503)" if broken else "",
    )
    run = {
        "host": args.host,
        "port": port,
        "log_level": "warning",
        "access_log": False,
        "timeout_graceful_shutdown": 5,
        # uvicorn's httptools protocol with the connection cap, header and idle timeouts
        # (which find the limits in the app's lifespan state); no WebSocket routes here.
        "http": "yadk.serve._connections:LimitedHttp",
        "ws": "none",
        "timeout_keep_alive": max(1, math.ceil(limits.idle_timeout)),
    }
    if args.workers > 1:
        listener.close()  # uvicorn binds the port again, once, and shares it with its workers
        _release(served)
        # Each worker is a fresh (spawned) interpreter that builds its own app, so its own
        # connection pool and event loop: nothing opened here crosses into a worker.
        os.environ[_WORKER_ENV] = json.dumps(
            {
                **options,
                "log_format": args.log_format,
                "otel": bool(args.otel),
                # --trust and --allow-code-execution hold for the workers too.
                "trust": command_line_trust(),
                "allow_code_execution": sorted(command_line_code_execution()),
            }
        )
        uvicorn.run(f"{__name__}:worker_app", factory=True, workers=args.workers, **run)
    else:
        uvicorn.Server(uvicorn.Config(app, **run)).run(sockets=[listener])
    sys.stderr.flush()
    return EXIT_OK


def _limits(args: argparse.Namespace) -> Limits:
    for option in ("header_timeout", "body_timeout", "idle_timeout", "send_timeout"):
        if not getattr(args, option) > 0:
            raise CommandError(
                f"--{option.replace('_', '-')} {getattr(args, option)}: expected seconds, more"
                " than 0",
                exit_code=EXIT_USAGE,
            )
    for option in ("max_connections", "max_concurrency"):
        if getattr(args, option) < 1:
            raise CommandError(
                f"--{option.replace('_', '-')} {getattr(args, option)}: expected 1 or more",
                exit_code=EXIT_USAGE,
            )
    return Limits(
        header_timeout=args.header_timeout,
        body_timeout=args.body_timeout,
        idle_timeout=args.idle_timeout,
        send_timeout=args.send_timeout,
        max_connections=args.max_connections,
        max_concurrency=args.max_concurrency,
    )


def _hosts(args: argparse.Namespace) -> set[str]:
    """The ``Host`` values served: the bound address (with the loopback names on loopback and
    all-interfaces binds) and every ``--allow-host``."""
    hosts = allowed_hosts(args.host, args.port)
    for given in args.allow_host or ():
        name = given.strip().lower()
        if name:
            hosts |= {"*"} if name == "*" else with_port(name, args.port)
    if args.port == 0:  # the port is chosen when the server binds: any port of these names
        hosts = {h[: -len(":0")] + ":*" if h.endswith(":0") else h for h in hosts}
    return hosts


def _check_workers(args: argparse.Namespace, db: str) -> None:
    if args.workers < 1:
        raise CommandError(f"--workers {args.workers}: expected 1 or more", exit_code=EXIT_USAGE)
    if args.workers == 1:
        return
    if db == ":memory:":
        raise CommandError(
            f"--workers {args.workers} with --db :memory: would give each worker its own"
            " sessions (a client's next turn could land on a worker that has never seen its"
            " session); use a shared store (--db PATH for SQLite, --db postgresql://...) or"
            " one worker",
            exit_code=EXIT_USAGE,
        )
    if args.reload:
        raise CommandError(
            "--reload is for development and runs in one process; drop --workers (or --reload)",
            exit_code=EXIT_USAGE,
        )


def _build_app(options: dict[str, Any]) -> Any:
    serve_options = ServeOptions(
        db=options["db"],
        reload=options["reload"],
        token=options["token"],
        allow_origins=tuple(options["allow_origins"]),
        hosts=options["hosts"],
        limits=Limits(**options["limits"]),
        busy_wait=options["busy_wait"],
    )
    try:
        return create_app(options["path"], serve_options)
    except ConfigError as exc:
        raise CommandError(exc.message, exit_code=EXIT_USAGE) from None
    except YadkError as exc:  # the store cannot be opened
        raise CommandError(f"--db {options['db']}: {exc.message}") from None


def _check_store(sessions: Any, db: str) -> None:
    """Use the store once before serving, as a turn would (read, then a session created and
    deleted), so an unreachable server, a schema that needs ``yadk db upgrade`` or a read-only
    database stops the command instead of failing every request."""
    if isinstance(sessions, InMemorySessionService):
        return
    if isinstance(sessions, PostgresSessionService):
        probe: Any = PostgresSessionService(db, pool_size=1)
        shown = probe.db.display
    else:
        probe, shown = open_session_service(db), db

    async def check() -> None:
        try:
            await probe.list_app_names()
            made = await probe.create_session(app_name="yadk-serve-probe", user_id="probe")
            await probe.delete_session(
                app_name="yadk-serve-probe", user_id="probe", session_id=made.id
            )
        finally:
            await probe.aclose()

    try:
        asyncio.run(check())
    except YadkError as exc:
        raise CommandError(f"--db {shown}: {exc.message}") from None


def _release(served: Any) -> None:
    """Close what building the app opened synchronously (SQLite files), unused here."""
    if isinstance(served.sessions, SqliteSessionService):
        served.sessions.close_now()
    if isinstance(served.apps.memory_service, SqliteMemoryService):
        served.apps.memory_service.close_now()


def worker_app() -> Any:
    """The app of one ``--workers`` process (uvicorn's factory), from the options the
    command put in the environment."""
    options = json.loads(os.environ[_WORKER_ENV])
    configure_logging(options.pop("log_format"))
    start_otel(options.pop("otel", False))
    trust_on_command_line(options.pop("trust", []))
    allow_code_execution_on_command_line(options.pop("allow_code_execution", []))
    try:
        return _build_app(options)
    except CommandError as exc:
        logging.getLogger("yadk.serve").error("worker %d not started: %s", os.getpid(), exc)
        raise SystemExit(1) from None
