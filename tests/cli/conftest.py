"""CLI test fixtures: the repository's demo configs, golden files, and import isolation."""

from __future__ import annotations

import contextlib
import os
import signal
import sys
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from yadk.cli import main

REPO = Path(__file__).resolve().parents[2]
CONFIGS = REPO / "configs"
GOLDEN = Path(__file__).resolve().parent / "golden"
# Set YADK_UPDATE_GOLDEN=1 to rewrite golden files from the current output (then review the diff).
UPDATE_GOLDEN = os.environ.get("YADK_UPDATE_GOLDEN") == "1"


def _user_module(module: object, roots: tuple[str, ...]) -> bool:
    locations = [
        getattr(module, "__file__", None) or "",
        *(getattr(module, "__path__", None) or []),
    ]
    return any(str(place).startswith(roots) for place in locations if place)


@pytest.fixture(autouse=True)
def isolated_imports(tmp_path: Path) -> Iterator[None]:
    """Forget the agent modules (tools, callbacks) a test's configs imported, and the sys.path
    entries added for them: agent folders in different tmp_paths reuse package names."""
    modules = set(sys.modules)
    path = list(sys.path)
    yield
    roots = (str(CONFIGS), str(tmp_path))
    for name in set(sys.modules) - modules:
        if _user_module(sys.modules[name], roots):
            del sys.modules[name]
    sys.path[:] = path


@pytest.fixture(autouse=True)
def in_tmp_path(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Run each test in its own folder, so the default session store (.yadk/) lands there."""
    monkeypatch.chdir(tmp_path)
    return tmp_path


Cli = Callable[..., tuple[int, str, str]]


@pytest.fixture
def cli(capsys: pytest.CaptureFixture[str]) -> Cli:
    """``cli("run", ...)`` calls ``main`` and returns (exit code, stdout, stderr)."""

    def run(*argv: str) -> tuple[int, str, str]:
        code = main(list(argv))
        out, err = capsys.readouterr()
        return code, out, err

    return run


@pytest.fixture
def configs() -> Path:
    return CONFIGS


@pytest.fixture
def golden() -> Callable[[str, str], None]:
    """``golden(name, text)``: ``text`` must equal golden file ``name`` (rewritten instead when
    YADK_UPDATE_GOLDEN=1)."""

    def check(name: str, text: str) -> None:
        path = GOLDEN / name
        if UPDATE_GOLDEN:
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text, encoding="utf-8")
        assert text == path.read_text(encoding="utf-8")

    return check


class Terminal:
    """A real ``python -m yadk.cli`` process on a pseudo-terminal, driven like a person would:
    ``type`` keys (``\\x03`` is Ctrl-C, ``\\x1b[D`` the left arrow), ``expect`` text on screen.

    TERM=dumb and an empty INPUTRC keep readline's output plain (no colours, no bracketed
    paste), so the screen can be compared exactly; ``screen`` has ``\\r\\n`` turned into ``\\n``.
    """

    def __init__(self, argv: list[str], *, cwd: Path, env: dict[str, str] | None = None) -> None:
        import pty

        environment = {**os.environ, "TERM": "dumb", "INPUTRC": os.devnull, **(env or {})}
        environment.pop("YADK_DEBUG", None)
        self.pid, self.fd = pty.fork()
        if self.pid == 0:  # the child: becomes yadk, with the pty as its controlling terminal
            try:
                # A shell runs background jobs with SIGINT ignored, and an ignored signal stays
                # ignored across exec: give yadk the default disposition a terminal user has.
                signal.signal(signal.SIGINT, signal.SIG_DFL)
                os.chdir(cwd)
                os.execve(sys.executable, [sys.executable, "-m", "yadk.cli", *argv], environment)
            finally:
                os._exit(127)
        self.raw = b""
        self.status: int | None = None
        self._mark = 0

    @property
    def screen(self) -> str:
        return self.raw.decode("utf-8", "replace").replace("\r\n", "\n")

    def type(self, keys: str) -> None:
        os.write(self.fd, keys.encode())

    def interrupt_at_prompt(self) -> None:
        """Ctrl-C at a prompt that has just been drawn. Python's readline notices a signal only
        when it interrupts its select(); one that lands in the microseconds between drawing
        the prompt and entering select() waits for the next key. A person never hits that
        window; a test typing at machine speed can, so it lets the prompt settle first; on a loaded machine, where
        settling can take longer, it presses Ctrl-C again if nothing answered within seconds (at a
        prompt each Ctrl-C asks the same: exit)."""
        import time

        time.sleep(0.5)
        for _ in range(3):
            before = len(self.raw)
            try:
                self.type("\x03")
            except OSError:  # the pty closed: the process already ended
                return
            deadline = time.monotonic() + 5.0
            while time.monotonic() < deadline and len(self.raw) == before:
                if not self._read(0.1):
                    return
            if len(self.raw) > before:
                return

    def _read(self, timeout: float) -> bool:
        """Read what arrives within ``timeout``; False once the pty is closed."""
        import select

        ready, _, _ = select.select([self.fd], [], [], timeout)
        if not ready:
            return True
        try:
            chunk = os.read(self.fd, 65536)
        except OSError:  # EIO: the process has gone and the pty is closed
            return False
        self.raw += chunk
        return bool(chunk)

    def expect(self, text: str, *, timeout: float = 30.0) -> None:
        """Wait until ``text`` appears on the screen after what the last ``expect`` matched
        (generous timeout: the machine is shared, and a slow start is not a failure)."""
        import time

        deadline = time.monotonic() + timeout
        while text not in self.screen[self._mark :] and time.monotonic() < deadline:
            if not self._read(0.05):
                break
        found = self.screen.find(text, self._mark)
        assert found >= 0, f"{text!r} not on screen after {self._mark}:\n{self.screen}"
        self._mark = found + len(text)

    def wait(self, *, timeout: float = 30.0) -> int:
        """Read to the end and return the exit status."""
        import time

        deadline = time.monotonic() + timeout
        open_ = True
        while time.monotonic() < deadline:
            if open_:
                open_ = self._read(0.05)
            else:
                time.sleep(0.05)
            pid, status = os.waitpid(self.pid, os.WNOHANG)
            if pid:
                while open_:  # what the process wrote before it ended
                    before = len(self.raw)
                    open_ = self._read(0.2)
                    if len(self.raw) == before:
                        break
                self.status = os.waitstatus_to_exitcode(status)
                return self.status
        self.kill()
        raise AssertionError(f"yadk did not exit:\n{self.screen}")

    def kill(self) -> None:
        import signal

        if self.status is None:
            with contextlib.suppress(ProcessLookupError, ChildProcessError):
                os.kill(self.pid, signal.SIGKILL)
                os.waitpid(self.pid, 0)
        with contextlib.suppress(OSError):
            os.close(self.fd)


@pytest.fixture
def terminal(tmp_path: Path) -> Iterator[Callable[..., Terminal]]:
    """``terminal("run", "agent")`` starts yadk on a pseudo-terminal in ``tmp_path``."""
    started: list[Terminal] = []

    def start(*argv: str, env: dict[str, str] | None = None) -> Terminal:
        started.append(Terminal(list(argv), cwd=tmp_path, env=env))
        return started[-1]

    yield start
    for term in started:
        term.kill()
