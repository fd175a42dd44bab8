"""``yadk web`` refuses what it cannot serve safely, with one clear line and exit status 2."""

from __future__ import annotations

import socket
from pathlib import Path

import pytest

from yadk.cli import main


def _run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str]:
    status = main(["web", *args, "--no-browser"])
    return status, capsys.readouterr().err


def test_a_non_loopback_host_needs_a_token(desk: Path, capsys: pytest.CaptureFixture[str]) -> None:
    status, err = _run(capsys, str(desk), "--host", "0.0.0.0")
    assert status == 2
    assert err == (
        "yadk web: error: --host 0.0.0.0 lets other machines reach a server that runs and"
        " reloads code; pass --token TOKEN too (the page then needs the URL printed with the"
        " token)\n"
    )


def test_a_port_in_use_is_a_usage_error(desk: Path, capsys: pytest.CaptureFixture[str]) -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen(1)
        port = taken.getsockname()[1]
        status, err = _run(capsys, str(desk), "--port", str(port))
    assert status == 2
    assert err.startswith(f"yadk web: error: cannot listen on 127.0.0.1:{port}: ")
    assert "choose another --port (0 picks a free one)" in err


def test_a_missing_path(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    status, err = _run(capsys, str(tmp_path / "nowhere"))
    assert status == 2
    assert "does not exist; expected an agent folder" in err
