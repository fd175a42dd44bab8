"""What ``yadk run`` and ``yadk dev`` share: the session store, the runner and the session of a
conversation, one message's invocation and how its events are printed."""

from __future__ import annotations

import contextlib
import json
import sys
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any, TextIO, TypedDict, Unpack

from yadk._secrets import mask_secrets
from yadk.agents import RunConfig
from yadk.artifacts import BaseArtifactService, InMemoryArtifactService
from yadk.cli._common import CommandError, local_store, parse_artifacts
from yadk.cli._live import LivePrinter
from yadk.cli._pending import answer_for, pending_note, waiting_call
from yadk.cli._transcript import event_lines
from yadk.errors import YadkError
from yadk.events import Event
from yadk.memory import BaseMemoryService
from yadk.reload import RunTarget, runner_for
from yadk.runner import Runner
from yadk.sessions import BaseSessionService, InMemorySessionService, Session, SessionBusy
from yadk.stores import DEFAULT_DB, Stores
from yadk.stores import open_stores as engine_open_stores
from yadk.types import Part

if TYPE_CHECKING:
    from yadk.cli._interactive import Conversation

__all__ = [
    "DEFAULT_BUSY_WAIT",
    "USER_ID",
    "Stores",
    "note",
    "note_saved",
    "open_session",
    "open_stores",
    "quiet_stdout",
    "send_message",
    "show_event",
    "start_conversation",
]

USER_ID = "user"

# How long a turn waits (seconds) while another process (yadk serve, another yadk run) has a
# turn in the same session (--busy-wait).
DEFAULT_BUSY_WAIT = 60.0
# Waits shorter than this pass without a note.
_QUIET_WAIT = 0.2


def open_stores(db: str | None) -> Stores:
    """The stores ``--db`` names (default .yadk/sessions.db, artifacts in an ``artifacts/``
    folder beside it; ``:memory:`` keeps both in memory), or a ``CommandError`` saying why not."""
    target = local_store(db, DEFAULT_DB)
    try:
        return engine_open_stores(target)
    except YadkError as exc:
        raise CommandError(f"--db {target}: {exc.message}") from None


async def open_session(
    runner: Runner,
    *,
    state: dict[str, Any] | None,
    session_id: str | None,
    prog: str = "yadk run",
) -> tuple[Session, dict[str, Any] | None]:
    """The session to talk in: ``session_id``'s if it exists (then ``state`` is returned as the
    state change for the first message, since an existing session keeps its state), else a new
    one holding ``state``."""
    sessions = runner.session_service
    session = None
    if session_id is not None:
        session = await sessions.get_session(
            app_name=runner.app_name, user_id=USER_ID, session_id=session_id
        )
    if session is None:
        session = await sessions.create_session(
            app_name=runner.app_name, user_id=USER_ID, state=state, session_id=session_id
        )
        return session, None
    note(f"continuing session {session.id} ({len(session.events)} earlier events)", prog=prog)
    return session, (dict(state) if state else None)


class ConversationOptions(TypedDict, total=False):
    """How a conversation of ``yadk run`` or ``yadk dev`` runs: its stores (in memory when
    not given), ``--json`` (``json_lines``), ``--no-stream``, ``--artifact`` and ``--busy-wait``.
    Every function that starts a conversation takes them as keywords and hands them on whole."""

    session_service: BaseSessionService | None
    artifact_service: BaseArtifactService | None
    memory_service: BaseMemoryService | None
    json_lines: bool
    stream: bool
    artifacts: dict[str, Part] | None
    busy_wait: float


class StoreOptions(ConversationOptions, total=False):
    """``ConversationOptions`` from a command line, and where ``--db`` stores sessions
    (``stored_in``, for the note on resuming)."""

    stored_in: str | None


def store_options(args: Any, stores: Stores) -> StoreOptions:
    """``StoreOptions`` from a parsed ``run``/``dev`` command line and its opened stores."""
    return StoreOptions(
        session_service=stores.sessions,
        artifact_service=stores.artifacts,
        memory_service=stores.memory,
        json_lines=args.json,
        stream=args.stream,
        artifacts=parse_artifacts(args.artifact),
        stored_in=stores.where,
        busy_wait=args.busy_wait,
    )


async def start_conversation(
    agent: RunTarget,
    *,
    prog: str,
    state: dict[str, Any] | None,
    session_id: str | None,
    app_name: str | None = None,
    echo_user: bool = True,
    before_message: Callable[[], Awaitable[None]] | None = None,
    **options: Unpack[ConversationOptions],
) -> Conversation:
    """A runner for ``agent`` (a folder's App, or its root agent) and the session to talk in (``session_id``'s, or a new one),
    with ``artifacts`` saved in it: the start of ``yadk run`` and of ``yadk dev`` (``prog``)."""
    from yadk.cli._interactive import Conversation  # which imports this module

    runner = runner_for(
        agent,
        app_name=app_name,
        session_service=options.get("session_service") or InMemorySessionService(),
        artifact_service=options.get("artifact_service") or InMemoryArtifactService(),
        memory_service=options.get("memory_service"),
    )
    session, pending_delta = await open_session(
        runner, state=state, session_id=session_id, prog=prog
    )
    conversation = Conversation(
        runner,
        session,
        out=sys.stdout,
        prog=prog,
        initial_state=state,
        pending_delta=pending_delta,
        json_lines=options.get("json_lines", False),
        artifacts=options.get("artifacts"),
        echo_user=echo_user,
        stream=options.get("stream", True),
        busy_wait=options.get("busy_wait", DEFAULT_BUSY_WAIT),
    )
    conversation.before_message = before_message
    await conversation.save_artifacts()
    return conversation


async def send_message(
    runner: Runner,
    session_id: str,
    text: str,
    *,
    out: TextIO,
    state_delta: dict[str, Any] | None = None,
    json_lines: bool = False,
    echo_user: bool = True,
    stream: bool = True,
    prog: str = "yadk run",
    busy_wait: float = DEFAULT_BUSY_WAIT,
) -> bool:
    """Run one invocation for the user's ``text`` and print its events to ``out`` (taken before
    ``quiet_stdout``); True when it ended in an error. With ``stream`` (and not ``json_lines``,
    which prints whole events only) the models stream and their text appears as it arrives.

    When the store is shared by processes (SQLite file, PostgreSQL), the turn holds the store's
    lock on the session, as a ``yadk serve`` turn does: a turn another process is running on
    the session is waited for, up to ``busy_wait`` seconds; then the message is not sent and
    the turn counts as failed."""
    key = (runner.app_name, USER_ID, session_id)
    locks = runner.locks
    try:
        await locks.acquire(key, wait=min(busy_wait, _QUIET_WAIT))
    except SessionBusy:
        if busy_wait <= _QUIET_WAIT:
            note(_busy(session_id, busy_wait), prog=prog)
            return True
        note(
            f"session {session_id} has a turn running in another process; waiting for it"
            f" (up to {busy_wait:g} s, --busy-wait)",
            prog=prog,
        )
        try:
            await locks.acquire(key, wait=busy_wait)
        except SessionBusy:
            note(_busy(session_id, busy_wait), prog=prog)
            return True
    try:
        return await _turn(
            runner,
            session_id,
            text,
            out=out,
            state_delta=state_delta,
            json_lines=json_lines,
            echo_user=echo_user,
            stream=stream,
            prog=prog,
        )
    finally:
        await locks.released(key)


def _busy(session_id: str, busy_wait: float) -> str:
    return (
        f"error: session {session_id} stayed busy in another process (yadk serve, or another"
        f" yadk run) for {busy_wait:g} s; the message was not sent. Send it again when that turn"
        " is over, or wait longer with --busy-wait SECONDS."
    )


async def _turn(
    runner: Runner,
    session_id: str,
    text: str,
    *,
    out: TextIO,
    state_delta: dict[str, Any] | None,
    json_lines: bool,
    echo_user: bool,
    stream: bool,
    prog: str,
) -> bool:
    failed = False
    printer = LivePrinter(out)
    run_config = RunConfig(streaming=stream and not json_lines)
    # A long-running tool's call left waiting: this message is its response.
    waiting = await waiting_call(runner, USER_ID, session_id)
    events = runner.run_async(
        user_id=USER_ID,
        session_id=session_id,
        new_message=answer_for(waiting, text) if waiting is not None else text,
        state_delta=state_delta,
        run_config=run_config,
    )
    # aclosing: a turn cancelled with Ctrl-C closes the invocation here, not at garbage collection.
    try:
        async with contextlib.aclosing(events):
            async for event in events:
                failed = failed or bool(event.error_code)
                if json_lines:
                    show_event(event, out, json_lines=True, echo_user=echo_user)
                else:
                    printer.show(event, echo_user=echo_user)
    finally:
        printer.finish()
    waiting = await waiting_call(runner, USER_ID, session_id)
    if waiting is not None:
        note(pending_note(waiting), prog=prog)
    return failed


def quiet_stdout(json_lines: bool) -> contextlib.AbstractContextManager[Any]:
    """With JSON lines on stdout, what user code (tools, callbacks) prints goes to stderr, so
    it cannot corrupt them."""
    return contextlib.redirect_stdout(sys.stderr) if json_lines else contextlib.nullcontext()


def note_saved(session_id: str, stored_in: str, *, prog: str = "yadk run") -> None:
    note(
        f"session {session_id} is saved in {stored_in}; continue it with --session-id {session_id}",
        prog=prog,
    )


def show_event(event: Event, out: TextIO, *, json_lines: bool, echo_user: bool) -> None:
    """Print ``event`` as JSON or as transcript lines (error lines on stderr)."""
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


def note(text: str, *, prog: str = "yadk run") -> None:
    """A note on stderr, after what stdout holds so far (secrets masked: a store's URL may
    carry a password)."""
    sys.stdout.flush()
    print(mask_secrets(f"{prog}: {text}"), file=sys.stderr)
