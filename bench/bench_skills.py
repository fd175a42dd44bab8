"""Skills: loading a skill with 100 resource files, and the per-turn cost of the skill listing.

Targets: loading a skill with 100 resources < 10 ms; ``list_skills`` and the
system-instruction listing computed once per skill-set version, not per turn.
Run: python bench/bench_skills.py
"""

from __future__ import annotations

import asyncio
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from _compare import report, run_adk, write_results

from yadk.models import LlmRequest
from yadk.skills import SkillToolset, load_skill_from_dir
from yadk.testing import tool_context

RESOURCES = 100
CATALOG = 20
LOADS = 200
TURNS = 1000


def make_skills(root: Path) -> Path:
    """A folder of skills: ``big-skill`` with 100 resource files, plus 19 small skills."""
    skills = root / "skills"
    big = skills / "big-skill"
    for kind, count in (("references", 40), ("assets", 40), ("scripts", 20)):
        (big / kind).mkdir(parents=True)
        for i in range(count):
            suffix = ".py" if kind == "scripts" else ".md"
            (big / kind / f"file{i:03d}{suffix}").write_text(f"# {kind} {i}\n" + "text " * 400)
    (big / "SKILL.md").write_text(
        "---\nname: big-skill\ndescription: A skill with many files.\nmetadata:\n"
        "  adk_inject_state: true\n---\nHello {user_name?}.\n" + "Step.\n" * 200
    )
    for i in range(1, CATALOG):
        small = skills / f"skill-{i:02d}"
        small.mkdir()
        (small / "SKILL.md").write_text(
            f"---\nname: skill-{i:02d}\ndescription: Skill number {i}.\n---\nDo {i}.\n"
        )
    return skills


def median_ms(fn: Callable[[], object], runs: int) -> float:
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        fn()
        times.append((time.perf_counter() - start) * 1000)
    return statistics.median(times)


async def measure_yadk(skills: Path) -> dict[str, float]:
    big = skills / "big-skill"
    load_ms = median_ms(lambda: load_skill_from_dir(big), LOADS)

    def load_and_list() -> int:
        resources = load_skill_from_dir(big).resources
        return sum(
            len(r)
            for r in (
                resources.list_references(),
                resources.list_assets(),
                resources.list_scripts(),
            )
        )

    assert load_and_list() == RESOURCES
    list_ms = median_ms(load_and_list, LOADS)

    toolset = SkillToolset([skills])
    ctx = tool_context({"user_name": "Ada"})
    tools = {t.name: t for t in await toolset.get_tools(ctx)}
    times = []
    for _ in range(LOADS):
        start = time.perf_counter()
        await tools["load_skill"].run_async(args={"skill_name": "big-skill"}, tool_context=ctx)
        times.append((time.perf_counter() - start) * 1000)
    tool_ms = statistics.median(times)

    start = time.perf_counter()
    for _ in range(TURNS):
        await toolset.process_llm_request(tool_context=ctx, llm_request=LlmRequest())
        await tools["list_skills"].run_async(args={}, tool_context=ctx)
    turn_us = (time.perf_counter() - start) / TURNS * 1e6

    refresh_ms = median_ms(toolset.refresh, 50)
    return {
        "load_ms": load_ms,
        "list_ms": list_ms,
        "tool_ms": tool_ms,
        "turn_us": turn_us,
        "refresh_ms": refresh_ms,
    }


ADK_SNIPPET = """
import asyncio, json, statistics, time
from google.adk.agents import LlmAgent
from google.adk.agents.invocation_context import InvocationContext
from google.adk.models.llm_request import LlmRequest
from google.adk.sessions import InMemorySessionService
from google.adk.skills import load_skill_from_dir, load_skills_from_dir
from google.adk.tools.skill_toolset import SkillToolset
from google.adk.tools.tool_context import ToolContext

SKILLS = {skills!r}
LOADS, TURNS = {loads}, {turns}

def median_ms(fn, runs):
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        fn()
        times.append((time.perf_counter() - start) * 1000)
    return statistics.median(times)

async def main():
    load_ms = median_ms(lambda: load_skill_from_dir(SKILLS + "/big-skill"), LOADS)

    def load_and_list():
        r = load_skill_from_dir(SKILLS + "/big-skill").resources
        return len(r.list_references()) + len(r.list_assets()) + len(r.list_scripts())

    list_ms = median_ms(load_and_list, LOADS)
    toolset = SkillToolset(skills=load_skills_from_dir(SKILLS))
    agent = LlmAgent(name="bench", model="gemini-2.0-flash", tools=[toolset])
    service = InMemorySessionService()
    session = await service.create_session(app_name="a", user_id="u", state={{"user_name": "Ada"}})
    ctx = ToolContext(InvocationContext(session_service=service, invocation_id="i", agent=agent,
                                        session=session))
    tools = {{t.name: t for t in await toolset.get_tools(ctx)}}
    times = []
    for _ in range(LOADS):
        start = time.perf_counter()
        await tools["load_skill"].run_async(args={{"skill_name": "big-skill"}}, tool_context=ctx)
        times.append((time.perf_counter() - start) * 1000)
    tool_ms = statistics.median(times)
    start = time.perf_counter()
    for _ in range(TURNS):
        await toolset.process_llm_request(tool_context=ctx, llm_request=LlmRequest())
        await tools["list_skills"].run_async(args={{}}, tool_context=ctx)
    turn_us = (time.perf_counter() - start) / TURNS * 1e6
    # ADK's load step (load_skill_from_dir) includes every resource; the tool call does not.
    print(json.dumps({{"load_ms": load_ms, "list_ms": list_ms, "tool_ms": tool_ms, "turn_us": turn_us}}))

asyncio.run(main())
"""


def main() -> None:
    with tempfile.TemporaryDirectory() as folder:
        skills = make_skills(Path(folder))
        ours = asyncio.run(measure_yadk(skills))
        adk = run_adk(ADK_SNIPPET.format(skills=str(skills), loads=LOADS, turns=TURNS))
    print(f"Skills ({RESOURCES} resource files in one skill, {CATALOG} skills in the catalog)")
    report(
        "load_skill_from_dir, 100 resources (< 10 ms)",
        ours["load_ms"],
        adk and adk["load_ms"],
        "ms",
    )
    report(
        "load_skill_from_dir + list all 100 resources",
        ours["list_ms"],
        adk and adk["list_ms"],
        "ms",
    )
    report("load_skill tool call (state injected)", ours["tool_ms"], adk and adk["tool_ms"], "ms")
    report(
        "per turn: instructions + list_skills",
        ours["turn_us"],
        adk and adk["turn_us"],
        "us",
    )
    report("registry refresh, nothing changed", ours["refresh_ms"], None, "ms")
    if ours["load_ms"] >= 10:
        print(f"  TARGET MISSED: loading took {ours['load_ms']:.2f} ms")


if __name__ == "__main__":
    main()
    write_results(__file__)
