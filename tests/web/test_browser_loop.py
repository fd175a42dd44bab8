"""The development loop's harder cases in the browser: answering a long-running tool's pending
call (human in the loop), and an app that is broken before the server starts."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

Page = Any  # conftest.Page
WebServer = Any  # conftest.WebServer

WELCOME = "Welcome to the Lighthouse Library, Ada!"


def _reimburse(root: Path) -> Path:
    """google-adk's tool_human_in_the_loop_config sample, with a scripted model."""
    folder = root / "agents" / "reimburse"
    folder.mkdir(parents=True)
    (folder / "tools.py").write_text(
        "def reimburse(purpose: str, amount: float) -> dict:\n"
        '    """Reimburse the amount of money to the employee."""\n'
        '    return {"status": "ok"}\n\n\n'
        "def ask_for_approval(purpose: str, amount: float) -> dict:\n"
        '    """Ask for approval for the reimbursement."""\n'
        '    return {"status": "pending", "amount": amount, "ticketId": "ticket-001"}\n'
    )
    (folder / "root_agent.yaml").write_text(
        "agent_class: LlmAgent\nname: reimbursement_agent\nmodel: scripted:script.yaml\n"
        "instruction: You handle the reimbursement process.\n"
        "tools:\n  - name: .tools.reimburse\n"
        "  - name: LongRunningFunctionTool\n    args:\n      func: .tools.ask_for_approval\n"
    )
    (folder / "script.yaml").write_text(
        "turns:\n"
        "  - function_calls: [{name: ask_for_approval, args: {purpose: taxi, amount: 200}}]\n"
        "  - text: Your request is pending approval.\n"
        "  - function_calls: [{name: reimburse, args: {purpose: taxi, amount: 200}}]\n"
        "  - text: Reimbursed.\n"
    )
    return folder


def test_a_pending_long_running_call_is_answered_from_the_page(
    web_at: Callable[..., WebServer], tab: Callable[..., Page], tmp_path: Path
) -> None:
    folder = _reimburse(tmp_path)
    server = web_at(folder.parent)
    page = tab()
    page.open(server.url)
    page.send("taxi 200")
    page.answer("Your request is pending approval.")

    form = page.page.get_by_role("form", name="Answer ask_for_approval")
    form.wait_for()
    assert "ask_for_approval" in form.inner_text()
    assert '"amount": 200' in form.inner_text() and '"purpose": "taxi"' in form.inner_text()
    call_id = form.get_attribute("data-call-id")
    assert call_id and call_id in form.inner_text()
    page.shot("pending")

    # Keyboard only: the response box, then the button.
    box = form.get_by_role("textbox", name="Response to ask_for_approval")
    box.fill('{"status": "approved"}')
    box.press("Tab")
    assert page.page.evaluate("document.activeElement.textContent") == "Send response"
    page.page.keyboard.press("Enter")
    page.answer("Reimbursed.")
    assert page.page.locator("#pending").is_hidden()
    answered = page.page.locator(".msg.answer").last
    assert "result of ask_for_approval" in answered.inner_text()

    # The session on the server: the response went to the call's id, and the turn resumed.
    events = page.page.locator("#panel-events .timeline > li")
    texts = [events.nth(i).inner_text() for i in range(events.count())]
    assert any("user" in t and "response ask_for_approval" in t for t in texts)
    assert any("call reimburse" in t for t in texts)
    page.page.reload()  # a reopened session with no call waiting shows no form
    page.page.wait_for_selector("body[data-loaded='1']")
    assert page.page.locator("#pending").is_hidden()


def test_a_pending_call_survives_a_page_reload(
    web_at: Callable[..., WebServer], tab: Callable[..., Page], tmp_path: Path
) -> None:
    folder = _reimburse(tmp_path)
    server = web_at(folder.parent)
    page = tab()
    page.open(server.url)
    page.send("taxi 200")
    page.answer("Your request is pending approval.")
    page.page.reload()
    page.page.wait_for_selector("body[data-loaded='1']")
    form = page.page.get_by_role("form", name="Answer ask_for_approval")
    form.get_by_role("textbox").fill("approved by Ada")  # text becomes {"result": text}
    form.get_by_role("button", name="Send response").click()
    page.answer("Reimbursed.")
    answered = page.page.locator(".msg.answer").last
    answered.locator("summary").click()
    assert '"result": "approved by Ada"' in answered.locator("pre").inner_text()


def test_an_app_broken_before_the_server_starts_shows_its_diagnostics_then_comes_up(
    web: Callable[..., WebServer], tab: Callable[..., Page], desk: Path
) -> None:
    config = desk / "root_agent.yaml"
    good = config.read_text()
    config.write_text(good.replace("\ninstruction: ", "\ninstructions: "))
    server = web()
    page = tab()
    page.open(server.url)

    alert = page.page.get_by_role("alert").filter(has_text="did not load")
    alert.wait_for(timeout=30000)
    item = alert.locator("li[data-rule='unknown-key']")
    assert item.locator("code.location").inner_text() == "desk/root_agent.yaml:6:1"
    assert "hint: Did you mean `instruction`?" in item.inner_text()
    assert page.page.locator("#reload").inner_text() == "desk did not load"
    assert page.page.locator("button.more:visible").count() == 0  # nothing earlier to show
    page.shot("first-load")
    page.send("Hello, my name is Ada")  # nothing serves yet: the page says why
    error = page.page.locator(".msg.error").last
    error.wait_for(timeout=30000)
    assert "not available" in error.inner_text()
    page.page.wait_for_selector("body[data-busy='0']")

    config.write_text(good)  # fixed on disk: no page reload
    page.page.locator("#reload", has_text="reloaded").wait_for(timeout=30000)
    page.page.locator("#diagnostics").wait_for(state="hidden")
    page.tab("Agent").locator("li[data-agent='desk']").wait_for()
    page.send("Hello, my name is Ada")
    page.answer(WELCOME)
