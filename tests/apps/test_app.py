"""App (yadk.apps) as the runner takes it: name and root agent from the app."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from yadk import Runner
from yadk.agents import LlmAgent
from yadk.apps import App, ContextCacheConfig, EventsCompactionConfig, ResumabilityConfig
from yadk.models import ScriptedModel


def _agent() -> LlmAgent:
    return LlmAgent(name="helper", model=ScriptedModel(turns=[{"text": "hi"}]))


def test_runner_takes_the_app_name_and_root_agent() -> None:
    app = App(name="shop", root_agent=_agent(), resumability_config=ResumabilityConfig())
    runner = Runner(app=app)
    assert (runner.app_name, runner.agent.name, runner.app) == ("shop", "helper", app)
    assert Runner(app=app, app_name="other").app_name == "other"


@pytest.mark.parametrize(
    "kwargs",
    [{}, {"app": "x", "agent": "y"}],
    ids=["neither", "both"],
)
def test_runner_needs_exactly_one_of_app_or_agent(kwargs: dict[str, object]) -> None:
    with pytest.raises(ValueError, match="exactly one of app= or agent="):
        Runner(**kwargs)  # type: ignore[arg-type]


@pytest.mark.parametrize("name", ["1shop", "user", "a b", ""])
def test_app_names_follow_google_adk(name: str) -> None:
    with pytest.raises(ValidationError):
        App(name=name, root_agent=_agent())


def test_config_bounds_and_pairs() -> None:
    with pytest.raises(ValidationError, match="set together"):
        EventsCompactionConfig(compaction_interval=3)
    with pytest.raises(ValidationError):
        ContextCacheConfig(cache_intervals=0)
    assert EventsCompactionConfig(compaction_interval=3, overlap_size=1).overlap_size == 1
