"""Asking the judge model: one prompt, one answer text; many prompts with a parallelism limit."""

from __future__ import annotations

import asyncio
import dataclasses
from collections.abc import Sequence

from yadk.eval._criteria import Metric
from yadk.models import BaseLlm, LlmRequest
from yadk.types import Content, Part

__all__ = ["JudgeError", "JudgeOptions", "ask", "ask_all", "judge_options"]

DEFAULT_SAMPLES = 5


class JudgeError(Exception):
    """The judge model answered with an error instead of a verdict (never leaves the eval)."""


@dataclasses.dataclass(frozen=True)
class JudgeOptions:
    """``judge_model_options`` of a criterion: samples per invocation, calls at once."""

    num_samples: int = DEFAULT_SAMPLES
    parallelism: int = 1


def judge_options(metric: Metric) -> JudgeOptions:
    options = (
        (metric.criterion or {}).get("judge_model_options")
        or (metric.criterion or {}).get("judgeModelOptions")
        or {}
    )

    def positive(snake: str, camel: str, default: int) -> int:
        value = options.get(snake, options.get(camel, default))
        return value if isinstance(value, int) and value >= 1 else default

    return JudgeOptions(
        positive("num_samples", "numSamples", DEFAULT_SAMPLES),
        positive("parallelism_limit", "parallelismLimit", 1),
    )


async def ask(judge: BaseLlm, prompt: str) -> str:
    """The judge's answer to ``prompt`` (its text parts, thoughts left out)."""
    request = LlmRequest(
        model=judge.model,
        agent_name="judge",
        contents=[Content(role="user", parts=[Part(text=prompt)])],
    )
    text = ""
    async for response in judge.generate_content_async(request):
        if response.error_code or response.error_message:
            raise JudgeError(response.error_message or response.error_code or "judge error")
        if response.partial or response.content is None:
            continue
        text = "\n".join(p.text for p in response.content.parts if p.text and not p.thought)
    return text


async def ask_all(
    judge: BaseLlm, prompts: Sequence[str], *, parallelism: int = 1
) -> list[str | Exception]:
    """Every prompt's answer, in order; a failed call gives its exception instead."""
    gate = asyncio.Semaphore(max(1, parallelism))

    async def one(prompt: str) -> str | Exception:
        async with gate:
            try:
                return await ask(judge, prompt)
            except Exception as exc:  # a failed sample is reported, never fatal to the eval
                return exc

    return list(await asyncio.gather(*(one(p) for p in prompts)))
