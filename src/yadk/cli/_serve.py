"""``yadk serve``: uvicorn around ``yadk.serve.create_app``, with safe defaults (loopback only;
any other address needs ``--token`` or an explicit ``--no-auth``)."""

from __future__ import annotations

import argparse
import ipaddress
import logging
import os
import sys
from pathlib import Path

from yadk.cli._common import EXIT_OK, EXIT_USAGE, CommandError

__all__ = ["TOKEN_ENV", "execute", "is_loopback"]

TOKEN_ENV = "YADK_SERVE_TOKEN"


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
    import uvicorn

    from yadk.errors import ConfigError, YadkError
    from yadk.serve import create_app
    from yadk.serve._app import DEFAULT_DB
    from yadk.serve._logs import configure_logging
    from yadk.stores import open_stores

    configure_logging(args.log_format)
    db = args.db or DEFAULT_DB
    try:
        stores = open_stores(db)
    except YadkError as exc:
        raise CommandError(f"--db {db}: {exc.message}") from None
    try:
        app = create_app(
            path,
            session_service=stores.sessions,
            artifact_service=stores.artifacts,
            memory_service=stores.memory,
            reload=args.reload,
            token=token,
            allow_origins=args.allow_origin or (),
            busy_wait=args.busy_wait,
        )
    except ConfigError as exc:
        stores.close()
        raise CommandError(exc.message, exit_code=EXIT_USAGE) from None
    served = app.state.served
    broken = [a.name for a in served.apps.by_name.values() if a.failure is not None]
    logger = logging.getLogger("yadk.serve")
    logger.info(
        "serving %s at http://%s:%d%s%s",
        ", ".join(served.apps.names),
        args.host if ":" not in args.host else f"[{args.host}]",
        args.port,
        " (reloading on change)" if args.reload else "",
        f"; not loaded: {', '.join(broken)} (answering 503)" if broken else "",
    )
    try:
        uvicorn.run(
            app,
            host=args.host,
            port=args.port,
            log_level="warning",
            access_log=False,
            timeout_graceful_shutdown=5,
        )
    finally:
        stores.close()
    sys.stderr.flush()
    return EXIT_OK
