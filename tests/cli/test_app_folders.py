"""yadk run, dev and eval run a folder's App (app.yaml): its plugins see every turn."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest
from tests.cli.conftest import Cli

from yadk.reload import AgentReloader


def _folder(tmp_path: Path, plugins: str = "  - name: LoggingPlugin\n") -> Path:
    folder = tmp_path / "shop"
    folder.mkdir()
    (folder / "root_agent.yaml").write_text(
        "name: helper\nmodel: scripted:turns.yaml\ninstruction: Help.\n", encoding="utf-8"
    )
    (folder / "turns.yaml").write_text("turns:\n  - text: Hello there\n", encoding="utf-8")
    (folder / "app.yaml").write_text(f"name: shop\nplugins:\n{plugins}", encoding="utf-8")
    return folder


def test_run_runs_the_apps_plugins(
    cli: Cli, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    folder = _folder(tmp_path)
    code, out, err = cli("run", str(folder), "hi", "--db", str(tmp_path / "s.db"))
    assert (code, err.count("error")) == (0, 0), err
    assert "[logging_plugin] USER MESSAGE RECEIVED" in out
    assert "[logging_plugin]    App Name: shop" in out
    assert "[helper]: Hello there" in out


def test_a_broken_app_yaml_stops_run_with_its_location(
    cli: Cli, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    folder = _folder(tmp_path, plugins="  - name: LogingPlugin\n")
    code, _, err = cli("run", str(folder), "hi", "--db", str(tmp_path / "s.db"))
    assert code != 0
    assert "app.yaml:3:11: error unknown-plugin" in err
    assert "Did you mean `LoggingPlugin`?" in err


def test_dev_reload_picks_up_an_edited_app_yaml(tmp_path: Path) -> None:
    folder = _folder(tmp_path)
    reloader = AgentReloader(folder)
    assert [p.name for p in reloader.target.plugins] == ["logging_plugin"]
    (folder / "app.yaml").write_text(
        "name: shop\nplugins:\n  - name: LoggingPlugin\n    args: {name: loud}\n",
        encoding="utf-8",
    )
    assert folder / "app.yaml" in reloader.files
    result = reloader.reload({folder / "app.yaml"})
    assert result.ok, result.lines
    assert [p.name for p in reloader.target.plugins] == ["loud"]


def test_eval_runs_the_app(cli: Cli, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    folder = _folder(tmp_path)
    (folder / "greet.test.json").write_text(
        textwrap.dedent(
            """
            [{"query": "hi", "expected_tool_use": [], "reference": "Hello there"}]
            """
        ),
        encoding="utf-8",
    )
    code, out, err = cli("eval", str(folder), str(folder / "greet.test.json"))
    assert code == 0, out + err
    assert "[logging_plugin] INVOCATION STARTING" in out


def _looping_folder(tmp_path: Path, app_yaml: str) -> Path:
    """A model that calls `ping` forever, and an app.yaml."""
    folder = tmp_path / "poll"
    folder.mkdir()
    (folder / "__init__.py").write_text("", encoding="utf-8")
    (folder / "tools.py").write_text(
        'def ping() -> dict:\n    """Check again."""\n    return {"status": "not yet"}\n',
        encoding="utf-8",
    )
    (folder / "root_agent.yaml").write_text(
        "name: poller\nmodel: scripted:turns.yaml\ninstruction: Poll.\n"
        "tools:\n  - name: poll.tools.ping\n",
        encoding="utf-8",
    )
    (folder / "turns.yaml").write_text(
        "turns:\n  - function_calls: [{name: ping, args: {}}]\n    repeat: true\n",
        encoding="utf-8",
    )
    (folder / "app.yaml").write_text(app_yaml, encoding="utf-8")
    return folder


def test_an_app_yaml_budget_stops_an_endless_tool_loop_in_run(
    cli: Cli, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    folder = _looping_folder(tmp_path, "budget: {max_tokens_per_invocation: 200}\n")
    code, out, err = cli("run", str(folder), "go", "--db", str(tmp_path / "s.db"))
    assert code == 1
    calls = out.count("[poller] called ping()")
    assert 1 < calls < 20  # stopped by the budget, not by a turn or call limit
    assert err.count("error BUDGET_EXCEEDED") == 1
    assert "its limit is 200 (Budget.max_tokens_per_invocation)" in err


def test_validate_locates_a_budget_without_prices(
    cli: Cli, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    folder = _looping_folder(tmp_path, "budget:\n  max_cost: 0.5\n")
    code, out, err = cli("validate", str(folder))
    assert code != 0
    assert "app.yaml:2:13: error missing-prices: `budget.max_cost` is set" in out + err


def test_run_warns_once_that_context_caching_skips_other_backends(
    cli: Cli, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    folder = _folder(tmp_path, plugins="  []\n")
    (folder / "app.yaml").write_text("context_cache_config: {ttl_seconds: 600}\n")
    code, out, err = cli("run", str(folder), "hi", "--db", str(tmp_path / "s.db"))
    assert code == 0, err
    assert "[helper]: Hello there" in out
    assert err.count("context_cache_config applies to Gemini models only") == 1
    assert "not cached: helper (scripted:turns.yaml)" in err
