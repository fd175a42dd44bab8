"""A2A SendMessage vs /run on the same `yadk serve` and the same agent.

Load: 50 clients at once, each sending 20 messages one after another in its own conversation
(``/run``: one session per client; A2A: one context per client, a task per message, blocking
``SendMessage`` with ``A2A-Version: 1.0``), then 1 client. The model answers at once (a
ScriptedModel), so what is measured is the server: HTTP, the store, the runner, and for A2A the
JSON-RPC envelope and the task read back. The target: A2A at >= 80% of /run's rate.

    python bench/bench_a2a.py [--clients 50] [--turns 20]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import tempfile
import time
from pathlib import Path

from _compare import record, write_results
from bench_serve import Connection, Server, one_client, yadk_app


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
    results: dict[str, list[dict[str, float]]] = {"run": [], "a2a": []}
    singles: dict[str, list[float]] = {"run": [], "a2a": []}
    clients = {"run": one_client, "a2a": a2a_client}
    scripted = (args.clients * args.turns + 300) * 2 * args.rounds
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp) / "yadk"
        server = Server(yadk_app(work, scripted), work)
        try:
            server.wait_ready()
            for round_ in range(args.rounds):  # alternate: drift in the machine's load is shared
                first = round_ * 100000  # new sessions and contexts every round
                for name, client in clients.items():
                    results[name].append(
                        asyncio.run(load(client, server.port, args.clients, args.turns, first))
                    )
                    singles[name].append(asyncio.run(single(client, server.port, 100, first)))
        finally:
            server.stop()
    best = {name: max(rounds, key=lambda r: r["per_s"]) for name, rounds in results.items()}
    for name, label in (("run", "/run"), ("a2a", "A2A SendMessage")):
        row = best[name]
        print(
            f"{label:<18} {row['per_s']:8.1f} turns/s under load, p50 {row['p50_ms']:.1f} ms,"
            f" {int(row['errors'])} errors {row['first_error']}; at 1 client"
            f" {min(singles[name]):.2f} ms per turn"
        )
        record(f"{label} turns/s under load", row["per_s"], "turns/s", higher_is_better=True)
        record(f"{label} ms per turn at 1 client", min(singles[name]), "ms")
    ratio = best["a2a"]["per_s"] / best["run"]["per_s"]
    single_ratio = min(singles["run"]) / min(singles["a2a"])
    print(f"A2A rate / /run rate under load: {ratio:.0%} (target >= 80%)")
    print(f"A2A rate / /run rate at 1 client: {single_ratio:.0%}")
    record("A2A rate / /run rate under load", ratio, "ratio", higher_is_better=True)
    record("A2A rate / /run rate at 1 client", single_ratio, "ratio", higher_is_better=True)


if __name__ == "__main__":
    main()
    write_results(__file__)
