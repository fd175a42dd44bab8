"""``yadk inspect AGENT --session-id ID``: the request the next model call of a stored session
would receive, and what event compaction replaced in it (each summary and its range)."""

from __future__ import annotations

import argparse
import asyncio
import datetime
import json
import sys
from typing import Any

from yadk._compacted import compaction_ranges
from yadk.agents import BaseAgent
from yadk.cli._common import EXIT_OK, EXIT_USAGE, CommandError, local_store
from yadk.cli._conversation import USER_ID
from yadk.cli._inspect import Inspection, _target, inspect_session
from yadk.cli._request_text import request_text
from yadk.errors import YadkError
from yadk.events import Event
from yadk.runner import Runner
from yadk.sessions import Session
from yadk.stores import DEFAULT_DB, Stores, open_stores

__all__ = ["compactions", "compactions_text", "execute_stored"]


def execute_stored(root: BaseAgent, args: argparse.Namespace) -> int:
    """Print the stored session's next request (text or ``--json``), then its compactions."""
    given = [f"--{name}" for name in ("state", "message") if getattr(args, name)]
    if args.artifact:
        given.append("--artifact")
    if given:
        raise CommandError(
            f"--session-id inspects a stored session as it is; drop {', '.join(given)}",
            exit_code=EXIT_USAGE,
        )
    try:
        stores = open_stores(local_store(args.db, DEFAULT_DB))
    except YadkError as exc:
        raise CommandError(f"--db {args.db or DEFAULT_DB}: {exc.message}") from None
    session, inspection = asyncio.run(_inspect(root, args, stores))
    found = compactions(session.events)
    if args.json:
        document = {**inspection.request.to_dict(), "compactions": found}
        print(json.dumps(document, indent=2, ensure_ascii=False))
    else:
        print(request_text(inspection.request), end="")
        print(compactions_text(found, len(session.events)), end="")
    sys.stdout.flush()
    for note in inspection.notes:
        print(f"yadk inspect: note: {note}", file=sys.stderr)
    return EXIT_OK


async def _inspect(
    root: BaseAgent, args: argparse.Namespace, stores: Stores
) -> tuple[Session, Inspection]:
    try:
        session = await _find(root, args.session_id, stores, args.db or DEFAULT_DB)
        runner = Runner(agent=root, app_name=session.app_name, session_service=stores.sessions)
        next_agent = (
            _target(root, args.agent_name) if args.agent_name else runner.find_agent_to_run(session)
        )
        inspection = await inspect_session(
            root,
            session,
            session_service=stores.sessions,
            artifact_service=stores.artifacts,
            next_agent=next_agent,
        )
        return session, inspection
    except YadkError as exc:
        raise CommandError(exc.message) from None
    finally:
        await stores.aclose()


async def _find(root: BaseAgent, session_id: str, stores: Stores, where: str) -> Session:
    """The session ``yadk run`` would continue (app named after the agent), else the one
    session with that id in any app of the store."""
    session = await stores.sessions.get_session(
        app_name=root.name, user_id=USER_ID, session_id=session_id
    )
    if session is not None:
        return session
    list_apps = getattr(stores.sessions, "list_app_names", None)
    owners = []
    for app in await list_apps() if list_apps is not None else []:
        listed = await stores.sessions.list_sessions(app_name=app, user_id=None)
        owners += [(s.app_name, s.user_id) for s in listed.sessions if s.id == session_id]
    if len(owners) != 1:
        problem = "no session" if not owners else "more than one session with id"
        raise CommandError(f"{problem} {session_id!r} in {where}")
    found = await stores.sessions.get_session(
        app_name=owners[0][0], user_id=owners[0][1], session_id=session_id
    )
    if found is None:
        raise CommandError(f"no session {session_id!r} in {where}")
    return found


def compactions(events: list[Event]) -> list[dict[str, Any]]:
    """Each compaction event of ``events`` (numbered from 1, as stored): its summary, the
    events its range replaced, and whether a later summary superseded it."""
    kept = {index for index, _, _ in compaction_ranges(events)}
    found = []
    for index, event in enumerate(events):
        compaction = event.actions.compaction
        if compaction is None:
            continue
        replaced = [
            number
            for number, other in enumerate(events, 1)
            if other.actions.compaction is None
            and compaction.start_timestamp <= other.timestamp <= compaction.end_timestamp
        ]
        found.append(
            {
                "event": index + 1,
                "event_id": event.id,
                "start_timestamp": compaction.start_timestamp,
                "end_timestamp": compaction.end_timestamp,
                "replaced_events": replaced,
                "replaced_invocations": list(
                    dict.fromkeys(events[n - 1].invocation_id for n in replaced)
                ),
                "superseded": index not in kept,
                "summary": "".join(
                    p.text or "" for p in compaction.compacted_content.parts if not p.thought
                ),
            }
        )
    return found


def compactions_text(found: list[dict[str, Any]], total: int) -> str:
    """The compactions as a headed section of ``yadk inspect``'s text output."""
    lines = ["", "== compaction =="]
    if not found:
        lines.append(f"nothing compacted: the request carries all {total} stored events")
    for item in found:
        state = "superseded by a later summary" if item["superseded"] else "in the request"
        lines.append(
            f"summary at event {item['event']} of {total} ({state}): replaces"
            f" {_ranges(item['replaced_events'])}"
            f" ({len(item['replaced_events'])} events, {len(item['replaced_invocations'])}"
            f" invocations, {_when(item['start_timestamp'])} to {_when(item['end_timestamp'])})"
        )
        lines.extend(f"  | {line}" for line in item["summary"].splitlines())
    return "\n".join(lines) + "\n"


def _ranges(numbers: list[int]) -> str:
    """``[1, 2, 3, 5]`` as ``events 1-3, 5``."""
    spans: list[list[int]] = []
    for number in numbers:
        if spans and number == spans[-1][1] + 1:
            spans[-1][1] = number
        else:
            spans.append([number, number])
    text = ", ".join(f"{a}-{b}" if a != b else str(a) for a, b in spans)
    return f"events {text}" if text else "no stored events"


def _when(timestamp: float) -> str:
    moment = datetime.datetime.fromtimestamp(timestamp, tz=datetime.UTC)
    return moment.strftime("%Y-%m-%d %H:%M:%S UTC")
