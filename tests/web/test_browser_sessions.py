"""Sessions in the browser: the Export and Eval case downloads (the documents of `yadk sessions
export` and of `yadk run --save-evalcase`), and a long session opening a page at a time."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import httpx

Page = Any  # conftest.Page
WebServer = Any  # conftest.WebServer

WELCOME = "Welcome to the Lighthouse Library, Ada!"


def _yadk(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "yadk.cli", *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_export_downloads_what_yadk_sessions_export_writes(
    web: Callable[..., WebServer], tab: Callable[..., Page], desk: Path
) -> None:
    server = web()
    page = tab(accept_downloads=True)
    page.open(server.url)
    page.send("Hello, my name is Ada")
    page.answer(WELCOME)
    session = page.page.locator("#session-list button[aria-current='true']").inner_text()

    with page.page.expect_download() as download:
        page.page.get_by_role("button", name="Export", exact=True).click()
    assert download.value.suggested_filename == f"desk-{session}.json"
    exported = Path(download.value.path()).read_text()

    store = desk.parent.parent / "sessions.db"  # where the fixture's server keeps sessions
    cli = _yadk("sessions", "export", session, "--db", str(store), cwd=desk.parent.parent)
    assert cli.returncode == 0, cli.stderr
    assert json.loads(exported) == json.loads(cli.stdout)
    document = json.loads(exported)
    assert document["format"] == "yadk.session/1"
    assert document["state"]["session"]["visitor"] == "Ada"
    assert len(document["events"]) == 4


def test_eval_case_downloads_an_eval_set_that_yadk_eval_passes(
    web: Callable[..., WebServer], tab: Callable[..., Page], desk: Path
) -> None:
    server = web()
    page = tab(accept_downloads=True)
    page.open(server.url)
    button = page.page.get_by_role("button", name="Eval case")
    assert button.is_disabled()  # no user turn to replay yet
    page.send("Hello, my name is Ada")
    page.answer(WELCOME)
    session = page.page.locator("#session-list button[aria-current='true']").inner_text()

    with page.page.expect_download() as download:
        button.click()
    name = download.value.suggested_filename
    assert name == f"desk-{session}.evalset.json"
    saved = desk.parent.parent / name
    download.value.save_as(saved)
    eval_set = json.loads(saved.read_text())
    [case] = eval_set["eval_cases"]
    assert case["conversation"][0]["intermediate_data"]["tool_uses"] == [
        {"name": "remember_visitor", "args": {"name": "Ada"}}
    ]

    # The same agent replays the case and passes it.
    result = _yadk("eval", str(desk), str(saved), cwd=desk.parent.parent)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "PASS" in result.stdout or "passed" in result.stdout.lower(), result.stdout


def test_a_long_session_opens_with_its_newest_events_and_shows_the_rest_on_demand(
    web: Callable[..., WebServer], tab: Callable[..., Page]
) -> None:
    server = web()
    events = []
    for turn in range(125):
        for author, text in (("user", f"question {turn}"), ("desk", f"answer {turn}")):
            events.append(
                {
                    "invocationId": f"e-{turn}",
                    "author": author,
                    "timestamp": 1_700_000_000 + turn,
                    "content": {
                        "role": "user" if author == "user" else "model",
                        "parts": [{"text": text}],
                    },
                }
            )
    created = httpx.post(
        f"{server.url}apps/desk/users/user/sessions", json={"events": events}, timeout=30
    )
    assert created.status_code == 200, created.text
    page = tab()
    page.open(server.url)
    page.page.wait_for_selector("body[data-loaded='1']")
    timeline = page.page.locator("#panel-events ol.timeline")
    assert timeline.get_attribute("aria-label") == "250 events"
    rows = timeline.locator("> li")
    assert rows.count() == 100
    assert "answer 124" in rows.last.inner_text()  # the newest, in view
    assert rows.last.is_visible()
    more = page.page.get_by_role("button", name="Show 100 earlier events (150 not shown)")
    more.click()
    assert rows.count() == 200
    page.page.get_by_role("button", name="Show 50 earlier events (50 not shown)").click()
    assert rows.count() == 250
    assert "question 0" in rows.first.inner_text()
    assert more.is_hidden()
    assert page.page.locator(".more:visible").count() == 1  # the chat's, not the timeline's

    chat = page.page.get_by_role("log", name="Conversation")
    assert chat.locator(".msg").count() == 100
    assert chat.locator(".msg").last.inner_text().endswith("answer 124")
    chat.get_by_role("button", name="Show earlier messages (150 events not shown)").click()
    assert chat.locator(".msg").count() == 200
    assert chat.locator(".msg").first.inner_text().endswith("question 25")
