"""Whether an invocation's spans carry content: prompts, answers, tool arguments and results,
and exception messages.

Off by default. A ``RunConfig`` decides for its invocation, through google-adk's
``telemetry=TelemetryConfig(capture_message_content=...)`` or yadk's shorter
``capture_message_content=...``; otherwise ``OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT``
does. The values are google-adk's (and OpenTelemetry's): ``NO_CONTENT``, ``SPAN_ONLY``,
``EVENT_ONLY``, ``SPAN_AND_EVENT``, any case; the variable's older boolean form ``true``/``1``
means ``EVENT_ONLY`` and anything else unknown means no content, as in google-adk. With
``ADK_TELEMETRY_IGNORE_RUN_CONFIG`` set (the operator's lock) the variable decides whatever the
``RunConfig`` says, as in google-adk.
"""

from __future__ import annotations

import dataclasses
import os

from yadk._contexts import RunConfig
from yadk._telemetry_config import ContentCapturingMode, parse_capture, run_config_locked

__all__ = ["CAPTURE_ENV", "Capture", "CaptureMode", "capture_for", "capture_of"]

CAPTURE_ENV = "OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT"

CaptureMode = ContentCapturingMode


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


def capture_for(run_config_value: object) -> Capture:
    """The capture a ``capture_message_content`` value asks for (a string or an enum member
    with a string ``value``, as google-adk's ``ContentCapturingMode``), else the
    environment's."""
    if run_config_value is not None:
        value = getattr(run_config_value, "value", run_config_value)
        return _CAPTURES[parse_capture(str(value))]
    return _CAPTURES[parse_capture(os.environ.get(CAPTURE_ENV, ""))]


def capture_of(run_config: RunConfig) -> Capture:
    """The capture of the invocation ``run_config`` starts: its ``TelemetryConfig``'s decision
    (the environment read when that was made), else its ``capture_message_content`` unless the
    operator's lock is on, else the environment's."""
    if run_config.telemetry is not None:
        return _CAPTURES[run_config.telemetry.resolved_content_capturing_mode]
    value = run_config.capture_message_content
    return capture_for(None if value is not None and run_config_locked() else value)
