"""A2A SendMessage vs /run on the same `yadk serve` and the same agent, and both against
google-adk 2.13's ``adk api_server --a2a`` serving the same fixed-answer agent.

Load: 50 clients at once, each sending 20 messages one after another in its own conversation
(``/run``: one session per client; A2A: one context per client, a task per message, blocking
``SendMessage`` with ``A2A-Version: 1.0``), then 1 client. The model answers at once (yadk: a
ScriptedModel; google-adk: a BaseLlm returning the same text), so what is measured is the
server: HTTP, the store, the runner, and for A2A the JSON-RPC envelope and the task. The
target: yadk's A2A at >= 80% of its /run rate.

    python bench/bench_a2a.py [--clients 50] [--turns 20]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import subprocess
import tempfile
import time
from pathlib import Path

from _compare import adk_available, record, report, write_results
from bench_serve import Connection, Server, adk_app, free_port, one_client, yadk_app


async def a2a_client(
    port: int, n: int, turns: int, latencies: list[float], errors: list[str]
) -> None:
    conn = A2AConnection("127.0.0.1", port)
    context = f"bench-context-{n}"
    try:
        for turn in range(turns):
            body = {
                "jsonrpc": "2.0",
                "id": turn,
                "method": "SendMessage",
                "params": {
                    "message": {
                        "messageId": f"m-{n}-{turn}",
                        "role": "ROLE_USER",
                        "contextId": context,
                        "parts": [{"text": f"turn {turn}"}],
                    }
                },
            }
            started = time.perf_counter()
            try:
                status, answer = await conn.post("/a2a/bench", body)
            except (OSError, asyncio.IncompleteReadError, ValueError) as exc:
                errors.append(type(exc).__name__)
                conn.close()
                conn = A2AConnection("127.0.0.1", port)
                continue
            latencies.append(time.perf_counter() - started)
            if status != 200:
                errors.append(f"{status} {answer[:80]!r}")
                continue
            result = json.loads(answer).get("result") or {}
            state = (result.get("task") or {}).get("status", {}).get("state")
            if state != "TASK_STATE_COMPLETED":
                errors.append(f"state {state}: {answer[:120]!r}")
    finally:
        conn.close()


class A2AConnection(Connection):
    """The keep-alive client of bench_serve, sending ``A2A-Version: 1.0``."""

    extra_headers = "A2A-Version: 1.0\r\n"


async def load(client, port: int, clients: int, turns: int, first: int) -> dict[str, float]:  # type: ignore[no-untyped-def]
    latencies: list[float] = []
    errors: list[str] = []
    started = time.perf_counter()
    await asyncio.gather(
        *(client(port, first + n, turns, latencies, errors) for n in range(clients))
    )
    elapsed = time.perf_counter() - started
    done = len(latencies) - len(errors)
    return {
        "per_s": done / elapsed if elapsed else 0.0,
        "p50_ms": statistics.median(latencies) * 1000 if latencies else 0.0,
        "errors": float(len(errors)),
        "first_error": errors[0] if errors else "",  # type: ignore[dict-item]
    }


async def single(client, port: int, turns: int, first: int) -> float:  # type: ignore[no-untyped-def]
    latencies: list[float] = []
    errors: list[str] = []
    await client(port, first + 90000, 5, [], errors)
    await client(port, first + 90001, turns, latencies, errors)
    return statistics.mean(latencies) * 1000


def adk_a2a_app(work: Path, port: int) -> list[str]:
    """google-adk's side: the same fixed-answer agent, served by ``adk api_server --a2a``
    (which serves A2A for the agent folders that hold an ``agent.json``)."""
    command = adk_app(work)
    url = f"http://127.0.0.1:{port}/a2a/bench"
    card = {
        "name": "bench",
        "description": "Answers at once.",
        "url": url,
        "supportedInterfaces": [
            {"url": url, "protocolBinding": "JSONRPC", "protocolVersion": "1.0"}
        ],
        "version": "0.0.1",
        "capabilities": {},
        "defaultInputModes": ["text/plain"],
        "defaultOutputModes": ["text/plain"],
        "skills": [],
    }
    (work / "agents" / "bench" / "agent.json").write_text(json.dumps(card), encoding="utf-8")
    return [*command, "--a2a"]


def measure(server: Server, args: argparse.Namespace) -> dict[str, dict[str, float]]:
    """Both routes on one server, alternating for ``args.rounds`` rounds: the best round of
    each under load, and the best time per turn at 1 client."""
    clients = {"run": one_client, "a2a": a2a_client}
    rounds: dict[str, list[dict[str, float]]] = {"run": [], "a2a": []}
    singles: dict[str, list[float]] = {"run": [], "a2a": []}
    try:
        server.wait_ready()
        for round_ in range(args.rounds):  # alternate: drift in the machine's load is shared
            first = round_ * 100000  # new sessions and contexts every round
            for name, client in clients.items():
                rounds[name].append(
                    asyncio.run(load(client, server.port, args.clients, args.turns, first))
                )
                singles[name].append(asyncio.run(single(client, server.port, 100, first)))
    finally:
        server.stop()
    best = {}
    for name in clients:
        best[name] = max(rounds[name], key=lambda r: r["per_s"])
        best[name]["single_ms"] = min(singles[name])
    return best


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--clients", type=int, default=50)
    parser.add_argument("--turns", type=int, default=20)
    parser.add_argument("--rounds", type=int, default=2)
    args = parser.parse_args()
    print(
        f"bench_a2a: {args.clients} clients x {args.turns} messages, /run vs A2A SendMessage,"
        f" 127.0.0.1, {os.cpu_count()} cores, load average {os.getloadavg()[0]:.1f} at start"
    )
    scripted = (args.clients * args.turns + 300) * 2 * args.rounds
    adk = None
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp) / "yadk"
        yadk = measure(Server(yadk_app(work, scripted), work), args)
        if adk_available():
            work = Path(tmp) / "adk"
            port = free_port()  # chosen first: the card google-adk serves names it
            adk = measure(AdkServer(adk_a2a_app(work, port), work, port), args)
    for who, best in (("yadk", yadk), ("google-adk", adk)):
        if best is None:
            continue
        for name, label in (("run", "/run"), ("a2a", "A2A SendMessage")):
            row = best[name]
            record(f"{who} {label} errors under load", row["errors"], "errors")
            print(
                f"{who:<10} {label:<16} {row['per_s']:8.1f} turns/s under load, p50"
                f" {row['p50_ms']:.1f} ms, {int(row['errors'])} errors {row['first_error']};"
                f" at 1 client {row['single_ms']:.2f} ms per turn"
            )
    ratio = yadk["a2a"]["per_s"] / yadk["run"]["per_s"]
    print(f"yadk: A2A rate / /run rate under load: {ratio:.0%} (target >= 80%)")
    record("yadk A2A rate / its /run rate under load", ratio, "ratio", higher_is_better=True)
    if adk is not None:
        adk_ratio = adk["a2a"]["per_s"] / adk["run"]["per_s"]
        print(f"google-adk: A2A rate / /run rate under load: {adk_ratio:.0%}")
        record("google-adk A2A rate / its /run rate", adk_ratio, "ratio", higher_is_better=True)

    def other(name: str, key: str) -> float | None:
        return None if adk is None else adk[name][key]

    report(
        "A2A SendMessage under load",
        yadk["a2a"]["per_s"],
        other("a2a", "per_s"),
        "turns/s",
        higher_is_better=True,
    )
    report("A2A SendMessage at 1 client", yadk["a2a"]["single_ms"], other("a2a", "single_ms"), "ms")
    report(
        "/run under load",
        yadk["run"]["per_s"],
        other("run", "per_s"),
        "turns/s",
        higher_is_better=True,
    )
    report("/run at 1 client", yadk["run"]["single_ms"], other("run", "single_ms"), "ms")


class AdkServer(Server):
    """A server started on a port chosen beforehand (its card names it)."""

    def __init__(self, command: list[str], work: Path, port: int) -> None:
        self.port = port
        self.base = f"http://127.0.0.1:{port}"
        self.process = subprocess.Popen(
            [*command, "--host", "127.0.0.1", "--port", str(port)],
            cwd=work,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            env={**os.environ, "PYTHONWARNINGS": "ignore"},
        )


if __name__ == "__main__":
    main()
    write_results(__file__)
