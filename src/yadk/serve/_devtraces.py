"""The web UI's trace routes, over the spans ``TraceRing`` keeps (docs/web.md, Trace view).

    GET /dev/apps/{app}/debug/trace/session/{session}          google-adk 2.13's: [WebUiSpan]
    GET /dev/apps/{app}/debug/trace/{event_id}                 google-adk 2.13's: the attributes
                                                               of the span behind an event
    GET /dev/apps/{app}/users/{user}/sessions/{session}/traces the waterfall's data

The first two answer as google-adk 2.13's dev server does (its dev UI's trace tab reads them):
a session's spans with integer ids, ``[]`` when none are kept; an event's model-call or tool
span's attributes plus ``trace_id`` and ``span_id``, 404 ``Trace not found`` otherwise. Like
google-adk's, they do not filter by app (spans do not name it). The third is yadk's own:
``{"enabled", "hint", "invocations": [...]}``, ``hint`` saying how to turn tracing on when it is
off.

Tracing in ``yadk web`` is on when the OpenTelemetry SDK is importable (``yadk[otel]``) and
``YADK_TRACING`` does not turn it off: ``start_web_tracing`` adds the ring to the process's
tracer provider (the application's, if it set an SDK one).
"""

from __future__ import annotations

import importlib.util
import os
from dataclasses import dataclass
from typing import TYPE_CHECKING

from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

if TYPE_CHECKING:
    from yadk.serve._tracering import TraceRing

__all__ = ["INSTALL_HINT", "WebTracing", "start_web_tracing", "trace_routes"]

INSTALL_HINT = (
    "Tracing is off: the OpenTelemetry SDK is not installed. Install it with"
    " pip install 'yadk[otel]' and restart yadk web."
)
FORCED_OFF_HINT = "Tracing is off: YADK_TRACING turns it off. Unset it and restart yadk web."
FOREIGN_HINT = (
    "Tracing is off here: the application set a tracer provider that is not OpenTelemetry's"
    " SDK, so yadk web cannot read its spans."
)
NOT_STARTED_HINT = "Tracing is off: this server was started without a trace ring."


@dataclass(frozen=True)
class WebTracing:
    """The ring the routes read, or (``ring`` None) why there is none."""

    ring: TraceRing | None
    hint: str = NOT_STARTED_HINT


def start_web_tracing(ring: TraceRing | None = None) -> WebTracing:
    """Keep the spans of this process's invocations in ``ring`` (a new ``TraceRing`` by
    default) when the OpenTelemetry SDK is installed and ``YADK_TRACING`` allows it."""
    if os.environ.get("YADK_TRACING", "").strip().lower() in ("0", "false", "off", "no"):
        return WebTracing(None, FORCED_OFF_HINT)
    if not _sdk_importable():
        return WebTracing(None, INSTALL_HINT)
    # Here, not at the top: the ring needs the OpenTelemetry SDK, which may be missing.
    from yadk.serve._tracering import TraceRing
    from yadk.telemetry import add_span_processor

    ring = ring if ring is not None else TraceRing()
    if not add_span_processor(ring):
        return WebTracing(None, FOREIGN_HINT)
    return WebTracing(ring, "")


def _sdk_importable() -> bool:
    try:
        return importlib.util.find_spec("opentelemetry.sdk.trace") is not None
    except ModuleNotFoundError:
        return False


def trace_routes(tracing: WebTracing) -> list[Route]:
    ring = tracing.ring

    async def session_trace(request: Request) -> Response:
        if ring is None:
            return JSONResponse([])
        spans = ring.session_spans(request.path_params["session"])
        return JSONResponse([span.adk_json() for span in spans])

    async def event_trace(request: Request) -> Response:
        span = ring.event_span(request.path_params["event"]) if ring is not None else None
        if span is None:
            return JSONResponse({"detail": "Trace not found"}, status_code=404)
        return JSONResponse({**span.attributes, "trace_id": span.trace_id, "span_id": span.span_id})

    async def invocations(request: Request) -> Response:
        if ring is None:
            return JSONResponse({"enabled": False, "hint": tracing.hint, "invocations": []})
        found = ring.invocations(request.path_params["session"])
        return JSONResponse({"enabled": True, "hint": None, "invocations": found})

    return [
        Route("/dev/apps/{app}/debug/trace/session/{session}", session_trace, methods=["GET"]),
        Route("/dev/apps/{app}/debug/trace/{event}", event_trace, methods=["GET"]),
        Route(
            "/dev/apps/{app}/users/{user}/sessions/{session}/traces", invocations, methods=["GET"]
        ),
    ]
