"""Server-sent events: bytes in, ``(event, data)`` pairs out, per the WHATWG ``text/event-stream``.

Our own small decoder rather than ``httpx-sse``: it is fed the raw chunks the HTTP layer has
already counted against the response size cap and read under the call deadline, so a server that
never sends a newline cannot grow a line past the cap, and a slow one cannot outlive the deadline.
Lines end with LF, CRLF or CR (a CR at the end of a chunk waits for the next one, which may start
with its LF); ``data:`` lines join with ``\\n``; comments, ``id:`` and ``retry:`` are ignored
(a model answer is never resumed). As the standard says, an event still open when the stream
ends (no blank line after it) is discarded.
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["SseDecoder", "SseEvent"]


@dataclass(frozen=True)
class SseEvent:
    """One dispatched event; ``event`` is ``"message"`` when the server named none."""

    event: str
    data: str


class SseDecoder:
    """Incremental decoder: ``feed(chunk)`` returns the events the chunk completed."""

    def __init__(self) -> None:
        self._buffer = bytearray()
        self._event = ""
        self._data: list[str] = []
        self._started = False

    def feed(self, chunk: bytes) -> list[SseEvent]:
        self._buffer += chunk
        events: list[SseEvent] = []
        start = 0
        buffer = self._buffer
        while True:
            lf = buffer.find(b"\n", start)
            cr = buffer.find(b"\r", start, lf if lf >= 0 else len(buffer))
            if cr >= 0:
                if cr + 1 == len(buffer):
                    break  # a CR last in the chunk: the next may begin with its LF
                end, after = cr, cr + 2 if buffer[cr + 1] == 0x0A else cr + 1
            elif lf >= 0:
                end, after = lf, lf + 1
            else:
                break
            event = self._line(bytes(buffer[start:end]))
            if event is not None:
                events.append(event)
            start = after
        del buffer[:start]
        return events

    def _line(self, raw: bytes) -> SseEvent | None:
        if not self._started:
            self._started = True
            raw = raw.removeprefix(b"\xef\xbb\xbf")
        if not raw:
            return self._dispatch()
        if raw.startswith(b":"):
            return None
        name, colon, value = raw.partition(b":")
        if colon and value.startswith(b" "):
            value = value[1:]
        text = value.decode("utf-8", errors="replace")
        if name == b"data":
            self._data.append(text)
        elif name == b"event":
            self._event = text
        return None

    def _dispatch(self) -> SseEvent | None:
        if not self._data:
            self._event = ""
            return None
        event = SseEvent(self._event or "message", "\n".join(self._data))
        self._event = ""
        self._data = []
        return event
