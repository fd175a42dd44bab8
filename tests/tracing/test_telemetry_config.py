"""``TelemetryConfig`` (google-adk's per-request telemetry settings) against google-adk 2.13's,
recorded on the same environments and fields (record_telemetry_config.py): every decision, the
environment read once when the config is made, the arguments refused; and what it does to a
``RunConfig``."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pydantic
import pytest
from tests.tracing.telemetry_grid import (
    ARGUMENTS,
    ENVIRONMENTS,
    FIELDS,
    VARIABLES,
    decisions,
)

from yadk.agents import ContentCapturingMode, RunConfig, TelemetryConfig

RECORDED = json.loads((Path(__file__).parent / "recorded" / "telemetry_config.json").read_text())


def _with_env(monkeypatch: pytest.MonkeyPatch, env: dict[str, str]) -> None:
    for name in VARIABLES:
        monkeypatch.delenv(name, raising=False)
    for name, value in env.items():
        monkeypatch.setenv(name, value)


def _config(fields: dict[str, Any]) -> TelemetryConfig:
    fields = dict(fields)
    if isinstance(fields.get("capture_message_content"), str):
        fields["capture_message_content"] = ContentCapturingMode(fields["capture_message_content"])
    return TelemetryConfig(**fields)


def test_the_grid_is_the_recorded_one() -> None:
    pairs = [(row["env"], row["fields"]) for row in RECORDED["resolved"]]
    assert pairs == [(env, fields) for env in ENVIRONMENTS for fields in FIELDS]
    assert [row["arguments"] for row in RECORDED["refused"]] == ARGUMENTS


@pytest.mark.parametrize(
    "row", RECORDED["resolved"], ids=lambda row: json.dumps([row["env"], row["fields"]])
)
def test_decisions_are_google_adks(monkeypatch: pytest.MonkeyPatch, row: dict[str, Any]) -> None:
    _with_env(monkeypatch, row["env"])
    assert decisions(_config(row["fields"])) == row["decisions"]


def test_the_environment_is_read_when_the_config_is_made(monkeypatch: pytest.MonkeyPatch) -> None:
    _with_env(monkeypatch, {"OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT": "SPAN_ONLY"})
    config = TelemetryConfig()
    _with_env(monkeypatch, {"ADK_TELEMETRY_IGNORE_RUN_CONFIG": "1"})
    assert decisions(config) == RECORDED["construction_time"]
    assert config.resolved_content_capturing_mode is ContentCapturingMode.SPAN_ONLY


@pytest.mark.parametrize("row", RECORDED["refused"], ids=lambda row: json.dumps(row["arguments"]))
def test_arguments_are_refused_as_google_adk_refuses_them(
    monkeypatch: pytest.MonkeyPatch, row: dict[str, Any]
) -> None:
    _with_env(monkeypatch, {})
    if row["error"] is None:
        made = TelemetryConfig(**row["arguments"])
        features = made.experimental_features_opt_in
        assert (sorted(features) if features is not None else None) == row["features"]
        return
    with pytest.raises(pydantic.ValidationError) as caught:
        TelemetryConfig(**row["arguments"])
    errors = [{"type": e["type"], "loc": list(e["loc"])} for e in caught.value.errors()]
    assert errors == row["errors"]


def test_a_config_is_frozen_and_compares_by_its_fields(monkeypatch: pytest.MonkeyPatch) -> None:
    _with_env(monkeypatch, {})
    first = TelemetryConfig(capture_message_content=ContentCapturingMode.SPAN_ONLY)
    monkeypatch.setenv("OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT", "EVENT_ONLY")
    second = TelemetryConfig(capture_message_content=ContentCapturingMode.SPAN_ONLY)
    assert first == second and hash(first) == hash(second)
    assert first != TelemetryConfig()
    with pytest.raises(pydantic.ValidationError, match="frozen"):
        first.capture_message_content = None  # type: ignore[misc]


def test_run_config_takes_one_content_capture() -> None:
    config = TelemetryConfig(capture_message_content=ContentCapturingMode.SPAN_ONLY)
    assert RunConfig(telemetry=config).telemetry is config
    with pytest.raises(ValueError, match="set the content capture in one place"):
        RunConfig(capture_message_content="SPAN_ONLY", telemetry=config)
    with pytest.raises(TypeError, match=r"takes a TelemetryConfig .*, not dict"):
        RunConfig(telemetry={"capture_message_content": "SPAN_ONLY"})  # type: ignore[arg-type]
