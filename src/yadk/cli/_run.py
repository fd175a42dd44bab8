"""``yadk run``: one message, a replay file, or an interactive prompt against an agent."""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any, TextIO

from yadk.agents import BaseAgent
from yadk.artifacts import BaseArtifactService, InMemoryArtifactService
from yadk.cli._common import (
    EXIT_FAILURE,
    EXIT_OK,
    EXIT_USAGE,
    CommandError,
    agent_path,
    check_models,
    load_agent,
    parse_state,
    resolve_model_option,
    set_model,
)
from yadk.cli._conversation import (
    note,
    note_saved,
    open_session,
    open_stores,
    quiet_stdout,
    send_message,
)
from yadk.runner import Runner
from yadk.sessions import BaseSessionService, InMemorySessionService

__all__ = ["execute", "read_replay", "run_agent"]


def execute(args: argparse.Namespace) -> int:
    if args.message is not None and args.replay is not None:
        raise CommandError("Cannot provide both MESSAGE and --replay.", exit_code=EXIT_USAGE)
    path = agent_path(args.agent)
    state = parse_state(args.state)
    queries: list[str] | None = None
    if args.replay is not None:
        replay_state, queries = read_replay(Path(args.replay))
        state = {**replay_state, **state}
    agent = load_agent(path)
    if args.model:
        set_model(agent, resolve_model_option(args.model))
    check_models(agent)
    stores = open_stores(args.db)
    session_id = args.session_id
    if args.save_evalcase and session_id is None:
        session_id = f"evalcase-{uuid.uuid4().hex[:12]}"
    try:
        status = asyncio.run(
            run_agent(
                agent,
                message=args.message,
                queries=queries,
                state=state,
                session_id=session_id,
                session_service=stores.sessions,
                artifact_service=stores.artifacts,
                json_lines=args.json,
                stream=args.stream,
                stored_in=stores.where,
            )
        )
        if args.save_evalcase and session_id is not None:
            from yadk.cli._eval import save_evalcase

            save_evalcase(
                args.save_evalcase,
                stores.sessions,
                app_name=agent.name,
                session_id=session_id,
                state=state,
            )
        return status
    finally:
        stores.close()


def read_replay(path: Path) -> tuple[dict[str, Any], list[str]]:
    """The ``state`` and ``queries`` of a replay file."""
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise CommandError(
            f"--replay file {str(path)!r} does not exist", exit_code=EXIT_USAGE
        ) from None
    except OSError as exc:
        raise CommandError(f"cannot read --replay file {str(path)!r}: {exc.strerror}") from None
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise CommandError(f"{path}:{exc.lineno}:{exc.colno}: not valid JSON: {exc.msg}") from None
    expected = 'expected {"state": {...}, "queries": ["...", ...]}'
    if not isinstance(data, dict):
        raise CommandError(f"{path}: {expected}")
    unknown = sorted(set(data) - {"state", "queries"})
    if unknown:
        raise CommandError(f"{path}: unknown key {unknown[0]!r}; {expected}")
    state = data.get("state", {})
    queries = data.get("queries")
    if not isinstance(state, dict):
        raise CommandError(f"{path}: 'state' must be an object; {expected}")
    if not isinstance(queries, list) or not all(isinstance(q, str) for q in queries):
        raise CommandError(f"{path}: 'queries' must be a list of strings; {expected}")
    return state, queries


async def run_agent(
    agent: BaseAgent,
    *,
    message: str | None = None,
    queries: list[str] | None = None,
    state: dict[str, Any] | None = None,
    session_id: str | None = None,
    session_service: BaseSessionService | None = None,
    artifact_service: BaseArtifactService | None = None,
    json_lines: bool = False,
    stream: bool = True,
    app_name: str | None = None,
    stdin: TextIO | None = None,
    stored_in: str | None = None,
) -> int:
    """Run ``agent`` on ``queries`` (a replay), on one ``message``, or on lines read from
    ``stdin`` (interactive); returns the exit status: 1 if an invocation ended in an error.

    ``stored_in`` names the durable session store, for notes on stderr about resuming.
    """
    sessions = session_service or InMemorySessionService()
    runner = Runner(
        app_name=app_name or agent.name,
        agent=agent,
        session_service=sessions,
        artifact_service=artifact_service or InMemoryArtifactService(),
    )
    async with runner:  # closes MCP toolsets (stops their servers) however the run ends
        return await _converse(
            runner,
            message=message,
            queries=queries,
            state=state,
            session_id=session_id,
            json_lines=json_lines,
            stream=stream,
            stdin=stdin,
            stored_in=stored_in,
        )


async def _converse(
    runner: Runner,
    *,
    message: str | None,
    queries: list[str] | None,
    state: dict[str, Any] | None,
    session_id: str | None,
    json_lines: bool,
    stream: bool,
    stdin: TextIO | None,
    stored_in: str | None,
) -> int:
    agent = runner.agent
    session, pending_delta = await open_session(runner, state=state, session_id=session_id)
    interactive = queries is None and message is None
    source = stdin or sys.stdin
    tty = interactive and source.isatty()
    out = sys.stdout
    status = EXIT_OK
    with quiet_stdout(json_lines):
        if tty:
            print(
                f"Running agent {agent.name}; type exit or press Ctrl-D to quit.", file=sys.stderr
            )
        for text in _messages(message, queries, source, tty):
            failed = await send_message(
                runner,
                session.id,
                text,
                out=out,
                state_delta=pending_delta,
                json_lines=json_lines,
                stream=stream,
                echo_user=not tty,
            )
            pending_delta = None
            if failed:
                status = EXIT_FAILURE
                if queries is not None:
                    note("replay stopped: the last query ended in an error")
                    break
    if stored_in is not None:
        note_saved(session.id, stored_in)
    return status


def _messages(
    message: str | None, queries: list[str] | None, source: TextIO, tty: bool
) -> Iterator[str]:
    if queries is not None:
        yield from queries
        return
    if message is not None:
        yield message
        return
    for line in _lines(source, tty):
        text = line.strip()
        if text == "exit":
            return
        if text:
            yield text


def _lines(source: TextIO, tty: bool) -> Iterator[str]:
    while True:
        if tty:
            try:
                yield input("[user]: ")
            except EOFError:
                print(file=sys.stderr)
                return
            continue
        line = source.readline()
        if not line:
            return
        yield line
