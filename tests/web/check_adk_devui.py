"""Checks by hand that google-adk 2.13's own dev UI shows yadk web's traces (needs google-adk's
installed dev UI files, so it is a script, not a test):

    python tests/web/check_adk_devui.py [SCREENSHOT.png]

Starts ``yadk web`` on a copy of ``tests/web/forecast`` (one turn run over ``/run``), opens
google-adk's dev UI in headless Chromium at ``/dev-ui/`` on yadk web's own origin (its files are
answered from google-adk's package by playwright's request routing, never served by yadk), opens
the session and its **Traces** view, and checks that the dev UI drew a row for each of yadk's
spans and logged no "Error fetching trace" (its schema check of the trace JSON failing).
Exit status 0 when it did; google-adk's other dev routes (eval sets, graphs) answer 404 here.
"""

from __future__ import annotations

import mimetypes
import shutil
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).parents[2]
sys.path.insert(0, str(ROOT))

from tests.web.conftest import chromium_path, start_web  # noqa: E402
from tests.web.test_devtraces import _post  # noqa: E402

DEV_UI = Path("/opt/adkvenv/lib/python3.11/site-packages/google/adk/cli/browser")
SPANS = ["invoke_workflow forecast", "forecast", "generate_content", "get_weather"]


def main() -> int:
    from playwright.sync_api import Route, sync_playwright

    if not DEV_UI.is_dir():
        print(f"google-adk's dev UI is not at {DEV_UI}", file=sys.stderr)
        return 2
    shot = sys.argv[1] if len(sys.argv) > 1 else None
    with tempfile.TemporaryDirectory() as folder:
        agents = Path(folder) / "agents"
        shutil.copytree(Path(__file__).parent / "forecast", agents / "forecast")
        server = start_web(agents)
        problems: list[str] = []
        try:
            _post(f"{server.url}apps/forecast/users/user/sessions/s1", {})
            turn = {"role": "user", "parts": [{"text": "Weather in Paris?"}]}
            body = {
                "app_name": "forecast",
                "user_id": "user",
                "session_id": "s1",
                "new_message": turn,
            }
            _post(f"{server.url}run", body)

            def dev_ui(route: Route) -> None:
                name = route.request.url.split("/dev-ui/", 1)[1].split("?")[0] or "index.html"
                file = DEV_UI / name
                if not file.is_file():  # the app's own routes: its index page
                    file = DEV_UI / "index.html"
                kind = mimetypes.guess_type(file.name)[0] or "text/html"
                route.fulfill(status=200, body=file.read_bytes(), content_type=kind)

            with sync_playwright() as playwright:
                browser = playwright.chromium.launch(
                    executable_path=chromium_path(), headless=True, args=["--no-sandbox"]
                )
                page = browser.new_page(viewport={"width": 1600, "height": 1000})
                page.route("**/dev-ui/**", dev_ui)
                page.on(
                    "console",
                    lambda m: problems.append(m.text) if "Error fetching trace" in m.text else None,
                )
                page.goto(f"{server.url}dev-ui/?app=forecast&session=s1&userId=user")
                consent = page.get_by_text("No Thanks")
                consent.wait_for(timeout=30000)
                consent.click()
                page.get_by_text("Traces", exact=True).click()
                for name in SPANS:
                    page.locator(f"text={name} >> visible=true").first.wait_for(timeout=15000)
                if shot:
                    page.screenshot(path=shot)
                browser.close()
        finally:
            server.stop()
    if problems:
        print("google-adk's dev UI could not read the trace:", *problems, sep="\n", file=sys.stderr)
        return 1
    print("google-adk's dev UI drew yadk web's trace: " + ", ".join(SPANS))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
