"""The examples of docs/apps.md (Plugins, app.yaml) run as written."""

from __future__ import annotations

import asyncio
import re
import textwrap
from pathlib import Path
from typing import Any

import pytest

from yadk.apps import (
    App,
    Budget,
    DebugLoggingPlugin,
    LoggingPlugin,
    ModelPrice,
    ReflectAndRetryToolPlugin,
    TrackingScope,
)
from yadk.config import load_agent_with_sources

DOCS = (Path(__file__).resolve().parents[2] / "docs" / "apps.md").read_text(encoding="utf-8")


def _block(section: str, language: str) -> str:
    body = DOCS.split(f"\n## {section}\n", 1)[1]
    found = re.search(rf"```{language}\n(.*?)```", body, re.DOTALL)
    assert found is not None
    return found.group(1)


def test_the_plugin_example_runs(capsys: pytest.CaptureFixture[str]) -> None:
    namespace: dict[str, Any] = {}
    exec(_block("Plugins", "python"), namespace)
    asyncio.run(namespace["main"]())
    out = capsys.readouterr().out
    assert "desk I can't help with that." in out
    assert "[logging_plugin] LLM RESPONSE" not in out  # the guard answered before the model


def test_the_app_yaml_example_loads(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    folder = tmp_path / "my_agent"
    folder.mkdir()
    (folder / "root_agent.yaml").write_text(
        "name: desk\nmodel: gemini-2.5-flash\ninstruction: Help.\n"
    )
    (folder / "plugins.py").write_text(
        textwrap.dedent(
            """
            from yadk.apps import BasePlugin


            class AuditPlugin(BasePlugin):
                yadk_config_args = {"level"}

                def __init__(self, level: str = "basic") -> None:
                    super().__init__(name="audit")
                    self.level = level
            """
        )
    )
    (folder / "app.yaml").write_text(_block("app.yaml", "yaml"), encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    app = load_agent_with_sources(folder).app
    assert isinstance(app, App) and app.name == "shop"
    logging, retry, debug, audit = app.plugins
    assert isinstance(logging, LoggingPlugin)
    assert isinstance(retry, ReflectAndRetryToolPlugin)
    assert (retry.max_retries, retry.scope) == (2, TrackingScope.GLOBAL)
    assert isinstance(debug, DebugLoggingPlugin)
    assert debug.output_path == (folder / "logs" / "debug.yaml").resolve()
    assert audit.level == "full"
    assert app.events_compaction_config is not None
    assert app.events_compaction_config.summarizer.llm.model == "gemini-2.5-flash"
    assert app.resumability_config is not None and app.resumability_config.is_resumable
    assert app.budget == Budget(
        max_tokens_per_invocation=20000,
        max_tokens_per_session=200000,
        max_cost=0.5,
        prices={"gemini-2.5-flash": ModelPrice(input_per_million=0.3, output_per_million=2.5)},
    )


def test_the_budget_yaml_example_is_the_python_one(tmp_path: Path) -> None:
    folder = tmp_path / "shop"
    folder.mkdir()
    (folder / "root_agent.yaml").write_text(
        "name: helper\nmodel: gemini-2.5-flash\ninstruction: Be brief.\n"
    )
    (folder / "app.yaml").write_text(_block("Token budgets", "yaml"), encoding="utf-8")
    namespace: dict[str, Any] = {}
    exec(_block("Token budgets", "python"), namespace)
    assert load_agent_with_sources(folder).app.budget == namespace["budget"]


README = (Path(__file__).resolve().parents[2] / "README.md").read_text(encoding="utf-8")


def test_the_readme_example_builds_and_loads(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    section = README.split("\n## Apps and plugins\n", 1)[1].split("\n## ", 1)[0]
    yaml_text, python_text = re.findall(r"```(?:yaml|python)\n(.*?)```", section, re.DOTALL)
    namespace: dict[str, Any] = {}
    exec(python_text, namespace)
    assert [p.name for p in namespace["runner"].app.plugins] == ["count"]
    folder = tmp_path / "my_agent"
    folder.mkdir()
    (folder / "root_agent.yaml").write_text("name: desk\nmodel: gemini-2.5-flash\ninstruction: x\n")
    (folder / "plugins.py").write_text(
        "from yadk.apps import BasePlugin\n\n\nclass AuditPlugin(BasePlugin):\n"
        "    def __init__(self) -> None:\n        super().__init__(name='audit')\n"
    )
    (folder / "app.yaml").write_text(yaml_text, encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    app = load_agent_with_sources(folder).app
    assert [p.name for p in app.plugins] == ["logging_plugin", "reflect_retry_tool_plugin", "audit"]


def test_the_readme_budget_yaml_loads(tmp_path: Path) -> None:
    section = README.split("\n## Token budgets\n", 1)[1].split("\n## ", 1)[0]
    [yaml_text] = re.findall(r"```yaml\n(.*?)```", section, re.DOTALL)
    folder = tmp_path / "shop"
    folder.mkdir()
    (folder / "root_agent.yaml").write_text("name: desk\nmodel: gemini-2.5-flash\ninstruction: x\n")
    (folder / "app.yaml").write_text(yaml_text, encoding="utf-8")
    budget = load_agent_with_sources(folder).app.budget
    assert (budget.max_tokens_per_invocation, budget.max_tokens_per_session) == (20000, 200000)


def test_the_opening_example_builds() -> None:
    import yadk

    opening = DOCS.split("\n## Plugins\n", 1)[0]
    [code] = re.findall(r"```python\n(.*?)```", opening, re.DOTALL)
    namespace: dict[str, Any] = {}
    exec(code, namespace)
    assert isinstance(namespace["runner"].app, yadk.App)
    assert yadk.App is App
