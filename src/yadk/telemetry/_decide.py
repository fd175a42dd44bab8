"""Whether an invocation is traced: decided once, when it starts.

Traced when a real ``TracerProvider`` is set (``opentelemetry.trace.set_tracer_provider``, by the
application or by ``yadk ... --otel``), unless ``YADK_TRACING=0``. The application's provider is
used as it is: its processors, exporters and sampler.
"""

from __future__ import annotations

import os
from typing import Any

from opentelemetry import trace
from opentelemetry.trace import NoOpTracerProvider, ProxyTracerProvider, Tracer

from yadk._contexts import InvocationContext
from yadk._version import __version__
from yadk.telemetry._capture import capture_for
from yadk.telemetry._spans import OtelInvocationTrace

__all__ = ["TRACING_ENV", "invocation_trace", "tracing_forced_off"]

TRACING_ENV = "YADK_TRACING"
INSTRUMENTATION_SCOPE = "yadk"

_tracer_of: list[Any] = [None, None]  # [provider, its tracer]: the last provider asked


def tracing_forced_off() -> bool:
    return os.environ.get(TRACING_ENV, "").strip().lower() in ("0", "false", "off", "no")


def _tracer(provider: Any) -> Tracer | None:
    if provider is None:
        provider = trace.get_tracer_provider()
    if isinstance(provider, ProxyTracerProvider | NoOpTracerProvider):
        return None  # nobody set a provider: spans would go nowhere
    if _tracer_of[0] is not provider:
        _tracer_of[:] = [provider, provider.get_tracer(INSTRUMENTATION_SCOPE, __version__)]
    tracer: Tracer = _tracer_of[1]
    return tracer


def invocation_trace(ctx: InvocationContext, entry: Any) -> OtelInvocationTrace | None:
    """The trace of the invocation ``ctx`` starts (``entry`` is the runner's root agent), or
    None when it is not traced."""
    if tracing_forced_off():
        return None
    tracer = _tracer(ctx.run_config.tracer_provider)
    if tracer is None:
        return None
    capture = capture_for(ctx.run_config.capture_message_content)
    return OtelInvocationTrace(tracer, ctx=ctx, entry=entry, capture=capture)
