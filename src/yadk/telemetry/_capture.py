"""Whether an invocation's spans carry content: prompts, answers, tool arguments and results,
and exception messages.

Off by default. ``RunConfig.capture_message_content`` wins over
``OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT``, as google-adk's
``RunConfig.telemetry.capture_message_content`` does; the values are google-adk's (and
OpenTelemetry's): ``NO_CONTENT``, ``SPAN_ONLY``, ``EVENT_ONLY``, ``SPAN_AND_EVENT``, any case;
the variable's older boolean form ``true``/``1`` means ``EVENT_ONLY`` and anything else unknown
means no content, as in google-adk.
"""

from __future__ import annotations

import dataclasses
import enum
import os

__all__ = ["CAPTURE_ENV", "Capture", "CaptureMode", "capture_for"]

CAPTURE_ENV = "OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT"


class CaptureMode(enum.Enum):
    NO_CONTENT = "NO_CONTENT"
    EVENT_ONLY = "EVENT_ONLY"
    SPAN_ONLY = "SPAN_ONLY"
    SPAN_AND_EVENT = "SPAN_AND_EVENT"


@dataclasses.dataclass(frozen=True)
class Capture:
    """Where content goes for one invocation."""

    mode: CaptureMode

    @property
    def on_spans(self) -> bool:
        """Content as span attributes (and exception messages on error spans)."""
        return self.mode in (CaptureMode.SPAN_ONLY, CaptureMode.SPAN_AND_EVENT)

    @property
    def in_events(self) -> bool:
        """Content on a ``gen_ai.client.inference.operation.details`` span event."""
        return self.mode in (CaptureMode.EVENT_ONLY, CaptureMode.SPAN_AND_EVENT)

    @property
    def any(self) -> bool:
        return self.mode is not CaptureMode.NO_CONTENT


_CAPTURES = {mode: Capture(mode) for mode in CaptureMode}


def _parse(text: str) -> CaptureMode:
    value = text.strip()
    if value.lower() in ("true", "1"):
        return CaptureMode.EVENT_ONLY
    try:
        return CaptureMode(value.upper())
    except ValueError:
        return CaptureMode.NO_CONTENT


def capture_for(run_config_value: object) -> Capture:
    """The capture of one invocation: the RunConfig's value (a string or an enum member with a
    string ``value``, as google-adk's ``ContentCapturingMode``), else the environment's."""
    if run_config_value is not None:
        value = getattr(run_config_value, "value", run_config_value)
        return _CAPTURES[_parse(str(value))]
    return _CAPTURES[_parse(os.environ.get(CAPTURE_ENV, ""))]
