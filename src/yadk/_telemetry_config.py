"""google-adk 2.13's per-request telemetry settings, ``RunConfig(telemetry=TelemetryConfig(...))``.

A field left ``None`` falls back to its environment variable, read once, when the config is
made (a config is a decision, not a live view of ``os.environ``); the precedence is google-adk's:
``ADK_TELEMETRY_IGNORE_RUN_CONFIG`` (the operator's lock) > the field > the variable > the
default. yadk acts on ``capture_message_content`` (where prompts, answers and tool data go); the
other fields are accepted and resolved as google-adk resolves them, but change nothing in yadk's
spans (docs/tracing.md says why). A pydantic model, frozen and closed, as google-adk's is: an
unknown field or a wrong value is refused with pydantic's ``ValidationError``.
"""

from __future__ import annotations

import dataclasses
import enum
import logging
import os
from collections.abc import Iterable
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, PrivateAttr, StrictBool, field_validator

__all__ = [
    "IGNORE_RUN_CONFIG_ENV",
    "ContentCapturingMode",
    "TelemetryConfig",
    "parse_capture",
    "run_config_locked",
]

logger = logging.getLogger("yadk.telemetry")

IGNORE_RUN_CONFIG_ENV = "ADK_TELEMETRY_IGNORE_RUN_CONFIG"
_CAPTURE_ENV = "OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT"
_LEGACY_CAPTURE_ENV = "ADK_CAPTURE_MESSAGE_CONTENT_IN_SPANS"
_SEMCONV_ENV = "OTEL_SEMCONV_STABILITY_OPT_IN"
_SCHEMA_ENV = "ADK_TELEMETRY_SCHEMA_VERSION_OPT_IN"
_EXPERIMENTAL_ENV = "ADK_EXPERIMENTAL_TELEMETRY"
_FEATURES_ENV = "ADK_EXPERIMENTAL_TELEMETRY_FEATURES"
_FEATURES = frozenset(
    {"skills", "workflow", "context_cache", "grounding", "mcp", "token_usage", "compaction"}
)
_TRUE = frozenset({"1", "true"})


class ContentCapturingMode(enum.Enum):
    """Where model and tool content goes (OpenTelemetry's and google-adk's four values)."""

    NO_CONTENT = "NO_CONTENT"
    EVENT_ONLY = "EVENT_ONLY"
    SPAN_ONLY = "SPAN_ONLY"
    SPAN_AND_EVENT = "SPAN_AND_EVENT"


_ON_SPANS = (ContentCapturingMode.SPAN_ONLY, ContentCapturingMode.SPAN_AND_EVENT)
_IN_EVENTS = (ContentCapturingMode.EVENT_ONLY, ContentCapturingMode.SPAN_AND_EVENT)


def _env(name: str, default: str = "") -> str:
    return os.environ.get(name, default).strip().lower()


def run_config_locked() -> bool:
    """Whether the operator set ``ADK_TELEMETRY_IGNORE_RUN_CONFIG`` (``1`` / ``true``): the
    per-request telemetry settings are then ignored for the environment's."""
    return _env(IGNORE_RUN_CONFIG_ENV) in _TRUE


def parse_capture(text: str) -> ContentCapturingMode:
    """The variable's value as a mode: any case; ``true`` / ``1`` (its older boolean form) mean
    ``EVENT_ONLY``; anything else unknown means no content, as in google-adk."""
    value = text.strip()
    if value.lower() in _TRUE:
        return ContentCapturingMode.EVENT_ONLY
    try:
        return ContentCapturingMode(value.upper())
    except ValueError:
        return ContentCapturingMode.NO_CONTENT


def _features(values: Iterable[str]) -> frozenset[str] | None:
    found = set()
    for value in values:
        name = value.strip().lower()
        if name in _FEATURES:
            found.add(name)
        elif name:
            logger.warning("Ignoring unrecognized experimental telemetry feature: %s", name)
    return frozenset(found) or None


@dataclasses.dataclass(frozen=True)
class _Environment:
    """The variables a config falls back to, as they were when it was made."""

    capture: ContentCapturingMode
    legacy_spans: bool
    experimental_semconv: bool
    schema_version: int
    experimental: bool
    features: frozenset[str]
    locked: bool

    @classmethod
    def read(cls) -> _Environment:
        opt_ins = (part.strip() for part in _env(_SEMCONV_ENV).split(","))
        return cls(
            capture=parse_capture(os.environ.get(_CAPTURE_ENV, "")),
            legacy_spans=_env(_LEGACY_CAPTURE_ENV, "true") not in ("0", "false"),
            experimental_semconv="gen_ai_latest_experimental" in opt_ins,
            schema_version=1 if _env(_SCHEMA_ENV) in ("1", "otel_semconv_1_36") else 2,
            experimental=_env(_EXPERIMENTAL_ENV) in _TRUE,
            features=_features(_env(_FEATURES_ENV).split(",")) or frozenset(),
            locked=run_config_locked(),
        )


class TelemetryConfig(BaseModel):
    """Per-request telemetry settings (google-adk's ``google.adk.telemetry.TelemetryConfig``),
    for ``RunConfig(telemetry=...)``.

    ``capture_message_content`` overrides ``OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT``
    for one invocation. ``genai_semconv_stability_opt_in``, ``adk_experimental_telemetry_opt_in``
    and ``experimental_features_opt_in`` are google-adk's switches for span shapes and metrics
    yadk does not emit: accepted, resolved, and without effect on yadk's spans.
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    genai_semconv_stability_opt_in: Literal["stable", "experimental"] | None = None
    capture_message_content: ContentCapturingMode | None = None
    adk_experimental_telemetry_opt_in: StrictBool | None = None
    experimental_features_opt_in: frozenset[str] | None = None

    _environment: _Environment = PrivateAttr()

    def model_post_init(self, context: Any, /) -> None:
        self._environment = _Environment.read()

    def __eq__(self, other: object) -> bool:
        """Equal fields; the environment read beside them is not compared (google-adk's rule)."""
        if type(other) is not type(self):
            return NotImplemented
        return self.__dict__ == other.__dict__

    def __hash__(self) -> int:
        return hash((type(self), tuple(self.__dict__.values())))

    @field_validator("experimental_features_opt_in", mode="after")
    @classmethod
    def _known_features(cls, values: frozenset[str] | None) -> frozenset[str] | None:
        return None if values is None else _features(values)

    def _field(self, value: Any) -> Any:
        """A per-request field, or None when it is unset or the operator's lock is on."""
        return None if self._environment.locked else value

    @property
    def resolved_content_capturing_mode(self) -> ContentCapturingMode:
        """Where content goes: the lock > ``capture_message_content`` > the variable >
        ``NO_CONTENT``."""
        mode = self._field(self.capture_message_content)
        return self._environment.capture if mode is None else mode

    @property
    def content_capturing_mode_value(self) -> str:
        """The resolved mode as the variable spells it (``""`` for no content)."""
        mode = self.resolved_content_capturing_mode
        return "" if mode is ContentCapturingMode.NO_CONTENT else mode.value

    @property
    def should_add_content_to_logs(self) -> bool:
        """Content in events (``EVENT_ONLY``, ``SPAN_AND_EVENT``)."""
        return self.resolved_content_capturing_mode in _IN_EVENTS

    @property
    def should_add_content_to_experimental_spans(self) -> bool:
        """Content on the spans (``SPAN_ONLY``, ``SPAN_AND_EVENT``)."""
        return self.resolved_content_capturing_mode in _ON_SPANS

    @property
    def should_add_content_to_legacy_spans(self) -> bool:
        """google-adk's content on its schema-1 spans (which yadk does not emit)."""
        mode = self._field(self.capture_message_content)
        return self._environment.legacy_spans if mode is None else mode in _ON_SPANS

    @property
    def should_use_experimental_genai_semconv(self) -> bool:
        """google-adk's choice of GenAI conventions (yadk always emits the experimental ones,
        google-adk 2.13's default)."""
        choice = self._field(self.genai_semconv_stability_opt_in)
        if choice is not None:
            return bool(choice == "experimental")
        return self._environment.experimental_semconv or self._environment.schema_version >= 2

    @property
    def should_emit_experimental_telemetry(self) -> bool:
        """google-adk's blanket opt-in to its experimental telemetry (metrics and attributes
        yadk does not emit)."""
        choice = self._field(self.adk_experimental_telemetry_opt_in)
        return self._environment.experimental if choice is None else bool(choice)
