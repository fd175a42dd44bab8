"""Model backends under load and per call, yadk against google-adk 2.13.

1. 64 concurrent calls to a loopback server that answers each after 0.5 s: the wall time of the
   batch (best of 3). yadk's ``OpenAIChat`` and ``Gemini`` against google-adk's ``LiteLlm``
   (OpenAI path, offline) and ``Gemini`` (google-genai). Before the switch to httpx, yadk took
   5.5 s (blocking requests on the default thread pool).
2. Client overhead of one call, no network: a 50-content history (text, tool calls, tool results)
   with 10 tools. yadk: building the body and parsing the answer (``request_body`` + JSON both
   ways + ``parse_response``), and the whole ``generate_content_async`` over an
   ``httpx.MockTransport``. google-adk: its ``Gemini.generate_content_async`` over the same kind of
   mock transport (google-genai's ``httpx_async_client``).

Absolute figures move with the machine's load; the ratios are what to compare.
Run: python bench/bench_backends.py
"""

from __future__ import annotations

import asyncio
import json
import statistics
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).parent))
from _compare import report, run_adk, write_results

N_CONCURRENT = 64
DELAY = 0.5
N_OVERHEAD = 2000

# Shared by both sides (exec'd in the google-adk subprocess): answers after DELAY seconds.
SERVER = r"""
import json, socket, threading, time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

OPENAI = json.dumps({"id": "c", "object": "chat.completion", "model": "m",
    "choices": [{"index": 0, "message": {"role": "assistant", "content": "It is 21 C."},
                 "finish_reason": "stop"}],
    "usage": {"prompt_tokens": 120, "completion_tokens": 8, "total_tokens": 128}}).encode()
GEMINI = json.dumps({"candidates": [{"content": {"role": "model", "parts": [{"text": "It is 21 C."}]},
    "finishReason": "STOP"}],
    "usageMetadata": {"promptTokenCount": 120, "candidatesTokenCount": 8, "totalTokenCount": 128}}).encode()

class Server(ThreadingHTTPServer):
    request_queue_size = 512
    daemon_threads = True

class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    delay = 0.5
    def setup(self):
        super().setup()
        self.connection.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    def do_POST(self):
        self.rfile.read(int(self.headers.get("Content-Length") or 0))
        time.sleep(self.delay)
        body = GEMINI if "generateContent" in self.path else OPENAI
        head = (f"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n"
                f"Content-Length: {len(body)}\r\n\r\n").encode()
        self.wfile.write(head + body)
    def log_message(self, *args):
        pass

def start_server(delay):
    Handler.delay = delay
    httpd = Server(("127.0.0.1", 0), Handler)
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    return f"http://127.0.0.1:{httpd.server_address[1]}"
"""

TOOL_NAMES = [f"tool_{i}" for i in range(10)]
SCHEMA = {
    "type": "object",
    "properties": {
        "city": {"type": "string", "description": "A city name."},
        "days": {"type": "integer"},
        "units": {"type": "string", "enum": ["metric", "imperial"]},
    },
    "required": ["city"],
}
GEMINI_ANSWER = {
    "candidates": [
        {
            "content": {
                "role": "model",
                "parts": [
                    {"text": "Let me check."},
                    {"functionCall": {"name": "tool_3", "args": {"city": "Paris", "days": 3}}},
                ],
            },
            "finishReason": "STOP",
        }
    ],
    "usageMetadata": {"promptTokenCount": 900, "candidatesTokenCount": 20, "totalTokenCount": 920},
}
OPENAI_ANSWER = {
    "choices": [
        {
            "message": {
                "role": "assistant",
                "content": "Let me check.",
                "tool_calls": [
                    {
                        "id": "call_1",
                        "type": "function",
                        "function": {"name": "tool_3", "arguments": '{"city": "Paris", "days": 3}'},
                    }
                ],
            },
            "finish_reason": "tool_calls",
        }
    ],
    "usage": {"prompt_tokens": 900, "completion_tokens": 20, "total_tokens": 920},
}
ANTHROPIC_ANSWER = {
    "type": "message",
    "role": "assistant",
    "content": [
        {"type": "text", "text": "Let me check."},
        {"type": "tool_use", "id": "toolu_1", "name": "tool_3", "input": {"city": "Paris"}},
    ],
    "stop_reason": "tool_use",
    "usage": {"input_tokens": 900, "output_tokens": 20},
}

# The 50-content history, as plain dicts both sides turn into their own Content types.
HISTORY: list[dict[str, Any]] = []
for _i in range(12):
    HISTORY += [
        {"role": "user", "parts": [{"text": f"Question {_i}: what is the weather in city {_i}?"}]},
        {
            "role": "model",
            "parts": [{"function_call": {"name": f"tool_{_i % 10}", "args": {"city": f"c{_i}"}}}],
        },
        {
            "role": "user",
            "parts": [
                {
                    "function_response": {
                        "name": f"tool_{_i % 10}",
                        "response": {"city": f"c{_i}", "temp_c": 20 + _i, "sky": "clear"},
                    }
                }
            ],
        },
        {"role": "model", "parts": [{"text": f"In city {_i} it is {20 + _i} C and clear."}]},
    ]
HISTORY += [
    {"role": "user", "parts": [{"text": "And in Paris for three days?"}]},
    {"role": "model", "parts": [{"text": "One moment."}]},
]
assert len(HISTORY) == 50


def yadk_request() -> Any:
    from yadk.models import FunctionDeclaration, LlmRequest
    from yadk.tools import BaseTool
    from yadk.types import Content

    class Tool(BaseTool):
        def declaration(self) -> FunctionDeclaration:
            return FunctionDeclaration(
                name=self.name, description=self.description, parameters=SCHEMA
            )

    request = LlmRequest(
        model="m",
        system_instruction="You report the weather. " * 20,
        contents=[Content.model_validate(c) for c in HISTORY],
    )
    request.append_tools([Tool(name=n, description=f"The {n} tool.") for n in TOOL_NAMES])
    return request


async def yadk_concurrent(url: str) -> dict[str, float]:
    from yadk.models import Gemini, LlmRequest, OpenAIChat, override_allow_model_requests
    from yadk.types import UserContent

    request = LlmRequest(contents=[UserContent("Weather in Paris?")])
    models = {
        "openai": OpenAIChat("m", base_url=url + "/v1", retries=0),
        "gemini": Gemini("gemini-2.5-flash", api_key="bench", base_url=url + "/v1beta", retries=0),
    }
    results = {}
    with override_allow_model_requests(True):
        for name, model in models.items():

            async def once(model: Any = model) -> None:
                async for _ in model.generate_content_async(request):
                    pass

            best = float("inf")
            for _ in range(3):
                start = time.perf_counter()
                await asyncio.gather(*(once() for _ in range(N_CONCURRENT)))
                best = min(best, time.perf_counter() - start)
            results[name] = best
    return results


def yadk_build_parse() -> dict[str, float]:
    from yadk.models import AnthropicLlm, Gemini, OpenAIChat
    from yadk.models._anthropic_wire import parse_message
    from yadk.models._gemini import parse_response as parse_gemini
    from yadk.models._openai import parse_response as parse_openai

    request = yadk_request()
    cases = {
        "gemini": (Gemini("gemini-2.5-flash", api_key="k"), GEMINI_ANSWER, parse_gemini),
        "openai": (OpenAIChat("m", api_key="k"), OPENAI_ANSWER, parse_openai),
        "anthropic": (
            AnthropicLlm("claude-sonnet-4-5", api_key="k"),
            ANTHROPIC_ANSWER,
            parse_message,
        ),
    }
    results = {}
    for name, (model, answer, parse) in cases.items():
        raw = json.dumps(answer).encode()

        def once(model: Any = model, raw: bytes = raw, parse: Any = parse) -> None:
            json.dumps(model.request_body(request), ensure_ascii=False).encode()
            parse(json.loads(raw))

        for _ in range(200):
            once()
        samples = []
        for _ in range(N_OVERHEAD):
            start = time.perf_counter()
            once()
            samples.append(time.perf_counter() - start)
        results[name] = statistics.median(samples) * 1000
    return results


async def yadk_mock_call() -> float:
    import httpx

    from yadk.models import Gemini, override_allow_model_requests

    raw = json.dumps(GEMINI_ANSWER).encode()
    transport = httpx.MockTransport(
        lambda request: httpx.Response(
            200, content=raw, headers={"Content-Type": "application/json"}
        )
    )
    model = Gemini(
        "gemini-2.5-flash", api_key="k", base_url="http://mock/v1beta", transport=transport
    )
    request = yadk_request()
    with override_allow_model_requests(True):

        async def once() -> None:
            async for _ in model.generate_content_async(request):
                pass

        for _ in range(200):
            await once()
        samples = []
        for _ in range(N_OVERHEAD):
            start = time.perf_counter()
            await once()
            samples.append(time.perf_counter() - start)
    return statistics.median(samples) * 1000


ADK_CONCURRENT = (
    SERVER
    + f"""
import asyncio, json, os, time
os.environ["LITELLM_LOCAL_MODEL_COST_MAP"] = "True"
os.environ["GOOGLE_API_KEY"] = "bench"
from google.adk.models.google_llm import Gemini
from google.adk.models.lite_llm import LiteLlm
from google.adk.models.llm_request import LlmRequest
from google.genai import types

url = start_server({DELAY})

def request(model):
    return LlmRequest(model=model, contents=[types.Content(role="user", parts=[types.Part(text="Weather in Paris?")])])

async def batch(model, name):
    async def once():
        async for _ in model.generate_content_async(request(name), stream=False):
            pass
    best = float("inf")
    for _ in range(3):
        start = time.perf_counter()
        await asyncio.gather(*(once() for _ in range({N_CONCURRENT})))
        best = min(best, time.perf_counter() - start)
    return best

async def main():
    out = {{}}
    out["openai"] = await batch(LiteLlm(model="openai/m", api_base=url + "/v1", api_key="bench"), "openai/m")
    out["gemini"] = await batch(Gemini(model="gemini-2.5-flash", base_url=url + "/v1beta"), "gemini-2.5-flash")
    return out

print(json.dumps(asyncio.run(main())))
"""
)

ADK_MOCK_CALL = f"""
import asyncio, json, statistics, time
import httpx
from google.adk.models.google_llm import Gemini
from google.adk.models.llm_request import LlmRequest
from google.genai import Client, types

HISTORY = {HISTORY!r}
SCHEMA = {SCHEMA!r}
raw = json.dumps({GEMINI_ANSWER!r}).encode()
transport = httpx.MockTransport(
    lambda request: httpx.Response(200, content=raw, headers={{"Content-Type": "application/json"}})
)
client = Client(api_key="k", http_options=types.HttpOptions(
    base_url="http://mock/", httpx_async_client=httpx.AsyncClient(transport=transport)))
model = Gemini(model="gemini-2.5-flash", client=client)
contents = [types.Content.model_validate(c) for c in HISTORY]
declarations = [types.FunctionDeclaration(name=f"tool_{{i}}", description=f"The tool_{{i}} tool.",
                parameters_json_schema=SCHEMA) for i in range(10)]

def request():
    return LlmRequest(model="gemini-2.5-flash", contents=list(contents),
        config=types.GenerateContentConfig(system_instruction="You report the weather. " * 20,
            tools=[types.Tool(function_declarations=declarations)]))

async def main():
    async def once():
        async for _ in model.generate_content_async(request(), stream=False):
            pass
    for _ in range(50):
        await once()
    samples = []
    for _ in range(500):
        start = time.perf_counter()
        await once()
        samples.append(time.perf_counter() - start)
    return statistics.median(samples) * 1000

print(json.dumps({{"call_ms": asyncio.run(main())}}))
"""


def main() -> None:
    namespace: dict[str, Any] = {}
    exec(SERVER, namespace)
    url = namespace["start_server"](DELAY)
    print(f"Model backends: {N_CONCURRENT} concurrent calls of {DELAY} s (best of 3)")
    yadk = asyncio.run(yadk_concurrent(url))
    adk = run_adk(ADK_CONCURRENT) or {}
    report("64 x 0.5 s, OpenAI-compatible (adk: LiteLlm)", yadk["openai"], adk.get("openai"), "s")
    report("64 x 0.5 s, Gemini (adk: google-genai)", yadk["gemini"], adk.get("gemini"), "s")
    print(f"  (yadk before httpx: 5.5 s; target <= 0.8 s; ideal {DELAY} s)")

    print(
        f"Client overhead per call, 50-content history + 10 tools, no network (median of {N_OVERHEAD})"
    )
    build_parse = yadk_build_parse()
    for name, value in build_parse.items():
        report(f"build request + parse answer, {name}", value, None, "ms")
    mock = asyncio.run(yadk_mock_call())
    adk_mock = run_adk(ADK_MOCK_CALL)
    report(
        "whole Gemini call over httpx.MockTransport", mock, adk_mock and adk_mock["call_ms"], "ms"
    )


if __name__ == "__main__":
    main()
    write_results(__file__)
