"""The conversation ``yadk run`` and ``yadk dev`` hold with the user: messages, slash commands,
and the terminal loop's Ctrl-C rules.

At the prompt, Ctrl-C quits cleanly. During a turn, the first Ctrl-C cancels that turn (the
session keeps the events it had appended) and the prompt comes back; a second Ctrl-C before the
turn has wound down quits (exit status 130).
"""

from __future__ import annotations

import asyncio
import signal
import sys
import threading
from collections.abc import Awaitable, Callable, Coroutine
from typing import Any, TextIO, TypeVar

from yadk.cli._common import EXIT_FAILURE, EXIT_OK
from yadk.cli._conversation import DEFAULT_BUSY_WAIT, USER_ID, note, send_message
from yadk.cli._prompt import TerminalPrompt
from yadk.cli._slash import is_command, run_command
from yadk.runner import Runner
from yadk.sessions import Session
from yadk.types import Part

__all__ = ["CANCELLED", "Conversation", "run_cancellable", "terminal_loop"]

T = TypeVar("T")


class _Cancelled:
    """What ``run_cancellable`` returns for a turn the user cancelled with Ctrl-C."""


CANCELLED = _Cancelled()


class Conversation:
    """One session with an agent: sends messages, answers slash commands, tracks the status."""

    def __init__(
        self,
        runner: Runner,
        session: Session,
        *,
        out: TextIO,
        prog: str,
        initial_state: dict[str, Any] | None = None,
        pending_delta: dict[str, Any] | None = None,
        json_lines: bool = False,
        echo_user: bool = True,
        artifacts: dict[str, Part] | None = None,
        stream: bool = True,
        busy_wait: float = DEFAULT_BUSY_WAIT,
    ) -> None:
        self.runner = runner
        self.session = session
        self.out = out
        self.prog = prog
        self.initial_state = dict(initial_state or {})
        self.pending_delta = pending_delta
        self.json_lines = json_lines
        self.echo_user = echo_user
        self.status = EXIT_OK
        self.artifacts = dict(artifacts or {})
        self.stream = stream
        self.busy_wait = busy_wait
        # Runs before each message is sent (yadk dev: close the toolsets of replaced agents).
        self.before_message: Callable[[], Awaitable[None]] | None = None

    async def aclose(self) -> None:
        """Close the store's turn locks (a PostgreSQL connection, a lock file) that the
        messages used, in the event loop that opened them."""
        locks = self.runner.session_service.turn_locks()
        if locks is not None:
            await locks.aclose()

    async def save_artifacts(self) -> None:
        """Put the ``--artifact`` files into the session (at the start and after ``/reset``)."""
        for name, part in self.artifacts.items():
            await self.runner.artifact_service.save_artifact(
                app_name=self.runner.app_name,
                user_id=USER_ID,
                session_id=self.session.id,
                filename=name,
                artifact=part,
            )

    async def handle(self, line: str) -> bool:
        """Act on one line the user typed; False when it asks to quit (``exit``)."""
        text = line.strip()
        if text == "exit":
            return False
        if not text:
            return True
        if is_command(text):
            # Command output is for the person; with JSON lines on stdout it goes to stderr.
            await run_command(self, text, sys.stderr if self.json_lines else self.out)
            return True
        if text.startswith("//"):
            text = text[1:]
        if self.before_message is not None:
            await self.before_message()
        failed = await send_message(
            self.runner,
            self.session.id,
            text,
            out=self.out,
            state_delta=self.pending_delta,
            json_lines=self.json_lines,
            echo_user=self.echo_user,
            stream=self.stream,
            prog=self.prog,
            busy_wait=self.busy_wait,
        )
        self.pending_delta = None
        if failed:
            self.status = EXIT_FAILURE
        return True

    async def current_session(self) -> Session:
        """The session as the store holds it now."""
        fresh = await self.runner.session_service.get_session(
            app_name=self.runner.app_name, user_id=USER_ID, session_id=self.session.id
        )
        return fresh or self.session

    async def new_session(self) -> Session:
        """Start over: a new session holding the initial state (``/reset``)."""
        self.session = await self.runner.session_service.create_session(
            app_name=self.runner.app_name, user_id=USER_ID, state=dict(self.initial_state)
        )
        self.pending_delta = None
        await self.save_artifacts()
        return self.session


def run_cancellable(
    loop: asyncio.AbstractEventLoop, coro: Coroutine[Any, Any, T]
) -> T | _Cancelled:
    """Run ``coro`` on ``loop`` (not running) until it ends. The first Ctrl-C cancels it and
    returns ``CANCELLED``; a second one raises KeyboardInterrupt at once.

    The handler is the loop's own (``add_signal_handler``): the signal wakes the loop through
    its self-pipe even when it sleeps in ``epoll_wait``, so no Ctrl-C is missed.
    """
    task = loop.create_task(coro)
    interrupts = 0

    def on_sigint() -> None:
        nonlocal interrupts
        interrupts += 1
        if interrupts == 1:
            task.cancel()
        else:
            loop.stop()  # run_until_complete gives up on the task: quit now

    on_main_thread = threading.current_thread() is threading.main_thread()
    if on_main_thread:
        loop.add_signal_handler(signal.SIGINT, on_sigint)
    try:
        return loop.run_until_complete(task)
    except asyncio.CancelledError:
        if interrupts:
            return CANCELLED
        raise
    except RuntimeError:
        if interrupts > 1:  # "Event loop stopped before Future completed."
            raise KeyboardInterrupt from None
        raise
    finally:
        if on_main_thread:
            loop.remove_signal_handler(signal.SIGINT)


def terminal_loop(
    loop: asyncio.AbstractEventLoop,
    conversation: Conversation,
    prompt: TerminalPrompt,
    *,
    before_turn: Callable[[], None] | None = None,
    turn_lock: threading.Lock | None = None,
) -> int:
    """Prompt, act, repeat until ``exit``, Ctrl-D or Ctrl-C at the prompt; the exit status
    (1 if a turn ended in an error). ``before_turn`` runs before each line is acted on, and
    ``turn_lock`` is held from then until the turn ends (the dev loop's reloads wait for it)."""
    lock = turn_lock or threading.Lock()
    while True:
        try:
            line = prompt.read()
        except KeyboardInterrupt:
            line = None
        if line is None:
            print(file=sys.stderr)
            return conversation.status
        with lock:
            if before_turn is not None:
                before_turn()
            outcome = run_cancellable(loop, conversation.handle(line))
        if outcome is CANCELLED:
            sys.stdout.flush()
            print(file=sys.stderr)
            note(
                "turn cancelled; the session keeps what it had appended"
                " (Ctrl-C at the prompt quits)",
                prog=conversation.prog,
            )
            continue
        if outcome is False:
            return conversation.status
