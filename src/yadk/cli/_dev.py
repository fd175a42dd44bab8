"""``yadk dev``: an interactive session that reloads the agent whenever a file it depends on
changes, keeping the conversation.

Changes are applied before each message and while waiting for one. A reload that fails keeps the
last good agent answering and prints why; the next save that fixes the file reloads it.
"""

from __future__ import annotations

import argparse
import asyncio
import sys
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any, TextIO, Unpack

from yadk.cli._common import (
    EXIT_FAILURE,
    EXIT_OK,
    OFFLINE_HINT,
    CommandError,
    agent_path,
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
    start_conversation,
    store_options,
)
from yadk.cli._dotenv import load_dotenv_files, loaded_notes
from yadk.cli._failures import reporting_failures
from yadk.cli._input import LineReader
from yadk.cli._interactive import Conversation, terminal_loop
from yadk.cli._otel import start_otel
from yadk.cli._prompt import TerminalPrompt
from yadk.cli._startup import check_credentials, print_warnings
from yadk.errors import AgentLoadError
from yadk.reload import AgentReloader, ChangeSource, WatchFailed, WatchfilesChanges
from yadk.runner import Runner

__all__ = ["dev_interactive", "dev_loop", "execute"]

PROG = "yadk dev"
PROMPT = "[user]: "


def execute(args: argparse.Namespace) -> int:
    with reporting_failures(PROG, verbose=show_tracebacks(args)) as failures:
        status = _execute(args)
    if failures.failures and status == EXIT_OK:
        note("a tool or model failed during the session (see above); exit status 1", prog=PROG)
        return EXIT_FAILURE
    return status


def _execute(args: argparse.Namespace) -> int:
    path = agent_path(args.agent)
    for line in loaded_notes(load_dotenv_files(path)):
        note(line, prog=PROG)
    start_otel(args)
    state = parse_state(args.state)
    model = resolve_model_option(args.model) if args.model else None
    try:
        reloader = AgentReloader(
            path, model=model, model_hint=OFFLINE_HINT, run_checks=True, given_keys=state
        )
    except AgentLoadError as exc:
        raise CommandError(exc.message, details=exc.details) from None
    print_warnings(reloader.loaded.diagnostics)  # later reloads print theirs with the notice
    check_credentials(reloader.agent, path)
    stores = open_stores(args.db)  # the same default store as yadk run
    changes = WatchfilesChanges()
    try:
        converse = dev_interactive if sys.stdin.isatty() else _dev_loop_piped
        return converse(
            reloader,
            changes,
            state=state,
            session_id=args.session_id,
            **store_options(args, stores),
        )
    finally:
        changes.close()
        stores.close()


def _dev_loop_piped(reloader: AgentReloader, changes: ChangeSource, **options: Any) -> int:
    """``dev_loop`` on piped stdin, in an event loop of its own (``dev_interactive`` is the
    terminal's); the options are ``dev_interactive``'s, which both take."""
    return asyncio.run(dev_loop(reloader, changes, **options))


async def dev_loop(
    reloader: AgentReloader,
    changes: ChangeSource,
    *,
    stdin: TextIO | None = None,
    state: dict[str, Any] | None = None,
    session_id: str | None = None,
    stored_in: str | None = None,
    idle_interval: float = 0.25,
    **options: Unpack[ConversationOptions],
) -> int:
    """Talk to ``reloader``'s agent with lines read from ``stdin`` until EOF or ``exit``,
    reloading it when ``changes`` reports a changed file; returns the exit status (1 if an
    invocation ended in an error).

    ``idle_interval`` is how often (seconds) changes are checked while waiting for a line.
    """
    conversation = await start_conversation(
        reloader.target,
        prog=PROG,
        before_message=reloader.close_retired,
        state=state,
        session_id=session_id,
        **options,
    )
    source = stdin or sys.stdin
    tty = source.isatty()
    conversation.echo_user = not tty
    # The prompt stays off stdout when stdout carries JSON lines.
    prompt_to = (sys.stderr if conversation.json_lines else sys.stdout) if tty else None
    reloads = _Reloads(reloader, changes, conversation.runner, prompt_to=prompt_to)
    reader = LineReader(source)
    try:
        await _converse(conversation, reloads, reader, prompt_to, idle_interval=idle_interval)
    finally:
        await reloader.aclose()
        await conversation.aclose()
    if stored_in is not None:
        note_saved(conversation.session.id, stored_in, prog=PROG)
    return conversation.status


async def _converse(
    conversation: Conversation,
    reloads: _Reloads,
    reader: LineReader,
    prompt_to: TextIO | None,
    *,
    idle_interval: float,
) -> None:
    reloader = reloads.reloader
    tty = prompt_to is not None
    with quiet_stdout(conversation.json_lines):
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
            if line.strip():
                reloads.apply()
            if not await conversation.handle(line):
                break


def dev_interactive(
    reloader: AgentReloader,
    changes: ChangeSource,
    *,
    state: dict[str, Any] | None = None,
    session_id: str | None = None,
    stored_in: str | None = None,
    idle_interval: float = 0.25,
    **options: Unpack[ConversationOptions],
) -> int:
    """``dev_loop`` at a terminal: the readline prompt (editing, history, slash commands,
    Ctrl-C rules), with reloads applied by a watcher thread while the prompt waits; a reload
    notice is printed above the prompt, which is drawn again with the half-typed line."""
    with asyncio.Runner() as aio:
        conversation = aio.run(
            start_conversation(
                reloader.target,
                prog=PROG,
                before_message=reloader.close_retired,
                state=state,
                session_id=session_id,
                **options,
            )
        )
        conversation.echo_user = False
        prompt = TerminalPrompt(
            PROMPT,
            agent_name=reloader.agent.name,
            out=sys.stderr if conversation.json_lines else sys.stdout,
        )
        reloads = _Reloads(reloader, changes, conversation.runner, prompt_to=None)
        reloads.notice = prompt.notice
        turn = threading.Lock()
        stop = threading.Event()

        def watch_while_idle() -> None:
            while not stop.wait(idle_interval):
                with turn:
                    reloads.apply_idle()

        watcher = threading.Thread(target=watch_while_idle, name="yadk-dev-reload", daemon=True)
        with quiet_stdout(conversation.json_lines):
            note(f"watching {_count(reloader.files)} of agent {reloader.agent.name}", prog=PROG)
            print("Type /help for commands, exit or Ctrl-D to quit.", file=sys.stderr)
            watcher.start()
            try:
                status = terminal_loop(
                    aio.get_loop(),
                    conversation,
                    prompt,
                    before_turn=reloads.apply,
                    turn_lock=turn,
                )
            finally:
                stop.set()
                watcher.join()
                aio.run(reloader.aclose())
                aio.run(conversation.aclose())
    if stored_in is not None:
        note_saved(conversation.session.id, stored_in, prog=PROG)
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
        self.notice: Callable[[list[str]], None] | None = None
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
            self.runner.retarget(self.reloader.target)
        self.changes.watch(self.reloader.root, self.reloader.files)
        self._report(result.lines, idle)

    def _report(self, lines: list[str], idle: bool) -> None:
        if self.notice is not None:
            self.notice(lines)
            return
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
