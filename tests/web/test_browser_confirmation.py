"""Answering a tool confirmation (``FunctionTool(require_confirmation=True)``) from the page."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

Page = Any  # conftest.Page
WebServer = Any  # conftest.WebServer


def _payments(root: Path) -> Path:
    folder = root / "agents" / "payments"
    folder.mkdir(parents=True)
    (folder / "tools.py").write_text(
        "from yadk.tools import FunctionTool\n\n\n"
        "def transfer_money(amount: int, to: str) -> dict:\n"
        '    """Transfer money to someone."""\n'
        '    return {"status": "sent", "amount": amount, "to": to}\n\n\n'
        "transfer = FunctionTool(transfer_money, require_confirmation=True)\n"
    )
    (folder / "root_agent.yaml").write_text(
        "agent_class: LlmAgent\nname: payments\nmodel: scripted:script.yaml\n"
        "instruction: Pay.\ntools:\n  - name: .tools.transfer\n"
    )
    (folder / "script.yaml").write_text(
        "turns:\n"
        "  - function_calls: [{name: transfer_money, args: {amount: 500, to: Bob}}]\n"
        "  - text: Sent.\n"
    )
    return folder


def test_a_tool_confirmation_is_answered_yes_from_the_page(
    web_at: Callable[..., WebServer], tab: Callable[..., Page], tmp_path: Path
) -> None:
    folder = _payments(tmp_path)
    server = web_at(folder.parent)
    page = tab()
    page.open(server.url)
    page.send("pay Bob 500")

    form = page.page.get_by_role("form", name="Confirm transfer_money")
    form.wait_for()
    text = form.inner_text()
    assert "is waiting for your confirmation" in text
    assert '"amount": 500' in text and '"to": "Bob"' in text
    assert "Please approve or reject the tool call transfer_money()" in text
    form.get_by_role("textbox", name="Confirm transfer_money? (yes, no, or a JSON object)").fill(
        "yes"
    )
    form.get_by_role("button", name="Send response").click()
    page.answer("Sent.")
    assert page.page.locator("#pending").is_hidden()
    answered = page.page.locator(".msg.answer").last
    answered.locator("summary").click()
    assert '"confirmed": true' in answered.locator("pre").inner_text()
