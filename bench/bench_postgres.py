"""PostgreSQL speed, side by side with google-adk 2.13's DatabaseSessionService.

On the same server (``YADK_BENCH_POSTGRES_URL``, default postgresql://postgres@127.0.0.1:5432/test),
each side in a schema of its own that is dropped afterwards:

- durable append (committed) events/s on one connection; target >= 10x google-adk
  (``DatabaseSessionService("postgresql+asyncpg://...")``, pool of one connection);
- ``get_session`` of a 1,000-event session, median; target <= 10 ms; its first read in a
  process (every event parsed) <= 25 ms;
- the driver choice: yadk's append statement and session read on psycopg 3's cursors, as
  prepared statements through psycopg's public API (``sessions/_pg_statement``, what yadk's
  appends use) and on asyncpg, the same SQL on one connection, with this process's CPU per
  append (only when asyncpg is importable: it is not a yadk dependency);
- ``yadk serve --db postgresql://...``: turns/s of one replica, then of two replicas with every
  client alternating between them (a load balancer without affinity); target two >= 1.6x one;
  then two replicas with each client keeping to one (affinity), which tells what alternating
  costs apart from what sharing the machine's cores costs; then (as root, ``--replica-cores``)
  1 and 2 replicas each held to half a core by a cgroup CPU quota, as containers with a CPU
  limit are, so that the replicas and not the machine's cores set the pace.
  The load generator and PostgreSQL share the machine's cores with the servers, so each run also
  prints the CPU per turn of every process (/proc: the replicas, their PostgreSQL backends, this
  load generator), the turns per replica-CPU-second (equal for 1 and 2 replicas = replicas add
  no work per turn), how many cores were busy, and the most turns/s the cores could give at the
  2-replica CPU per turn: on 2 cores one replica already keeps more than one busy, so that
  ceiling, not yadk, bounds the ratio. A busy replica's event loop seldom sleeps (about one
  context switch per turn); two replicas sharing the cores sleep and wake several times per
  turn, which is most of why a turn costs them more CPU.

    python bench/bench_postgres.py [--clients 40] [--turns 25] [--replica-cores 0.5]   (3-4 minutes)
    python bench/bench_postgres.py --no-serve --replica-cores 0   (the session figures alone)

Writes bench/results/bench_postgres.json.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import sys
import tempfile
import time
import uuid
from dataclasses import dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from _compare import record, report, run_adk, write_results
from _cpu_quota import CpuQuota
from bench_serve import Connection, Server, yadk_app

from yadk.events import Event, EventActions
from yadk.sessions import PostgresSessionService
from yadk.sessions._pg_statement import Statement
from yadk.types import ModelContent

URL = os.environ.get("YADK_BENCH_POSTGRES_URL", "postgresql://postgres@127.0.0.1:5432/test")
N_APPEND = 2_000
N_APPEND_ADK = 200
N_DRIVER = 1_000
N_EVENTS = 1_000
N_GETS = 30
CORES = os.cpu_count() or 1


def _event(i: int) -> Event:
    return Event(
        author="agent",
        content=ModelContent(f"message {i}"),
        actions=EventActions(state_delta={f"k{i % 50}": i}),
    )


def _drop(schema: str) -> None:
    import psycopg

    with psycopg.connect(URL, autocommit=True) as conn:
        conn.execute(f"DROP SCHEMA IF EXISTS {schema} CASCADE")


async def measure_yadk() -> dict[str, float]:
    schema = f"bench_{uuid.uuid4().hex[:8]}"
    service = PostgresSessionService(f"{URL}?schema={schema}", pool_size=1)
    try:
        session = await service.create_session(app_name="app", user_id="u")
        events = [_event(i) for i in range(N_APPEND)]
        for event in events[:50]:  # warm up: connection, prepared plans
            await service.append_event(session, event)
        start, cpu_start = time.perf_counter(), time.process_time()
        for event in events[50:]:
            await service.append_event(session, event)
        rate = (N_APPEND - 50) / (time.perf_counter() - start)
        append_cpu = (time.process_time() - cpu_start) / (N_APPEND - 50)
        big = await service.create_session(app_name="app", user_id="u")
        for i in range(N_EVENTS):
            await service.append_event(big, _event(i))
        timings = []
        for _ in range(N_GETS):
            started = time.perf_counter()
            got = await service.get_session(app_name="app", user_id="u", session_id=big.id)
            timings.append(time.perf_counter() - started)
            assert got is not None and len(got.events) == N_EVENTS
        cpu = []
        for _ in range(N_GETS):
            started = time.process_time()
            await service.get_session(app_name="app", user_id="u", session_id=big.id)
            cpu.append(time.process_time() - started)
        refresh_cpu = []  # what a served turn's refresh costs when the copy is current
        for _ in range(5):
            started = time.process_time()
            for _ in range(200):
                assert await service.refresh_session(got)
            refresh_cpu.append((time.process_time() - started) / 200)
        colds = []  # a fresh service each time: its first read parses every event
        for _ in range(5):
            fresh = PostgresSessionService(f"{URL}?schema={schema}", pool_size=1)
            await fresh.get_session(app_name="app", user_id="u", session_id=session.id)
            started = time.perf_counter()
            await fresh.get_session(app_name="app", user_id="u", session_id=big.id)
            colds.append(time.perf_counter() - started)
            await fresh.aclose()
        return {
            "append_per_s": rate,
            "append_cpu_us": append_cpu * 1e6,
            "get_cold_ms": statistics.median(colds) * 1000,
            "get_ms": statistics.median(timings) * 1000,
            "get_cpu_ms": statistics.median(cpu) * 1000,
            "refresh_cpu_us": statistics.median(refresh_cpu) * 1e6,
        }
    finally:
        await service.aclose()
        _drop(schema)


def commit_ceiling() -> float:
    """Durable commits/s of the server itself: one one-row INSERT per commit, one connection.
    No durable append can beat it (each waits for its WAL flush); on a busy or slow disk it,
    not yadk, sets the append figure."""
    import psycopg

    schema = f"bench_commit_{uuid.uuid4().hex[:8]}"
    with psycopg.connect(URL, autocommit=True) as conn:
        conn.execute(f"CREATE SCHEMA {schema}")
        try:
            conn.execute(f"CREATE TABLE {schema}.t (a int)")
            for _ in range(20):
                conn.execute(f"INSERT INTO {schema}.t VALUES (1)")
            n = 500
            start = time.perf_counter()
            for _ in range(n):
                conn.execute(f"INSERT INTO {schema}.t VALUES (1)")
            return n / (time.perf_counter() - start)
        finally:
            conn.execute(f"DROP SCHEMA {schema} CASCADE")


ADK_SNIPPET = """
import asyncio, json, statistics, time
from google.adk.events import Event, EventActions
from google.adk.sessions import DatabaseSessionService
from google.genai import types

URL = {url!r}
SCHEMA = {schema!r}

def ev(i):
    return Event(author="agent", invocation_id="inv",
                 content=types.Content(role="model", parts=[types.Part(text=f"message {{i}}")]),
                 actions=EventActions(state_delta={{f"k{{i % 50}}": i}}))

async def main():
    service = DatabaseSessionService(
        URL, pool_size=1, max_overflow=0,
        connect_args={{"server_settings": {{"search_path": SCHEMA}}}})
    s = await service.create_session(app_name="app", user_id="u")
    for i in range(20):
        await service.append_event(s, ev(i))
    start = time.perf_counter()
    for i in range({n_append}):
        await service.append_event(s, ev(i))
    rate = {n_append} / (time.perf_counter() - start)
    big = await service.create_session(app_name="app", user_id="u")
    for i in range({n_events}):
        await service.append_event(big, ev(i))
    timings = []
    for _ in range({n_gets}):
        t = time.perf_counter()
        got = await service.get_session(app_name="app", user_id="u", session_id=big.id)
        timings.append(time.perf_counter() - t)
        assert len(got.events) == {n_events}
    print(json.dumps({{"append_per_s": rate, "get_ms": statistics.median(timings) * 1000}}))

asyncio.run(main())
"""


def measure_adk() -> dict[str, float] | None:
    import psycopg

    schema = f"bench_adk_{uuid.uuid4().hex[:8]}"
    with psycopg.connect(URL, autocommit=True) as conn:
        conn.execute(f"CREATE SCHEMA {schema}")
    try:
        adk_url = URL.replace("postgresql://", "postgresql+asyncpg://", 1)
        snippet = ADK_SNIPPET.format(
            url=adk_url, schema=schema, n_append=N_APPEND_ADK, n_events=N_EVENTS, n_gets=N_GETS
        )
        return run_adk(snippet, timeout=300)
    finally:
        _drop(schema)


# The driver comparison: the statements PostgresSessionService runs for an append (one
# statement: version bump, event row, session state merge) and a read (session row, events).
DRIVER_SETUP = """
CREATE TABLE {s}.sessions (id text PRIMARY KEY, state jsonb NOT NULL, version bigint NOT NULL);
CREATE TABLE {s}.events (session_id text NOT NULL, seq bigint NOT NULL, data text NOT NULL,
    PRIMARY KEY (session_id, seq))
"""
APPEND = """
WITH bumped AS (
    UPDATE {s}.sessions SET version = version + 1, state = state || $2::jsonb
    WHERE id = $1 AND version = $3 RETURNING version
), stored AS (
    INSERT INTO {s}.events SELECT $1, version, $4 FROM bumped
)
SELECT version FROM bumped
"""
READ_SESSION = "SELECT state, version FROM {s}.sessions WHERE id = $1"
READ_EVENTS = "SELECT data FROM {s}.events WHERE session_id = $1 AND seq <= $2 ORDER BY seq"


async def measure_drivers() -> dict[str, dict[str, float]] | None:
    try:
        import asyncpg
    except ImportError:
        return None
    import psycopg

    schema = f"bench_drv_{uuid.uuid4().hex[:8]}"
    payloads = [_event(i).model_dump_json() for i in range(N_DRIVER)]
    with psycopg.connect(URL, autocommit=True) as conn:
        conn.execute(f"CREATE SCHEMA {schema}")
        for statement in DRIVER_SETUP.format(s=schema).split(";"):
            conn.execute(statement)
    results: dict[str, dict[str, float]] = {}
    try:
        pg = await psycopg.AsyncConnection.connect(URL, autocommit=True)

        def psycopg_sql(sql: str) -> str:  # $n as %(pn)s: psycopg's placeholders
            for n in range(4, 0, -1):
                sql = sql.replace(f"${n}", f"%(p{n})s")
            return sql.format(s=schema)

        async def pg_append(sid: str, version: int, data: str) -> None:
            params = {"p1": sid, "p2": '{"k": 1}', "p3": version, "p4": data}
            await (await pg.execute(psycopg_sql(APPEND), params)).fetchone()

        async def pg_read(sid: str) -> int:
            row = await (await pg.execute(psycopg_sql(READ_SESSION), {"p1": sid})).fetchone()
            assert row is not None
            params = {"p1": sid, "p2": row[1]}
            return len(await (await pg.execute(psycopg_sql(READ_EVENTS), params)).fetchall())

        prepared_append = Statement(psycopg_sql(APPEND))

        async def prepared_append_fn(sid: str, version: int, data: str) -> None:
            params = {"p1": sid, "p2": '{"k": 1}', "p3": version, "p4": data}
            await prepared_append.scalar(pg, params)

        prepared_session = Statement(psycopg_sql(READ_SESSION))
        prepared_events = Statement(psycopg_sql(READ_EVENTS))

        async def prepared_read(sid: str) -> int:
            row = await prepared_session.first_row(pg, {"p1": sid})
            assert row is not None and row[1] is not None
            return len(await prepared_events.column(pg, {"p1": sid, "p2": int(row[1])}))

        apg = await asyncpg.connect(URL)

        async def apg_append(sid: str, version: int, data: str) -> None:
            await apg.fetchrow(APPEND.format(s=schema), sid, '{"k": 1}', version, data)

        async def apg_read(sid: str) -> int:
            row = await apg.fetchrow(READ_SESSION.format(s=schema), sid)
            return len(await apg.fetch(READ_EVENTS.format(s=schema), sid, row[1]))

        for name, append, read in (
            ("psycopg", pg_append, pg_read),
            ("prepared", prepared_append_fn, prepared_read),
            ("asyncpg", apg_append, apg_read),
        ):
            sid = f"{name}-s"
            await pg.execute(f"INSERT INTO {schema}.sessions VALUES (%s, '{{}}', 0)", (sid,))
            start, cpu_start = time.perf_counter(), time.process_time()
            for version, data in enumerate(payloads):
                await append(sid, version, data)
            rate = len(payloads) / (time.perf_counter() - start)
            cpu = (time.process_time() - cpu_start) / len(payloads)
            big = f"{name}-big"
            await pg.execute(f"INSERT INTO {schema}.sessions VALUES (%s, '{{}}', 0)", (big,))
            for version, data in enumerate(payloads[:N_EVENTS]):
                await append(big, version, data)
            timings = []
            for _ in range(N_GETS):
                started = time.perf_counter()
                assert await read(big) == N_EVENTS
                timings.append(time.perf_counter() - started)
            results[name] = {
                "append_per_s": rate,
                "append_cpu_us": cpu * 1e6,
                "get_ms": statistics.median(timings) * 1000,
            }
        await pg.close()
        await apg.close()
    finally:
        _drop(schema)
    return results


async def serve_load(
    ports: list[int], clients: int, turns: int, *, prefix: str = "user", sticky: bool = False
) -> tuple[float, int]:
    """Turns/s with every client alternating over ``ports`` (or, ``sticky``, keeping to one of
    them, as behind a load balancer with session affinity); and the failed turns."""
    failures = 0

    async def client(n: int) -> None:
        nonlocal failures
        conns = [Connection("127.0.0.1", port) for port in ports]
        user, sid = f"{prefix}{n}", f"s{n}"
        try:
            status, _ = await conns[0].post(
                f"/apps/bench/users/{user}/sessions", {"sessionId": sid}
            )
            assert status == 200, status
            for turn in range(turns):
                body = {
                    "appName": "bench",
                    "userId": user,
                    "sessionId": sid,
                    "newMessage": {"role": "user", "parts": [{"text": f"turn {turn}"}]},
                }
                pick = n if sticky else n + turn
                status, answer = await conns[pick % len(conns)].post("/run", body)
                if status != 200 or b'"errorCode"' in answer:
                    failures += 1
        finally:
            for conn in conns:
                conn.close()

    started = time.perf_counter()
    await asyncio.gather(*(client(n) for n in range(clients)))
    return clients * turns / (time.perf_counter() - started), failures


def _cpu_seconds(pid: int) -> float:
    """User + system CPU seconds of one process so far (Linux /proc; 0 if it is gone)."""
    try:
        with open(f"/proc/{pid}/stat", encoding="ascii") as stat:
            fields = stat.read().rsplit(")", 1)[1].split()
    except OSError:
        return 0.0
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def _switches(pid: int) -> int:
    """Context switches of one process so far: how often its event loop slept and woke."""
    with open(f"/proc/{pid}/status", encoding="ascii") as status:
        return sum(int(line.split(":")[1]) for line in status if "ctxt_switches" in line)


def _backends(schema: str) -> list[int]:
    """The PostgreSQL backends of the servers under test (their application_name names the
    schema)."""
    import psycopg

    with psycopg.connect(URL, autocommit=True) as conn:
        rows = conn.execute(
            "SELECT pid FROM pg_stat_activity WHERE application_name = %s", (f"yadk:{schema}",)
        ).fetchall()
    return [int(row[0]) for row in rows]


@dataclass
class ServeRun:
    """One ``measure_serve``: turns/s, failed turns, and the CPU seconds each part spent on
    the measured turns (each replica, their PostgreSQL backends, this load generator)."""

    turns: int
    turns_per_s: float
    failures: int
    replica_cpu: list[float]
    replica_switches: int
    backend_cpu: float
    client_cpu: float
    # Transactions the server committed per turn, everything of the run counted (start-up, the
    # warm-up turns and the sessions' creation too): each statement of a turn is one.
    commits_per_turn: float = 0.0

    @property
    def cpu(self) -> float:
        """CPU seconds of every process of the run together."""
        return sum(self.replica_cpu) + self.backend_cpu + self.client_cpu

    def ms_per_turn(self, cpu: float) -> float:
        return cpu / self.turns * 1000


def measure_serve(
    replicas: int, clients: int, turns: int, *, sticky: bool = False, quota: float = 0.0
) -> ServeRun:
    """One serve run; ``quota`` > 0 holds each replica to that many cores (``_cpu_quota``)."""
    schema = f"bench_serve_{uuid.uuid4().hex[:8]}"
    quotas: list[CpuQuota] = []
    db = f"{URL}?schema={schema}"
    servers: list[Server] = []
    run: ServeRun | None = None
    commits = _commits()
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        command = [*yadk_app(work, clients * turns + 10 * clients), "--db", db]
        try:
            for _ in range(replicas):
                servers.append(Server(command, work))
            for server in servers:
                server.wait_ready()
                if quota > 0:
                    quotas.append(CpuQuota(quota))
                    quotas[-1].add(server.process.pid)
            ports = [server.port for server in servers]
            asyncio.run(serve_load(ports, min(clients, 10), 3, prefix="warm"))
            # A backend that connects during the run counts from zero.
            pids = [server.process.pid for server in servers]
            backends = _backends(schema)
            before = {pid: _cpu_seconds(pid) for pid in [*pids, *backends]}
            switches = sum(_switches(pid) for pid in pids)
            client = time.process_time()
            rate, failures = asyncio.run(serve_load(ports, clients, turns, sticky=sticky))
            client = time.process_time() - client
            backends = sorted({*backends, *_backends(schema)})
            used = {pid: _cpu_seconds(pid) - before.get(pid, 0.0) for pid in [*pids, *backends]}
            switches = sum(_switches(pid) for pid in pids) - switches
            run = ServeRun(
                turns=clients * turns,
                turns_per_s=rate,
                failures=failures,
                replica_cpu=[used[pid] for pid in pids],
                replica_switches=switches,
                backend_cpu=sum(used[pid] for pid in backends),
                client_cpu=client,
            )
        finally:
            for server in servers:
                server.stop()
            for group in quotas:
                group.close()
            _drop(schema)
    assert run is not None
    time.sleep(0.5)  # the servers' backends report their counts as they exit
    run.commits_per_turn = (_commits() - commits) / (run.turns + min(clients, 10) * 3)
    return run


def _commits() -> int:
    """Transactions committed in the benchmark's database so far."""
    import psycopg

    with psycopg.connect(URL, autocommit=True) as conn:
        row = conn.execute(
            "SELECT xact_commit FROM pg_stat_database WHERE datname = current_database()"
        ).fetchone()
    return int(row[0]) if row else 0


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--clients", type=int, default=40)
    # Each client creates its session inside the timed run: 25 turns keep that a small part.
    parser.add_argument("--turns", type=int, default=25)
    parser.add_argument("--no-serve", action="store_true", help="skip the serve measurement")
    parser.add_argument(
        "--replica-cores",
        type=float,
        default=0.5,
        help="also measure 1 and 2 replicas each held to this many cores by a cgroup CPU quota"
        " (needs root; 0 skips it)",
    )
    args = parser.parse_args()

    print(f"PostgreSQL at {URL}; load average {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    yadk = asyncio.run(measure_yadk())
    adk = measure_adk()
    report(
        "durable append, one connection",
        yadk["append_per_s"],
        adk and adk["append_per_s"],
        "events/s",
        higher_is_better=True,
    )
    ceiling = commit_ceiling()
    print(
        f"  this server's durable commit ceiling (one-row INSERT per commit): {ceiling:,.0f}/s;"
        f" yadk's append reaches {yadk['append_per_s'] / ceiling:.0%} of it, with"
        f" {yadk['append_cpu_us']:.0f} us of this process's CPU per append"
    )
    report("get_session, 1,000 events (median)", yadk["get_ms"], adk and adk["get_ms"], "ms")
    print(f"  yadk get_session CPU time in this process (median): {yadk['get_cpu_ms']:.1f} ms")
    print(
        f"  yadk refresh_session that finds nothing new: {yadk['refresh_cpu_us']:.0f} us of CPU (median)"
    )
    # google-adk parses every event on every read, so its cold read is the one above.
    report(
        "the same, first read in a process (<= 25 ms)",
        yadk["get_cold_ms"],
        adk and adk["get_ms"],
        "ms",
    )
    results: dict[str, object] = {
        "yadk": yadk,
        "google_adk": adk,
        "commit_ceiling_per_s": ceiling,
        "append_yadk_is_x_better": adk and yadk["append_per_s"] / adk["append_per_s"],
        "get_yadk_is_x_better": adk and adk["get_ms"] / yadk["get_ms"],
        "first_read_yadk_is_x_better": adk and adk["get_ms"] / yadk["get_cold_ms"],
    }

    drivers = asyncio.run(measure_drivers())
    results["drivers"] = drivers
    if drivers is None:
        print("driver comparison skipped: asyncpg is not importable (pip install asyncpg)")
    else:
        for name, figures in drivers.items():
            print(
                f"  driver {name:<8} append {figures['append_per_s']:>8,.0f} /s,"
                f" {figures['append_cpu_us']:>4.0f} us CPU each"
                f" | read of 1,000 events {figures['get_ms']:>6.2f} ms"
            )

    if not args.no_serve:
        one = measure_serve(1, args.clients, args.turns)
        two = measure_serve(2, args.clients, args.turns)
        kept = measure_serve(2, args.clients, args.turns, sticky=True)
        record(
            "serve, 2 replicas sharing the cores, over 1", two.turns_per_s / one.turns_per_s, "x"
        )
        print(
            f"yadk serve --db postgresql, {args.clients} clients x {args.turns} turns:"
            f" 1 replica {one.turns_per_s:,.0f} turns/s, 2 replicas (clients alternating)"
            f" {two.turns_per_s:,.0f} turns/s = {two.turns_per_s / one.turns_per_s:.2f}x;"
            f" 2 replicas, each client keeping to one {kept.turns_per_s:,.0f} turns/s ="
            f" {kept.turns_per_s / one.turns_per_s:.2f}x (what alternating costs, apart from"
            f" what sharing the cores costs); failed turns {one.failures}/{two.failures}/"
            f"{kept.failures}"
        )
        for name, run in (("1 replica ", one), ("2 replicas", two), ("2, sticky ", kept)):
            replicas = " + ".join(f"{run.ms_per_turn(cpu):.2f}" for cpu in run.replica_cpu)
            print(
                f"  CPU per turn, {name}: replicas {replicas} ms, their PostgreSQL backends"
                f" {run.ms_per_turn(run.backend_cpu):.2f} ms, load generator"
                f" {run.ms_per_turn(run.client_cpu):.2f} ms; all {run.ms_per_turn(run.cpu):.2f} ms;"
                f" {run.turns / sum(run.replica_cpu):,.0f} turns per replica-CPU-second"
                f" ({run.replica_switches / run.turns:.1f} context switches per turn;"
                f" {run.commits_per_turn:.1f} commits per turn);"
                f" {run.cpu * run.turns_per_s / run.turns:.1f} of {CORES} cores busy"
            )
        # Two replicas cannot serve more turns than the machine's cores give at the CPU a turn
        # takes (every process counted): the ceiling the measured 2-replica figure is judged by.
        most = CORES / (two.cpu / two.turns)
        print(
            f"  at that CPU per turn, {CORES} cores serve at most {most:,.0f} turns/s ="
            f" {most / one.turns_per_s:.2f}x one replica's {one.turns_per_s:,.0f} turns/s"
        )
        results["serve"] = {
            "clients": args.clients,
            "turns": args.turns,
            "one_replica_turns_per_s": one.turns_per_s,
            "two_replicas_turns_per_s": two.turns_per_s,
            "two_sticky_turns_per_s": kept.turns_per_s,
        }
        if args.replica_cores > 0:
            serve_with_quotas(args.replica_cores, args.clients, args.turns)
    print(f"load average {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    results["load_average"] = os.getloadavg()
    out = Path(__file__).parent / "results" / f"{Path(__file__).stem}.json"
    out.parent.mkdir(exist_ok=True)
    out.write_text(json.dumps(results, indent=2) + "\n", encoding="utf-8")
    print(f"written to {out.relative_to(Path(__file__).parent.parent)}")


def serve_with_quotas(cores: float, clients: int, turns: int, repeats: int = 3) -> None:
    """1 and 2 replicas each held to ``cores`` of CPU, as containers with a CPU limit (or
    machines of their own) are: the store and the load generator keep the rest of the cores,
    so the replicas, not the machine, set the pace, and the ratio says what a second replica
    adds (see ``_cpu_quota``). Quotas make single runs noisy (how a run's work falls into the
    quota periods), so the pair is measured ``repeats`` times, interleaved, and the medians
    compared."""
    missing = CpuQuota.available()
    if missing is not None:
        print(f"serve with per-replica CPU quotas skipped: {missing}")
        return
    ones, twos = [], []
    for _ in range(repeats):
        ones.append(measure_serve(1, clients, turns, quota=cores))
        twos.append(measure_serve(2, clients, turns, quota=cores))

    def used(run: ServeRun) -> str:
        elapsed = run.turns / run.turns_per_s
        return "+".join(f"{cpu / elapsed:.2f}" for cpu in run.replica_cpu)

    one = statistics.median(run.turns_per_s for run in ones)
    two = statistics.median(run.turns_per_s for run in twos)
    print(
        f"yadk serve --db postgresql, {clients} clients x {turns} turns, each replica held to"
        f" {cores:g} cores (median of {repeats}): 1 replica {one:,.0f} turns/s, 2 replicas"
        f" (clients alternating) {two:,.0f} turns/s = {two / one:.2f}x (target >= 1.6x);"
        f" failed turns {sum(r.failures for r in ones)}/{sum(r.failures for r in twos)}"
    )
    record(f"serve, 1 replica held to {cores:g} cores", one, "turns/s")
    record(f"serve, 2 replicas each held to {cores:g} cores, over 1", two / one, "x")
    runs = zip(ones, twos, strict=True)
    print(
        "  each run, 1 replica / 2 replicas in turns/s (cores the replicas used): "
        + "; ".join(
            f"{a.turns_per_s:,.0f} ({used(a)}) / {b.turns_per_s:,.0f} ({used(b)})" for a, b in runs
        )
    )


if __name__ == "__main__":
    main()
    write_results(__file__)
