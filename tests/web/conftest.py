"""Fixtures of the web UI tests: a copy of the test agent that a test may edit, a real
``yadk web`` process on 127.0.0.1, and Debian's Chromium driven by playwright.

Chromium is found as ``$YADK_CHROMIUM``, ``chromium`` or ``chromium-browser`` on PATH. When it is
missing the browser tests skip, except where ``YADK_REQUIRE_BROWSER=1`` (``.ci/run`` sets it once
``scripts/ensure-chromium`` installed Chromium): there a missing browser fails them.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

DESK = Path(__file__).parent / "desk"
URL_LINE = re.compile(r"(http://127\.0\.0\.1:\d+/)")


def chromium_path() -> str | None:
    for candidate in (os.environ.get("YADK_CHROMIUM"), "chromium", "chromium-browser"):
        if candidate and (found := shutil.which(candidate)):
            return found
    return None


def require_chromium() -> str:
    found = chromium_path()
    if found is not None:
        return found
    reason = "Chromium is not installed (apt-get install chromium, or set YADK_CHROMIUM)"
    if os.environ.get("YADK_REQUIRE_BROWSER") == "1":
        pytest.fail(f"{reason}; YADK_REQUIRE_BROWSER=1 says the browser tests must run")
    why = os.environ.get("YADK_BROWSER_UNAVAILABLE")  # set by scripts/ensure-chromium
    pytest.skip(f"{reason}: {why}" if why else reason)


@dataclass
class WebServer:
    """A ``yadk web`` process: its URL, and what it printed (read as it comes, so the pipe
    never fills up and blocks the server)."""

    url: str
    process: subprocess.Popen[str]
    output: list[str] = field(default_factory=list)
    reader: threading.Thread | None = None

    def drain(self) -> None:
        assert self.process.stdout is not None
        self.reader = threading.Thread(target=self._read, daemon=True)
        self.reader.start()

    def _read(self) -> None:
        assert self.process.stdout is not None
        for line in self.process.stdout:
            self.output.append(line.rstrip("\n"))

    def line_with(self, text: str, timeout: float = 10.0) -> str:
        """The first line of output holding ``text``, waiting for it to be printed."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            for line in list(self.output):
                if text in line:
                    return line
            time.sleep(0.05)
        raise AssertionError(f"no {text!r} in the output:\n" + "\n".join(self.output))

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        if self.reader is not None:
            self.reader.join(timeout=10)
        if self.process.stdout is not None:
            self.process.stdout.close()


def start_web(path: Path, *extra: str, timeout: float = 30.0) -> WebServer:
    """``yadk web PATH --port 0 --no-browser``; returns once it printed its URL."""
    env = {**os.environ, "PYTHONUNBUFFERED": "1"}
    # Sessions go to a SQLite file beside the agents, never to the caller's .yadk/.
    store = ["--db", str(path.parent / "sessions.db")] if "--db" not in extra else []
    command = [sys.executable, "-m", "yadk.cli", "web", str(path), "--port", "0", "--no-browser"]
    process = subprocess.Popen(
        [*command, *store, *extra],
        cwd=path.parent,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        env=env,
    )
    assert process.stdout is not None
    output: list[str] = []
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        line = process.stdout.readline()
        if not line:
            break
        output.append(line.rstrip("\n"))
        match = URL_LINE.search(line)
        if match:
            server = WebServer(match.group(1), process, output)
            server.drain()
            return server
    process.kill()
    process.wait()
    process.stdout.close()
    raise AssertionError("yadk web did not print its URL:\n" + "\n".join(output))


class ConsoleErrors:
    """Every console error and uncaught exception of a page."""

    def __init__(self, page: Any) -> None:
        self.errors: list[str] = []
        page.on("console", self._console)
        page.on("pageerror", lambda exc: self.errors.append(f"uncaught: {exc}"))

    def _console(self, message: Any) -> None:
        if message.type in ("error", "assert"):
            self.errors.append(f"console.{message.type}: {message.text}")


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    """Chromium for one test module: playwright's sync API keeps an event loop running while
    it is open, which the asyncio tests of other modules must not find."""
    executable = require_chromium()
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        launched = playwright.chromium.launch(
            executable_path=executable, headless=True, args=["--no-sandbox"]
        )
        yield launched
        launched.close()


def screenshot_dir(tmp_path: Path) -> Path:
    """Where screenshots go: ``$YADK_WEB_SCREENSHOTS`` (docs/web.md regenerates its pictures
    this way), else the test's temporary folder."""
    wanted = os.environ.get("YADK_WEB_SCREENSHOTS")
    folder = Path(wanted) if wanted else tmp_path / "screenshots"
    folder.mkdir(parents=True, exist_ok=True)
    return folder


@pytest.fixture
def desk(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """A fresh copy of ``tests/web/desk`` inside a folder of agents (``tmp_path/agents``)."""
    target = tmp_path / "agents" / "desk"
    shutil.copytree(DESK, target, ignore=shutil.ignore_patterns("__pycache__"))
    # Each copy's tools module is imported as `desk.tools` from a folder the loader puts on
    # sys.path: give every test its own sys.path and forget the module afterwards.
    monkeypatch.setattr(sys, "path", list(sys.path))
    _forget_desk_modules()
    yield target
    _forget_desk_modules()


def _forget_desk_modules() -> None:
    for name in [n for n in sys.modules if n == "desk" or n.startswith("desk.")]:
        del sys.modules[name]


@pytest.fixture
def web_at() -> Iterator[Callable[..., WebServer]]:
    """Starts ``yadk web PATH ...`` (stopped after the test)."""
    started: list[WebServer] = []

    def start(path: Path, *extra: str) -> WebServer:
        server = start_web(path, *extra)
        started.append(server)
        return server

    yield start
    for server in started:
        server.stop()


@pytest.fixture
def web(desk: Path, web_at: Callable[..., WebServer]) -> Callable[..., WebServer]:
    """Starts ``yadk web`` on the folder of agents holding ``desk``."""
    return lambda *extra: web_at(desk.parent, *extra)


class Page:
    """One browser tab on the UI, with its console errors."""

    def __init__(self, page: Any, shots: Path) -> None:
        self.page = page
        self.shots = shots
        self.console = ConsoleErrors(page)

    def open(self, url: str) -> None:
        self.page.goto(url)
        self.page.wait_for_selector("body[data-ready='1']", timeout=30000)

    def send(self, text: str) -> None:
        box = self.page.get_by_role("textbox", name="Message")
        box.fill(text)
        box.press("Enter")

    def answer(self, text: str) -> Any:
        """The agent's final (not streaming) message holding ``text``, once the turn ended and
        the panels were refreshed."""
        found = self.page.locator(".msg.agent:not(.streaming) .text", has_text=text).last
        found.wait_for(timeout=30000)
        self.page.wait_for_selector("body[data-busy='0']", timeout=30000)
        return found

    def tab(self, name: str) -> Any:
        self.page.get_by_role("tab", name=name).click()
        return self.page.get_by_role("tabpanel", name=name)

    def shot(self, name: str) -> None:
        self.page.screenshot(path=str(self.shots / f"{name}.png"))

    def watch_streaming(self) -> None:
        self.page.evaluate(
            """() => {
              window.__streamed = false;
              new MutationObserver((records) => {
                for (const record of records)
                  for (const node of record.addedNodes)
                    if (node.classList && node.classList.contains('streaming')) window.__streamed = true;
              }).observe(document.getElementById('messages'), {childList: true});
            }"""
        )


@pytest.fixture
def tab(browser: Any, tmp_path: Path) -> Iterator[Callable[..., Page]]:
    opened: list[Page] = []

    def open_tab(**options: Any) -> Page:
        context = browser.new_context(viewport={"width": 1440, "height": 900}, **options)
        page = Page(context.new_page(), screenshot_dir(tmp_path))
        opened.append(page)
        return page

    yield open_tab
    for page in opened:
        errors = page.console.errors
        page.page.context.close()
        assert errors == [], "JavaScript errors in the page"
