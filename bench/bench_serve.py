"""yadk serve vs google-adk's api_server on the same load.

Load: 50 clients at once, each creating its own session and sending 20 turns with ``POST /run``
one after another (1,000 turns), then 1 client sending turns one after another. The model
answers at once (yadk: a ScriptedModel file; google-adk: a BaseLlm subclass returning the same
text), so what is measured is the server: HTTP, sessions, the runner. Both servers run as real
processes on 127.0.0.1 with their default session store (a SQLite file), and the load generator
(httpx, this process) shares the machine's cores with them.

The load generator speaks HTTP/1.1 itself over one keep-alive connection per client (a few
microseconds per request), so that it takes as little CPU from the servers as possible.

Printed: turns/s, p50/p99 latency and errors (non-200 answers and error events) under load; and
the mean time per ``/run`` at 1 client (HTTP round trip included: an upper bound of the server's
overhead per turn).

    python bench/bench_serve.py [--clients 50] [--turns 20]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import httpx
from _compare import ADK_PYTHON, adk_available, report, write_results

ROOT = Path(__file__).resolve().parents[1]

YADK_AGENT = """\
name: bench
description: Answers at once.
model: scripted:turns.yaml
instruction: Answer briefly.
"""

ADK_AGENT = """\
from google.adk.agents import LlmAgent
from google.adk.models.base_llm import BaseLlm
from google.adk.models.llm_response import LlmResponse
from google.genai import types


class Fixed(BaseLlm):
    model: str = "fixed"

    async def generate_content_async(self, llm_request, stream=False):
        yield LlmResponse(content=types.Content(role="model", parts=[types.Part(text="ok")]))


root_agent = LlmAgent(name="bench", model=Fixed(), instruction="Answer briefly.")
"""


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def yadk_app(work: Path, turns: int) -> list[str]:
    folder = work / "agents" / "bench"
    folder.mkdir(parents=True)
    (folder / "root_agent.yaml").write_text(YADK_AGENT, encoding="utf-8")
    script = "turns:\n" + "  - text: ok\n" * turns
    (folder / "turns.yaml").write_text(script, encoding="utf-8")
    yadk = Path(sys.executable).parent / "yadk"
    return [str(yadk), "serve", str(work / "agents")]


def adk_app(work: Path) -> list[str]:
    folder = work / "agents" / "bench"
    folder.mkdir(parents=True)
    (folder / "__init__.py").write_text("from . import agent\n", encoding="utf-8")
    (folder / "agent.py").write_text(ADK_AGENT, encoding="utf-8")
    adk = Path(ADK_PYTHON).parent / "adk"
    return [str(adk), "api_server", str(work / "agents")]


class Server:
    def __init__(self, command: list[str], work: Path) -> None:
        self.port = free_port()
        self.base = f"http://127.0.0.1:{self.port}"
        self.process = subprocess.Popen(
            [*command, "--host", "127.0.0.1", "--port", str(self.port)],
            cwd=work,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            env={**os.environ, "PYTHONWARNINGS": "ignore"},
        )

    def wait_ready(self) -> None:
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline:
            try:
                if httpx.get(f"{self.base}/list-apps", timeout=2).status_code == 200:
                    return
            except httpx.TransportError:
                pass
            time.sleep(0.2)
        raise RuntimeError("server did not start")

    def stop(self) -> None:
        self.process.terminate()
        try:
            self.process.wait(15)
        except subprocess.TimeoutExpired:
            self.process.kill()


class Connection:
    """A minimal HTTP/1.1 keep-alive client: JSON requests, Content-Length responses."""

    extra_headers = ""  # header lines ("Name: value\r\n") sent with every request

    def __init__(self, host: str, port: int) -> None:
        self.host, self.port = host, port
        self.reader: asyncio.StreamReader | None = None
        self.writer: asyncio.StreamWriter | None = None

    async def post(self, path: str, body: dict[str, object]) -> tuple[int, bytes]:
        reused = self.writer is not None
        try:
            return await self._post(path, body)
        except ConnectionResetError:
            if not reused:
                raise
            # The server closed an idle keep-alive connection: send again on a new one, as
            # every HTTP client does.
            self.close()
            self.writer = None
            return await self._post(path, body)

    async def _post(self, path: str, body: dict[str, object]) -> tuple[int, bytes]:
        if self.writer is None:
            self.reader, self.writer = await asyncio.open_connection(self.host, self.port)
        assert self.reader is not None
        data = json.dumps(body).encode()
        head = (
            f"POST {path} HTTP/1.1\r\nHost: {self.host}:{self.port}\r\n"
            f"{self.extra_headers}Content-Type: application/json\r\n"
            f"Content-Length: {len(data)}\r\n\r\n"
        )
        self.writer.write(head.encode() + data)
        status_line = await self.reader.readline()
        if not status_line:
            raise ConnectionResetError("the server closed the connection")
        status = int(status_line.split()[1])
        length = 0
        chunked = False
        while True:
            line = await self.reader.readline()
            if line in (b"\r\n", b""):
                break
            name, _, value = line.decode("latin-1").partition(":")
            if name.lower() == "content-length":
                length = int(value)
            elif name.lower() == "transfer-encoding" and "chunked" in value.lower():
                chunked = True
        if not chunked:
            return status, await self.reader.readexactly(length)
        parts = []
        while True:
            size = int((await self.reader.readline()).strip(), 16)
            chunk = await self.reader.readexactly(size + 2)
            if size == 0:
                return status, b"".join(parts)
            parts.append(chunk[:-2])

    def close(self) -> None:
        if self.writer is not None:
            self.writer.close()


async def one_client(
    port: int, n: int, turns: int, latencies: list[float], errors: list[str]
) -> None:
    user, session = f"user{n}", f"s{n}"
    conn = Connection("127.0.0.1", port)
    try:
        status, _ = await conn.post(f"/apps/bench/users/{user}/sessions", {"sessionId": session})
        if status != 200:
            errors.append(f"create {status}")
            return
        for turn in range(turns):
            body = {
                "appName": "bench",
                "userId": user,
                "sessionId": session,
                "newMessage": {"role": "user", "parts": [{"text": f"turn {turn}"}]},
            }
            started = time.perf_counter()
            try:
                status, answer = await conn.post("/run", body)
            except (OSError, asyncio.IncompleteReadError, ValueError) as exc:
                errors.append(type(exc).__name__)
                conn.close()
                conn = Connection("127.0.0.1", port)
                continue
            latencies.append(time.perf_counter() - started)
            if status != 200:
                errors.append(f"{status} {answer[:80]!r}")
            elif b'"errorCode"' in answer:
                errors.append("error event")
    finally:
        conn.close()


async def load(port: int, clients: int, turns: int) -> dict[str, float]:
    latencies: list[float] = []
    errors: list[str] = []
    started = time.perf_counter()
    await asyncio.gather(*(one_client(port, n, turns, latencies, errors) for n in range(clients)))
    elapsed = time.perf_counter() - started
    latencies.sort()
    failed = clients * turns - len(latencies) + sum(1 for e in errors if not e.startswith("create"))
    done = clients * turns - failed
    return {
        "turns_per_s": done / elapsed if elapsed else 0.0,
        "p50_ms": statistics.median(latencies) * 1000 if latencies else 0.0,
        "p99_ms": latencies[max(0, int(len(latencies) * 0.99) - 1)] * 1000 if latencies else 0.0,
        "errors": float(len(errors)),
        "error_rate": len(errors) / max(1, clients * turns),
    }


async def single(port: int, turns: int) -> float:
    """Mean seconds per /run at 1 client (after a few warm-up turns)."""
    latencies: list[float] = []
    errors: list[str] = []
    await one_client(port, 9999, 5, [], errors)
    await one_client(port, 10000, turns, latencies, errors)
    return statistics.mean(latencies)


def measure(command: list[str], work: Path, clients: int, turns: int) -> dict[str, float]:
    server = Server(command, work)
    try:
        server.wait_ready()
        result = asyncio.run(load(server.port, clients, turns))
        result["single_ms"] = asyncio.run(single(server.port, 200)) * 1000
        return result
    finally:
        server.stop()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--clients", type=int, default=50)
    parser.add_argument("--turns", type=int, default=20)
    args = parser.parse_args()
    load_avg = os.getloadavg()[0]
    print(
        f"bench_serve: {args.clients} clients x {args.turns} turns, /run, 127.0.0.1,"
        f" {os.cpu_count()} cores, load average {load_avg:.1f} at start"
    )
    scripted_turns = args.clients * args.turns + 300
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp) / "yadk"
        yadk = measure(yadk_app(work, scripted_turns), work, args.clients, args.turns)
        adk = None
        if adk_available():
            work = Path(tmp) / "adk"
            adk = measure(adk_app(work), work, args.clients, args.turns)
        shutil.rmtree(tmp, ignore_errors=True)

    def adk_value(key: str) -> float | None:
        return None if adk is None else adk[key]

    report(
        "throughput under load (turns/s)",
        yadk["turns_per_s"],
        adk_value("turns_per_s"),
        "turns/s",
        higher_is_better=True,
    )
    report("p50 latency under load", yadk["p50_ms"], adk_value("p50_ms"), "ms")
    report("p99 latency under load", yadk["p99_ms"], adk_value("p99_ms"), "ms")
    errors = f"errors under load: yadk {int(yadk['errors'])} ({yadk['error_rate']:.1%})"
    if adk is not None:
        errors += f" | google-adk {int(adk['errors'])} ({adk['error_rate']:.1%})"
    print(errors)
    report(
        "time per /run at 1 client (incl. HTTP)", yadk["single_ms"], adk_value("single_ms"), "ms"
    )


if __name__ == "__main__":
    main()
    write_results(__file__)
