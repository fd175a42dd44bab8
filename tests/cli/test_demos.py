"""The demo agents in configs/: they validate cleanly, replay offline, and inspect to goldens.

Golden inspect outputs use ``--model gemini-2.5-flash``: the demos' own ``scripted:`` model name
is made absolute by the config loader, which would tie the files to one checkout. Regenerate
with ``YADK_UPDATE_GOLDEN=1`` and review the diff.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest

Cli = Callable[..., tuple[int, str, str]]
Golden = Callable[[str, str], None]

DEMOS = ["support_desk", "trip_planner"]
# What `yadk validate` counts in each demo folder: its agent configs, and its eval file.
CHECKED = {
    "support_desk": "2 agents, 1 eval file",
    "trip_planner": "4 agents, 1 eval file",
}


@pytest.mark.parametrize("demo", DEMOS)
def test_demo_validates_strictly_with_its_code_imported(cli: Cli, configs: Path, demo: str) -> None:
    assert cli("validate", str(configs / demo), "--strict", "--import") == (
        0,
        f"no problems found in {CHECKED[demo]}\n",
        "",
    )


@pytest.mark.parametrize("demo", DEMOS)
def test_demo_replay_transcript(cli: Cli, configs: Path, golden: Golden, demo: str) -> None:
    replay = configs / demo / "replay.json"
    code, out, err = cli("run", str(configs / demo), "--replay", str(replay))
    assert (code, err.splitlines()[-1]) == (
        0,
        (
            f"yadk run: session {_session_id(err)} is saved in .yadk/sessions.db; continue it with"
            f" --session-id {_session_id(err)}"
        ),
    )
    golden(f"{demo}.replay.txt", out)


def _session_id(err: str) -> str:
    return err.split("yadk run: session ", 1)[1].split(" ", 1)[0]


INSPECT_CASES = {
    "support_desk.inspect.json": [
        "support_desk",
        "--state",
        '{"customer_name": "Ada", "user:tier": "gold"}',
        "--message",
        "Hi, where is my order A-1001?",
    ],
    "support_desk.refunds.inspect.json": [
        "support_desk",
        "--agent",
        "refunds",
        "--state",
        '{"customer_name": "Ada", "last_order_id": "A-1001"}',
        "--message",
        "The shoes arrived damaged. I want a refund.",
    ],
    "trip_planner.inspect.json": [
        "trip_planner",
        "--message",
        "Plan 3 days in Lisbon for 600 EUR, please.",
    ],
    "trip_planner.planner.inspect.json": [
        "trip_planner",
        "--agent",
        "planner",
        "--state",
        '{"destination": "Lisbon", "days": 3, "budget_eur": 600}',
        "--message",
        "Plan 3 days in Lisbon for 600 EUR, please.",
    ],
}


@pytest.mark.parametrize("name", sorted(INSPECT_CASES))
def test_demo_inspect_json_golden(cli: Cli, configs: Path, golden: Golden, name: str) -> None:
    demo, *options = INSPECT_CASES[name]
    code, out, err = cli(
        "inspect", str(configs / demo), *options, "--model", "gemini-2.5-flash", "--json"
    )
    assert (code, err) == (0, "")
    assert json.loads(out)["model"] == "gemini-2.5-flash"
    golden(name, out)


def test_demo_inspect_text_golden(cli: Cli, configs: Path, golden: Golden) -> None:
    code, out, err = cli(
        "inspect",
        str(configs / "support_desk"),
        "--message",
        "Hi, where is my order A-1001?",
        "--model",
        "gemini-2.5-flash",
    )
    assert (code, err) == (0, "")
    golden("support_desk.inspect.txt", out)


def test_card_numbers_never_reach_the_model(cli: Cli, configs: Path) -> None:
    code, out, _ = cli(
        "inspect",
        str(configs / "support_desk"),
        "--message",
        "My card is 4111 1111 1111 1111, refund it",
        "--json",
    )
    assert code == 0
    assert "4111" not in out
    assert json.loads(out)["contents"][-1] == {
        "role": "user",
        "parts": [{"text": "My card is [card number removed], refund it"}],
    }
