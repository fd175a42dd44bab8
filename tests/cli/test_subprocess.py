"""Real ``python -m yadk.cli`` processes: exit codes, streams and stdin as a user sees them."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.subprocess

ANSWER = (
    '[support_desk] called lookup_order(order_id="A-1001")\n'
    '[support_desk] lookup_order -> {"order_id": "A-1001", "item": "Trail running shoes",'
    ' "status": "in transit", "carrier": "DHL", "expected_delivery": "2026-05-14",'
    ' "total_eur": 89.9}\n'
    "[support_desk]: Your trail running shoes (order A-1001) are on their way with DHL and should"
    " arrive on 14 May. Anything else I can help with?\n"
)


def yadk(*argv: str, stdin: str = "") -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "yadk.cli", *argv],
        input=stdin,
        capture_output=True,
        text=True,
        check=False,
        timeout=60,
    )


def test_one_message_with_a_durable_session(configs: Path, tmp_path: Path) -> None:
    db = tmp_path / "s.db"
    result = yadk(
        "run", str(configs / "support_desk"), "Hi, where is my order A-1001?",
        "--db", str(db), "--session-id", "t1",
    )  # fmt: skip
    assert (result.returncode, result.stdout, result.stderr) == (
        0,
        "[user]: Hi, where is my order A-1001?\n" + ANSWER,
        f"yadk run: session t1 is saved in {db}; continue it with --session-id t1\n",
    )


def test_interactive_prompt_without_a_tty(configs: Path) -> None:
    result = yadk(
        "run", str(configs / "support_desk"), "--db", ":memory:",
        stdin="Hi, where is my order A-1001?\nexit\nnot sent\n",
    )  # fmt: skip
    assert (result.returncode, result.stdout, result.stderr) == (
        0,
        "[user]: Hi, where is my order A-1001?\n" + ANSWER,
        "",
    )


def test_inspect_json_is_one_object(configs: Path) -> None:
    result = yadk("inspect", str(configs / "trip_planner"), "--json")
    assert (result.returncode, result.stderr) == (0, "")
    request = json.loads(result.stdout)
    assert (request["agent"], [t["name"] for t in request["tools"]]) == ("intake", ["record_trip"])


def test_usage_error_exit_code(configs: Path) -> None:
    result = yadk("run", str(configs / "support_desk"), "hi", "--replay", "x.json")
    assert (result.returncode, result.stdout, result.stderr) == (
        2,
        "",
        "yadk run: error: Cannot provide both MESSAGE and --replay.\n",
    )


def test_validate_imports_no_engine(tmp_path: Path) -> None:
    """`yadk validate` of a plain config needs neither the engine nor pydantic (it must start
    fast: bench/bench_startup.py); `yadk inspect` needs the engine."""
    (tmp_path / "root_agent.yaml").write_text(
        "name: plain\nmodel: gemini-2.5-flash\ninstruction: Answer about {topic?}.\n"
    )
    code = (
        "import sys, io, contextlib\n"
        "from yadk.cli import main\n"
        "with contextlib.redirect_stdout(io.StringIO()):\n"
        f"    status = main([sys.argv[1], {str(tmp_path)!r}])\n"
        "heavy = ('pydantic', 'yadk.agents', 'yadk.models', 'yadk.types', 'yadk.runner', 'jinja2')\n"
        "print(status, sorted(m for m in heavy if m in sys.modules))\n"
    )
    outputs = [
        subprocess.run(
            [sys.executable, "-c", code, command], capture_output=True, text=True, check=True
        ).stdout
        for command in ("validate", "inspect")
    ]
    assert outputs[0] == "0 []\n"
    assert outputs[1].startswith("0 ['pydantic', 'yadk.agents'")
