"""app.yaml beside root_agent.yaml: App settings and plugins declared in YAML, loaded into an App,
checked with located errors by load and validate alike; installed plugins by entry-point name."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from tests.config.conftest import WriteTree

from yadk.apps import (
    App,
    Budget,
    ContextFilterPlugin,
    DebugLoggingPlugin,
    LoggingPlugin,
    ModelPrice,
)
from yadk.config import ConfigError, load_agent_with_sources, validate_paths

ROOT = """
name: helper
model: gemini-2.5-flash
instruction: Help.
"""

PLUGINS = '''
from yadk.apps import BasePlugin


class AuditPlugin(BasePlugin):
    """Counts model calls."""

    yadk_config_args = {"label"}

    def __init__(self, label: str = "audit") -> None:
        super().__init__(name=label)


class Closed(BasePlugin):
    def __init__(self, secret: str = "") -> None:
        super().__init__(name="closed")


instance = AuditPlugin("ready")
'''


def test_app_yaml_builds_the_app(write_tree: WriteTree) -> None:
    root = write_tree(
        {
            "shop/root_agent.yaml": ROOT,
            "shop/plugins.py": PLUGINS,
            "shop/app.yaml": """
                name: shop_app
                plugins:
                  - name: LoggingPlugin
                  - name: google.adk.plugins.context_filter_plugin.ContextFilterPlugin
                    args: {num_invocations_to_keep: 3}
                  - name: shop.plugins.AuditPlugin
                    args: {label: audit}
                  - shop.plugins.instance
                  - name: DebugLoggingPlugin
                    args: {output_path: logs/debug.yaml}
                events_compaction_config: {compaction_interval: 4, overlap_size: 1}
                context_cache_config: {ttl_seconds: 600}
                resumability_config: {is_resumable: true}
                budget:
                  max_tokens_per_invocation: 20000
                  max_tokens_per_session: 200000
                  max_cost: 0.5
                  prices:
                    gemini-2.5-flash: {input_per_million: 0.3, output_per_million: 2.5}
                    "*": {input_per_million: 1, output_per_million: 4}
            """,
        }
    )
    loaded = load_agent_with_sources(root / "shop")
    app = loaded.app
    assert isinstance(app, App)
    assert (app.name, app.root_agent) == ("shop_app", loaded.agent)
    assert [p.name for p in app.plugins] == [
        "logging_plugin",
        "context_filter_plugin",
        "audit",
        "ready",
        "debug_logging_plugin",
    ]
    assert isinstance(app.plugins[0], LoggingPlugin)
    assert isinstance(app.plugins[1], ContextFilterPlugin)
    assert app.plugins[1].num_invocations_to_keep == 3
    debug = app.plugins[4]
    assert isinstance(debug, DebugLoggingPlugin)
    assert debug.output_path == (root / "shop" / "logs" / "debug.yaml").resolve()
    assert app.events_compaction_config is not None
    assert app.events_compaction_config.compaction_interval == 4
    assert app.context_cache_config is not None and app.context_cache_config.ttl_seconds == 600
    assert app.resumability_config is not None and app.resumability_config.is_resumable
    assert app.budget == Budget(
        max_tokens_per_invocation=20000,
        max_tokens_per_session=200000,
        max_cost=0.5,
        prices={
            "gemini-2.5-flash": ModelPrice(input_per_million=0.3, output_per_million=2.5),
            "*": ModelPrice(input_per_million=1, output_per_million=4),
        },
    )
    assert root / "shop" / "app.yaml" in loaded.files  # the dev loop reloads on its edits


def test_without_app_yaml_there_is_no_app(write_tree: WriteTree) -> None:
    root = write_tree({"shop/root_agent.yaml": ROOT})
    assert load_agent_with_sources(root / "shop").app is None


def test_the_app_is_named_after_its_folder_by_default(write_tree: WriteTree) -> None:
    root = write_tree({"shop/root_agent.yaml": ROOT, "shop/app.yaml": "plugins: []\n"})
    assert load_agent_with_sources(root / "shop").app.name == "shop"


CASES = [
    (
        "plugin: []\n",
        "app.yaml:1:1: error unknown-key: Unknown key `plugin` in app.yaml.\n"
        "  hint: Did you mean `plugins`?",
    ),
    (
        "plugins:\n  - name: LogingPlugin\n",
        "app.yaml:2:11: error unknown-plugin: `LogingPlugin` is neither a built-in plugin nor"
        " an installed one.\n  hint: Did you mean `LoggingPlugin`?",
    ),
    (
        "plugins:\n  - name: LoggingPlugin\n    args: {nme: x}\n",
        "app.yaml:3:12: error unknown-key: Unknown key `nme` in `LoggingPlugin` args.\n"
        "  hint: Did you mean `name`?",
    ),
    (
        "plugins:\n  - name: DebugLoggingPlugin\n    args: {output_path: ../out.yaml}\n",
        "app.yaml:3:25: error path-outside-folder: output_path:",
    ),
    (
        "plugins:\n  - name: shop.plugins.Closed\n    args: {secret: x}\n",
        "app.yaml:3:11: error args-not-allowed: `shop.plugins.Closed` may not receive `args`"
        " from YAML: it does not declare which arguments are safe.",
    ),
    (
        "events_compaction_config: {compaction_interval: 3}\n",
        "app.yaml:1:27: error invalid-value: `events_compaction_config`: compaction_interval"
        " and overlap_size must be set together.",
    ),
    (
        "context_cache_config: {cache_intervals: 0}\n",
        "app.yaml:1:41: error invalid-value: `context_cache_config`: Input should be greater"
        " than or equal to 1",
    ),
    (
        "resumability_config: {resumable: true}\n",
        "app.yaml:1:23: error unknown-key: Unknown key `resumable` in `resumability_config`.\n"
        "  hint: Did you mean `is_resumable`?",
    ),
    (
        "budget: {max_tokens_per_invocaton: 10}\n",
        "app.yaml:1:10: error unknown-key: Unknown key `max_tokens_per_invocaton` in `budget`.\n"
        "  hint: Did you mean `max_tokens_per_invocation`?",
    ),
    (
        "budget: {max_tokens_per_session: 0}\n",
        "app.yaml:1:34: error invalid-value: `budget`: Input should be greater than 0",
    ),
    (
        "budget:\n  max_cost: 2\n  prices:\n    m1: {input_per_milion: 1, output_per_million: 2}\n",
        "app.yaml:4:10: error unknown-key: Unknown key `input_per_milion` in the price of `m1`.\n"
        "  hint: Did you mean `input_per_million`?",
    ),
    (
        "budget:\n  prices:\n    m1: {input_per_million: -1, output_per_million: 2}\n",
        "app.yaml:3:29: error invalid-value: `budget.prices.m1.input_per_million`: Input should"
        " be greater than or equal to 0",
    ),
    (
        "budget:\n  prices:\n    m1: {input_per_million: 1}\n",
        "app.yaml:3:9: error invalid-value: `budget.prices.m1`: Field required",
    ),
    (
        "budget: {max_cost: 1.5}\n",
        "app.yaml:1:20: error missing-prices: `budget.max_cost` is set but `budget.prices` names"
        " no model",
    ),
    (
        "budget: {prices: [m1]}\n",
        "app.yaml:1:18: error wrong-type:",
    ),
    (
        "name: 1shop\n",
        "app.yaml:1:7: error invalid-name: `1shop` is not a valid app name.",
    ),
    (
        "plugins:\n  - name: LoggingPlugin\n  - name: LoggingPlugin\n",
        "app.yaml:3:5: error duplicate-plugin: Two plugins are named `logging_plugin`",
    ),
]


@pytest.mark.parametrize(("text", "expected"), CASES, ids=[c[1].split(" ")[2] for c in CASES])
@pytest.mark.parametrize("how", ["validate", "load"])
def test_problems_are_located_with_a_fix(
    write_tree: WriteTree, text: str, expected: str, how: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = write_tree({"shop/root_agent.yaml": ROOT, "shop/plugins.py": PLUGINS})
    (root / "shop" / "app.yaml").write_text(text, encoding="utf-8")
    monkeypatch.chdir(root / "shop")
    if how == "validate":
        diagnostics = validate_paths([root / "shop"], import_code=False)
    else:
        with pytest.raises(ConfigError) as raised:
            load_agent_with_sources(root / "shop")
        diagnostics = raised.value.diagnostics
    shown = [d.format() for d in diagnostics if d.is_error]
    if how == "validate" and ("duplicate-plugin" in expected or "args-not-allowed" in expected):
        # Plugin names are known once plugins are built; a class that declares no args is
        # judged once imported (`validate --import`).
        assert shown == []
        return
    assert len(shown) == 1, shown
    assert shown[0].startswith(expected)


def test_an_installed_plugin_is_found_by_its_entry_point_name(
    write_tree: WriteTree, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    site = tmp_path / "site"
    (site / "guard_pkg").mkdir(parents=True)
    (site / "guard_pkg" / "__init__.py").write_text(
        "from yadk.apps import BasePlugin\n\n\n"
        "class Guard(BasePlugin):\n"
        "    def __init__(self, level: str = 'low') -> None:\n"
        "        super().__init__(name='guard')\n"
        "        self.level = level\n",
        encoding="utf-8",
    )
    info = site / "guard_pkg-1.0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: guard-pkg\nVersion: 1.0\n")
    (info / "entry_points.txt").write_text("[yadk.plugins]\ncompany_guard = guard_pkg:Guard\n")
    monkeypatch.syspath_prepend(str(site))
    root = write_tree(
        {
            "shop/root_agent.yaml": ROOT,
            "shop/app.yaml": "plugins:\n  - name: company_guard\n    args: {level: high}\n",
        }
    )
    try:
        app = load_agent_with_sources(root / "shop").app
        assert [(p.name, p.level) for p in app.plugins] == [("guard", "high")]
        assert validate_paths([root / "shop"]) == []
    finally:
        sys.modules.pop("guard_pkg", None)


def test_a_python_agent_folder_may_define_the_app(write_tree: WriteTree) -> None:
    root = write_tree(
        {
            "pyshop/__init__.py": "",
            "pyshop/agent.py": """
                from yadk import LlmAgent
                from yadk.apps import App, LoggingPlugin

                root_agent = LlmAgent(name="helper", model="gemini-2.5-flash", instruction="x")
                app = App(name="pyshop", root_agent=root_agent, plugins=[LoggingPlugin()])
            """,
        }
    )
    loaded = load_agent_with_sources(root / "pyshop")
    assert isinstance(loaded.app, App)
    assert loaded.app.root_agent is loaded.agent
    assert [p.name for p in loaded.app.plugins] == ["logging_plugin"]


def test_validate_takes_app_yaml_itself(write_tree: WriteTree) -> None:
    root = write_tree({"shop/root_agent.yaml": ROOT, "shop/app.yaml": "plugin: []\n"})
    diagnostics = validate_paths([root / "shop" / "app.yaml"])
    assert [d.rule for d in diagnostics] == ["unknown-key"]


def test_the_json_schema_describes_app_yaml() -> None:
    import json

    import jsonschema
    import yaml

    from yadk.config import app_config_json_schema

    schema = app_config_json_schema()
    saved = Path(__file__).resolve().parents[2] / "configs" / "app.schema.json"
    # Refresh with: yadk schema --app > configs/app.schema.json
    assert json.loads(saved.read_text(encoding="utf-8")) == schema
    good = yaml.safe_load(
        "name: shop\nplugins: [LoggingPlugin, {name: ContextFilterPlugin, args: {remove_amount: 2}}]\n"
        "events_compaction_config: {compaction_interval: 3, overlap_size: 1}\n"
        "budget: {max_cost: 1, prices: {'*': {input_per_million: 1, output_per_million: 2}}}\n"
    )
    jsonschema.validate(good, schema)
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate({"plugin": []}, schema)
    with pytest.raises(jsonschema.ValidationError):  # a price's fields, through its $ref
        jsonschema.validate({"budget": {"prices": {"m": {"input_per_million": 1}}}}, schema)


def test_validate_names_the_agents_context_caching_does_not_reach(write_tree: WriteTree) -> None:
    root = write_tree(
        {
            "shop/root_agent.yaml": ROOT + "sub_agents:\n  - config_path: clerk.yaml\n",
            "shop/clerk.yaml": "name: clerk\nmodel: anthropic:claude-sonnet-4-5\ninstruction: x\n",
            "shop/app.yaml": "context_cache_config: {ttl_seconds: 600}\n",
        }
    )
    [warning] = validate_paths([root / "shop"])
    assert warning.path == str(root / "shop" / "app.yaml")
    assert (
        warning.format()
        .split("/shop/", 1)[1]
        .startswith(
            "app.yaml:1:23: warning cache-not-gemini: context_cache_config applies to Gemini models"
            " only; these agents' calls are not cached: clerk (anthropic:claude-sonnet-4-5)."
        )
    )
    (root / "shop" / "clerk.yaml").write_text(
        "name: clerk\nmodel: gemini-2.5-pro\ninstruction: x\n"
    )
    assert validate_paths([root / "shop"]) == []
