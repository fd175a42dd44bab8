"""Benchmark: instruction templating in yadk vs google-adk 2.13.0, same templates, same state.

    /opt/yvenv/bin/python bench/bench_templating.py

The google-adk side runs this same file with ADK's interpreter (``--worker adk``), so both sides
time identical loops. ADK's interpreter is /opt/adkvenv/bin/python unless YADK_BENCH_ADK_PYTHON
says otherwise; without it only yadk's figures are printed. google-adk does not ship Jinja2: if
its venv lacks it, the worker borrows this interpreter's jinja2 and markupsafe (same Python
version only) so the Jinja2 case can still be compared.
"""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _compare import ADK_PYTHON, report, write_results

# 13 placeholders (two optional, two prefixed) and one JSON example that stays literal.
PLACEHOLDERS_13 = (
    "You are {agent_role} for {company}. The customer is {customer_name} ({user:locale}), "
    "on plan {plan_tier?}. Their last order is {last_order_id} with status {order_status}.\n"
    "Preferred channel: {app:channel}. Tone: {tone}. Escalated: {escalated}. "
    "Open tickets: {open_tickets}. Notes: {notes?}.\n"
    'Answer in {language} and end with a JSON line like {"status": "ok"}.'
)
JINJA_LOOP = (
    "Customer: {{ customer_name }}{% if vip is defined and vip %} (VIP){% endif %}\n"
    "Open orders:\n"
    "{% for order in orders %}- {{ order.id }}: {{ order.item }} x{{ order.qty }}"
    "{% if order.qty > 2 %} (bulk){% endif %}\n{% endfor %}"
    "Reply in {{ state['user:locale'] }}."
)
NO_BRACES = (
    "You are a helpful support agent. Answer briefly and precisely, and ask one clarifying "
    "question when the request is ambiguous."
)


def make_state() -> dict[str, Any]:
    """50 keys: the ones the templates read plus filler, as a real session accumulates."""
    state: dict[str, Any] = {
        "agent_role": "a support agent",
        "company": "Acme",
        "customer_name": "Ada",
        "user:locale": "en-GB",
        "last_order_id": 4711,
        "order_status": "shipped",
        "app:channel": "email",
        "tone": "friendly",
        "escalated": False,
        "open_tickets": 2,
        "language": "English",
        "vip": True,
        "orders": [{"id": i, "item": f"widget-{i}", "qty": i % 4} for i in range(10)],
    }
    for i in range(50 - len(state)):
        state[f"filler_{i}"] = f"value {i}"
    return state


CASES = [
    ("13 placeholders, 50-key state", PLACEHOLDERS_13, False),
    ("Jinja2 loop + conditionals", JINJA_LOOP, True),
    ("no braces", NO_BRACES, False),
]


async def _time_per_call(call: Callable[[], Awaitable[str]], budget: float = 0.4) -> float:
    """Best-of-5 mean seconds per call, each round sized to run ~budget/5 seconds."""
    await call()  # warm caches: both sides get their steady state
    n, elapsed = 1, 0.0
    while elapsed < 0.02:
        n *= 4
        start = time.perf_counter()
        for _ in range(n):
            await call()
        elapsed = time.perf_counter() - start
    n = max(1, int(n * (budget / 5) / elapsed))
    best = float("inf")
    for _ in range(5):
        start = time.perf_counter()
        for _ in range(n):
            await call()
        best = min(best, (time.perf_counter() - start) / n)
    return best


async def _yadk_context(state: dict[str, Any]) -> Any:
    from yadk._contexts import InvocationContext, ReadonlyContext
    from yadk.artifacts import InMemoryArtifactService
    from yadk.sessions import InMemorySessionService

    class _Agent:
        name = "bench_agent"

    service = InMemorySessionService()
    session = await service.create_session(app_name="bench", user_id="u", state=state)
    ic = InvocationContext(
        invocation_id="e-bench",
        agent=_Agent(),  # type: ignore[arg-type]
        session=session,
        session_service=service,
        artifact_service=InMemoryArtifactService(),
    )
    return ReadonlyContext(ic)


async def _adk_context(state: dict[str, Any]) -> Any:
    from google.adk.agents import LlmAgent
    from google.adk.agents.invocation_context import InvocationContext
    from google.adk.agents.readonly_context import ReadonlyContext
    from google.adk.artifacts import InMemoryArtifactService
    from google.adk.sessions import InMemorySessionService

    service = InMemorySessionService()
    session = await service.create_session(app_name="bench", user_id="u", state=state)
    ic = InvocationContext(
        invocation_id="e-bench",
        agent=LlmAgent(name="bench_agent"),
        session=session,
        session_service=service,
        artifact_service=InMemoryArtifactService(),
    )
    return ReadonlyContext(ic)


async def run_side(side: str) -> dict[str, Any]:
    """Time every case on one side; returns {case: seconds per call or error text}."""
    inject_session_state: Callable[..., Awaitable[str]]
    if side == "adk":
        from google.adk.utils import instructions_utils

        inject_session_state = instructions_utils.inject_session_state
        ctx = await _adk_context(make_state())
    else:
        from yadk import templating

        inject_session_state = templating.inject_session_state
        ctx = await _yadk_context(make_state())
    results: dict[str, Any] = {}
    outputs: dict[str, str] = {}
    for label, template, jinja in CASES:

        def call(template: str = template, jinja: bool = jinja) -> Awaitable[str]:
            return inject_session_state(template, ctx, use_jinja2=jinja)

        try:
            outputs[label] = await call()
            results[label] = await _time_per_call(call)
        except ImportError as exc:
            results[label] = f"unavailable: {exc}"
    return {"timings": results, "outputs": outputs}


def _link_jinja(folder: Path) -> bool:
    """Link this interpreter's jinja2 and markupsafe into ``folder`` (for ADK's venv)."""
    try:
        import jinja2
        import markupsafe
    except ImportError:
        return False
    for module in (jinja2, markupsafe):
        (folder / module.__name__).symlink_to(Path(module.__file__ or "").parent)
    return True


def _python_output(code: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([ADK_PYTHON, "-c", code], check=False, capture_output=True, text=True)


def run_adk() -> dict[str, Any] | str:
    if not Path(ADK_PYTHON).exists():
        return f"google-adk interpreter not found at {ADK_PYTHON} (set YADK_BENCH_ADK_PYTHON)"
    env = dict(os.environ)
    with tempfile.TemporaryDirectory(prefix="yadk-bench-jinja-") as borrowed:
        if _python_output("import jinja2").returncode != 0:
            version = _python_output("import sys; print(tuple(sys.version_info[:2]))")
            if version.stdout.strip() == str(tuple(sys.version_info[:2])) and _link_jinja(
                Path(borrowed)
            ):
                env["PYTHONPATH"] = os.pathsep.join(filter(None, [borrowed, env.get("PYTHONPATH")]))
        proc = subprocess.run(
            [ADK_PYTHON, __file__, "--worker", "adk"],
            check=False,
            capture_output=True,
            text=True,
            env=env,
        )
    if proc.returncode != 0:
        return f"google-adk run failed:\n{proc.stderr.strip()[-2000:]}"
    result: dict[str, Any] = json.loads(proc.stdout)
    return result


def main() -> None:
    if sys.argv[1:3] == ["--worker", "adk"]:
        print(json.dumps(asyncio.run(run_side("adk"))))
        return
    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "src"))
    yadk = asyncio.run(run_side("yadk"))
    adk = run_adk()
    for label, _, _ in CASES:
        ours = yadk["timings"][label]
        theirs = adk["timings"].get(label) if isinstance(adk, dict) else None
        if not isinstance(ours, float):
            print(f"{label:<48} yadk: {ours}")
            continue
        adk_us = theirs * 1e6 if isinstance(theirs, float) else None
        report(f"{label} (per call)", ours * 1e6, adk_us, "us")
        if theirs is not None and adk_us is None:
            print(f"  google-adk: {theirs}")
        adk_output = adk["outputs"].get(label) if isinstance(adk, dict) else None
        if adk_output is not None and adk_output != yadk["outputs"].get(label):
            print(f"  WARNING: outputs differ for {label!r}")
    if isinstance(adk, str):
        print(f"\n(google-adk side skipped: {adk})")


if __name__ == "__main__":
    main()
    write_results(__file__)
