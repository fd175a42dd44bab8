"""The web UI through a real browser: Chromium (playwright) against a real ``yadk web`` process.

Screenshots go to ``$YADK_WEB_SCREENSHOTS`` when set (docs/web.md's pictures are regenerated with
``YADK_WEB_SCREENSHOTS=docs/web python -m pytest tests/web/``).
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import httpx
import pytest

pytestmark = pytest.mark.subprocess

Page = Any  # conftest.Page: one browser tab on the UI
WebServer = Any  # conftest.WebServer

STATIC = "You work at the front desk of the Lighthouse Library."
WELCOME = "Welcome to the Lighthouse Library, Ada!"


def _serve(web: Callable[..., WebServer], tab: Callable[..., Page], **options: Any) -> Page:
    server = web()
    page = tab(**options)
    page.open(server.url)
    return page


def test_chat_streams_the_answer_and_the_events_panel_shows_the_turn(
    web: Callable[..., WebServer], tab: Callable[..., Page]
) -> None:
    page = _serve(web, tab)
    assert page.page.get_by_role("combobox", name="App").input_value() == "desk"
    page.watch_streaming()
    page.send("Hello, my name is Ada")
    page.answer(WELCOME)
    assert page.page.evaluate("window.__streamed") is True, "the answer was not streamed"
    chat = page.page.get_by_role("log", name="Conversation")
    assert chat.locator(".msg.user").last.inner_text().endswith("Hello, my name is Ada")
    agent_message = chat.locator(".msg.agent", has_text=WELCOME)
    assert agent_message.locator(".who").inner_text() == "desk"
    call = chat.locator("details.tool-call").last
    assert call.locator("summary").inner_text() == 'call remember_visitor({"name":"Ada"})'
    result = chat.locator("details.tool-result").last
    assert "remembered" in result.locator("summary").inner_text()
    result.locator("summary").click()
    assert '"status": "remembered"' in result.locator("pre").inner_text()

    events = page.page.locator("#panel-events .timeline > li")
    events.nth(3).wait_for()
    assert events.count() == 4
    rows = [events.nth(i).locator("summary").inner_text() for i in range(4)]
    assert "user" in rows[0] and "Hello, my name is Ada" in rows[0]
    assert "call remember_visitor" in rows[1]
    assert "response remember_visitor" in rows[2] and "state Δ visitor" in rows[2]
    assert WELCOME in rows[3]
    events.nth(3).locator("summary").click()
    shown = json.loads(events.nth(3).locator("pre").inner_text())
    assert shown["author"] == "desk"
    assert shown["content"]["parts"][0]["text"].startswith(WELCOME)
    page.shot("chat")


def test_state_and_request_panels_show_what_the_turn_did_and_sent(
    web: Callable[..., WebServer], tab: Callable[..., Page]
) -> None:
    page = _serve(web, tab)
    page.send("Hello, my name is Ada")
    page.answer(WELCOME)

    state = page.tab("State")
    visitor = state.locator("tr[data-key='visitor']")
    visitor.wait_for()
    assert visitor.get_attribute("class") == "changed"
    assert visitor.locator("td").inner_text() == '"Ada"'
    temp = state.locator("[data-scope='temp:'] tr[data-key='temp:last_tool'] td")
    assert temp.inner_text() == '"remember_visitor"'
    # Edit state through the API, as a tester would.
    state.get_by_label("Key").fill("user:tier")
    state.get_by_label("Value (JSON)").fill('"gold"')
    state.get_by_role("button", name="Apply state delta").click()
    tier = state.locator("[data-scope='user:'] tr[data-key='user:tier'] td")
    tier.wait_for()
    assert tier.inner_text() == '"gold"'
    page.shot("state")

    request = page.tab("Request")
    calls = request.locator("article.call")
    calls.nth(1).wait_for()
    assert calls.count() == 2
    first, second = calls.nth(0), calls.nth(1)
    assert first.locator("h3").inner_text().startswith("Call 1 · desk · scripted:scripted.yaml")
    assert first.locator(".segment.static").inner_text() == STATIC
    assert 'Your internal name is "desk"' in first.locator(".segment.dynamic").first.inner_text()
    dynamic = first.locator(".content-block.dynamic")
    assert "The visitor is called ." in dynamic.inner_text()
    assert "remember_visitor" in first.locator("ul.tools").inner_text()
    assert "load_skill" in first.locator("ul.tools").inner_text()
    assert "The visitor is called Ada." in second.locator(".content-block.dynamic").inner_text()
    assert "function response: remember_visitor" in second.locator("ol.contents").inner_text()
    page.shot("request")


def test_agent_panel_names_the_file_and_line_of_each_part(
    web: Callable[..., WebServer], tab: Callable[..., Page]
) -> None:
    page = _serve(web, tab)
    agent = page.tab("Agent")
    desk = agent.locator("li[data-agent='desk']")
    desk.wait_for()
    locations = desk.locator("code.location")
    titles = [locations.nth(i).get_attribute("title") for i in range(locations.count())]
    assert any(t and t.endswith("desk/root_agent.yaml:2") for t in titles)
    assert any(t and t.endswith("desk/root_agent.yaml:8") for t in titles)  # the tool
    assert any(t and t.endswith("greeting/SKILL.md:1") for t in titles)
    assert "references/hours.md" in desk.inner_text()
    archivist = agent.locator("li[data-agent='archivist'] code.location").first
    assert (archivist.get_attribute("title") or "").endswith("desk/archivist.yaml:1")
    page.shot("agent")


def _wait_notice(page: Page, text: str, *, timeout_ms: int = 30000) -> None:
    page.page.locator("#reload", has_text=text).wait_for(timeout=timeout_ms)


def test_editing_a_skill_reloads_it_and_the_next_turn_uses_it(
    web: Callable[..., WebServer], tab: Callable[..., Page], desk: Path
) -> None:
    page = _serve(web, tab)
    page.send("Please greet me")
    page.answer("I followed the greeting skill.")
    result = page.page.locator("details.tool-result").last
    result.locator("summary").click()
    assert "opening hours" in result.locator("pre").inner_text()

    skill = desk / "skills" / "greeting" / "SKILL.md"
    skill.write_text(
        skill.read_text().replace(
            "mention today's opening hours", "offer them a Lighthouse bookmark"
        )
    )
    _wait_notice(page, "reloaded")
    notice = page.page.get_by_role("status").filter(has_text="reloaded").inner_text()
    assert "SKILL.md" in notice and " ms" in notice
    page.shot("reload")
    page.send("Greet me again")
    page.page.locator(".msg.agent .text", has_text="I followed the greeting skill.").nth(
        1
    ).wait_for(timeout=30000)
    result = page.page.locator("details.tool-result").last
    result.locator("summary").click()
    assert "Lighthouse bookmark" in result.locator("pre").inner_text()


def test_a_broken_config_shows_located_diagnostics_while_the_last_good_agent_answers(
    web: Callable[..., WebServer], tab: Callable[..., Page], desk: Path
) -> None:
    page = _serve(web, tab)
    config = desk / "root_agent.yaml"
    good = config.read_text()
    config.write_text(good.replace("\ninstruction: ", "\ninstructions: "))
    alert = page.page.get_by_role("alert").filter(has_text="Reload failed")
    alert.wait_for(timeout=30000)
    item = alert.locator("li[data-rule='unknown-key']")
    text = item.inner_text()
    # Named relative to the served folder (tmp_path/agents).
    assert item.locator("code.location").inner_text() == "desk/root_agent.yaml:6:1"
    assert "Unknown key `instructions`" in text
    assert "hint: Did you mean `instruction`?" in text
    assert "reload failed" in page.page.locator("#reload").inner_text()

    page.send("Are you still there?")
    page.answer("Yes, the last good agent is still here and answering.")
    page.shot("diagnostics")

    config.write_text(good)
    _wait_notice(page, "reloaded")
    page.page.locator("#diagnostics").wait_for(state="hidden")


def test_sessions_new_open_and_delete(
    web: Callable[..., WebServer], tab: Callable[..., Page]
) -> None:
    page = _serve(web, tab)
    page.send("Hello, my name is Ada")
    page.answer(WELCOME)
    sessions = page.page.get_by_role("list", name="Sessions of this app and user")
    first = sessions.locator("button[aria-current='true']").inner_text()

    page.page.get_by_role("button", name="New").click()
    sessions.locator("li").nth(1).wait_for()
    assert sessions.locator("li").count() == 2
    page.page.locator("#messages .msg").first.wait_for(state="detached")
    second = sessions.locator("button[aria-current='true']").inner_text()
    assert second != first

    sessions.get_by_role("button", name=first).click()
    page.answer(WELCOME)  # the conversation comes back from the server

    page.page.get_by_role("button", name="Delete").click()
    sessions.get_by_role("button", name=first).wait_for(state="detached")
    assert sessions.locator("li").count() == 1


def test_keyboard_only(web: Callable[..., WebServer], tab: Callable[..., Page]) -> None:
    page = _serve(web, tab, color_scheme="dark")
    keys = page.page.keyboard
    box = page.page.get_by_role("textbox", name="Message")
    assert page.page.evaluate("document.activeElement.id") == "message"
    keys.type("Hello, my name is Ada.")
    keys.press("Shift+Enter")
    keys.type("Second line.")
    assert box.input_value() == "Hello, my name is Ada.\nSecond line."
    keys.press("Enter")
    page.answer(WELCOME)
    assert page.page.locator(".msg.user .text").last.inner_text() == (
        "Hello, my name is Ada.\nSecond line."
    )
    keys.press("Tab")
    assert page.page.evaluate("document.activeElement.id") == "send"
    keys.press("Tab")
    assert page.page.evaluate("document.activeElement.id") == "tab-events"
    keys.press("ArrowRight")
    assert page.page.evaluate("document.activeElement.id") == "tab-state"
    assert page.page.get_by_role("tabpanel", name="State").is_visible()
    keys.press("End")
    assert page.page.evaluate("document.activeElement.id") == "tab-agent"
    background = page.page.evaluate("getComputedStyle(document.body).backgroundColor")
    assert background == "rgb(21, 24, 28)"  # the dark theme follows the system
    page.shot("dark")


def test_the_server_refuses_other_hosts_and_origins(web: Callable[..., WebServer]) -> None:
    server = web()
    with httpx.Client(base_url=server.url) as client:
        assert client.get("/list-apps").json() == ["desk"]
        assert client.get("/").status_code == 200
        rebound = client.get("/list-apps", headers={"Host": "attacker.example:80"})
        assert rebound.status_code == 403
        forged = client.post(
            "/apps/desk/users/u/sessions", json={}, headers={"Origin": "http://attacker.example"}
        )
        assert forged.status_code == 403
        assert "Origin 'http://attacker.example'" in forged.json()["detail"]


def test_with_a_token_the_page_takes_it_from_the_printed_url(
    web: Callable[..., WebServer], tab: Callable[..., Page]
) -> None:
    server = web("--token", "s3cret-token")
    printed = server.line_with("#token=")
    assert f"open {server.url}#token=s3cret-token" in printed
    with httpx.Client(base_url=server.url) as client:
        assert client.get("/").status_code == 200  # the page holds no data
        assert client.get("/web/app.js").status_code == 200
        assert client.get("/list-apps").status_code == 401
        assert client.get("/dev/apps/desk/agent").status_code == 401
        headers = {"Authorization": "Bearer s3cret-token"}
        assert client.get("/dev/apps/desk/agent", headers=headers).status_code == 200
    page = tab()
    page.open(f"{server.url}#token=s3cret-token")
    assert "token" not in page.page.url  # taken out of the address bar and history
    page.send("Hello, my name is Ada")
    page.answer(WELCOME)
    page.page.reload()  # kept for the tab
    page.page.wait_for_selector("body[data-loaded='1']")
    assert WELCOME in page.page.locator(".msg.agent .text").last.inner_text()


def test_the_readme_example_serves_the_demo_agents(
    web_at: Callable[..., WebServer], tab: Callable[..., Page], tmp_path: Path
) -> None:
    configs = Path(__file__).parents[2] / "configs"
    server = web_at(configs, "--db", str(tmp_path / "sessions.db"))
    assert server.line_with("serving").endswith(f"serving {configs} at {server.url}")
    with httpx.Client(base_url=server.url) as client:
        assert client.get("/list-apps").json() == [
            "research_desk",
            "support_desk",
            "triage_workflow",
            "trip_planner",
        ]
    page = tab()
    page.open(server.url + "?app=support_desk")
    assert page.page.get_by_role("combobox", name="App").input_value() == "support_desk"
    agent = page.tab("Agent")
    agent.locator("li[data-agent='refunds']").wait_for()


def test_a_failing_model_is_shown_as_an_error_and_the_page_goes_on(
    web: Callable[..., WebServer], tab: Callable[..., Page], desk: Path
) -> None:
    script = desk.parent / "one_turn.yaml"
    script.write_text('turns:\n  - when: "(?i)hello"\n    text: Hello from the only turn.\n')
    server = web("--model", f"scripted:{script}")
    page = tab()
    page.open(server.url)
    page.send("hello")
    page.answer("Hello from the only turn.")
    page.send("and now?")  # no turn left: the model fails, the invocation ends in an error event
    error = page.page.locator(".msg.error[role='alert']").last
    error.wait_for(timeout=30000)
    assert "MODEL_ERROR" in error.inner_text()
    page.page.wait_for_selector("body[data-busy='0']", timeout=30000)
    badge = page.page.locator("#panel-events .timeline > li .badge.error").last
    badge.wait_for(timeout=30000)
    assert badge.inner_text() == "MODEL_ERROR"
