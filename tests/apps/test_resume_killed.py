"""An invocation killed with SIGKILL mid-tool resumes in a new process, on SQLite and PostgreSQL.

The first process runs a turn whose tool never returns; the test kills it (``kill -9``) while the
tool runs, so the session holds the user's message and the model's tool call but no response.
A second process resumes the invocation by id: the tool runs, the model answers, and the session
ends with one invocation, no duplicated events, and the model called once more.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

pytestmark = pytest.mark.subprocess

CHILD = """\
import asyncio, json, sys, time
from pathlib import Path

from yadk import LlmAgent, Runner
from yadk.apps import App, ResumabilityConfig
from yadk.models import ScriptedModel
from yadk.sessions import open_session_service

db, phase, folder = sys.argv[1], sys.argv[2], Path(sys.argv[3])


def slow_lookup(order: str) -> dict:
    \"\"\"Look an order up.\"\"\"
    with open(folder / "tool.log", "a") as log:
        log.write(phase + "\\n")
    if phase == "first":
        (folder / "tool-started").write_text("yes")
        time.sleep(600)  # killed here
    return {"order": order, "status": "shipped"}


turns = {
    "first": [{"function_calls": [{"name": "slow_lookup", "args": {"order": "A-1"}}]}],
    "resume": [{"text": "A-1 has shipped."}],
}[phase]
agent = LlmAgent(
    name="desk", model=ScriptedModel(turns=turns), instruction="Help.", tools=[slow_lookup]
)
app = App(name="shop", root_agent=agent, resumability_config=ResumabilityConfig(is_resumable=True))


async def main() -> None:
    service = open_session_service(db)
    runner = Runner(app=app, session_service=service)
    if phase == "first":
        session = await service.create_session(app_name="shop", user_id="u", session_id="s1")
        async for _ in runner.run_async(user_id="u", session_id="s1", new_message="Where is A-1?"):
            pass
        return
    session = await service.get_session(app_name="shop", user_id="u", session_id="s1")
    invocation_id = session.events[0].invocation_id
    events = [
        e.model_dump(mode="json", exclude_none=True)
        async for e in runner.run_async(user_id="u", session_id="s1", invocation_id=invocation_id)
    ]
    print(json.dumps({"invocation_id": invocation_id, "yielded": events}))
    await service.aclose()


asyncio.run(main())
"""


def _run_child(script: Path, db: str, phase: str, folder: Path) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, str(script), db, phase, str(folder)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, "PYTHONUNBUFFERED": "1"},
    )


async def _stored(db: str) -> list[dict[str, object]]:
    from yadk.sessions import open_session_service

    service = open_session_service(db)
    session = await service.get_session(app_name="shop", user_id="u", session_id="s1")
    await service.aclose()
    assert session is not None
    return [
        {
            "author": e.author,
            "invocation_id": e.invocation_id,
            "calls": [c.name for c in e.get_function_calls()],
            "responses": [r.response for r in e.get_function_responses()],
            "text": "".join(p.text or "" for p in e.content.parts) if e.content else "",
        }
        for e in session.events
    ]


@pytest.mark.parametrize("store", ["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)])
async def test_a_killed_invocation_resumes_in_a_new_process(
    store: str, tmp_path: Path, request: pytest.FixtureRequest
) -> None:
    db = (
        str(tmp_path / "sessions.db")
        if store == "sqlite"
        else request.getfixturevalue("postgres_url")
    )
    script = tmp_path / "child.py"
    script.write_text(CHILD, encoding="utf-8")

    first = _run_child(script, db, "first", tmp_path)
    deadline = time.monotonic() + 60
    while not (tmp_path / "tool-started").exists():
        if first.poll() is not None or time.monotonic() > deadline:
            first.kill()
            pytest.fail(f"the first process never reached the tool: {first.communicate()}")
        time.sleep(0.05)
    first.send_signal(signal.SIGKILL)
    first.communicate(timeout=30)
    assert first.returncode == -signal.SIGKILL

    killed = await _stored(db)
    assert [(e["author"], e["calls"], e["responses"]) for e in killed] == [
        ("user", [], []),
        ("desk", ["slow_lookup"], []),
    ]

    second = _run_child(script, db, "resume", tmp_path)
    out, err = second.communicate(timeout=120)
    assert second.returncode == 0, err
    result = json.loads(out)
    assert result["invocation_id"] == killed[0]["invocation_id"]
    assert [e["invocation_id"] for e in result["yielded"]] == [result["invocation_id"]] * 2

    stored = await _stored(db)
    assert [(e["author"], e["calls"], e["responses"], e["text"]) for e in stored] == [
        ("user", [], [], "Where is A-1?"),
        ("desk", ["slow_lookup"], [], ""),
        ("desk", [], [{"order": "A-1", "status": "shipped"}], ""),
        ("desk", [], [], "A-1 has shipped."),
    ]
    assert {e["invocation_id"] for e in stored} == {result["invocation_id"]}
    # The tool started once in each process; the resumed one asked the model once.
    assert (tmp_path / "tool.log").read_text().split() == ["first", "resume"]
