"""A stand-in for OpenAI's and Anthropic's HTTP APIs that records what it is sent: the same
scripted conversation (the model asks for the weather, then answers) served to google-adk's
LiteLlm (recorded with google-adk's interpreter) and to yadk, whose requests are then compared.

Standard library only: google-adk's venv runs it too.
"""

from __future__ import annotations

import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

API_KEY = "sk-parity-123"
QUESTION = "What is the weather in Paris?"
INSTRUCTION = "You answer weather questions. Use the get_weather tool."
ANSWER = "It is sunny in Paris."

# Per path: the replies in order (a tool call, then the final answer).
REPLIES: dict[str, list[dict[str, Any]]] = {
    "/chat/completions": [
        {
            "id": "chatcmpl-1",
            "object": "chat.completion",
            "created": 1,
            "model": "gpt-4o-mini",
            "choices": [
                {
                    "index": 0,
                    "finish_reason": "tool_calls",
                    "message": {
                        "role": "assistant",
                        "content": None,
                        "tool_calls": [
                            {
                                "id": "call_1",
                                "type": "function",
                                "function": {
                                    "name": "get_weather",
                                    "arguments": '{"city": "Paris"}',
                                },
                            }
                        ],
                    },
                }
            ],
            "usage": {"prompt_tokens": 20, "completion_tokens": 5, "total_tokens": 25},
        },
        {
            "id": "chatcmpl-2",
            "object": "chat.completion",
            "created": 2,
            "model": "gpt-4o-mini",
            "choices": [
                {
                    "index": 0,
                    "finish_reason": "stop",
                    "message": {"role": "assistant", "content": ANSWER},
                }
            ],
            "usage": {"prompt_tokens": 30, "completion_tokens": 7, "total_tokens": 37},
        },
    ],
    "/v1/messages": [
        {
            "id": "msg_1",
            "type": "message",
            "role": "assistant",
            "model": "claude-3-5-haiku-latest",
            "content": [
                {
                    "type": "tool_use",
                    "id": "toolu_1",
                    "name": "get_weather",
                    "input": {"city": "Paris"},
                }
            ],
            "stop_reason": "tool_use",
            "usage": {"input_tokens": 20, "output_tokens": 5},
        },
        {
            "id": "msg_2",
            "type": "message",
            "role": "assistant",
            "model": "claude-3-5-haiku-latest",
            "content": [{"type": "text", "text": ANSWER}],
            "stop_reason": "end_turn",
            "usage": {"input_tokens": 30, "output_tokens": 7},
        },
    ],
}


def get_weather(city: str) -> dict[str, str]:
    """Returns the current weather in a city.

    Args:
        city: The city's name.
    """
    return {"city": city, "weather": "sunny"}


class ParityServer:
    """Serves REPLIES per path, in order; records each request's path, headers and JSON body."""

    def __init__(self) -> None:
        self.requests: list[dict[str, Any]] = []
        self._left = {path: list(replies) for path, replies in REPLIES.items()}
        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), _handler(self))
        self.httpd.daemon_threads = True
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}"
        self._thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)

    def __enter__(self) -> ParityServer:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()

    def next_reply(self, path: str) -> dict[str, Any] | None:
        left = self._left.get(path.split("?")[0])
        return left.pop(0) if left else None


def _handler(server: ParityServer) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            body = json.loads(self.rfile.read(int(self.headers.get("Content-Length") or 0)))
            server.requests.append(
                {
                    "path": self.path,
                    "headers": {k.lower(): v for k, v in self.headers.items()},
                    "body": body,
                }
            )
            reply = server.next_reply(self.path)
            payload = json.dumps(reply if reply is not None else {"error": "no reply"}).encode()
            self.send_response(200 if reply is not None else 500)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(payload)))
            self.end_headers()
            self.wfile.write(payload)

        def log_message(self, format: str, *args: Any) -> None:
            pass

    return Handler
