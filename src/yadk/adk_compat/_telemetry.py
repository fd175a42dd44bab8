"""google-adk's ``google.adk.telemetry.tracer``: an OpenTelemetry tracer for spans of one's own,
from yadk's instrumentation scope (``yadk``), so they join the invocation's trace as yadk's do.

``TelemetryConfig`` and ``ContentCapturingMode``, the module's other names agent code uses, are
yadk's own (``yadk.agents``)."""

from __future__ import annotations

from yadk._version import __version__

try:
    from opentelemetry import trace
except ImportError as exc:  # the otel extra is optional
    raise ImportError(
        "google.adk.telemetry.tracer needs OpenTelemetry: pip install 'yadk[otel]'"
    ) from exc

__all__ = ["tracer"]

tracer = trace.get_tracer("yadk", __version__)
