"""``yadk dev``: an interactive session that reloads the agent whenever a file it depends on
changes, keeping the conversation.

Changes are applied before each message and while waiting for one. A reload that fails keeps the
last good agent answering and prints why; the next save that fixes the file reloads it.
"""

from __future__ import annotations

import argparse
import asyncio
import sys
from pathlib import Path
from typing import Any, TextIO

from yadk.artifacts import BaseArtifactService, InMemoryArtifactService
from yadk.cli._common import (
    EXIT_FAILURE,
    EXIT_OK,
    OFFLINE_HINT,
    CommandError,
    agent_path,
    parse_state,
    resolve_model_option,
)
from yadk.cli._conversation import (
    note,
    note_saved,
    open_session,
    open_stores,
    quiet_stdout,
    send_message,
)
from yadk.cli._input import LineReader
from yadk.errors import AgentLoadError
from yadk.reload import AgentReloader, ChangeSource, WatchFailed, WatchfilesChanges
from yadk.runner import Runner
from yadk.sessions import BaseSessionService, InMemorySessionService

__all__ = ["dev_loop", "execute"]

PROG = "yadk dev"
PROMPT = "[user]: "


def execute(args: argparse.Namespace) -> int:
    path = agent_path(args.agent)
    state = parse_state(args.state)
    model = resolve_model_option(args.model) if args.model else None
    try:
        reloader = AgentReloader(path, model=model, model_hint=OFFLINE_HINT)
    except AgentLoadError as exc:
        raise CommandError(exc.message, details=exc.details) from None
    stores = open_stores(args.db or ":memory:")
    changes = WatchfilesChanges()
    try:
        return asyncio.run(
            dev_loop(
                reloader,
                changes,
                state=state,
                session_id=args.session_id,
                session_service=stores.sessions,
                artifact_service=stores.artifacts,
                json_lines=args.json,
                stream=args.stream,
                stored_in=stores.where,
            )
        )
    finally:
        changes.close()
        stores.close()


async def dev_loop(
    reloader: AgentReloader,
    changes: ChangeSource,
    *,
    stdin: TextIO | None = None,
    state: dict[str, Any] | None = None,
    session_id: str | None = None,
    session_service: BaseSessionService | None = None,
    artifact_service: BaseArtifactService | None = None,
    json_lines: bool = False,
    stream: bool = True,
    stored_in: str | None = None,
    idle_interval: float = 0.25,
) -> int:
    """Talk to ``reloader``'s agent with lines read from ``stdin`` until EOF or ``exit``,
    reloading it when ``changes`` reports a changed file; returns the exit status (1 if an
    invocation ended in an error).

    ``idle_interval`` is how often (seconds) changes are checked while waiting for a line.
    """
    runner = Runner(
        app_name=reloader.agent.name,
        agent=reloader.agent,
        session_service=session_service or InMemorySessionService(),
        artifact_service=artifact_service or InMemoryArtifactService(),
    )
    session, pending_delta = await open_session(
        runner, state=state, session_id=session_id, prog=PROG
    )
    source = stdin or sys.stdin
    tty = source.isatty()
    out = sys.stdout
    # The prompt stays off stdout when stdout carries JSON lines.
    prompt_to = (sys.stderr if json_lines else out) if tty else None
    reloads = _Reloads(reloader, changes, runner, prompt_to=prompt_to)
    reader = LineReader(source)
    try:
        return await _converse(
            reloader,
            runner,
            reloads,
            reader,
            session.id,
            pending_delta,
            tty=tty,
            prompt_to=prompt_to,
            json_lines=json_lines,
            stream=stream,
            stored_in=stored_in,
            idle_interval=idle_interval,
        )
    finally:
        await reloader.aclose()


async def _converse(
    reloader: AgentReloader,
    runner: Runner,
    reloads: _Reloads,
    reader: LineReader,
    session_id: str,
    pending_delta: dict[str, Any] | None,
    *,
    tty: bool,
    prompt_to: TextIO | None,
    json_lines: bool,
    stream: bool,
    stored_in: str | None,
    idle_interval: float,
) -> int:
    out = sys.stdout
    status = EXIT_OK
    with quiet_stdout(json_lines):
        note(f"watching {_count(reloader.files)} of agent {reloader.agent.name}", prog=PROG)
        if tty:
            print("Type exit or press Ctrl-D to quit.", file=sys.stderr)
        while True:
            if prompt_to is not None:
                print(PROMPT, end="", file=prompt_to, flush=True)
            line = await reader.next_line(idle=reloads.apply_idle, interval=idle_interval)
            if line is None:
                if tty:
                    print(file=sys.stderr)
                break
            text = line.strip()
            if text == "exit":
                break
            if not text:
                continue
            reloads.apply()
            await reloader.close_retired()
            failed = await send_message(
                runner,
                session_id,
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
    if stored_in is not None:
        note_saved(session_id, stored_in, prog=PROG)
    return status


class _Reloads:
    """Applies the changes a ``ChangeSource`` reports: reload, swap the runner's agent, say so."""

    def __init__(
        self,
        reloader: AgentReloader,
        changes: ChangeSource,
        runner: Runner,
        *,
        prompt_to: TextIO | None,
    ) -> None:
        self.reloader = reloader
        self.changes = changes
        self.runner = runner
        self.prompt_to = prompt_to
        self.watching = True
        changes.watch(reloader.root, reloader.files)

    def apply_idle(self) -> None:
        """``apply`` while the prompt waits: the report starts on a fresh line, and the prompt
        is shown again after it."""
        self.apply(idle=True)

    def apply(self, *, idle: bool = False) -> None:
        """Reload if a watched file changed since the last call (a no-change call only drains
        the watcher's queue)."""
        if not self.watching:
            return
        try:
            changed = self.changes.poll()
        except WatchFailed as exc:
            self.watching = False
            self._report([f"{PROG}: file watching stopped ({exc}); restart to reload again"], idle)
            return
        if not changed:
            return
        result = self.reloader.reload(changed)
        if result.ok:
            self.runner.agent = self.reloader.agent
        self.changes.watch(self.reloader.root, self.reloader.files)
        self._report(result.lines, idle)

    def _report(self, lines: list[str], idle: bool) -> None:
        prompt_to = self.prompt_to if idle else None
        if prompt_to is not None:
            print(file=prompt_to, flush=True)
        sys.stdout.flush()
        for line in lines:
            print(line, file=sys.stderr, flush=True)
        if prompt_to is not None:
            print(PROMPT, end="", file=prompt_to, flush=True)


def _count(paths: set[Path]) -> str:
    folders = sum(1 for path in paths if path.is_dir())
    files = len(paths) - folders
    text = f"{files} file{'s' if files != 1 else ''}"
    if folders:
        text += f" and {folders} folder{'s' if folders != 1 else ''}"
    return text
