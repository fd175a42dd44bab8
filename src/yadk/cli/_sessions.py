"""``yadk sessions list|show|export|import|delete``: the sessions in any store, for people.

``export`` writes one JSON document (the file a user attaches to a bug report); ``import``
recreates it in any store, so moving sessions from SQLite to PostgreSQL is an export and an
import.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
import time
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from yadk._files import FileProblem, read_json
from yadk._usage import session_usage, usage_lines
from yadk.cli._common import EXIT_OK, EXIT_USAGE, CommandError, file_error, local_store, not_utf8
from yadk.cli._transcript import event_lines
from yadk.errors import YadkError
from yadk.events import Event
from yadk.sessions import EXPORT_FORMAT, Session, export_document, initial_state, state_scopes
from yadk.stores import DEFAULT_DB, Stores, open_stores

__all__ = ["EXPORT_FORMAT", "execute"]


def execute(args: argparse.Namespace) -> int:
    if args.action != "list" and not args.target:
        what = "an export FILE" if args.action == "import" else "a session ID"
        raise CommandError(f"{args.action} needs {what}", exit_code=EXIT_USAGE)
    if args.action not in ("list", "import"):
        problem = not_utf8(args.target, "the session ID")
        if problem is not None:
            raise CommandError(problem, exit_code=EXIT_USAGE)
    try:
        stores = open_stores(local_store(args.db, DEFAULT_DB))
    except YadkError as exc:
        raise CommandError(f"--db {args.db or DEFAULT_DB}: {exc.message}") from None
    try:
        return asyncio.run(_run(args, stores))
    except YadkError as exc:
        raise CommandError(exc.message) from None


async def _run(args: argparse.Namespace, stores: Stores) -> int:
    try:
        action = {
            "list": _list,
            "show": _show,
            "export": _export,
            "import": _import,
            "delete": _delete,
        }[args.action]
        return await action(args, stores)
    finally:
        await stores.aclose()


async def _apps(args: argparse.Namespace, stores: Stores) -> list[str]:
    if args.app:
        return [args.app]
    list_apps = getattr(stores.sessions, "list_app_names", None)
    if list_apps is None:
        raise CommandError("this store cannot list its apps: give --app", exit_code=EXIT_USAGE)
    names: list[str] = await list_apps()
    return names


async def _list(args: argparse.Namespace, stores: Stores) -> int:
    rows = []
    for app in await _apps(args, stores):
        listed = await stores.sessions.list_sessions(app_name=app, user_id=args.user)
        rows += [(app, s.user_id, s.id, s.last_update_time, len(s.state)) for s in listed.sessions]
    for app, user, sid, updated, keys in sorted(rows, key=lambda r: r[3]):
        print(f"{app}\t{user}\t{sid}\t{_when(updated)}\t{keys} state key{'' if keys == 1 else 's'}")
    if not rows:
        print("no sessions", file=sys.stderr)
    return EXIT_OK


async def _find(args: argparse.Namespace, stores: Stores) -> Session:
    """The one session ``args.target`` names (narrowed by --app/--user), with its events."""
    matches = []
    for app in await _apps(args, stores):
        listed = await stores.sessions.list_sessions(app_name=app, user_id=args.user)
        matches += [s for s in listed.sessions if s.id == args.target]
    if not matches:
        raise CommandError(f"no session {args.target!r} in {args.db or DEFAULT_DB}")
    if len(matches) > 1:
        owners = ", ".join(f"--app {s.app_name} --user {s.user_id}" for s in matches)
        raise CommandError(
            f"session id {args.target!r} exists more than once; add one of: {owners}",
            exit_code=EXIT_USAGE,
        )
    found = await stores.sessions.get_session(
        app_name=matches[0].app_name, user_id=matches[0].user_id, session_id=args.target
    )
    assert found is not None
    return found


async def _show(args: argparse.Namespace, stores: Stores) -> int:
    session = await _find(args, stores)
    print(f"session {session.id} of user {session.user_id} in app {session.app_name}")
    print(f"updated {_when(session.last_update_time)}, {len(session.events)} events")
    print("\nconversation:")
    for event in session.events:
        for line in event_lines(event):
            print(f"  {line.text}")
    print("\nstate:")
    for scope, values in state_scopes(session.state).items():
        print(f"  {scope}:" + ("" if values else " (empty)"))
        for key, value in values.items():
            print(f"    {key} = {json.dumps(value, ensure_ascii=False)}")
    usage = session_usage(session.events)
    if usage.invocations:
        print("\nusage:")
        for text in usage_lines(usage):
            print(f"  {text}")
    return EXIT_OK


async def _export(args: argparse.Namespace, stores: Stores) -> int:
    session = await _find(args, stores)
    document = export_document(session)
    text = json.dumps(document, ensure_ascii=False, indent=2) + "\n"
    if args.output:
        await asyncio.to_thread(Path(args.output).write_text, text, encoding="utf-8")
        print(f"exported {len(session.events)} events to {args.output}", file=sys.stderr)
    else:
        sys.stdout.write(text)
    return EXIT_OK


async def _import(args: argparse.Namespace, stores: Stores) -> int:
    document = _read_export(args.target)
    app = args.app or document["app_name"]
    user = args.user or document["user_id"]
    scopes = document["state"]
    events = _events(args.target, document["events"])
    # The state the session had before its first event: its deltas are then replayed in order.
    state = initial_state(scopes, events)
    session = await stores.sessions.create_session(
        app_name=app, user_id=user, session_id=document["id"], state=state
    )
    for event in events:
        await stores.sessions.append_event(session, event)
    print(f"imported session {session.id} ({len(events)} events) into app {app}, user {user}")
    return EXIT_OK


async def _delete(args: argparse.Namespace, stores: Stores) -> int:
    session = await _find(args, stores)
    await stores.sessions.delete_session(
        app_name=session.app_name, user_id=session.user_id, session_id=session.id
    )
    print(f"deleted session {session.id} ({len(session.events)} events)")
    return EXIT_OK


def _read_export(path: str) -> dict[str, Any]:
    try:
        document = read_json(path, kind="session_export")
    except FileProblem as problem:
        raise file_error(problem, path) from None
    if not isinstance(document, dict) or document.get("format") != EXPORT_FORMAT:
        raise CommandError(
            f"{path}: not a session export (expected a JSON object with"
            f' "format": "{EXPORT_FORMAT}", as `yadk sessions export` writes)'
        )
    missing = [k for k in ("app_name", "user_id", "id", "state", "events") if k not in document]
    if missing:
        raise CommandError(f"{path}: the export lacks {', '.join(missing)}")
    for key in ("app_name", "user_id", "id"):
        if not isinstance(document[key], str) or not document[key]:
            raise CommandError(f'{path}: "{key}" must be a non-empty string')
    scopes = document["state"]
    if not isinstance(scopes, dict) or not all(
        isinstance(scopes.get(scope, {}), dict) for scope in ("session", "user", "app")
    ):
        raise CommandError(f'{path}: "state" must be an object of "session", "user" and "app"'
                           " objects, as `yadk sessions export` writes")  # fmt: skip
    if not isinstance(document["events"], list):
        raise CommandError(f'{path}: "events" must be a list of events')
    return document


def _events(path: str, raw: list[Any]) -> list[Event]:
    events = []
    for index, item in enumerate(raw):
        try:
            events.append(Event.model_validate(item))
        except ValidationError as exc:
            first = exc.errors()[0]
            where = ".".join(str(part) for part in first["loc"]) or "the event"
            raise CommandError(
                f'{path}: "events"[{index}] is not an event: {where}: {first["msg"]}'
                f" ({exc.error_count()} problem{'s' if exc.error_count() != 1 else ''})"
            ) from None
    return events


def _when(timestamp: float) -> str:
    return time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(timestamp))
