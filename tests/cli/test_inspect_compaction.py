"""``yadk inspect AGENT --session-id ID --db PATH``: the next request of a stored session, with
each compaction summary and the events it replaced."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

from tests.cli.conftest import Cli

from yadk import Runner
from yadk.apps import App, EventsCompactionConfig, LlmEventSummarizer
from yadk.cli._common import load_agent
from yadk.models import ScriptedModel
from yadk.sessions import SqliteSessionService

CONFIG = """\
name: desk
model: gemini-2.5-flash
instruction: Be brief.
"""


async def _stored_session(folder: Path, db: Path) -> str:
    """Three invocations run by ``yadk run``'s app and user, compacted every two."""
    root = load_agent(folder)
    root.model = ScriptedModel(turns=[{"text": "one"}, {"text": "two"}, {"text": "three"}])
    config = EventsCompactionConfig(
        compaction_interval=2,
        overlap_size=0,
        summarizer=LlmEventSummarizer(ScriptedModel(turns=[{"text": "User said a and b."}])),
    )
    store = SqliteSessionService(db)
    runner = Runner(
        app=App(name="desk", root_agent=root, events_compaction_config=config),
        session_service=store,
    )
    session = await store.create_session(app_name="desk", user_id="user", session_id="s-1")
    for text in ("a", "b", "c"):
        async for _ in runner.run_async(user_id="user", session_id=session.id, new_message=text):
            pass
    await store.aclose()
    return session.id


def test_the_request_shows_the_summary_and_the_range_it_replaced(cli: Cli, tmp_path: Path) -> None:
    folder = tmp_path / "desk"
    folder.mkdir()
    (folder / "root_agent.yaml").write_text(CONFIG, encoding="utf-8")
    db = tmp_path / "s.db"
    session_id = asyncio.run(_stored_session(folder, db))

    code, out, err = cli("inspect", str(folder), "--session-id", session_id, "--db", str(db))
    assert (code, err.count("error")) == (0, 0), err
    contents = out.split("== contents (3) ==\n")[1].split("\n\n== tools")[0]
    # The summary in place of the first two invocations, then the third.
    assert contents == "[model]\nUser said a and b.\n\n[user]\nc\n\n[model]\nthree"
    compaction = out.split("== compaction ==\n")[1]
    assert compaction.startswith(
        "summary at event 5 of 7 (in the request): replaces events 1-4 (4 events, 2 invocations,"
    )
    assert compaction.endswith("\n  | User said a and b.\n")

    code, out, _ = cli(
        "inspect", str(folder), "--session-id", session_id, "--db", str(db), "--json"
    )
    document = json.loads(out)
    assert document["contents"][0] == {"role": "model", "parts": [{"text": "User said a and b."}]}
    [found] = document["compactions"]
    assert (found["event"], found["replaced_events"], found["superseded"]) == (
        5,
        [1, 2, 3, 4],
        False,
    )
    assert found["summary"] == "User said a and b."


def test_an_unknown_session_is_named(cli: Cli, tmp_path: Path) -> None:
    folder = tmp_path / "desk"
    folder.mkdir()
    (folder / "root_agent.yaml").write_text(CONFIG, encoding="utf-8")
    code, _, err = cli(
        "inspect", str(folder), "--session-id", "nope", "--db", str(tmp_path / "s.db")
    )
    assert code == 1
    assert f"no session 'nope' in {tmp_path / 's.db'}" in err


def test_a_session_is_inspected_as_stored(cli: Cli, tmp_path: Path) -> None:
    folder = tmp_path / "desk"
    folder.mkdir()
    (folder / "root_agent.yaml").write_text(CONFIG, encoding="utf-8")
    code, _, err = cli("inspect", str(folder), "--session-id", "s", "--message", "hi")
    assert code == 2
    assert "--session-id inspects a stored session as it is; drop --message" in err
