"""Model backend overhead: a Gemini generateContent round trip on loopback, and import cost.

Both sides call the same kind of fake Gemini server on 127.0.0.1 (started in their own process)
with a 20-message conversation and 3 tools; what differs is the client: yadk's
REST backend (httpx) versus google-adk's Gemini (google-genai). Also timed: a fresh interpreter
importing the backend and resolving ``gemini-2.5-flash``.
Run: python bench/bench_models.py
"""

from __future__ import annotations

import asyncio
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from _compare import ADK_PYTHON, adk_available, report, run_adk, write_results

N_CALLS = 300
N_IMPORTS = 5

# Shared by both sides (exec'd in the google-adk subprocess): a server that answers every POST
# with the same generateContent response.
SERVER = r"""
import json, socket, threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

ANSWER = json.dumps({
    "candidates": [{"content": {"role": "model", "parts": [{"text": "It is 21 C in Paris."}]},
                    "finishReason": "STOP"}],
    "usageMetadata": {"promptTokenCount": 120, "candidatesTokenCount": 8, "totalTokenCount": 128},
    "modelVersion": "gemini-2.5-flash",
}).encode()

class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    def setup(self):
        super().setup()
        # No Nagle delay on the server side, so neither client pays a 40 ms delayed-ACK stall.
        self.connection.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    def do_POST(self):
        self.rfile.read(int(self.headers.get("Content-Length") or 0))
        head = (f"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n"
                f"Content-Length: {len(ANSWER)}\r\n\r\n").encode()
        self.wfile.write(head + ANSWER)
    def log_message(self, *args):
        pass

def start_server():
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    httpd.daemon_threads = True
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    return f"http://127.0.0.1:{httpd.server_address[1]}"
"""

TOOLS = {
    "get_weather": {
        "type": "object",
        "properties": {"city": {"type": "string"}},
        "required": ["city"],
    },
    "get_time": {"type": "object", "properties": {"zone": {"type": "string"}}},
    "convert": {
        "type": "object",
        "properties": {"value": {"type": "number"}, "unit": {"type": "string"}},
        "required": ["value", "unit"],
    },
}


async def measure_yadk() -> float:
    namespace: dict[str, object] = {}
    exec(SERVER, namespace)
    url = namespace["start_server"]()  # type: ignore[operator]

    from yadk.models import FunctionDeclaration, Gemini, LlmRequest, override_allow_model_requests
    from yadk.tools import BaseTool
    from yadk.types import ModelContent, UserContent

    class Tool(BaseTool):
        def __init__(self, name: str, schema: dict) -> None:
            super().__init__(name=name, description=f"The {name} tool.")
            self.schema = schema

        def declaration(self) -> FunctionDeclaration:
            return FunctionDeclaration(
                name=self.name, description=self.description, parameters=self.schema
            )

    contents = []
    for i in range(10):
        contents += [UserContent(f"Question {i} about the weather?"), ModelContent(f"Answer {i}.")]
    contents.append(UserContent("And in Paris?"))
    request = LlmRequest(system_instruction="You report the weather. " * 20, contents=contents)
    request.append_tools([Tool(n, s) for n, s in TOOLS.items()])
    model = Gemini("gemini-2.5-flash", api_key="bench", base_url=url + "/v1beta", retries=0)

    with override_allow_model_requests(True):

        async def once() -> None:
            async for _ in model.generate_content_async(request):
                pass

        for _ in range(20):
            await once()
        samples = []
        for _ in range(N_CALLS):
            start = time.perf_counter()
            await once()
            samples.append(time.perf_counter() - start)
    return statistics.median(samples) * 1000


ADK_SNIPPET = (
    SERVER
    + f"""
import asyncio, json, os, statistics, time
os.environ["GOOGLE_API_KEY"] = "bench"
from google.adk.models.google_llm import Gemini
from google.adk.models.llm_request import LlmRequest
from google.genai import types

TOOLS = {TOOLS!r}
url = start_server()
contents = []
for i in range(10):
    contents += [types.Content(role="user", parts=[types.Part(text=f"Question {{i}} about the weather?")]),
                 types.Content(role="model", parts=[types.Part(text=f"Answer {{i}}.")])]
contents.append(types.Content(role="user", parts=[types.Part(text="And in Paris?")]))
declarations = [types.FunctionDeclaration(name=n, description=f"The {{n}} tool.", parameters_json_schema=s)
                for n, s in TOOLS.items()]

def request():
    return LlmRequest(
        model="gemini-2.5-flash",
        contents=list(contents),
        config=types.GenerateContentConfig(
            system_instruction="You report the weather. " * 20,
            tools=[types.Tool(function_declarations=declarations)],
        ),
    )

model = Gemini(model="gemini-2.5-flash", base_url=url + "/v1beta")

async def main():
    async def once():
        async for _ in model.generate_content_async(request(), stream=False):
            pass
    for _ in range(20):
        await once()
    samples = []
    for _ in range({N_CALLS}):
        start = time.perf_counter()
        await once()
        samples.append(time.perf_counter() - start)
    return statistics.median(samples) * 1000

print(json.dumps({{"call_ms": asyncio.run(main())}}))
"""
)


def import_time(python: str, code: str) -> float | None:
    if not Path(python).exists():
        return None
    best = float("inf")
    env = {**os.environ, "PYTHONWARNINGS": "ignore", "GOOGLE_API_KEY": "bench"}
    for _ in range(N_IMPORTS):
        start = time.perf_counter()
        proc = subprocess.run(
            [python, "-c", code], capture_output=True, text=True, env=env, check=False
        )
        elapsed = time.perf_counter() - start
        if proc.returncode != 0:
            print(f"  (import probe failed: {proc.stderr.strip().splitlines()[-1:]})")
            return None
        best = min(best, elapsed)
    return best * 1000


def main() -> None:
    print(f"Model backends ({N_CALLS} calls, median; imports best of {N_IMPORTS})")
    yadk_ms = asyncio.run(measure_yadk())
    adk = run_adk(ADK_SNIPPET)
    report("Gemini round trip on loopback (client overhead)", yadk_ms, adk and adk["call_ms"], "ms")

    yadk_import = import_time(
        sys.executable,
        "import yadk.models as m; m.resolve_model('gemini-2.5-flash')",
    )
    adk_import = (
        import_time(
            ADK_PYTHON,
            "from google.adk.models.google_llm import Gemini; Gemini(model='gemini-2.5-flash')",
        )
        if adk_available()
        else None
    )
    assert yadk_import is not None
    report("fresh process: import backend + resolve model", yadk_import, adk_import, "ms")


if __name__ == "__main__":
    main()
    write_results(__file__)
