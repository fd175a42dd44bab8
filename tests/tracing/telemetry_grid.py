"""The environments, per-request fields and arguments ``TelemetryConfig`` is checked on, in
google-adk 2.13 (record_telemetry_config.py) and in yadk (test_telemetry_config.py)."""

from __future__ import annotations

from typing import Any

CAPTURE = "OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT"
LOCK = "ADK_TELEMETRY_IGNORE_RUN_CONFIG"

VARIABLES = (
    CAPTURE,
    LOCK,
    "ADK_CAPTURE_MESSAGE_CONTENT_IN_SPANS",
    "OTEL_SEMCONV_STABILITY_OPT_IN",
    "ADK_TELEMETRY_SCHEMA_VERSION_OPT_IN",
    "ADK_EXPERIMENTAL_TELEMETRY",
    "ADK_EXPERIMENTAL_TELEMETRY_FEATURES",
)

ENVIRONMENTS: list[dict[str, str]] = [
    {},
    {CAPTURE: "SPAN_ONLY"},
    {CAPTURE: "span_and_event"},
    {CAPTURE: "true"},
    {CAPTURE: "bogus"},
    {LOCK: "1", CAPTURE: "EVENT_ONLY"},
    {LOCK: "true"},
    {LOCK: "yes"},
    {"ADK_CAPTURE_MESSAGE_CONTENT_IN_SPANS": "false"},
    {"OTEL_SEMCONV_STABILITY_OPT_IN": "http, gen_ai_latest_experimental"},
    {"ADK_TELEMETRY_SCHEMA_VERSION_OPT_IN": "1"},
    {"ADK_EXPERIMENTAL_TELEMETRY": "true"},
    {"ADK_EXPERIMENTAL_TELEMETRY_FEATURES": "workflow, bogus"},
]

FIELDS: list[dict[str, Any]] = [
    {},
    {"capture_message_content": "SPAN_ONLY"},
    {"capture_message_content": "NO_CONTENT"},
    {"capture_message_content": "EVENT_ONLY"},
    {"genai_semconv_stability_opt_in": "stable"},
    {"genai_semconv_stability_opt_in": "experimental"},
    {"adk_experimental_telemetry_opt_in": True},
    {"adk_experimental_telemetry_opt_in": False},
    {"experimental_features_opt_in": ["skills"]},
]

ARGUMENTS: list[dict[str, Any]] = [
    {"capture_message_content": "SPAN_ONLY"},
    {"capture_message_content": "span_only"},
    {"capture_message_content": True},
    {"genai_semconv_stability_opt_in": "beta"},
    {"adk_experimental_telemetry_opt_in": 1},
    {"adk_experimental_telemetry_opt_in": "yes"},
    {"experimental_features_opt_in": ["workflow", "Bogus", " MCP "]},
    {"experimental_features_opt_in": ["bogus"]},
    {"experimental_features_opt_in": "workflow"},
    {"capture": "SPAN_ONLY"},
]


def decisions(config: Any) -> dict[str, Any]:
    """Every public decision of a ``TelemetryConfig`` (google-adk's or yadk's)."""
    return {
        "resolved_content_capturing_mode": config.resolved_content_capturing_mode.value,
        "content_capturing_mode_value": config.content_capturing_mode_value,
        "should_add_content_to_logs": config.should_add_content_to_logs,
        "should_add_content_to_experimental_spans": config.should_add_content_to_experimental_spans,
        "should_add_content_to_legacy_spans": config.should_add_content_to_legacy_spans,
        "should_use_experimental_genai_semconv": config.should_use_experimental_genai_semconv,
        "should_emit_experimental_telemetry": config.should_emit_experimental_telemetry,
        "experimental_features_opt_in": None
        if config.experimental_features_opt_in is None
        else sorted(config.experimental_features_opt_in),
    }
