"""A fake Gemini API on loopback with state: the ``cachedContents`` routes (create, get, patch,
delete) and ``generateContent``, which accepts ``cachedContent`` as the real API does (an
unknown or expired cache is an error; a request that uses one may not also set the system
instruction, tools or tool config). Each answer reports its prompt size: the characters of the
whole prompt (the cached part included) / 4, and the cached part's tokens separately."""

from __future__ import annotations

import datetime
import json
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


@dataclass
class Call:
    method: str
    path: str
    body: Any


@dataclass
class FakeGemini:
    """The server's state: caches by name, every call, and the scripted answers' texts."""

    caches: dict[str, dict[str, Any]] = field(default_factory=dict)
    calls: list[Call] = field(default_factory=list)
    answers: Iterator[str] = field(default_factory=lambda: (f"answer {n}" for n in range(1, 999)))
    created: int = 0
    # Seconds added to every clock reading (a test moves time forward to expire caches).
    skew: float = 0.0
    lock: threading.Lock = field(default_factory=threading.Lock)
    url: str = ""
    root: str = ""
    # Vertex AI's layout: routes under /v1/ and caches named under the project's location
    # (``projects/P/locations/L/cachedContents/ID``); the Gemini API's by default.
    version: str = "v1beta"
    parent: str = ""

    def now(self) -> float:
        return time.time() + self.skew

    def handle(self, method: str, path: str, body: Any) -> tuple[int, dict[str, Any]]:
        with self.lock:
            self.calls.append(Call(method, path, body))
            route = path.removeprefix(f"/{self.version}/")
            if route == f"{self.parent}cachedContents" and method == "POST":
                return self._create(body)
            if route.startswith(f"{self.parent}cachedContents/"):
                return self._resource(method, route, body)
            if route.endswith(":generateContent") and method == "POST":
                return self._generate(body)
            return 404, {"error": {"code": 404, "message": f"no route {method} {path}"}}

    def _stamp(self, seconds: float) -> str:
        moment = datetime.datetime.fromtimestamp(seconds, tz=datetime.UTC)
        return moment.isoformat(timespec="microseconds").replace("+00:00", "Z")

    def _create(self, body: dict[str, Any]) -> tuple[int, dict[str, Any]]:
        ttl = float(str(body.get("ttl", "3600s")).removesuffix("s"))
        self.created += 1
        name = f"{self.parent}cachedContents/c{self.created}"
        stored = {**body, "name": name, "expires": self.now() + ttl}
        self.caches[name] = stored
        return 200, self._view(stored)

    def _view(self, cache: dict[str, Any]) -> dict[str, Any]:
        return {
            "name": cache["name"],
            "model": cache["model"],
            "displayName": cache.get("displayName", ""),
            "expireTime": self._stamp(cache["expires"]),
            "usageMetadata": {"totalTokenCount": _chars(cache) // 4},
        }

    def _resource(self, method: str, name: str, body: Any) -> tuple[int, dict[str, Any]]:
        cache = self.caches.get(name)
        if cache is None or cache["expires"] <= self.now():
            return 404, {"error": {"code": 404, "message": f"{name} not found"}}
        if method == "GET":
            return 200, self._view(cache)
        if method == "PATCH":
            ttl = float(str(body.get("ttl", "3600s")).removesuffix("s"))
            cache["expires"] = self.now() + ttl
            return 200, self._view(cache)
        if method == "DELETE":
            del self.caches[name]
            return 200, {}
        return 405, {"error": {"code": 405, "message": method}}

    def _generate(self, body: dict[str, Any]) -> tuple[int, dict[str, Any]]:
        cached_tokens = 0
        prompt = _chars(body)
        name = body.get("cachedContent")
        if name is not None:
            cache = self.caches.get(name)
            if cache is None or cache["expires"] <= self.now():
                return 400, {"error": {"code": 400, "message": f"Cache {name} not found"}}
            if any(key in body for key in ("systemInstruction", "tools", "toolConfig")):
                return 400, {
                    "error": {
                        "code": 400,
                        "message": "CachedContent can not be used with GenerateContent request"
                        " setting system_instruction, tools or tool_config.",
                    }
                }
            cached_tokens = _chars(cache) // 4
            prompt += _chars(cache)
        usage = {"promptTokenCount": prompt // 4, "totalTokenCount": prompt // 4 + 2}
        if cached_tokens:
            usage["cachedContentTokenCount"] = cached_tokens
        text = next(self.answers)
        return 200, {
            "candidates": [
                {"content": {"role": "model", "parts": [{"text": text}]}, "finishReason": "STOP"}
            ],
            "usageMetadata": usage,
        }


def _chars(body: dict[str, Any]) -> int:
    """Characters of a request's or a cache's system instruction, tools and contents."""
    keys = ("systemInstruction", "tools", "toolConfig", "contents")
    return sum(len(json.dumps(body[key])) for key in keys if key in body)


def serve(fake: FakeGemini) -> Iterator[FakeGemini]:
    class Handler(BaseHTTPRequestHandler):
        def _answer(self) -> None:
            length = int(self.headers.get("Content-Length") or 0)
            raw = self.rfile.read(length) if length else b""
            body = json.loads(raw) if raw else None
            status, answer = fake.handle(self.command, self.path, body)
            data = json.dumps(answer).encode()
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        do_GET = do_POST = do_PATCH = do_DELETE = _answer

        def log_message(self, format: str, *args: Any) -> None:
            pass

    httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    fake.root = f"http://127.0.0.1:{httpd.server_address[1]}"
    fake.url = f"{fake.root}/{fake.version}"
    thread = threading.Thread(target=httpd.serve_forever, args=(0.01,), daemon=True)
    thread.start()
    try:
        yield fake
    finally:
        httpd.shutdown()
        httpd.server_close()
        thread.join()
