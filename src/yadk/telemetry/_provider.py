"""The process's tracer provider when yadk sets one up: for ``--otel`` (OTLP/HTTP export) and
for span consumers inside the process (the web UI's trace view).

Needs ``yadk[otel]`` (opentelemetry-sdk and the OTLP/HTTP exporter). A provider the application
set already is kept: its processors get one more (a provider that is not the SDK's cannot take
processors, and is left alone).
"""

from __future__ import annotations

import os
from typing import Any

from opentelemetry import trace
from opentelemetry.trace import ProxyTracerProvider

from yadk.errors import TracingSetupError

__all__ = ["add_span_processor", "configure_otlp", "ensure_tracer_provider"]

SERVICE_NAME = "yadk"


def _sdk() -> Any:
    try:
        from opentelemetry.sdk import trace as sdk_trace
    except ImportError:
        raise TracingSetupError(
            "OpenTelemetry export needs the OpenTelemetry SDK: pip install 'yadk[otel]'."
        ) from None
    return sdk_trace


def ensure_tracer_provider() -> Any:
    """The SDK ``TracerProvider`` yadk's spans go to: the global one, set up now (service name
    from ``OTEL_SERVICE_NAME`` or ``OTEL_RESOURCE_ATTRIBUTES``, else ``yadk``) when the process
    has none. None when the application's provider is not the SDK's."""
    sdk_trace = _sdk()
    provider = trace.get_tracer_provider()
    if isinstance(provider, ProxyTracerProvider):
        from opentelemetry.sdk.resources import Resource

        named = os.environ.get("OTEL_SERVICE_NAME") or "service.name=" in os.environ.get(
            "OTEL_RESOURCE_ATTRIBUTES", ""
        )
        attributes = {} if named else {"service.name": SERVICE_NAME}
        trace.set_tracer_provider(sdk_trace.TracerProvider(resource=Resource.create(attributes)))
        provider = trace.get_tracer_provider()
    return provider if isinstance(provider, sdk_trace.TracerProvider) else None


def add_span_processor(processor: Any) -> bool:
    """Hand every span yadk finishes from now on to ``processor`` (an SDK ``SpanProcessor``);
    False when the application's provider cannot take one."""
    provider = ensure_tracer_provider()
    if provider is None:
        return False
    provider.add_span_processor(processor)
    return True


def configure_otlp() -> bool:
    """Export spans over OTLP/HTTP, configured by the standard ``OTEL_EXPORTER_OTLP_*``
    variables (endpoint, headers, timeout; ``http://localhost:4318`` by default)."""
    _sdk()
    try:
        from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter
    except ImportError:
        raise TracingSetupError(
            "OTLP export needs opentelemetry-exporter-otlp-proto-http: pip install 'yadk[otel]'."
        ) from None
    from opentelemetry.sdk.trace.export import BatchSpanProcessor

    return add_span_processor(BatchSpanProcessor(OTLPSpanExporter()))
