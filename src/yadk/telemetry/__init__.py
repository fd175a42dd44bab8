"""OpenTelemetry spans of yadk's invocations (imported only when tracing is on).

The engine calls the ``yadk._tracing.InvocationTrace`` the runner puts on each traced
invocation's context; this package implements it on the OpenTelemetry API. See docs/tracing.md.

For span consumers inside the process (the web UI's trace view): ``ensure_tracer_provider()``
returns the SDK ``TracerProvider`` yadk's spans go to (setting one up when the process has none),
to which a ``SpanProcessor`` is added with ``add_span_processor``; every finished span of every
later invocation reaches it.
"""

from __future__ import annotations

from yadk.telemetry._capture import CAPTURE_ENV, Capture, CaptureMode, capture_for
from yadk.telemetry._decide import TRACING_ENV, invocation_trace, tracing_forced_off
from yadk.telemetry._provider import (
    add_span_processor,
    configure_otlp,
    ensure_tracer_provider,
)

__all__ = [
    "CAPTURE_ENV",
    "TRACING_ENV",
    "Capture",
    "CaptureMode",
    "add_span_processor",
    "capture_for",
    "configure_otlp",
    "ensure_tracer_provider",
    "invocation_trace",
    "tracing_forced_off",
]
