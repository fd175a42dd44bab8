"""Benchmark: rendering 50 few-shot examples, yadk vs google-adk 2.13.

Measures yadk's ``convert_examples_to_text`` (a full render, what every turn costs in ADK),
yadk's ``ExampleTool.process_llm_request`` on a static list (rendered once per model name, then
served from the cache), and google-adk's ``convert_examples_to_text`` on the same examples, run in
the ADK virtualenv through a subprocess. Run: ``/opt/yvenv/bin/python bench/bench_examples.py``.
``YADK_BENCH_ADK_PYTHON`` overrides the ADK interpreter (default /opt/adkvenv/bin/python); without
it only yadk's figures are printed.
"""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
import textwrap
import timeit
from typing import Any

from _compare import record, write_results
from yadk.tools._example_tool import ExampleTool

from yadk.examples import convert_examples_to_text
from yadk.examples._example import coerce_examples
from yadk.models import LlmRequest
from yadk.testing import tool_context

N_EXAMPLES = 50
MODEL = "gemini-2.5-flash"
NUMBER = 200
REPEAT = 5

ADK_SNIPPET = textwrap.dedent(
    """
    import json, sys, timeit
    from pydantic import TypeAdapter
    from google.adk.examples import Example
    from google.adk.examples.example_util import convert_examples_to_text
    data = json.load(sys.stdin)
    examples = TypeAdapter(list[Example]).validate_python(data["examples"])
    model, number, repeat = data["model"], data["number"], data["repeat"]
    best = min(timeit.repeat(lambda: convert_examples_to_text(examples, model),
                             number=number, repeat=repeat)) / number
    print(json.dumps({"render": best, "chars": len(convert_examples_to_text(examples, model))}))
    """
)


def make_examples(count: int) -> list[dict[str, Any]]:
    """A realistic mix: plain answers, tool calls with typed args, tool responses."""
    examples: list[dict[str, Any]] = []
    for i in range(count):
        question = {"role": "user", "parts": [{"text": f"Where is order {4400 + i}? It was due."}]}
        if i % 3 == 0:
            output = [{"role": "model", "parts": [{"text": f"Order {4400 + i} ships tomorrow."}]}]
        else:
            output = [
                {
                    "role": "model",
                    "parts": [
                        {
                            "function_call": {
                                "name": "check_order_status",
                                "args": {"order_id": str(4400 + i), "verbose": True, "n": i},
                            }
                        }
                    ],
                },
                {
                    "role": "user",
                    "parts": [
                        {
                            "function_response": {
                                "name": "check_order_status",
                                "response": {"status": "shipped", "eta_days": i % 5},
                            }
                        }
                    ],
                },
                {"role": "model", "parts": [{"text": f"Order {4400 + i} has shipped."}]},
            ]
        examples.append({"input": question, "output": output})
    return examples


def best_seconds(func: Any) -> float:
    return min(timeit.repeat(func, number=NUMBER, repeat=REPEAT)) / NUMBER


def bench_yadk(data: list[dict[str, Any]]) -> dict[str, float]:
    examples = coerce_examples(data)
    render = best_seconds(lambda: convert_examples_to_text(examples, MODEL))

    tool = ExampleTool(examples)
    ctx = tool_context(user_content="Where is order 4417?")
    loop = asyncio.new_event_loop()

    async def many_turns() -> None:
        for _ in range(NUMBER):
            await tool.process_llm_request(tool_context=ctx, llm_request=LlmRequest(model=MODEL))

    async def first_turn() -> None:
        fresh = ExampleTool(examples)
        await fresh.process_llm_request(tool_context=ctx, llm_request=LlmRequest(model=MODEL))

    try:
        first = (
            min(
                timeit.repeat(
                    lambda: loop.run_until_complete(first_turn()), number=NUMBER, repeat=REPEAT
                )
            )
            / NUMBER
        )
        loop.run_until_complete(many_turns())  # warm the cache
        cached = (
            min(
                timeit.repeat(
                    lambda: loop.run_until_complete(many_turns()), number=1, repeat=REPEAT
                )
            )
            / NUMBER
        )
    finally:
        loop.close()
    return {"render": render, "tool_first_turn": first, "tool_cached_turn": cached}


def bench_adk(data: list[dict[str, Any]]) -> dict[str, float] | None:
    python = os.environ.get("YADK_BENCH_ADK_PYTHON", "/opt/adkvenv/bin/python")
    if not os.path.exists(python):
        print(f"(google-adk interpreter {python} not found: printing yadk figures only)")
        return None
    payload = json.dumps({"examples": data, "model": MODEL, "number": NUMBER, "repeat": REPEAT})
    proc = subprocess.run(
        [python, "-c", ADK_SNIPPET], input=payload, capture_output=True, text=True, check=False
    )
    if proc.returncode != 0:
        print(f"(google-adk benchmark failed: {proc.stderr.strip().splitlines()[-1:]})")
        return None
    result: dict[str, float] = json.loads(proc.stdout)
    return result


def main() -> int:
    data = make_examples(N_EXAMPLES)
    yadk = bench_yadk(data)
    adk = bench_adk(data)
    chars = len(convert_examples_to_text(coerce_examples(data), MODEL))
    print(f"convert_examples_to_text, {N_EXAMPLES} examples, model={MODEL} ({chars} chars)")
    print(f"  yadk render (uncached)          {yadk['render'] * 1e6:9.1f} us")
    print(f"  yadk ExampleTool, first turn    {yadk['tool_first_turn'] * 1e6:9.1f} us")
    print(f"  yadk ExampleTool, cached turn   {yadk['tool_cached_turn'] * 1e6:9.1f} us")
    adk_render = adk["render"] if adk is not None else None
    record(
        "few-shot block, render (uncached)",
        yadk["render"] * 1e6,
        "us",
        adk_value=None if adk_render is None else adk_render * 1e6,
    )
    record(
        "few-shot block, per turn (cached)",
        yadk["tool_cached_turn"] * 1e6,
        "us",
        adk_value=None if adk_render is None else adk_render * 1e6,
    )
    if adk is not None:
        adk_render = adk["render"]
        print(f"  google-adk render (every turn)  {adk_render * 1e6:9.1f} us")
        print(f"  ratio adk/yadk, render          {adk_render / yadk['render']:9.2f}x")
        print(f"  ratio adk/yadk, per turn        {adk_render / yadk['tool_cached_turn']:9.2f}x")
    return 0


if __name__ == "__main__":
    code = main()
    write_results(__file__)
    sys.exit(code)
