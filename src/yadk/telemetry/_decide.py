"""Whether an invocation is traced: decided once, when it starts.

Traced when a real ``TracerProvider`` is set (``opentelemetry.trace.set_tracer_provider``, by the
application or by ``yadk ... --otel``; or ``RunConfig.tracer_provider``) and its sampler keeps
the invocation's span, unless ``YADK_TRACING=0``. The application's provider is used as it is:
its processors, exporters and sampler.
"""

from __future__ import annotations

import os
from typing import Any

from opentelemetry import trace
from opentelemetry.trace import Tracer

from yadk._contexts import InvocationContext
from yadk._version import __version__
from yadk.telemetry._capture import capture_of
from yadk.telemetry._spans import OtelInvocationTrace, start_root

__all__ = ["TRACING_ENV", "invocation_trace", "tracing_forced_off"]

TRACING_ENV = "YADK_TRACING"
INSTRUMENTATION_SCOPE = "yadk"


def tracing_forced_off() -> bool:
    return os.environ.get(TRACING_ENV, "").strip().lower() in ("0", "false", "off", "no")


# Read once, when tracing is first considered: the decision per invocation reads no environment.
_FORCED_OFF = tracing_forced_off()
# The global provider's tracer, through OpenTelemetry's proxy: it follows a provider set later
# (set_tracer_provider), and until then starts nothing but non-recording spans.
_global_tracer = trace.get_tracer(INSTRUMENTATION_SCOPE, __version__)
_tracer_of: list[Any] = [None, None]  # [provider, its tracer]: the last RunConfig provider


def _tracer(provider: Any) -> Tracer:
    if provider is None:
        return _global_tracer
    if _tracer_of[0] is not provider:
        _tracer_of[:] = [provider, provider.get_tracer(INSTRUMENTATION_SCOPE, __version__)]
    tracer: Tracer = _tracer_of[1]
    return tracer


def invocation_trace(ctx: InvocationContext, entry: Any) -> OtelInvocationTrace | None:
    """The trace of the invocation ``ctx`` starts (``entry`` is the runner's root agent), or
    None when it is not traced: tracing forced off, no tracer provider, or the provider's
    sampler dropped the invocation's span (its spans are then not built at all)."""
    if _FORCED_OFF:
        return None
    tracer = _tracer(ctx.run_config.tracer_provider)
    root = start_root(tracer, ctx, entry)
    if not root.is_recording():
        return None
    capture = capture_of(ctx.run_config)
    return OtelInvocationTrace(tracer, root, ctx=ctx, entry=entry, capture=capture)
