"""Record google-adk's api_server answers as yadk's protocol fixtures.

Re-record (google-adk 2.13.0 in its own venv, never a yadk dependency):

    /opt/adkvenv/bin/python tests/serve/recording/record.py

It starts ``adk api_server`` on 127.0.0.1 with the sample agent in ``agents/echo`` (a fixed,
offline model), sends every request in ``EXCHANGES`` in order, and writes one JSON file per
exchange to ``tests/serve/fixtures/``: the request (method, path, body) and the real response
(status, content type, body; an SSE body as its raw text). The server's sessions live in a
temporary folder, so every recording starts from nothing.
"""

from __future__ import annotations

import json
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import httpx

HERE = Path(__file__).resolve().parent
FIXTURES = HERE.parent / "fixtures"
S = "/apps/echo/users/u1/sessions"
A = f"{S}/s1/artifacts"

# (fixture name, method, path, JSON body or raw bytes or None)
EXCHANGES: list[tuple[str, str, str, Any]] = [
    ("health", "GET", "/health", None),
    ("version", "GET", "/version", None),
    ("list_apps", "GET", "/list-apps", None),
    ("create_session", "POST", S, {"sessionId": "s1", "state": {"tier": "gold"}}),
    ("create_session_empty", "POST", S, None),
    ("create_session_with_id", "POST", f"{S}/s2", {"k": 1}),
    ("create_session_duplicate", "POST", S, {"sessionId": "s1"}),
    ("list_sessions", "GET", S, None),
    ("get_session", "GET", f"{S}/s1", None),
    ("get_session_missing", "GET", f"{S}/nope", None),
    ("patch_session", "PATCH", f"{S}/s1", {"stateDelta": {"tier": "platinum", "n": 2}}),
    ("patch_session_missing", "PATCH", f"{S}/nope", {"stateDelta": {"a": 1}}),
    ("patch_session_bad", "PATCH", f"{S}/s1", {"state": {"a": 1}}),
    (
        "run",
        "POST",
        "/run",
        {
            "appName": "echo",
            "userId": "u1",
            "sessionId": "s1",
            "newMessage": {"role": "user", "parts": [{"text": "hello"}]},
        },
    ),
    (
        "run_tool",
        "POST",
        "/run",
        {
            "appName": "echo",
            "userId": "u1",
            "sessionId": "s1",
            "newMessage": {"role": "user", "parts": [{"text": "remember milk"}]},
            "stateDelta": {"from_request": True},
        },
    ),
    (
        "run_snake_case",
        "POST",
        "/run",
        {
            "app_name": "echo",
            "user_id": "u1",
            "session_id": "s2",
            "new_message": {"role": "user", "parts": [{"text": "snake"}]},
        },
    ),
    (
        "run_missing_session",
        "POST",
        "/run",
        {
            "appName": "echo",
            "userId": "u1",
            "sessionId": "nope",
            "newMessage": {"role": "user", "parts": [{"text": "hi"}]},
        },
    ),
    ("run_malformed_json", "POST", "/run", b'{"appName": "echo",'),
    ("run_missing_fields", "POST", "/run", {"appName": "echo"}),
    ("run_wrong_types", "POST", "/run", {"appName": "echo", "userId": 5, "sessionId": []}),
    (
        "run_sse",
        "POST",
        "/run_sse",
        {
            "appName": "echo",
            "userId": "u1",
            "sessionId": "s1",
            "newMessage": {"role": "user", "parts": [{"text": "sse please"}]},
        },
    ),
    (
        "run_sse_streaming",
        "POST",
        "/run_sse",
        {
            "appName": "echo",
            "userId": "u1",
            "sessionId": "s1",
            "newMessage": {"role": "user", "parts": [{"text": "stream please"}]},
            "streaming": True,
        },
    ),
    (
        "run_sse_tool",
        "POST",
        "/run_sse",
        {
            "appName": "echo",
            "userId": "u1",
            "sessionId": "s1",
            "newMessage": {"role": "user", "parts": [{"text": "remember eggs"}]},
        },
    ),
    (
        "run_sse_missing_session",
        "POST",
        "/run_sse",
        {"appName": "echo", "userId": "u1", "sessionId": "nope"},
    ),
    ("get_session_after_runs", "GET", f"{S}/s1", None),
    (
        "save_artifact",
        "POST",
        A,
        {"filename": "report.md", "artifact": {"text": "# v0"}},
    ),
    (
        "save_artifact_again",
        "POST",
        A,
        {
            "filename": "report.md",
            "artifact": {"inlineData": {"mimeType": "text/plain", "data": "djE="}},
        },
    ),
    ("list_artifacts", "GET", A, None),
    ("load_artifact", "GET", f"{A}/report.md", None),
    ("load_artifact_version_query", "GET", f"{A}/report.md?version=0", None),
    ("list_artifact_versions", "GET", f"{A}/report.md/versions", None),
    ("load_artifact_version", "GET", f"{A}/report.md/versions/0", None),
    ("load_artifact_version_latest", "GET", f"{A}/report.md/versions/latest", None),
    ("load_artifact_version_bad", "GET", f"{A}/report.md/versions/abc", None),
    ("artifact_versions_metadata", "GET", f"{A}/report.md/versions/metadata", None),
    ("artifact_version_metadata", "GET", f"{A}/report.md/versions/1/metadata", None),
    ("load_artifact_missing", "GET", f"{A}/nothing.txt", None),
    ("delete_artifact", "DELETE", f"{A}/report.md", None),
    ("list_artifacts_after_delete", "GET", A, None),
    ("delete_session", "DELETE", f"{S}/s2", None),
    ("delete_session_missing", "DELETE", f"{S}/nope", None),
    ("list_sessions_after_delete", "GET", S, None),
]


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def exchange(client: httpx.Client, method: str, path: str, body: Any) -> dict[str, Any]:
    if isinstance(body, bytes):
        response = client.request(
            method, path, content=body, headers={"content-type": "application/json"}
        )
    else:
        response = client.request(method, path, json=body)
    content_type = response.headers.get("content-type", "")
    if "json" in content_type:
        answer: Any = response.json()
    else:
        answer = response.text
    request: dict[str, Any] = {"method": method, "path": path}
    if body is not None:
        request["body"] = body.decode() if isinstance(body, bytes) else body
        request["raw"] = isinstance(body, bytes)
    return {
        "request": request,
        "response": {"status": response.status_code, "content_type": content_type, "body": answer},
    }


def main() -> int:
    adk = Path(sys.executable).parent / "adk"
    work = Path(tempfile.mkdtemp())
    shutil.copytree(HERE / "agents", work / "agents")
    port = free_port()
    server = subprocess.Popen(
        [str(adk), "api_server", "--host", "127.0.0.1", "--port", str(port), str(work / "agents")],
        cwd=work,
        env={**os.environ, "PYTHONDONTWRITEBYTECODE": "1"},
    )
    try:
        with httpx.Client(base_url=f"http://127.0.0.1:{port}", timeout=30) as client:
            deadline = time.monotonic() + 60
            while True:
                try:
                    client.get("/health")
                    break
                except httpx.TransportError:
                    if time.monotonic() > deadline:
                        raise
                    time.sleep(0.2)
            FIXTURES.mkdir(exist_ok=True)
            for seq, (name, method, path, body) in enumerate(EXCHANGES):
                record = {"seq": seq, **exchange(client, method, path, body)}
                text = json.dumps(record, indent=2, sort_keys=True, ensure_ascii=False)
                (FIXTURES / f"{name}.json").write_text(text + "\n", encoding="utf-8")
                print(name, record["response"]["status"])
    finally:
        server.terminate()
        server.wait(10)
        shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
