"""``yadk run``: one message, a replay file, or an interactive prompt against an agent."""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TextIO

from yadk.agents import BaseAgent
from yadk.artifacts import BaseArtifactService, FileArtifactService, InMemoryArtifactService
from yadk.cli._common import (
    EXIT_FAILURE,
    EXIT_OK,
    EXIT_USAGE,
    CommandError,
    agent_path,
    llm_agents,
    load_agent,
    parse_state,
    set_model,
)
from yadk.cli._transcript import event_lines
from yadk.errors import AgentDefinitionError, ModelError, YadkError
from yadk.events import Event
from yadk.runner import Runner
from yadk.sessions import BaseSessionService, InMemorySessionService, SqliteSessionService

__all__ = ["execute", "read_replay", "run_agent"]

USER_ID = "user"


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
        set_model(agent, _resolve(args.model))
    check_models(agent)
    stores = open_stores(args.db)
    try:
        return asyncio.run(
            run_agent(
                agent,
                message=args.message,
                queries=queries,
                state=state,
                session_id=args.session_id,
                session_service=stores.sessions,
                artifact_service=stores.artifacts,
                json_lines=args.json,
                stored_in=stores.where,
            )
        )
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


def _resolve(name: str) -> Any:
    from yadk.models import resolve_model

    try:
        return resolve_model(name)
    except ModelError as exc:
        raise CommandError(f"--model {name}: {exc.message}") from None


def check_models(root: BaseAgent) -> None:
    """Resolve every LlmAgent's model before the first message, so a missing model or backend
    is reported up front rather than as an error event mid-conversation."""
    for agent in llm_agents(root):
        try:
            _ = agent.canonical_model
        except AgentDefinitionError as exc:
            raise CommandError(exc.message) from None
        except ModelError as exc:
            offline = isinstance(agent.model, str) and agent.model.startswith("scripted:")
            hint = "" if offline else "\n  hint: to run offline, pass --model scripted:FILE"
            raise CommandError(f"agent {agent.name!r}: {exc.message}{hint}") from None


DEFAULT_DB = str(Path(".yadk") / "sessions.db")


@dataclass
class Stores:
    """Where a run keeps sessions and artifacts; ``where`` names a durable session file."""

    sessions: BaseSessionService
    artifacts: BaseArtifactService
    where: str | None = None

    def close(self) -> None:
        if isinstance(self.sessions, SqliteSessionService):
            self.sessions.close()


def open_stores(db: str | None) -> Stores:
    """Sessions in the SQLite file ``db`` (default .yadk/sessions.db) and artifacts in an
    ``artifacts/`` folder beside it; ``:memory:`` keeps both in memory."""
    if db == ":memory:":
        return Stores(InMemorySessionService(), InMemoryArtifactService())
    target = db or DEFAULT_DB
    try:
        sessions = SqliteSessionService(target)
    except YadkError as exc:
        raise CommandError(f"--db {target}: {exc.message}") from None
    return Stores(sessions, FileArtifactService(sessions.path.parent / "artifacts"), target)


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
    session = None
    if session_id is not None:
        session = await sessions.get_session(
            app_name=runner.app_name, user_id=USER_ID, session_id=session_id
        )
    # An existing session keeps its state; --state then rides on the first message instead.
    pending_delta: dict[str, Any] | None = None
    if session is None:
        session = await sessions.create_session(
            app_name=runner.app_name, user_id=USER_ID, state=state, session_id=session_id
        )
    else:
        _note(f"continuing session {session.id} ({len(session.events)} earlier events)")
        if state:
            pending_delta = dict(state)

    interactive = queries is None and message is None
    source = stdin or sys.stdin
    tty = interactive and source.isatty()
    out = sys.stdout
    status = EXIT_OK
    # User code (tools, callbacks) that prints must not corrupt JSON lines on stdout.
    redirect = contextlib.redirect_stdout(sys.stderr) if json_lines else contextlib.nullcontext()
    with redirect:
        if tty:
            print(
                f"Running agent {agent.name}; type exit or press Ctrl-D to quit.", file=sys.stderr
            )
        for text in _messages(message, queries, source, tty):
            failed = False
            async for event in runner.run_async(
                user_id=USER_ID, session_id=session.id, new_message=text, state_delta=pending_delta
            ):
                pending_delta = None
                failed = failed or bool(event.error_code)
                _show(event, out, json_lines=json_lines, echo_user=not tty)
            if failed:
                status = EXIT_FAILURE
                if queries is not None:
                    _note("replay stopped: the last query ended in an error")
                    break
    if stored_in is not None:
        _note(
            f"session {session.id} is saved in {stored_in}; continue it with --session-id {session.id}"
        )
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


def _show(event: Event, out: TextIO, *, json_lines: bool, echo_user: bool) -> None:
    if json_lines:
        print(json.dumps(event.to_dict(), ensure_ascii=False), file=out, flush=True)
        return
    if event.author == "user" and not echo_user:
        return
    for line in event_lines(event):
        if line.error:
            out.flush()
            print(line.text, file=sys.stderr, flush=True)
        else:
            print(line.text, file=out)


def _note(text: str) -> None:
    sys.stdout.flush()
    print(f"yadk run: {text}", file=sys.stderr)
