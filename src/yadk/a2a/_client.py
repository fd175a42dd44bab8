"""A small A2A JSON-RPC client on httpx: fetch a card, send a message, read the task or message.

Only what calling a remote agent needs: ``SendMessage`` (A2A 1.0, ``A2A-Version: 1.0``) or
``message/send`` (0.3), blocking until the task stops. Replies are read in one bounded piece
(``MAX_REPLY_BYTES``), and every failure becomes an ``A2AClientError`` whose message says what
happened and where, never an httpx traceback.

The ``httpx.AsyncClient`` is created on first use inside the running event loop (a pooled
connection belongs to one loop); pass ``http`` to share one, or to use ``httpx.MockTransport``.
"""

from __future__ import annotations

import asyncio
import dataclasses
import json
import uuid
from typing import Any, Final

import httpx

from yadk.a2a._card import AgentCard
from yadk.a2a._parts import PartError, Protocol, parts_from_a2a
from yadk.errors import A2AClientError, AgentCardResolutionError
from yadk.types import Part

__all__ = [
    "FAILED_STATES",
    "MAX_CARD_BYTES",
    "MAX_REPLY_BYTES",
    "A2AReply",
    "JsonRpcClient",
    "fetch_card_blocking",
]

MAX_CARD_BYTES: Final = 1 << 20
MAX_REPLY_BYTES: Final = 32 << 20
_VERSION_HEADER: Final = "A2A-Version"
# A2A 1.0 spells task states as protobuf enum names; 0.3 (and this module) as the short ones.
_STATES: Final = {
    "TASK_STATE_SUBMITTED": "submitted",
    "TASK_STATE_WORKING": "working",
    "TASK_STATE_COMPLETED": "completed",
    "TASK_STATE_FAILED": "failed",
    "TASK_STATE_CANCELED": "canceled",
    "TASK_STATE_INPUT_REQUIRED": "input-required",
    "TASK_STATE_REJECTED": "rejected",
    "TASK_STATE_AUTH_REQUIRED": "auth-required",
    "TASK_STATE_UNSPECIFIED": "unknown",
}
_PAUSED: Final = frozenset({"input-required", "auth-required"})
FAILED_STATES: Final = frozenset({"failed", "canceled", "rejected"})


@dataclasses.dataclass
class A2AReply:
    """A remote agent's answer: a task (with its state) or a plain message, and its parts."""

    kind: str  # "task" or "message"
    parts: list[Part]
    context_id: str | None
    task_id: str | None
    state: str | None
    status_text: str
    result: dict[str, Any]


class JsonRpcClient:
    """Calls one remote agent; ``headers`` go with every request, ``timeout`` bounds each."""

    def __init__(
        self,
        *,
        headers: dict[str, str] | None = None,
        timeout: float = 600.0,
        http: httpx.AsyncClient | None = None,
    ) -> None:
        self.headers = dict(headers or {})
        self.timeout = timeout
        self._shared = http
        self._own: httpx.AsyncClient | None = None
        self._loop: asyncio.AbstractEventLoop | None = None

    def _http(self) -> httpx.AsyncClient:
        if self._shared is not None:
            return self._shared
        loop = asyncio.get_running_loop()
        if self._own is None or self._loop is not loop:
            # A client made in another (finished) loop cannot be reused; it is dropped, and its
            # connections with that loop.
            self._own = httpx.AsyncClient(timeout=httpx.Timeout(self.timeout))
            self._loop = loop
        return self._own

    async def aclose(self) -> None:
        """Close the client this object made (a shared one is its owner's to close)."""
        own, self._own = self._own, None
        if own is not None and self._loop is asyncio.get_running_loop():
            await own.aclose()

    # --- the card ---------------------------------------------------------------------------

    async def fetch_card(self, url: str) -> Any:
        """The JSON at ``url`` (an agent card), fetched with the configured headers."""
        try:
            body = await self._request("GET", url, None, {}, limit=MAX_CARD_BYTES)
        except A2AClientError as exc:
            raise AgentCardResolutionError(f"Fetching the agent card failed: {exc}") from None
        try:
            return json.loads(body)
        except ValueError:
            raise AgentCardResolutionError(
                f"The agent card at {url} is not JSON: {_snippet(body)}"
            ) from None

    # --- messages ---------------------------------------------------------------------------

    def message(
        self,
        card: AgentCard,
        parts: list[dict[str, Any]],
        *,
        context_id: str | None,
        task_id: str | None,
    ) -> dict[str, Any]:
        """The outgoing user message, in the card's protocol version."""
        message: dict[str, Any] = {"messageId": str(uuid.uuid4())}
        if card.protocol == "0.3":
            message.update(kind="message", role="user")
        else:
            message["role"] = "ROLE_USER"
        message["parts"] = parts
        if context_id:
            message["contextId"] = context_id
        if task_id:
            message["taskId"] = task_id
        return message

    async def send(
        self, card: AgentCard, message: dict[str, Any], *, headers: dict[str, str] | None = None
    ) -> A2AReply:
        """Send ``message`` and wait for the task to stop (or for a message back); ``headers``
        go with this request only (a trace's context)."""
        method = "message/send" if card.protocol == "0.3" else "SendMessage"
        request = {
            "jsonrpc": "2.0",
            "id": str(uuid.uuid4()),
            "method": method,
            "params": {"message": message},
        }
        sent = dict(headers or {})
        if card.protocol != "0.3":
            sent[_VERSION_HEADER] = "1.0"
        body = await self._request("POST", card.endpoint, request, sent, limit=MAX_REPLY_BYTES)
        return _reply(body, card)

    async def _request(
        self,
        method: str,
        url: str,
        payload: dict[str, Any] | None,
        headers: dict[str, str],
        *,
        limit: int,
    ) -> bytes:
        sent = {**self.headers, **headers}
        try:
            async with self._http().stream(
                method,
                url,
                json=payload,
                headers=sent,
                timeout=httpx.Timeout(self.timeout),
            ) as response:
                body = await _read(response, limit, url)
                if response.status_code >= 400:
                    raise A2AClientError(
                        f"{url} answered HTTP {response.status_code}: {_snippet(body)}"
                    )
                return body
        except httpx.TimeoutException:
            raise A2AClientError(
                f"{url} did not answer within {self.timeout:g} s (the agent's `timeout`)."
            ) from None
        except httpx.HTTPError as exc:
            raise A2AClientError(
                f"{url} could not be reached: {type(exc).__name__}: {exc or 'no detail'}"
            ) from None


async def _read(response: httpx.Response, limit: int, url: str) -> bytes:
    chunks: list[bytes] = []
    size = 0
    async for chunk in response.aiter_bytes():
        size += len(chunk)
        if size > limit:
            raise A2AClientError(f"{url} sent more than {limit >> 20} MiB; the reply was dropped.")
        chunks.append(chunk)
    return b"".join(chunks)


def _snippet(body: bytes) -> str:
    text = body.decode("utf-8", errors="replace").strip()
    return repr(text[:200] + ("..." if len(text) > 200 else "")) if text else "(empty body)"


def _reply(body: bytes, card: AgentCard) -> A2AReply:
    where = f"{card.name} ({card.endpoint})"
    try:
        envelope = json.loads(body)
    except ValueError:
        raise A2AClientError(f"{where} did not answer JSON-RPC: {_snippet(body)}") from None
    if not isinstance(envelope, dict):
        raise A2AClientError(f"{where} did not answer a JSON-RPC object: {_snippet(body)}")
    error = envelope.get("error")
    if error is not None:
        code = error.get("code") if isinstance(error, dict) else None
        text = error.get("message") if isinstance(error, dict) else error
        raise A2AClientError(f"{where} answered JSON-RPC error {code}: {text}")
    result = envelope.get("result")
    if not isinstance(result, dict):
        raise A2AClientError(f"{where} answered without a result: {_snippet(body)}")
    return _read_result(result, card.protocol, where)


def _read_result(result: dict[str, Any], protocol: Protocol, where: str) -> A2AReply:
    if "task" in result and isinstance(result["task"], dict):
        task, kind = result["task"], "task"
    elif "message" in result and isinstance(result["message"], dict):
        task, kind = result["message"], "message"
    elif result.get("kind") in ("task", "message"):
        task, kind = result, result["kind"]
    elif "status" in result:
        task, kind = result, "task"
    else:
        raise A2AClientError(f"{where} answered neither a task nor a message: {list(result)}")
    try:
        if kind == "message":
            parts = parts_from_a2a(task.get("parts", []), where="message.parts")
            return A2AReply(
                kind=kind,
                parts=parts,
                context_id=_text(task.get("contextId")),
                task_id=_text(task.get("taskId")),
                state=None,
                status_text="",
                result=task,
            )
        return _task_reply(task)
    except PartError as exc:
        raise A2AClientError(f"{where} answered a part this side cannot read: {exc}") from None


def _task_reply(task: dict[str, Any]) -> A2AReply:
    status = task.get("status")
    status = status if isinstance(status, dict) else {}
    raw_state = str(status.get("state") or "unknown")
    state = _STATES.get(raw_state, raw_state)
    status_message = status.get("message")
    status_parts = (
        parts_from_a2a(status_message.get("parts", []), where="task.status.message.parts")
        if isinstance(status_message, dict)
        else []
    )
    parts: list[Part] = []
    artifacts = task.get("artifacts")
    for index, artifact in enumerate(artifacts if isinstance(artifacts, list) else []):
        if isinstance(artifact, dict):
            parts += parts_from_a2a(artifact.get("parts", []), where=f"task.artifacts[{index}]")
    # The status message is the answer when the task waits for the user, or when it produced no
    # artifact (google-adk's reading of a task).
    if state in _PAUSED or not parts:
        parts += status_parts
    status_text = " ".join(p.text for p in status_parts if p.text and not p.thought)
    return A2AReply(
        kind="task",
        parts=parts,
        context_id=_text(task.get("contextId")),
        task_id=_text(task.get("id")),
        state=state,
        status_text=status_text,
        result=task,
    )


def _text(value: Any) -> str | None:
    return value if isinstance(value, str) and value else None


def fetch_card_blocking(url: str, *, headers: dict[str, str], timeout: float) -> Any:
    """``JsonRpcClient.fetch_card`` for synchronous callers (``yadk validate --network``)."""
    try:
        with (
            httpx.Client(timeout=httpx.Timeout(timeout)) as client,
            client.stream("GET", url, headers=headers) as response,
        ):
            chunks: list[bytes] = []
            size = 0
            for chunk in response.iter_bytes():
                size += len(chunk)
                if size > MAX_CARD_BYTES:
                    raise AgentCardResolutionError(
                        f"{url} sent more than {MAX_CARD_BYTES >> 20} MiB; a card is a small JSON"
                        " document."
                    )
                chunks.append(chunk)
            body = b"".join(chunks)
            status = response.status_code
    except httpx.TimeoutException:
        raise AgentCardResolutionError(f"{url} did not answer within {timeout:g} s.") from None
    except httpx.HTTPError as exc:
        raise AgentCardResolutionError(
            f"{url} could not be reached: {type(exc).__name__}: {exc or 'no detail'}"
        ) from None
    if status >= 400:
        raise AgentCardResolutionError(f"{url} answered HTTP {status}: {_snippet(body)}")
    try:
        return json.loads(body)
    except ValueError:
        raise AgentCardResolutionError(
            f"The agent card at {url} is not JSON: {_snippet(body)}"
        ) from None
