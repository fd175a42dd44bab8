"""google-adk's App and plugins through the import shim: an agent folder written for google-adk
(App, BasePlugin and the built-ins from their google-adk modules) runs its plugins in yadk."""

from __future__ import annotations

import sys
import textwrap
from collections.abc import Iterator
from pathlib import Path

import pytest

import yadk.apps
from yadk import Runner
from yadk.adk_compat import disable, enable
from yadk.config import load_agent_with_sources

AGENT = """
from google.adk.agents import LlmAgent
from google.adk.agents.context_cache_config import ContextCacheConfig
from google.adk.apps import App
from google.adk.apps.app import EventsCompactionConfig, ResumabilityConfig
from google.adk.apps.base_events_summarizer import BaseEventsSummarizer
from google.adk.apps.llm_event_summarizer import LlmEventSummarizer
from google.adk.plugins import BasePlugin, LoggingPlugin
from google.adk.plugins.context_filter_plugin import ContextFilterPlugin
from google.adk.plugins.debug_logging_plugin import DebugLoggingPlugin
from google.adk.plugins.global_instruction_plugin import GlobalInstructionPlugin
from google.adk.plugins.reflect_retry_tool_plugin import ReflectAndRetryToolPlugin, TrackingScope
from google.adk.plugins.save_files_as_artifacts_plugin import SaveFilesAsArtifactsPlugin


class CountModelCalls(BasePlugin):
    def __init__(self) -> None:
        super().__init__(name="count")
        self.calls = 0

    async def before_model_callback(self, *, callback_context, llm_request):
        self.calls += 1
        return None


root_agent = LlmAgent(name="helper", model="scripted:turns.yaml", instruction="Help.")
app = App(
    name="adkshop",
    root_agent=root_agent,
    plugins=[
        CountModelCalls(),
        GlobalInstructionPlugin("Be kind."),
        ReflectAndRetryToolPlugin(tracking_scope=TrackingScope.GLOBAL),
        ContextFilterPlugin(num_invocations_to_keep=2),
        SaveFilesAsArtifactsPlugin(),
    ],
)
KINDS = (LoggingPlugin, DebugLoggingPlugin)
SETTINGS = (
    EventsCompactionConfig,
    ContextCacheConfig,
    ResumabilityConfig,
    BaseEventsSummarizer,
    LlmEventSummarizer,
)
"""


@pytest.fixture(autouse=True)
def _isolated(tmp_path: Path) -> Iterator[None]:
    path = list(sys.path)
    yield
    disable()
    enable()
    sys.path[:] = path
    for name, module in list(sys.modules.items()):
        if str(getattr(module, "__file__", None) or "").startswith(str(tmp_path)):
            del sys.modules[name]


async def test_a_google_adk_app_runs_its_plugins(tmp_path: Path) -> None:
    folder = tmp_path / "adkshop"
    folder.mkdir()
    (folder / "__init__.py").write_text("")
    (folder / "agent.py").write_text(textwrap.dedent(AGENT), encoding="utf-8")
    (folder / "turns.yaml").write_text("turns:\n  - text: Hi\n", encoding="utf-8")
    loaded = load_agent_with_sources(folder)
    app = loaded.app
    assert isinstance(app, yadk.apps.App)
    module = sys.modules["adkshop.agent"]
    assert module.KINDS == (yadk.apps.LoggingPlugin, yadk.apps.DebugLoggingPlugin)
    assert module.TrackingScope is yadk.apps.TrackingScope
    assert module.SETTINGS == (
        yadk.apps.EventsCompactionConfig,
        yadk.apps.ContextCacheConfig,
        yadk.apps.ResumabilityConfig,
        yadk.apps.BaseEventsSummarizer,
        yadk.apps.LlmEventSummarizer,
    )
    runner = Runner(app=app)
    session = await runner.session_service.create_session(app_name="adkshop", user_id="u")
    events = [
        e async for e in runner.run_async(user_id="u", session_id=session.id, new_message="hi")
    ]
    assert events[-1].content is not None and events[-1].content.parts[0].text == "Hi"
    assert app.plugins[0].calls == 1
    model = loaded.agent.canonical_model
    assert model.requests[0].system_instruction.startswith("Be kind.\n\nHelp.")
