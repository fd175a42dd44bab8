"""A folder's app.yaml in the browser: `yadk web` runs the App (its plugins see each turn),
reloads it when app.yaml is saved, and the Usage tab shows the session's tokens and cost."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

Page = Any  # conftest.Page
WebServer = Any  # conftest.WebServer

WELCOME = "Welcome to the Lighthouse Library, Ada!"
BUDGET = """\
plugins: [LoggingPlugin]
budget:
  max_tokens_per_session: 100000
  max_cost: 5
  prices: {"*": {input_per_million: 2000, output_per_million: 8000}}
"""


def test_the_usage_tab_follows_an_edited_app_yaml(
    web: Callable[..., WebServer], tab: Callable[..., Page], desk: Path
) -> None:
    (desk / "app.yaml").write_text("plugins: [LoggingPlugin]\n", encoding="utf-8")
    server = web()
    page = tab()
    page.open(server.url)
    page.send("Hello, my name is Ada")
    page.answer(WELCOME)
    assert server.line_with("[logging_plugin] USER MESSAGE RECEIVED")
    usage = page.tab("Usage")
    usage.locator("p.empty").wait_for()
    # The scripted model reports no usage, and without a budget nothing estimates it.
    assert usage.inner_text().startswith("no token usage in this session yet")

    (desk / "app.yaml").write_text(BUDGET, encoding="utf-8")
    page.page.locator("#reload", has_text="app.yaml").wait_for(timeout=30000)
    assert "reloaded" in page.page.locator("#reload").inner_text()
    page.send("Anything new today?")
    page.answer("Noted.")

    usage = page.tab("Usage")
    rows = usage.locator("table.usage tbody tr")
    rows.nth(1).wait_for()
    assert rows.count() == 2  # the turn run with the budget, and the session
    turn = [rows.nth(0).locator("th, td").nth(i).inner_text() for i in range(7)]
    assert turn[0] == "turn 1" and turn[1] == "1"  # one model call
    assert int(turn[4].replace(",", "")) == int(turn[2].replace(",", "")) + int(
        turn[3].replace(",", "")
    )
    assert float(turn[5]) > 0 and turn[6] == "estimated"
    assert rows.nth(1).locator("th").inner_text() == "session"
    total = usage.locator(".usage-total").inner_text()
    assert total.startswith("session: ") and total.endswith("(estimated in part)")
    page.shot("usage")
