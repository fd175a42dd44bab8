"""``yadk run``: one message, a replay file, or an interactive prompt against an agent.

``--save-evalcase``'s code (yadk eval's) is imported only when the option is given.
"""

from __future__ import annotations

import argparse
import asyncio
import sys
import uuid
from pathlib import Path
from typing import Any, TextIO, Unpack

from yadk._files import FileProblem, read_json
from yadk.cli._common import (
    EXIT_FAILURE,
    EXIT_OK,
    EXIT_USAGE,
    CommandError,
    agent_path,
    file_error,
    not_utf8,
    parse_state,
    resolve_model_option,
    show_tracebacks,
)
from yadk.cli._conversation import (
    ConversationOptions,
    note,
    note_saved,
    open_stores,
    quiet_stdout,
    send_message,
    start_conversation,
    store_options,
)
from yadk.cli._dotenv import load_dotenv_files, loaded_notes
from yadk.cli._failures import reporting_failures
from yadk.cli._interactive import Conversation, terminal_loop
from yadk.cli._otel import start_otel
from yadk.cli._prompt import TerminalPrompt
from yadk.cli._startup import load_for_conversation
from yadk.reload import RunTarget, run_target, target_agent, target_name

__all__ = ["execute", "read_replay", "run_agent", "run_interactive"]

PROG = "yadk run"
PROMPT = "[user]: "


def execute(args: argparse.Namespace) -> int:
    with reporting_failures(PROG, verbose=show_tracebacks(args)) as failures:
        status = _execute(args)
    if failures.failures and status == EXIT_OK:
        note("a tool or model failed during the run (see above); exit status 1")
        return EXIT_FAILURE
    return status


def _execute(args: argparse.Namespace) -> int:
    if args.message is not None and args.replay is not None:
        raise CommandError("Cannot provide both MESSAGE and --replay.", exit_code=EXIT_USAGE)
    if args.message is not None and (problem := not_utf8(args.message, "MESSAGE")):
        raise CommandError(problem, exit_code=EXIT_USAGE)
    path = agent_path(args.agent)
    for line in loaded_notes(load_dotenv_files(path)):
        note(line)
    start_otel(args)
    state = parse_state(args.state)
    queries: list[str] | None = None
    if args.replay is not None:
        replay_state, queries = read_replay(Path(args.replay))
        state = {**replay_state, **state}
    model = resolve_model_option(args.model) if args.model else None
    agent = run_target(load_for_conversation(path, model=model, given_keys=state))
    stores = open_stores(args.db)
    session_id = args.session_id
    if args.save_evalcase and session_id is None:
        session_id = f"evalcase-{uuid.uuid4().hex[:12]}"
    try:
        if args.message is None and queries is None and sys.stdin.isatty():
            status = run_interactive(
                agent,
                state=state,
                session_id=session_id,
                **store_options(args, stores),
            )
        else:
            status = asyncio.run(
                run_agent(
                    agent,
                    message=args.message,
                    queries=queries,
                    state=state,
                    session_id=session_id,
                    **store_options(args, stores),
                )
            )
        if args.save_evalcase and session_id is not None:
            from yadk.cli._eval import save_evalcase

            save_evalcase(
                args.save_evalcase,
                stores.sessions,
                app_name=target_name(agent),
                session_id=session_id,
                state=state,
            )
        return status
    finally:
        stores.close()


def read_replay(path: Path) -> tuple[dict[str, Any], list[str]]:
    """The ``state`` and ``queries`` of a replay file."""
    try:
        data = read_json(path, kind="replay")
    except FileProblem as problem:
        if problem.rule == "file-not-found":
            message = f"--replay file {str(path)!r} does not exist"
            raise CommandError(message, exit_code=EXIT_USAGE) from None
        raise file_error(problem, path) from None
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
    agent: RunTarget,
    *,
    message: str | None = None,
    queries: list[str] | None = None,
    state: dict[str, Any] | None = None,
    session_id: str | None = None,
    app_name: str | None = None,
    stdin: TextIO | None = None,
    stored_in: str | None = None,
    **options: Unpack[ConversationOptions],
) -> int:
    """Run ``agent`` on ``queries`` (a replay), on one ``message``, or on lines read from
    ``stdin`` (piped input; slash commands work there too); returns the exit status: 1 if an
    invocation ended in an error. The terminal prompt is ``run_interactive``.

    ``stored_in`` names the durable session store, for notes on stderr about resuming.
    """
    conversation = await start_conversation(
        agent,
        prog=PROG,
        state=state,
        session_id=session_id,
        app_name=app_name,
        echo_user=True,
        **options,
    )
    # Closes MCP toolsets (stops their servers) however the run ends.
    async with conversation.runner:
        try:
            return await _converse(
                conversation, message=message, queries=queries, stdin=stdin, stored_in=stored_in
            )
        finally:
            await conversation.aclose()


async def _converse(
    conversation: Conversation,
    *,
    message: str | None,
    queries: list[str] | None,
    stdin: TextIO | None,
    stored_in: str | None,
) -> int:
    json_lines, stream = conversation.json_lines, conversation.stream
    with quiet_stdout(json_lines):
        if queries is not None or message is not None:
            for text in queries if queries is not None else [message or ""]:
                failed = await send_message(
                    conversation.runner,
                    conversation.session.id,
                    text,
                    out=conversation.out,
                    state_delta=conversation.pending_delta,
                    json_lines=json_lines,
                    stream=stream,
                    busy_wait=conversation.busy_wait,
                )
                conversation.pending_delta = None
                if failed:
                    conversation.status = EXIT_FAILURE
                    if queries is not None:
                        note("replay stopped: the last query ended in an error")
                        break
        else:
            source = stdin or sys.stdin
            while line := source.readline():
                if problem := not_utf8(line, "this line"):
                    note(f"skipped: {problem}")
                    conversation.status = EXIT_FAILURE
                    continue
                if not await conversation.handle(line):
                    break
    if stored_in is not None:
        note_saved(conversation.session.id, stored_in)
    return conversation.status


def run_interactive(
    agent: RunTarget,
    *,
    state: dict[str, Any],
    session_id: str | None,
    stored_in: str | None = None,
    **options: Unpack[ConversationOptions],
) -> int:
    """The terminal prompt: line editing and history, slash commands, Ctrl-C rules."""
    with asyncio.Runner() as aio:
        conversation = aio.run(
            start_conversation(
                agent,
                prog=PROG,
                state=state,
                session_id=session_id,
                echo_user=False,
                **options,
            )
        )
        prompt = TerminalPrompt(
            PROMPT,
            agent_name=target_agent(agent).name,
            out=sys.stderr if conversation.json_lines else sys.stdout,
        )
        with quiet_stdout(conversation.json_lines):
            print(
                f"Running agent {target_agent(agent).name}; type /help for commands, exit or Ctrl-D to quit.",
                file=sys.stderr,
            )
            try:
                status = terminal_loop(aio.get_loop(), conversation, prompt)
            finally:
                aio.run(conversation.runner.close())  # MCP toolsets: stop their servers
                aio.run(conversation.aclose())
    if stored_in is not None:
        note_saved(conversation.session.id, stored_in)
    return status
