"""A2A's JSON-RPC envelope: reading a request, choosing the protocol version, the errors.

The version is the ``A2A-Version`` header's (none means 0.3, as the protocol says); 1.0 method
names (``SendMessage``...) are served to 1.x callers, 0.3 names (``message/send``...) to 0.3
callers. A method of the other version is ``-32009`` (version not supported); a name neither
version has is ``-32601``.
"""

from __future__ import annotations

import dataclasses
import json
from typing import Any, Final

from yadk.a2a import Protocol

__all__ = [
    "INTERNAL_ERROR",
    "INVALID_PARAMS",
    "INVALID_REQUEST",
    "METHODS",
    "METHOD_NOT_FOUND",
    "PARSE_ERROR",
    "PUSH_NOT_SUPPORTED",
    "TASK_NOT_CANCELABLE",
    "TASK_NOT_FOUND",
    "UNSUPPORTED_OPERATION",
    "VERSION_NOT_SUPPORTED",
    "RpcCall",
    "RpcError",
    "error_body",
    "read_call",
    "result_body",
]

PARSE_ERROR: Final = -32700
INVALID_REQUEST: Final = -32600
METHOD_NOT_FOUND: Final = -32601
INVALID_PARAMS: Final = -32602
INTERNAL_ERROR: Final = -32603
TASK_NOT_FOUND: Final = -32001
TASK_NOT_CANCELABLE: Final = -32002
PUSH_NOT_SUPPORTED: Final = -32003
UNSUPPORTED_OPERATION: Final = -32004
VERSION_NOT_SUPPORTED: Final = -32009

# method name -> (what it does, the version that names it so)
METHODS: Final[dict[str, tuple[str, Protocol]]] = {
    "SendMessage": ("send", "1.0"),
    "SendStreamingMessage": ("stream", "1.0"),
    "GetTask": ("get", "1.0"),
    "ListTasks": ("list", "1.0"),
    "CancelTask": ("cancel", "1.0"),
    "SubscribeToTask": ("subscribe", "1.0"),
    "GetExtendedAgentCard": ("card", "1.0"),
    "CreateTaskPushNotificationConfig": ("push", "1.0"),
    "GetTaskPushNotificationConfig": ("push", "1.0"),
    "ListTaskPushNotificationConfigs": ("push", "1.0"),
    "DeleteTaskPushNotificationConfig": ("push", "1.0"),
    "message/send": ("send", "0.3"),
    "message/stream": ("stream", "0.3"),
    "tasks/get": ("get", "0.3"),
    "tasks/cancel": ("cancel", "0.3"),
    "tasks/resubscribe": ("subscribe", "0.3"),
    "agent/getAuthenticatedExtendedCard": ("card", "0.3"),
    "tasks/pushNotificationConfig/set": ("push", "0.3"),
    "tasks/pushNotificationConfig/get": ("push", "0.3"),
    "tasks/pushNotificationConfig/list": ("push", "0.3"),
    "tasks/pushNotificationConfig/delete": ("push", "0.3"),
}


class RpcError(Exception):
    """A JSON-RPC error answer."""

    def __init__(self, code: int, message: str, data: Any = None) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.data = data
        self.request_id: str | int | None = None


@dataclasses.dataclass(frozen=True)
class RpcCall:
    id: str | int | None
    method: str
    action: str
    version: Protocol
    params: dict[str, Any]


def _version(header: str | None) -> Protocol:
    if not header or not header.strip():
        return "0.3"
    major, _, rest = header.strip().partition(".")
    minor = rest.partition(".")[0]
    if major == "1" and minor.isdigit():
        return "1.0"
    if major == "0" and minor == "3":
        return "0.3"
    raise RpcError(
        VERSION_NOT_SUPPORTED,
        f"A2A version {header.strip()!r} is not supported: this server speaks 1.0 and 0.3"
        " (send `A2A-Version: 1.0`, or no header for 0.3).",
    )


def read_call(body: bytes, version_header: str | None) -> RpcCall:
    """The call in a request body; ``RpcError`` (with the request's id when known) for
    anything that is not one."""
    try:
        envelope = json.loads(body)
    except (ValueError, UnicodeDecodeError) as exc:
        raise RpcError(PARSE_ERROR, f"Invalid JSON payload: {exc}") from None
    if isinstance(envelope, list):
        raise RpcError(INVALID_REQUEST, "Batch requests are not supported")
    if not isinstance(envelope, dict):
        raise RpcError(INVALID_REQUEST, "Invalid request: expected a JSON-RPC object")
    request_id = envelope.get("id")
    if isinstance(request_id, bool) or not isinstance(request_id, str | int | None):
        raise RpcError(INVALID_REQUEST, "Invalid request: id must be a string, integer, or null")
    try:
        if envelope.get("jsonrpc") != "2.0":
            raise RpcError(INVALID_REQUEST, "Invalid request: 'jsonrpc' must be exactly '2.0'")
        method = envelope.get("method")
        if not isinstance(method, str) or not method:
            raise RpcError(INVALID_REQUEST, "Invalid request: 'method' must be a string")
        params = envelope.get("params", {})
        if params is None:
            params = {}
        if not isinstance(params, dict):
            raise RpcError(INVALID_PARAMS, "Invalid params: 'params' must be an object")
        version = _version(version_header)
        known = METHODS.get(method)
        if known is None:
            raise RpcError(METHOD_NOT_FOUND, f"Method not found: {method!r}")
        action, named_by = known
        if named_by != version:
            spoken = "1.0 (A2A-Version: 1.0)" if version == "1.0" else "0.3 (no A2A-Version)"
            raise RpcError(
                VERSION_NOT_SUPPORTED,
                f"{method!r} is an A2A {named_by} method, and this request speaks {spoken}:"
                f" send {'`A2A-Version: 1.0`' if named_by == '1.0' else 'no A2A-Version header'}"
                " with it, or use that version's method name.",
            )
    except RpcError as exc:
        exc.request_id = request_id
        raise
    return RpcCall(request_id, method, action, version, params)


def result_body(request_id: str | int | None, result: Any) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": request_id, "result": result}


def error_body(request_id: str | int | None, error: RpcError) -> dict[str, Any]:
    detail: dict[str, Any] = {"code": error.code, "message": error.message}
    if error.data is not None:
        detail["data"] = error.data
    return {"jsonrpc": "2.0", "id": request_id, "error": detail}
