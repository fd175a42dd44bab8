"""The spans of recent invocations, kept in memory for the web UI's trace view.

``TraceRing`` is an OpenTelemetry SDK span processor (``yadk.telemetry.add_span_processor``
hands it every span yadk finishes). Each finished span is copied at once into a plain dict (the
SDK's span object is not kept) and filed under its trace: one trace per invocation. The ring is
bounded three ways: by traces (invocations), by spans and by an estimate of the bytes their
attributes hold (content capture can put whole conversations on a span); the oldest traces go
first. A trace larger than the caps on its own keeps its first spans and counts the ones it lost.

Imported only when tracing is on (it needs the OpenTelemetry SDK).
"""

from __future__ import annotations

import logging
import threading
from collections import OrderedDict
from dataclasses import dataclass, field
from typing import Any

from opentelemetry.sdk.trace import ReadableSpan, SpanProcessor

__all__ = ["DETAILS_EVENT", "SpanRecord", "TraceRing"]

_log = logging.getLogger("yadk.web")

# The span event yadk records captured model-call content in (google-adk: a log record).
DETAILS_EVENT = "gen_ai.client.inference.operation.details"
EVENT_ID = "gcp.vertex.agent.event_id"
INVOCATION_ID = "gcp.vertex.agent.invocation_id"
CONVERSATION_ID = "gen_ai.conversation.id"
OPERATION = "gen_ai.operation.name"  # on every span yadk makes
# Spans of traces yadk has no span in yet (web requests), held aside: at most this many traces,
# and this many spans of each.
_WAITING_TRACES = 64
_WAITING_SPANS = 16
# The spans google-adk's per-event trace route answers with (by their event id).
_EVENT_SPANS = ("call_llm", "send_data", "execute_tool", "generate_content")
_SPAN_OVERHEAD = 400  # bytes a span's record holds besides its attribute values, roughly


def _plain(value: Any) -> Any:
    """An attribute value as JSON: sequences (the SDK keeps tuples) become lists."""
    if isinstance(value, tuple | list):
        return list(value)
    return value


def _size(attributes: dict[str, Any]) -> int:
    total = 0
    for key, value in attributes.items():
        total += len(key) + (len(value) if isinstance(value, str) else 16)
        if isinstance(value, list):
            total += sum(len(v) if isinstance(v, str) else 16 for v in value)
    return total


@dataclass
class SpanRecord:
    """One finished span, as plain data."""

    name: str
    start_time: int
    end_time: int
    trace_id: int
    span_id: int
    parent_span_id: int | None
    attributes: dict[str, Any]
    status: str  # "OK", "ERROR" or "UNSET"
    status_description: str | None
    events: list[dict[str, Any]]
    size: int

    @classmethod
    def of(cls, span: ReadableSpan) -> SpanRecord:
        attributes = {k: _plain(v) for k, v in (span.attributes or {}).items()}
        events: list[dict[str, Any]] = [
            {
                "name": event.name,
                "timestamp": event.timestamp,
                "attributes": {k: _plain(v) for k, v in (event.attributes or {}).items()},
            }
            for event in span.events or ()
        ]
        size = _SPAN_OVERHEAD + _size(attributes) + sum(_size(e["attributes"]) for e in events)
        parent = span.parent
        status = span.status
        return cls(
            name=span.name,
            start_time=span.start_time or 0,
            end_time=span.end_time or span.start_time or 0,
            trace_id=span.context.trace_id,
            span_id=span.context.span_id,
            parent_span_id=parent.span_id if parent is not None else None,
            attributes=attributes,
            status=status.status_code.name,
            status_description=status.description,
            events=events,
            size=size,
        )

    def adk_json(self) -> dict[str, Any]:
        """google-adk 2.13's ``WebUiSpan``: the shape its dev UI's trace tab reads. The
        captured model-call content (a span event here, a log record there) is its log."""
        logs = [
            {"event_name": e["name"], "body": None, "attributes": e["attributes"]}
            for e in self.events
            if e["name"] == DETAILS_EVENT
        ]
        return {
            "name": self.name,
            "start_time": self.start_time,
            "end_time": self.end_time,
            "trace_id": self.trace_id,
            "span_id": self.span_id,
            "parent_span_id": self.parent_span_id,
            "attributes": self.attributes,
            "logs": logs,
        }

    def view_json(self) -> dict[str, Any]:
        """The web UI's waterfall row: ids as hex strings (a browser's numbers cannot hold
        them), status and span events."""
        return {
            "name": self.name,
            "start": self.start_time,
            "end": self.end_time,
            "spanId": f"{self.span_id:016x}",
            "parentId": f"{self.parent_span_id:016x}" if self.parent_span_id else None,
            "attributes": self.attributes,
            "status": self.status,
            "statusDescription": self.status_description,
            "events": self.events,
        }


@dataclass
class _Trace:
    trace_id: int
    spans: list[SpanRecord] = field(default_factory=list)
    size: int = 0
    dropped: int = 0
    conversation_id: str | None = None
    invocation_id: str | None = None


class TraceRing(SpanProcessor):
    """An SDK ``SpanProcessor`` keeping the spans of the latest ``max_traces`` invocations, at
    most ``max_spans`` spans and about ``max_bytes`` of attributes in all."""

    def __init__(
        self, *, max_traces: int = 200, max_spans: int = 20_000, max_bytes: int = 32 << 20
    ) -> None:
        if min(max_traces, max_spans, max_bytes) < 1:
            raise ValueError("a trace ring needs room for at least one trace, span and byte")
        self.max_traces = max_traces
        self.max_spans = max_spans
        self.max_bytes = max_bytes
        self._traces: OrderedDict[int, _Trace] = OrderedDict()
        self._waiting: OrderedDict[int, list[SpanRecord]] = OrderedDict()
        self._spans = 0
        self._bytes = 0
        self._lock = threading.Lock()
        self._warned = False

    # --- the SpanProcessor interface (called by the SDK, on the thread that ends a span) ----

    def on_end(self, span: ReadableSpan) -> None:
        # Called inside the engine's ``span.end()``: a span the ring cannot read is left out
        # (and logged once), never raised into the invocation that ended it.
        try:
            record = SpanRecord.of(span)
        except Exception:
            if not self._warned:
                self._warned = True
                _log.warning(
                    "the web UI's trace ring left out a span it could not read", exc_info=True
                )
            return
        with self._lock:
            self._add(record)

    # --- keeping ------------------------------------------------------------------------------

    def _add(self, record: SpanRecord) -> None:
        found = self._traces.get(record.trace_id)
        if found is None:
            if OPERATION not in record.attributes:
                self._wait(record)
                return
            found = self._traces[record.trace_id] = _Trace(record.trace_id)
            for early in self._waiting.pop(record.trace_id, ()):
                self._keep(found, early)
        else:
            self._traces.move_to_end(record.trace_id)
        self._keep(found, record)

    def _wait(self, record: SpanRecord) -> None:
        """A span of a trace that has no span of yadk's yet (a web request's, which may or may
        not run an invocation): held aside, so the page's own requests never push invocations
        out of the ring; moved into it with the trace's first span of yadk's."""
        waiting = self._waiting.get(record.trace_id)
        if waiting is None:
            waiting = self._waiting[record.trace_id] = []
            while len(self._waiting) > _WAITING_TRACES:
                self._waiting.popitem(last=False)
        if len(waiting) < _WAITING_SPANS:
            waiting.append(record)

    def _keep(self, found: _Trace, record: SpanRecord) -> None:
        attributes = record.attributes
        if found.conversation_id is None and isinstance(attributes.get(CONVERSATION_ID), str):
            found.conversation_id = attributes[CONVERSATION_ID]
        if found.invocation_id is None and isinstance(attributes.get(INVOCATION_ID), str):
            found.invocation_id = attributes[INVOCATION_ID]
        if len(found.spans) + 1 > self.max_spans or found.size + record.size > self.max_bytes:
            found.dropped += 1  # this trace alone fills the ring: keep what it has
            return
        found.spans.append(record)
        found.size += record.size
        self._spans += 1
        self._bytes += record.size
        while len(self._traces) > self.max_traces or (
            len(self._traces) > 1 and (self._spans > self.max_spans or self._bytes > self.max_bytes)
        ):
            _, oldest = self._traces.popitem(last=False)
            self._spans -= len(oldest.spans)
            self._bytes -= oldest.size

    # --- reading ------------------------------------------------------------------------------

    def stats(self) -> dict[str, int]:
        with self._lock:
            return {"traces": len(self._traces), "spans": self._spans, "bytes": self._bytes}

    def session_spans(self, session_id: str) -> list[SpanRecord]:
        """Every kept span of the session's traces, trace by trace, each in the order the
        spans ended (google-adk's order)."""
        with self._lock:
            return [
                span
                for kept in self._traces.values()
                if kept.conversation_id == session_id
                for span in kept.spans
            ]

    def event_span(self, event_id: str) -> SpanRecord | None:
        """The model-call or tool span that produced event ``event_id`` (the one that ended
        last, as google-adk's route answers)."""
        with self._lock:
            for kept in reversed(self._traces.values()):
                for span in reversed(kept.spans):
                    if span.attributes.get(EVENT_ID) == event_id and span.name.startswith(
                        _EVENT_SPANS
                    ):
                        return span
        return None

    def invocations(self, session_id: str) -> list[dict[str, Any]]:
        """The session's kept invocations, oldest first, each with its spans in start order."""
        with self._lock:
            kept = [t for t in self._traces.values() if t.conversation_id == session_id]
            return [_invocation_json(t) for t in sorted(kept, key=_started)]


def _started(kept: _Trace) -> int:
    return min((s.start_time for s in kept.spans), default=0)


def _invocation_json(kept: _Trace) -> dict[str, Any]:
    spans = sorted(kept.spans, key=lambda s: (s.start_time, s.end_time))
    event_ids = sorted(
        {
            str(value)
            for span in spans
            for key in (EVENT_ID, "gcp.vertex.agent.associated_event_ids")
            for value in _as_list(span.attributes.get(key))
        }
    )
    return {
        "traceId": f"{kept.trace_id:032x}",
        "invocationId": kept.invocation_id,
        "start": spans[0].start_time if spans else 0,
        "end": max((s.end_time for s in spans), default=0),
        "eventIds": event_ids,
        "dropped": kept.dropped,
        "spans": [s.view_json() for s in spans],
    }


def _as_list(value: Any) -> list[Any]:
    if value is None:
        return []
    return value if isinstance(value, list) else [value]
